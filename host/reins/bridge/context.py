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

from reins._errors import ReinsError, UsageError
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import CdpEvent, Request
from reins.bridge.stats import Stats

__all__ = ["CommandContext", "Host", "HostPart", "TabPart", "TabState"]

log = logging.getLogger("reins.host")

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


@dataclass
class Host:
    """One host process's state: its profile, the extension link, the tabs it has driven."""

    profile: str
    home: Path
    link: ExtensionLink
    current_tab: int | None = None
    tabs: dict[int, TabState] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)
    started: float = field(default_factory=time.time)
    # One worker: background writes (registries) happen in the order they were asked for.
    _io: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="reins-io"))
    _parts: dict[type[HostPart], HostPart] = field(default_factory=dict)

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

    def _tab_gone(self, tab_id: int, code: str) -> None:
        if code == "target_closed":
            self.tabs.pop(tab_id, None)
            if self.current_tab == tab_id:
                self.current_tab = None
        else:
            state = self.tabs.get(tab_id)
            if state is not None:  # detached: subscriptions and enabled domains must be made again
                state.detached()

    def _event(self, event: CdpEvent) -> None:
        state = self.tabs.get(event.tabId)
        if state is not None:
            state.dispatch(event)

    async def default_tab(self, deadline: Deadline) -> int:
        if self.current_tab is not None:
            return self.current_tab
        tab = await self.link.request("tabs.current", deadline)
        self.current_tab = int(tab["id"])
        return self.current_tab


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

    async def cdp(
        self, method: str, params: dict[str, Any] | None = None, *, session_id: str | None = None,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        return await self.host.link.cdp(
            self.tab, method, params, deadline=deadline or self.deadline, session_id=session_id
        )

    async def cdp_batch(
        self, commands: list[tuple[str, dict[str, Any]]], *, session_id: str | None = None,
        sequential: bool = False,
    ) -> list[dict[str, Any] | ReinsError]:
        return await self.host.link.cdp_batch(self.tab, commands, deadline=self.deadline,
                                              session_id=session_id, sequential=sequential)

    async def subscribe(self, *events: str) -> None:
        state = self.tab_state
        wanted = state.events | set(events)
        if wanted != state.events:
            await self.host.link.request(
                "subscribe", self.deadline, tab_id=self.tab, events=sorted(wanted)
            )
            state.events = wanted
