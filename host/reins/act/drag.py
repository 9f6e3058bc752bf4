"""Drag: a real pointer drag from one element to another, as pointer-sensor libraries (dnd-kit,
SortableJS, react-beautiful-dnd's mouse sensor) expect it, and the browser's own HTML5 drag and
drop when the page starts one.

Press at the source's actionable point, then several ``mouseMoved`` events with the left button
held (``buttons: 1``), one animation frame apart — the first a few pixels only, past the usual
activation distance but before any "it was a click" timeout — and release over the destination
(its middle, or ``position`` from its top-left corner, in whole pixels: drag events carry integer
coordinates).

Native drag and drop: a move with the button held over a ``draggable`` element makes Chrome start
a drag session, which on some platforms is the operating system's own drag loop — synthetic mouse
events never reach it and the element sticks to a cursor that is not there. So while reins drags
it has Chrome hand the session over (``Input.setInterceptDrags``): when the page fired a dragstart
it did not cancel (``dragStarted``, read in the page), the drag goes on as ``Input.dispatchDragEvent``
dragEnter, dragOver at each step and drop at the end, with the data Chrome intercepted
(``Input.dragIntercepted``, never with files). Interception is switched off again before the
answer, and a drag that fails half-way is cancelled (``dragCancel``): a tab left holding an
intercepted drag takes no more pointer input.

The answer says where the source sat before and after (``moved``: container and index, read in the
page, finding the element again when a framework replaced it), or ``moved: null``.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TypedDict, cast

from reins._errors import BrowserError, ReinsError, ResolutionError
from reins.act.actionability import Point, actionable_point
from reins.act.answers import ActionAnswer, Dragged, DraggedWire, Fields
from reins.act.effects import act_on
from reins.act.locate import Resolved
from reins.act.mouse import MousePosition, mouse_event
from reins.act.pointer import move_and_hit
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.protocol import CdpEvent
from reins.page.call import call_function

__all__ = ["DragFields", "DragIntercept", "drag_element"]


class DragFields(Fields, total=False):
    """drag's own answer field: the drag (``Dragged``)."""

    drag: DraggedWire


# Moves between press and release, and the pause between them (about one frame).
_STEPS = 12
_STEP_PAUSE_S = 0.02
# The first move: enough to pass a library's activation distance (dnd-kit's is often 5-8 px) and
# Chrome's native drag threshold (4 px).
_NUDGE_PX = 10.0
# Chrome starts a native drag within the first moves past its threshold: the page is asked after
# this many moves whether it did, not after every one.
_NATIVE_CHECKS = 3
# How long to wait for Chrome's dragIntercepted once the page saw its dragstart.
_INTERCEPT_WAIT_S = 2.0

INTERCEPTED = "Input.dragIntercepted"


class DragItem(TypedDict, total=False):
    """One item of a native drag's data (CDP ``Input.DragDataItem``)."""

    mimeType: str
    data: str
    title: str
    baseURL: str


class DragData(TypedDict, total=False):
    """What a native drag carries (CDP ``Input.DragData``): its items, the files dropped (never
    sent back by reins) and the operations the source allows."""

    items: list[DragItem]
    files: list[str]
    dragOperationsMask: int


@dataclass
class DragIntercept(TabPart):
    """The drag data Chrome handed over (``Input.dragIntercepted``) while reins intercepts."""

    data: DragData | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def handle(self, event: CdpEvent) -> None:
        if event.method == INTERCEPTED and not event.sessionId:
            data = event.params.get("data")
            self.data = cast(DragData, data) if isinstance(data, dict) else {}
            self.arrived.set()

    def clear(self) -> None:
        self.data = None
        self.arrived.clear()


async def drag_element(
    ctx: CommandContext, source: Resolved, dest: Resolved, position: tuple[float, float] | None
) -> ActionAnswer[DragFields]:
    if source.session_id is not None or dest.session_id is not None:
        raise ResolutionError(
            "drag works in the main frame and same-origin frames", code="frame_unreachable"
        )
    if await actionable_point(ctx, dest, need_enabled=False) is None:
        raise ResolutionError("the destination has no box to drop on", code="not_visible")

    async def do(target: Resolved) -> DragFields:
        start = await actionable_point(ctx, target)
        if start is None:
            raise ResolutionError("the source has no box to press", code="not_visible")
        box = await call_function(ctx, dest.object_id, "viewportBox", what="drag")
        if not box:
            raise ResolutionError("the destination left the page", code="ref_stale", transient=True)
        x, y, w, h = (float(v) for v in box)
        px, py = position if position else (w / 2, h / 2)
        end = Point(round(x + px), round(y + py))
        before = await call_function(ctx, target.object_id, "dragBefore", what="drag")
        native = await _drag(ctx, target, start, end)
        after = await call_function(
            ctx, target.object_id, "dragAfter", before["key"], await_promise=True, what="drag"
        )
        moved = None if after == before["place"] else (before["place"], after)
        start_at = (round(start.x, 1), round(start.y, 1))
        return {"drag": Dragged(start_at, (int(end.x), int(end.y)), native, moved).to_wire()}

    return await act_on(ctx, source, do)


async def _drag(ctx: CommandContext, source: Resolved, start: Point, end: Point) -> bool:
    """Press, move, release (or drop); True when it went on as a native drag."""
    intercept = await _intercept(ctx)
    drag = _NativeDrag(ctx)
    released = False
    try:
        # The move, then Chrome's hit test where the press would go (issue 45): a frame or an
        # element laid over the source gets no press.
        await move_and_hit(ctx, source, start)
        await mouse_event(ctx, "mousePressed", start.x, start.y, button="left", clickCount=1)
        for n, point in enumerate(_path(start, end)):
            if n:
                await asyncio.sleep(_STEP_PAUSE_S)
            if drag.data is not None:
                await drag.send("dragOver", point)
                continue
            await mouse_event(ctx, "mouseMoved", point.x, point.y, button="left")
            if intercept is not None and n < _NATIVE_CHECKS:
                await drag.begin_if_started(intercept, source, point)
        await asyncio.sleep(_STEP_PAUSE_S)
        if drag.data is not None:
            await drag.send("drop", end)
            drag.data = None
            # The drop ended the drag: the page gets no mouseup (as with a person's drop).
            ctx.part(MousePosition).buttons = 0
        else:
            await mouse_event(ctx, "mouseReleased", end.x, end.y, button="left", clickCount=1)
        released = True
    finally:
        if drag.data is not None:
            with contextlib.suppress(ReinsError):
                await drag.send("dragCancel", end)
        if not released and ctx.part(MousePosition).buttons & 1:
            with contextlib.suppress(ReinsError):  # never leave the page's button held
                await mouse_event(ctx, "mouseReleased", end.x, end.y, button="left", clickCount=1)
        if intercept is not None:
            intercept.clear()
            with contextlib.suppress(ReinsError):
                await ctx.cdp("Input.setInterceptDrags", {"enabled": False})
    return drag.native


def _path(start: Point, end: Point) -> list[Point]:
    """The moves with the button held: a short nudge first, then even steps to the end."""
    dx, dy = end.x - start.x, end.y - start.y
    length = max((dx * dx + dy * dy) ** 0.5, 1.0)
    nudge = min(_NUDGE_PX, length)
    first = Point(start.x + dx / length * nudge, start.y + dy / length * nudge)
    steps = [
        Point(start.x + dx * step / _STEPS, start.y + dy * step / _STEPS)
        for step in range(1, _STEPS + 1)
    ]
    return [first, *steps]


async def _intercept(ctx: CommandContext) -> DragIntercept | None:
    """Have Chrome hand native drags over; None when the extension does not allow it (an older
    one): the drag is then mouse events only, which native drag and drop may not follow."""
    watch = ctx.part(DragIntercept)
    watch.clear()
    try:
        await ctx.subscribe(INTERCEPTED)
        await ctx.cdp("Input.setInterceptDrags", {"enabled": True})
    except ReinsError as exc:
        if exc.code != "cdp_blocked":
            raise
        ctx.note("drag_intercept_blocked")
        return None
    return watch


class _NativeDrag:
    """A native drag Chrome handed over: its data, sent back with each drag event."""

    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx
        self.data: DragData | None = None
        self.native = False

    async def begin_if_started(
        self, intercept: DragIntercept, source: Resolved, point: Point
    ) -> None:
        if not intercept.arrived.is_set():
            started = await call_function(self.ctx, source.object_id, "dragStarted", what="drag")
            if not started:
                return
            wait = min(_INTERCEPT_WAIT_S, self.ctx.deadline.remaining())
            try:
                await asyncio.wait_for(intercept.arrived.wait(), timeout=max(wait, 0.0))
            except TimeoutError:
                raise BrowserError(
                    "the page started a native drag but Chrome did not hand it over",
                    code="cdp_error",
                    transient=True,
                    hint="retry the drag; `reins mouse move`, `mouse down`, `mouse up` drag by hand",
                ) from None
        # Never files: what a drop carries comes from the page's own dragstart.
        data: DragData = {**(intercept.data or {})}
        data.pop("files", None)
        self.data = data
        self.native = True
        await self.send("dragEnter", point)

    async def send(self, kind: str, point: Point) -> None:
        assert self.data is not None
        await self.ctx.cdp(
            "Input.dispatchDragEvent",
            {"type": kind, "x": point.x, "y": point.y, "data": self.data},
        )
