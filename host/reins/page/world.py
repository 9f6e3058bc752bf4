"""reins's own world: an isolated world the extension makes in a frame for reins, where the page's
replaced built-ins, getters and globals are not there (../shared/PLATFORM.md, "Isolated worlds").

``own_world`` asks the extension for it (get-or-create, per frame and session); its context id is
the one an explicit ``contextId``/``executionContextId`` may name, and only while it is still
reins's world there (the extension confirms that with Chrome before each such command; a stale id
answers ``context_gone`` and is asked for again here, once). ``in_own_world`` hands an element
over into it: Chrome's own backend node id, resolved there, so a call on the handle
(``call_function``) runs reins's page function with the world's built-ins. reins's page scripts
run here (``page/call.OWN_WORLD``: the extension names the world of the session's top frame);
``reins eval`` stays in the page's world by design (``in_page_world`` hands it an element).

The extension says ``ownWorld`` in its hello when it can; an older one cannot
(``has_own_world``), and the callers then read in the page's world as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reins._errors import BrowserError, ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.page.call import OWN_WORLD
from reins.page.frames import frame_tree

__all__ = [
    "OwnWorld",
    "RawContexts",
    "has_own_world",
    "in_own_world",
    "in_page_world",
    "node_in_own_world",
    "note_raw_answer",
    "own_world",
    "reaches_own_world",
]

# The group world handles are kept in (released with the command's other handles).
WORLD_GROUP = "reins"


@dataclass(frozen=True, slots=True)
class OwnWorld:
    """reins's world in one frame of one session (``context_id`` is per session)."""

    context_id: int
    frame_id: str
    session_id: str | None = None


@dataclass
class RawContexts(TabPart):
    """The execution contexts (session, ``isolate.context``) of the objects raw CDP was answered
    in this tab: the only ones a raw command may name an object of (``reaches_own_world``)."""

    seen: set[tuple[str | None, str]] = field(default_factory=set)

    def on_detach(self) -> None:
        self.seen.clear()


def _context_of(object_id: Any) -> str | None:
    parts = str(object_id).split(".")
    return f"{parts[0]}.{parts[1]}" if len(parts) == 3 and parts[1].isdigit() else None


def note_raw_answer(ctx: CommandContext, answer: Any, session_id: str | None) -> None:
    """Keep the contexts of the objects a raw CDP answer handed out (``reaches_own_world``)."""
    seen = ctx.part(RawContexts).seen
    stack = [answer]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            context = _context_of(item.get("objectId")) if "objectId" in item else None
            if context is not None:
                seen.add((session_id, context))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def reaches_own_world(
    ctx: CommandContext, params: dict[str, Any], session_id: str | None = None
) -> bool:
    """Could raw CDP with ``params`` touch an object of reins's world? V8 names a remote object
    ``isolate.context.number``, all three easy to learn or guess (measured: a main-world handle
    gives the isolate, and ``isolate.<world>.1`` then called a function in reins's world), and
    reins's page scripts run in worlds whose numbers the extension picks. So a raw command may
    name only objects of a context raw CDP itself was handed an object of in this tab (the
    page's world: raw CDP runs nowhere else); any other ``objectId`` is refused."""
    seen = ctx.part(RawContexts).seen
    named = [params.get("objectId")]
    arguments = params.get("arguments")
    if isinstance(arguments, list):
        named += [a.get("objectId") for a in arguments if isinstance(a, dict)]
    for object_id in named:
        if object_id is None:
            continue
        context = _context_of(object_id)
        if context is None or (session_id, context) not in seen:
            return True
    return False


def has_own_world(ctx: CommandContext) -> bool:
    """Can the extension make reins's world (its hello said ``ownWorld``)?"""
    return ctx.host.link.has("ownWorld")


async def own_world(
    ctx: CommandContext, *, session_id: str | None = None, frame_id: str | None = None
) -> OwnWorld:
    """reins's world in a frame of the tab: ``frame_id``, or the top frame of ``session_id``'s
    target (the tab, or an out-of-process frame's child session)."""
    if not has_own_world(ctx):
        raise BrowserError(
            "this reins extension cannot make reins's own world",
            code="cdp_blocked",
            hint="reload the reins extension (chrome://extensions) so it matches this host",
        )
    answer = await ctx.host.link.world(
        ctx.tab, deadline=ctx.deadline, session_id=session_id, frame_id=frame_id
    )
    world = OwnWorld(int(answer["executionContextId"]), str(answer["frameId"]), session_id)
    return world


def _gone(exc: ReinsError) -> bool:
    return exc.chrome == "context_gone"


async def _resolve(ctx: CommandContext, backend_node_id: int, world: OwnWorld) -> str | None:
    remote = (
        await ctx.cdp(
            "DOM.resolveNode",
            {
                "backendNodeId": backend_node_id,
                "executionContextId": world.context_id,
                "objectGroup": WORLD_GROUP,
            },
            session_id=world.session_id,
        )
    ).get("object") or {}
    object_id = remote.get("objectId")
    return str(object_id) if object_id else None


async def in_own_world(
    ctx: CommandContext, object_id: str, *, session_id: str | None = None
) -> str:
    """The handle, in reins's world, of the node ``object_id`` names (a handle of any world of
    ``session_id``'s target): the node as Chrome's DOM knows it (its backend node id), resolved
    in reins's world of the frame whose document holds it. The top frame is tried first, then
    the session's other frames (an in-process iframe's node belongs to its own frame's world)."""
    described = await ctx.cdp("DOM.describeNode", {"objectId": object_id}, session_id=session_id)
    node = described.get("node") or {}
    backend = node.get("backendNodeId")
    if not isinstance(backend, int):
        raise BrowserError("the element has no node in Chrome's DOM", code="ref_stale")
    return await node_in_own_world(ctx, backend, session_id=session_id)


async def node_in_own_world(
    ctx: CommandContext, backend_node_id: int, *, session_id: str | None = None
) -> str:
    """The handle, in reins's world, of the node Chrome's DOM knows as ``backend_node_id``: in
    one call when it is in the session's top document (the extension names reins's world there),
    else through the session's other frames (``in_own_world``)."""
    try:
        remote = (
            await ctx.cdp(
                "DOM.resolveNode",
                {
                    "backendNodeId": backend_node_id,
                    "executionContextId": OWN_WORLD,
                    "objectGroup": WORLD_GROUP,
                },
                session_id=session_id,
            )
        ).get("object") or {}
        if remote.get("objectId"):
            return str(remote["objectId"])
    except BrowserError as exc:
        if exc.code != "cdp_error":
            raise
    return await _in_some_frame(ctx, backend_node_id, session_id)


async def _in_some_frame(ctx: CommandContext, backend: int, session_id: str | None) -> str:
    tried: list[str] = []
    frames: list[str | None] = [None]
    while frames:
        frame_id = frames.pop(0)
        try:
            world = await own_world(ctx, session_id=session_id, frame_id=frame_id)
            if world.frame_id in tried:
                continue
            tried.append(world.frame_id)
            try:
                found = await _resolve(ctx, backend, world)
            except BrowserError as exc:
                if not _gone(exc):
                    raise
                # The document changed between the two: the world once more, then give up.
                found = await _resolve(
                    ctx, backend, await own_world(ctx, session_id=session_id, frame_id=frame_id)
                )
        except BrowserError as exc:
            if exc.code != "cdp_error" or _gone(exc):
                raise
            found = None  # not this frame's node ("does not belong to the document")
        if found is not None:
            return found
        if frame_id is None:
            frames = [f for f in await frame_tree(ctx, session_id) if f not in tried]
    raise BrowserError("no frame of this tab holds the element now", code="ref_stale")


async def in_page_world(
    ctx: CommandContext, object_id: str, *, session_id: str | None = None
) -> str:
    """The handle, in the page's own world, of the node ``object_id`` names (for ``reins eval``
    on a target: the user's script runs in the page's world)."""
    described = await ctx.cdp("DOM.describeNode", {"objectId": object_id}, session_id=session_id)
    backend = (described.get("node") or {}).get("backendNodeId")
    if not isinstance(backend, int):
        raise BrowserError("the element has no node in Chrome's DOM", code="ref_stale")
    remote = (
        await ctx.cdp(
            "DOM.resolveNode",
            {"backendNodeId": backend, "objectGroup": WORLD_GROUP},
            session_id=session_id,
        )
    ).get("object") or {}
    if not remote.get("objectId"):
        raise BrowserError("the element has no node in the page's world", code="ref_stale")
    return str(remote["objectId"])
