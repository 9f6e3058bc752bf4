"""What a command handler sees: the host's state, its tab's state, its deadline, CDP on its tab.

Defined here, below every layer that uses it, so that page, observe, act and commands code can take
a ``CommandContext`` without importing the process entry point (``reins._host``).

Per-tab state is typed: each layer that keeps something about a tab between commands declares a
``TabPart`` subclass next to its code (frame sessions, the dialog watch, the observation store) and
reaches it with ``ctx.part(Kind)``, created on first use. Nothing is keyed by strings. State kept
for the whole host rather than one tab (a running trace) is a ``HostPart``, reached with
``host.part(Kind)``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from reins._errors import BrowserError, ReinsError, UsageError
from reins.bridge.current import CurrentTab
from reins.bridge.deadline import Deadline
from reins.bridge.link import (
    BatchAnswer,
    BatchStep,
    CdpCommand,
    CdpParams,
    CdpResult,
    ExtensionLink,
)
from reins.bridge.protocol import CdpEvent, Request
from reins.bridge.stats import Stats

__all__ = ["CommandContext", "Host", "HostPart", "TabPart", "TabState"]

log = logging.getLogger("reins.host")

# Closed tabs remembered (tab ids are never reused within a browser's life).
_CLOSED_KEPT = 1024

P = TypeVar("P", bound="TabPart")
H = TypeVar("H", bound="HostPart")


class TabPart:
    """State one layer keeps about one tab. Created empty on first use (``TabState.part``)."""

    def handle(self, event: CdpEvent) -> None:
        """A CDP event from the tab (only those subscribed to)."""

    def on_detach(self) -> None:
        """The debugger was detached from the tab: what Chrome kept for the session is gone."""


class HostPart:
    """State one layer keeps for the whole host process. Created empty on first use
    (``Host.part``)."""


@dataclass
class TabState:
    """What the host knows about one tab between commands."""

    tab_id: int
    # CDP events the extension forwards for this tab.
    events: set[str] = field(default_factory=set)
    # A command here timed out or was aborted: probe the tab before the next one (tab_unresponsive).
    suspect: bool = False
    _parts: dict[type[TabPart], TabPart] = field(default_factory=dict)

    def part(self, kind: type[P]) -> P:
        found = self._parts.get(kind)
        if found is None:
            found = self._parts[kind] = kind()
        assert isinstance(found, kind)
        return found

    def dispatch(self, event: CdpEvent) -> None:
        for part in list(self._parts.values()):
            part.handle(event)

    def detached(self) -> None:
        self.events.clear()
        for part in self._parts.values():
            part.on_detach()


@dataclass(frozen=True, slots=True)
class _Held:
    """Work held until ``request``'s answer is out (``Host.after_answer``)."""

    request: Request
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    on_loop: bool


@dataclass
class Host:
    """One host process's state: its profile, the extension link, the tabs it has driven."""

    profile: str
    home: Path
    link: ExtensionLink
    # Started by `reins launch` (or a test harness that counts as one): every tab is reins's.
    launched: bool = False
    current: CurrentTab = field(default_factory=CurrentTab)
    tabs: dict[int, TabState] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)
    started: float = field(default_factory=time.time)
    # Tabs that closed (the extension's `tab_removed`), oldest first: a command given one with
    # --tab answers `target_closed` at once. (The current tab closing is `CurrentTab.lost`: the
    # next command without --tab answers `tab_closed` until the agent picks a tab.)
    closed: dict[int, None] = field(default_factory=dict)
    # One worker: background writes (registries) happen in the order they were asked for.
    _io: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="reins-io")
    )
    _parts: dict[type[HostPart], HostPart] = field(default_factory=dict)
    # Events the extension forwards from a tab the host has not armed itself (it arms the popups
    # of the tabs reins drives: page/dialogs.py), and the part that hears each.
    adopted: dict[str, type[TabPart]] = field(default_factory=dict)
    # Work held until the answer of the request that asked for it is out (``after_answer``),
    # the latest per key.
    _after: dict[object, _Held] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.link.on_tab_gone(self._tab_gone)
        self.link.on_event(self._event)

    def in_background(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the I/O worker; a failure is logged, never raised."""

        def run() -> None:
            try:
                fn(*args)
            except (OSError, ValueError, ReinsError):
                log.exception("background %s failed", getattr(fn, "__name__", fn))

        self._io.submit(run)

    def after_answer(
        self,
        request: Request,
        key: object,
        fn: Callable[..., Any],
        *args: Any,
        on_loop: bool = False,
    ) -> None:
        """Run ``fn(*args)`` once the answer to ``request`` has been written to its client
        (``answered``): on the I/O worker, or with ``on_loop`` on the event loop as soon as the
        answering task is over (its answer and locals let go). A later call with the same ``key``
        replaces this one, and it then waits for the later request's answer.

        For the writes of a command's own results (a registry of 20,000 entries): the worker's
        ``json.dumps`` holds the GIL for its whole run — C code gives it up for no one — so,
        started during the answer, it kept the answer from the socket for that long. Held per
        request: another client's short answer does not release it while this one still drains."""
        self._after.pop(key, None)  # a replaced write goes to the end, after what it follows
        self._after[key] = _Held(request, fn, args, on_loop)

    def answered(self, request: Request | None) -> None:
        """The answer to ``request`` is out (or its client is gone): hand what it held over, in
        the order it was asked for."""
        mine = [key for key, held in self._after.items() if held.request is request]
        self._release([self._after.pop(key) for key in mine])

    def release_held(self) -> None:
        """The host is stopping: hand over everything still held (the writes must not be lost)."""
        held, self._after = list(self._after.values()), {}
        self._release(held)

    def _release(self, held: list[_Held]) -> None:
        """Called on the host's loop (by the control server, or as the host stops)."""
        for item in held:
            if item.on_loop:
                asyncio.get_running_loop().call_soon(item.fn, *item.args)
            else:
                self.in_background(item.fn, *item.args)

    async def background_done(self) -> None:
        """Wait until the I/O worker has done everything asked of it before now."""
        await asyncio.wrap_future(self._io.submit(lambda: None))

    def part(self, kind: type[H]) -> H:
        """The host's state of one layer (created on first use)."""
        found = self._parts.get(kind)
        if found is None:
            found = self._parts[kind] = kind()
        assert isinstance(found, kind)
        return found

    def tab(self, tab_id: int) -> TabState:
        state = self.tabs.get(tab_id)
        if state is None:
            state = self.tabs[tab_id] = TabState(tab_id)
        return state

    def refuse_closed(self, tab_id: int) -> None:
        if tab_id in self.closed:
            which = "the current tab" if tab_id == self.current.tab else "that tab"
            raise BrowserError(f"tab {tab_id} ({which}) was closed", code="target_closed")

    def _tab_gone(self, tab_id: int, code: str, removed: bool) -> None:
        if removed:
            self.tabs.pop(tab_id, None)
            self.current.lost(tab_id)
            self.closed[tab_id] = None
            while len(self.closed) > _CLOSED_KEPT:
                del self.closed[next(iter(self.closed))]
        elif code == "target_closed":
            # Chrome let go of the tab's target. The tab may be closing — its `tab_removed`
            # follows and says it is gone — or still open: a link that hands its URL to another
            # application (mailto:, tel:) replaces the target. Only the browser's word, not this
            # guess, makes the agent's tab lost.
            self.tabs.pop(tab_id, None)
        else:
            state = self.tabs.get(tab_id)
            if state is not None:  # detached: subscriptions and enabled domains must be made again
                state.detached()

    def _event(self, event: CdpEvent) -> None:
        state = self.tabs.get(event.tabId)
        kind = self.adopted.get(event.method)
        if kind is not None:
            # Forwarded, so subscribed (by the extension, for a popup): heard from now on.
            state = self.tab(event.tabId)
            state.part(kind)
            state.events |= set(self.adopted)
        if state is not None:
            state.dispatch(event)

    async def default_tab(self, deadline: Deadline) -> int:
        """The tab a command without ``--tab`` runs in: the one the agent picked. Never another
        one in its place (``tab_closed``); in the user's own profile never one the agent did not
        pick (``no_tab``)."""
        current = self.current
        if current.unconfirmed and current.tab is not None:  # remembered by an earlier host
            listed = await self.link.request("tabs.list", deadline)
            if any(t.get("id") == current.tab for t in listed):
                current.confirmed()
            else:
                current.lost(current.tab)
        tab_id = current.require()
        if tab_id is not None:
            return tab_id
        if not self.launched:
            raise BrowserError("reins has no tab in this browser yet", code="no_tab")
        tab = await self.link.request("tabs.current", deadline)
        current.choose(int(tab["id"]))
        return int(tab["id"])


@dataclass
class CommandContext:
    """One command's view of the host: its deadline, its tab, and CDP on that tab."""

    host: Host
    deadline: Deadline
    tab_id: int | None
    request: Request

    @property
    def tab(self) -> int:
        if self.tab_id is None:
            raise UsageError(f"{self.request.cmd} needs a tab")
        return self.tab_id

    @property
    def tab_state(self) -> TabState:
        return self.host.tab(self.tab)

    def part(self, kind: type[P]) -> P:
        """This tab's state of one layer (created on first use)."""
        return self.tab_state.part(kind)

    def note(self, what: str) -> None:
        """Count an event for `reins stats` (a fallback taken, a ref recovered…)."""
        self.host.stats.note(what)

    def after_answer(
        self, key: object, fn: Callable[..., Any], *args: Any, on_loop: bool = False
    ) -> None:
        """Run ``fn(*args)`` once this command's answer is out (``Host.after_answer``)."""
        self.host.after_answer(self.request, key, fn, *args, on_loop=on_loop)

    async def cdp(
        self,
        method: str,
        params: CdpParams | None = None,
        *,
        session_id: str | None = None,
        deadline: Deadline | None = None,
    ) -> CdpResult:
        return await self.host.link.cdp(
            self.tab, method, params, deadline=deadline or self.deadline, session_id=session_id
        )

    async def cdp_batch(
        self,
        commands: list[CdpCommand],
        *,
        session_id: str | None = None,
        sequential: bool = False,
        each: list[BatchStep] | None = None,
        answer_within_ms: int | None = None,
    ) -> list[BatchAnswer]:
        return await self.host.link.cdp_batch(
            self.tab,
            commands,
            deadline=self.deadline,
            session_id=session_id,
            sequential=sequential,
            each=each,
            answer_within_ms=answer_within_ms,
        )

    async def subscribe(self, *events: str) -> None:
        state = self.tab_state
        wanted = state.events | set(events)
        if wanted != state.events:
            await self.host.link.request(
                "subscribe", self.deadline, tab_id=self.tab, events=sorted(wanted)
            )
            state.events = wanted
