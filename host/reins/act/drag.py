"""Drag: a real pointer drag from one element to another, as pointer-sensor libraries (dnd-kit,
SortableJS, react-beautiful-dnd's mouse sensor) expect it.

Press at the source's actionable point, then several ``mouseMoved`` events with the left button
held (``buttons: 1``), one animation frame apart — the first a few pixels only, past the usual
activation distance but before any "it was a click" timeout — and release over the destination
(its middle, or ``position`` from its top-left corner).
"""

from __future__ import annotations

import asyncio
from typing import Any

from reins._errors import ReinsError, ResolutionError
from reins.act.actionability import Point, actionable_point
from reins.act.effects import act_on
from reins.act.locate import Resolved
from reins.act.pointer import mouse_event
from reins.bridge.context import CommandContext
from reins.page.call import call_function

__all__ = ["drag_element"]

# Moves between press and release, and the pause between them (about one frame).
_STEPS = 12
_STEP_PAUSE_S = 0.02
# The first move: enough to pass a library's activation distance (dnd-kit's is often 5-8 px).
_NUDGE_PX = 10.0


async def _box(ctx: CommandContext, el: Resolved) -> list[float] | None:
    """Its box in the viewport; None once it left the page (a list re-rendered on drop)."""
    try:
        box = await call_function(
            ctx, el.object_id, "viewportBox", session_id=el.session_id, what="drag"
        )
    except ReinsError:
        return None
    return [float(v) for v in box] if box else None


async def drag_element(
    ctx: CommandContext, source: Resolved, dest: Resolved, position: tuple[float, float] | None
) -> dict[str, Any]:
    if source.session_id is not None or dest.session_id is not None:
        raise ResolutionError(
            "drag works in the main frame and same-origin frames", code="frame_unreachable"
        )
    if await actionable_point(ctx, dest, need_enabled=False) is None:
        raise ResolutionError("the destination has no box to drop on", code="not_visible")

    async def do(target: Resolved) -> dict[str, Any]:
        start = await actionable_point(ctx, target)
        if start is None:
            raise ResolutionError("the source has no box to press", code="not_visible")
        before = await _box(ctx, target)
        box = await _box(ctx, dest)
        if box is None:
            raise ResolutionError("the destination left the page", code="ref_stale", transient=True)
        x, y, w, h = box
        end = Point(x + position[0], y + position[1]) if position else Point(x + w / 2, y + h / 2)
        await _press_move_release(ctx, start, end)
        after = await _box(ctx, target)
        moved: dict[str, Any] = {
            "from": [round(start.x, 1), round(start.y, 1)],
            "to": [round(end.x, 1), round(end.y, 1)],
        }
        if before is not None:
            moved["source_box"] = {
                "before": [round(v, 1) for v in before],
                "after": None if after is None else [round(v, 1) for v in after],
            }
        return {"drag": moved}

    return await act_on(ctx, source, do)


async def _press_move_release(ctx: CommandContext, start: Point, end: Point) -> None:
    await mouse_event(ctx, "mouseMoved", start.x, start.y)
    await mouse_event(ctx, "mousePressed", start.x, start.y, button="left", clickCount=1)
    dx, dy = end.x - start.x, end.y - start.y
    length = max((dx * dx + dy * dy) ** 0.5, 1.0)
    nudge = min(_NUDGE_PX, length)
    await mouse_event(
        ctx,
        "mouseMoved",
        start.x + dx / length * nudge,
        start.y + dy / length * nudge,
        button="left",
    )
    for step in range(1, _STEPS + 1):
        await asyncio.sleep(_STEP_PAUSE_S)
        t = step / _STEPS
        await mouse_event(ctx, "mouseMoved", start.x + dx * t, start.y + dy * t, button="left")
    await asyncio.sleep(_STEP_PAUSE_S)
    await mouse_event(ctx, "mouseReleased", end.x, end.y, button="left", clickCount=1)
