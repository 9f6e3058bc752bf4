"""The host's side of the extension link: requests correlated by id, each under a deadline."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from reins._errors import (
    BrowserError,
    ConnectionFailure,
    DeadlineExceeded,
    ReinsError,
    from_cdp_error,
)
from reins.bridge.deadline import Deadline
from reins.bridge.protocol import (
    CdpEvent,
    Detached,
    ExtensionAnswer,
    Hello,
    Paused,
    TabRemoved,
    parse_extension_message,
)

__all__ = [
    "BatchAnswer",
    "BatchStep",
    "CdpCommand",
    "CdpParams",
    "CdpResult",
    "ExtensionLink",
    "PressGuard",
]

log = logging.getLogger("reins.bridge")

EventHandler = Callable[[CdpEvent], None]

# ---- the CDP boundary: what is sent to Chrome and what it answers, as JSON ----
# A CDP method's parameters as sent: JSON the caller builds for that method, read by Chrome.
CdpParams = dict[str, Any]
# A CDP method's result as Chrome answered it: raw JSON, read and checked by whoever asked for it.
CdpResult = dict[str, Any]
# One command of a batch: (method, parameters).
CdpCommand = tuple[str, CdpParams]
# One answer of a batch: the command's result, or the typed error it failed with.
BatchAnswer = CdpResult | ReinsError


class PressGuard(TypedDict):
    """A command sent only if the hit test at index ``hit`` of the batch reaches the target's
    tree (at ``tree``), the layout metrics (at ``metrics``) show the scroll the host assumed
    and, with ``noDialog``, no dialog opened since the batch began (extension/hitguard.js)."""

    tree: int
    hit: int
    metrics: int
    scroll: list[float]
    noDialog: bool


class BatchStep(TypedDict, total=False):
    """What a batch adds to one of its commands (extension/sequencer.js): another session; in a
    sequential batch, ``noWait`` (the next is sent without waiting for this answer),
    ``stopIfThrown`` (a page function that throws ends the batch), ``fill`` (parameters taken
    from an earlier answer: parameter path → [answer index, path in it …]) and ``onlyIf``."""

    sessionId: str
    noWait: bool
    stopIfThrown: bool
    fill: dict[str, list[int | str]]
    onlyIf: PressGuard


# Why the extension let go of a tab, by the code it gave (a command in flight is answered with it).
_WHY_GONE = {
    "detached_by_user": "was stopped by the user (Cancel on the debugging bar)",
    "tab_not_reins": "was taken back by the user",
    "page_refused": "went to a page reins does not drive",
}
# (tab id, error code for what was in flight, whether the tab itself is gone rather than detached)
TabGoneHandler = Callable[[int, str, bool], None]


# The requests that run in a tab's debugging session: a tab let go of fails them. The others
# (tabs.navigate, tabs.close...) the extension answers itself, whatever the session: a late word
# that the tab was let go of (it went to a chrome:// page) must not fail the navigate that leads
# it out.
_IN_SESSION = frozenset({"cdp", "cdp_batch", "world", "subscribe"})


@dataclass
class _Pending:
    future: asyncio.Future[Any]
    tab_id: int | None
    what: str
    in_session: bool = True


@dataclass
class ExtensionLink:
    """Sends requests to the extension and routes what it sends back."""

    send: Callable[[dict[str, Any]], None]
    hello: Hello | None = None
    paused: bool = False
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    _pending: dict[int, _Pending] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _event_handlers: list[EventHandler] = field(default_factory=list)
    _tab_gone_handlers: list[TabGoneHandler] = field(default_factory=list)

    # ---- outgoing ----

    async def request(
        self, kind: str, deadline: Deadline, *, tab_id: int | None = None, **fields: Any
    ) -> Any:
        what = fields.get("method") or kind
        deadline.check(str(what))
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        message: dict[str, Any] = {"id": request_id, "type": kind, **fields}
        if tab_id is not None:
            message["tabId"] = tab_id
        self.send(message)  # raises message_too_large before anything is pending
        self._pending[request_id] = _Pending(future, tab_id, str(what), kind in _IN_SESSION)
        try:
            return await asyncio.wait_for(future, deadline.remaining())
        except TimeoutError:
            raise DeadlineExceeded(
                f"{what}: no answer within the {deadline.budget_ms} ms budget"
            ) from None
        finally:
            self._pending.pop(request_id, None)

    async def cdp(
        self,
        tab_id: int,
        method: str,
        params: CdpParams | None = None,
        *,
        deadline: Deadline,
        session_id: str | None = None,
    ) -> CdpResult:
        fields: dict[str, Any] = {"method": method, "params": params or {}}
        if session_id:
            fields["sessionId"] = session_id
        result = await self.request("cdp", deadline, tab_id=tab_id, **fields)
        return result if isinstance(result, dict) else {}

    async def world(
        self,
        tab_id: int,
        *,
        deadline: Deadline,
        session_id: str | None = None,
        frame_id: str | None = None,
    ) -> dict[str, Any]:
        """reins's own isolated world in a frame of the tab (the top frame of the session unless
        ``frame_id``): ``{executionContextId, frameId}``, made or found by the extension."""
        fields: dict[str, Any] = {}
        if session_id:
            fields["sessionId"] = session_id
        if frame_id:
            fields["frameId"] = frame_id
        result = await self.request("world", deadline, tab_id=tab_id, **fields)
        return result if isinstance(result, dict) else {}

    async def cdp_batch(
        self,
        tab_id: int,
        commands: list[CdpCommand],
        *,
        deadline: Deadline,
        session_id: str | None = None,
        sequential: bool = False,
        each: list[BatchStep] | None = None,
        answer_within_ms: int | None = None,
    ) -> list[BatchAnswer]:
        """Run many commands in one round trip; each answer is a result or a typed error.

        ``sequential`` runs them in order, each after the previous answered, stopping at the first
        failure (the answers then end there). ``each`` adds fields to the commands one by one:
        ``sessionId`` (another session than ``session_id``), and, in a sequential batch,
        ``noWait`` (send the next command without waiting for this one's answer: input events,
        which Chrome keeps in order; the answers are still awaited before the next command that
        waits, and any failure among them ends the batch there). ``answer_within_ms`` (sequential):
        past it the batch answers what it has, the command still running as a ``timeout``."""
        payload = [
            {"method": m, "params": p, **(each[i] if each and i < len(each) else {})}
            for i, (m, p) in enumerate(commands)
        ]
        fields: dict[str, Any] = {"commands": payload}
        if sequential:
            fields["sequential"] = True
            if answer_within_ms is not None:
                fields["answerWithinMs"] = max(1, answer_within_ms)
        if session_id:
            fields["sessionId"] = session_id
        raw = await self.request("cdp_batch", deadline, tab_id=tab_id, **fields)
        out: list[BatchAnswer] = []
        for (method, _), item in zip(commands, raw or [], strict=False):
            if item.get("ok"):
                out.append(item.get("result") or {})
            else:
                out.append(from_cdp_error(method, item.get("error") or {}))
        return out

    @property
    def browser_run(self) -> str | None:
        """Which run of the browser this is (the extension's ``chrome.storage.session`` id, new
        at each browser start, kept across service-worker restarts), if it said: tab ids mean
        something only within one."""
        return self.hello.session if self.hello is not None else None

    def has(self, feature: str) -> bool:
        """Did the extension say in its hello that it does ``feature`` (an older one did not)?"""
        return self.hello is not None and feature in self.hello.features

    @property
    def pending_count(self) -> int:
        """Requests sent to the extension that nothing has answered, failed or given up on yet."""
        return len(self._pending)

    # ---- incoming ----

    def on_tab_gone(self, handler: TabGoneHandler) -> None:
        self._tab_gone_handlers.append(handler)

    def on_event(self, handler: EventHandler) -> None:
        self._event_handlers.append(handler)

    def receive(self, raw: Any) -> None:
        try:
            message = parse_extension_message(raw)
        except ReinsError as exc:
            log.warning("dropped a message from the extension: %s", exc)
            return
        if isinstance(message, ExtensionAnswer):
            pending = self._pending.get(message.id)
            if pending is None or pending.future.done():
                return  # late answer to a request that already timed out
            if message.ok:
                pending.future.set_result(message.result)
            else:
                error = message.error.model_dump() if message.error else {}
                pending.future.set_exception(from_cdp_error(pending.what, error))
        elif isinstance(message, Hello):
            self.hello = message
            self.paused = message.paused
            self.connected.set()
        elif isinstance(message, Paused):
            self.paused = message.paused
        elif isinstance(message, CdpEvent):
            for handler in list(self._event_handlers):
                handler(message)
        elif isinstance(message, Detached | TabRemoved):
            removed = isinstance(message, TabRemoved)
            code = message.code if isinstance(message, Detached) else "target_closed"
            self._fail_tab(message.tabId, code, everything=removed)
            for gone in list(self._tab_gone_handlers):
                gone(message.tabId, code, removed)

    def _fail_tab(self, tab_id: int, code: str, *, everything: bool) -> None:
        """Fail what is in flight for a tab: everything when the tab is gone, only what runs in
        its debugging session when the extension let go of it."""
        why = _WHY_GONE.get(code, "went away")
        for pending in list(self._pending.values()):
            if pending.tab_id != tab_id or not (everything or pending.in_session):
                continue
            if not pending.future.done():
                pending.future.set_exception(
                    BrowserError(f"{pending.what}: tab {tab_id} {why}", code=code)
                )

    def disconnected(self) -> None:
        self.connected.clear()
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(
                    ConnectionFailure(f"{pending.what}: the extension disconnected")
                )
