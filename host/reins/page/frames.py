"""Child sessions for out-of-process iframes, and evaluation in the right frame.

`Target.getTargets` is refused to extensions, so the host asks Chrome to auto-attach (flattened)
to a tab's out-of-process frames and learns their sessions from `Target.attachedToTarget`. An
OOPIF's target id is its frame id, which `DOM.describeNode` reports for the iframe element.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from reins._errors import BrowserError, EvaluateError, ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.deadline import HEADROOM_MS
from reins.bridge.protocol import CdpEvent

__all__ = [
    "FrameSessions",
    "call_function",
    "evaluate_value",
    "frame_sessions",
    "session_for_iframe",
]

_ATTACH_EVENTS = ("Target.attachedToTarget", "Target.detachedFromTarget")


@dataclass
class FrameSessions(TabPart):
    """OOPIF sessions of one tab: frame (target) id -> session id, and their URLs."""

    sessions: dict[str, str] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    armed: bool = False

    def handle(self, event: CdpEvent) -> None:
        params = event.params
        if event.method == "Target.attachedToTarget":
            info = params.get("targetInfo") or {}
            if info.get("type") == "iframe":
                self.sessions[str(info.get("targetId"))] = str(params.get("sessionId"))
                self.urls[str(info.get("targetId"))] = str(info.get("url", ""))
        elif event.method == "Target.detachedFromTarget":
            gone = params.get("sessionId")
            for frame_id, session in list(self.sessions.items()):
                if session == gone:
                    self.sessions.pop(frame_id, None)
                    self.urls.pop(frame_id, None)


async def frame_sessions(ctx: CommandContext) -> FrameSessions:
    """The tab's OOPIF sessions, auto-attaching on first use."""
    fs = ctx.part(FrameSessions)
    if not fs.armed or not set(_ATTACH_EVENTS) <= ctx.tab_state.events:
        await ctx.subscribe(*_ATTACH_EVENTS)
        await ctx.cdp("Target.setAutoAttach",
                      {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True})
        fs.armed = True
        await asyncio.sleep(0.05)  # attach events for existing frames follow the answer closely
    return fs


async def session_for_frame(ctx: CommandContext, frame_id: str) -> str:
    fs = await frame_sessions(ctx)
    for _ in range(10):
        session = fs.sessions.get(frame_id)
        if session:
            return session
        await asyncio.sleep(0.05)
    raise BrowserError(f"no session for out-of-process frame {frame_id}", code="frame_unreachable")


async def session_for_iframe(ctx: CommandContext, iframe_object_id: str, *,
                             session_id: str | None = None) -> str:
    """The child session of the out-of-process frame an iframe element (a handle in the context
    ``session_id``) shows; ``frame_unreachable`` when it has none."""
    node = (await ctx.cdp("DOM.describeNode", {"objectId": iframe_object_id},
                          session_id=session_id)).get("node") or {}
    frame_id = node.get("frameId")
    if not frame_id:
        raise BrowserError("the iframe has no frame of its own", code="frame_unreachable")
    try:
        return await session_for_frame(ctx, str(frame_id))
    except ReinsError as exc:
        raise BrowserError("no session: in process with an opaque origin (e.g. a data: URL), or "
                           "not loaded yet", code="frame_unreachable") from exc


def _timeout_ms(ctx: CommandContext) -> int:
    return max(1, ctx.deadline.remaining_ms(headroom_ms=HEADROOM_MS))


def _raise_exception(result: dict[str, Any], what: str) -> None:
    details = result.get("exceptionDetails")
    if not details:
        return
    exc = details.get("exception") or {}
    text = exc.get("description") or details.get("text") or "exception"
    if "Execution was terminated" in str(text):
        raise ReinsError(f"{what}: stopped at the end of its budget", code="timeout", transient=True)
    raise EvaluateError(f"{what}: {str(text).splitlines()[0]}", code="eval_exception",
                        details={"line": details.get("lineNumber"),
                                 "column": details.get("columnNumber")})


async def evaluate_value(ctx: CommandContext, expression: str, *, session_id: str | None = None,
                         await_promise: bool = False, what: str = "page script") -> Any:
    """Run a reins page script and return its value (by value)."""
    result = await ctx.cdp("Runtime.evaluate", {
        "expression": expression, "returnByValue": True, "awaitPromise": await_promise,
        "timeout": _timeout_ms(ctx)}, session_id=session_id)
    _raise_exception(result, what)
    return (result.get("result") or {}).get("value")


async def evaluate_handle(ctx: CommandContext, expression: str, *, session_id: str | None = None,
                          what: str = "page script") -> str | None:
    """Run a reins page script and return an object id for its result (None for null)."""
    result = await ctx.cdp("Runtime.evaluate", {
        "expression": expression, "returnByValue": False, "timeout": _timeout_ms(ctx),
        "objectGroup": "reins"}, session_id=session_id)
    _raise_exception(result, what)
    obj = result.get("result") or {}
    object_id = obj.get("objectId")
    return str(object_id) if object_id and obj.get("subtype") != "null" else None


async def call_function(ctx: CommandContext, object_id: str, declaration: str, *args: Any,
                        session_id: str | None = None, await_promise: bool = False,
                        by_value: bool = True, what: str = "page script") -> Any:
    """Call ``declaration`` with ``this`` bound to the object; JSON arguments."""
    result = await ctx.cdp("Runtime.callFunctionOn", {
        "objectId": object_id, "functionDeclaration": declaration,
        "arguments": [{"value": a} for a in args], "returnByValue": by_value,
        "awaitPromise": await_promise}, session_id=session_id)
    _raise_exception(result, what)
    obj = result.get("result") or {}
    if by_value:
        return obj.get("value")
    return obj.get("objectId")
