"""Child sessions for out-of-process iframes, and frames as Chrome names them.

`Target.getTargets` is refused to extensions, so the host asks Chrome to auto-attach (flattened)
to a tab's out-of-process frames and learns their sessions from `Target.attachedToTarget`. An
OOPIF's target id is its frame id, which `DOM.describeNode` reports for the iframe element.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from reins._errors import BrowserError, ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.protocol import CdpEvent
from reins.page.poll import poll_until

__all__ = [
    "BrowserFrame",
    "FrameSessions",
    "frame_sessions",
    "frame_tree",
    "owned_frame_id",
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
        await ctx.cdp(
            "Target.setAutoAttach",
            {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
        )
        fs.armed = True
        await asyncio.sleep(0.05)  # attach events for existing frames follow the answer closely
    return fs


async def session_for_frame(ctx: CommandContext, frame_id: str) -> str:
    fs = await frame_sessions(ctx)

    async def attached() -> str:
        session = fs.sessions.get(frame_id)
        if not session:  # its attach event may still be on its way
            raise BrowserError(
                f"no session for out-of-process frame {frame_id}",
                code="frame_unreachable",
                transient=True,
            )
        return session

    return await poll_until(ctx.deadline, attached, interval=0.05, attempts=10)


async def session_for_iframe(
    ctx: CommandContext, iframe_object_id: str, *, session_id: str | None = None
) -> str:
    """The child session of the out-of-process frame an iframe element (a handle in the context
    ``session_id``) shows; ``frame_unreachable`` when it has none."""
    node = (
        await ctx.cdp("DOM.describeNode", {"objectId": iframe_object_id}, session_id=session_id)
    ).get("node") or {}
    frame_id = node.get("frameId")
    if not frame_id:
        raise BrowserError("the iframe has no frame of its own", code="frame_unreachable")
    try:
        return await session_for_frame(ctx, str(frame_id))
    except ReinsError as exc:
        raise BrowserError(
            "no session: in process with an opaque origin (e.g. a data: URL), or not loaded yet",
            code="frame_unreachable",
        ) from exc


@dataclass(frozen=True, slots=True)
class BrowserFrame:
    """A frame as Chrome's frame tree names it: what `state` prints, never the page's word."""

    url: str
    origin: str


async def frame_tree(ctx: CommandContext, session_id: str | None = None) -> dict[str, BrowserFrame]:
    """Frame id -> URL and security origin of every frame in one target's ``Page.getFrameTree``
    (the root first)."""
    answer = await ctx.cdp("Page.getFrameTree", {}, session_id=session_id)
    out: dict[str, BrowserFrame] = {}
    pending = [answer.get("frameTree") or {}]
    while pending:
        node = pending.pop(0)
        frame = node.get("frame") or {}
        if frame.get("id"):
            url = str(frame.get("url") or "") + str(frame.get("urlFragment") or "")
            out[str(frame["id"])] = BrowserFrame(url, str(frame.get("securityOrigin") or ""))
        pending.extend(node.get("childFrames") or [])
    return out


async def owned_frame_id(
    ctx: CommandContext, owner_object_id: str, *, session_id: str | None = None
) -> str | None:
    """The id of the frame an ``<iframe>`` element (a handle) shows, as Chrome's DOM says."""
    node = (
        await ctx.cdp("DOM.describeNode", {"objectId": owner_object_id}, session_id=session_id)
    ).get("node") or {}
    frame_id = node.get("frameId")
    return str(frame_id) if frame_id else None
