"""Pointer input: real CDP mouse events at a point that passed the actionability checks.

A click is `Input.dispatchMouseEvent` moved → pressed → released, as one ordered batch. DOM
`el.click()` is used only when no usable point exists, and the answer says so; `REINS_CLICK=js`
forces it as an emergency switch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reins._errors import ReinsError, ResolutionError
from reins.act.actionability import Point, actionable_point
from reins.act.effects import act_on
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext, TabPart
from reins.page.call import call_function

__all__ = ["MousePosition", "click_element", "mouse_event", "press_element"]


@dataclass
class MousePosition(TabPart):
    """Where reins last put the mouse in this tab, and the buttons it holds (`reins mouse …`)."""

    x: float = 0.0
    y: float = 0.0
    buttons: int = 0


_BUTTON_MASK = {"none": 0, "left": 1, "right": 2, "middle": 4}


async def mouse_event(
    ctx: CommandContext, kind: str, x: float, y: float, *, button: str = "none", **extra: Any
) -> None:
    """One `Input.dispatchMouseEvent` (mouseMoved, mousePressed, mouseReleased, mouseWheel) that
    keeps the tab's MousePosition: the buttons held go with every event, as a real mouse's do."""
    held = ctx.part(MousePosition)
    if kind == "mousePressed":
        held.buttons |= _BUTTON_MASK[button]
    elif kind == "mouseReleased":
        held.buttons &= ~_BUTTON_MASK[button]
    await ctx.cdp(
        "Input.dispatchMouseEvent",
        {"type": kind, "x": x, "y": y, "button": button, "buttons": held.buttons, **extra},
    )
    held.x, held.y = x, y


def _first_failure(answers: list[dict[str, Any] | ReinsError]) -> ReinsError:
    return next(a for a in answers if isinstance(a, ReinsError))


async def _mouse(
    ctx: CommandContext, point: Point, *, clicks: int, button: str = "left", modifiers: int = 0
) -> None:
    """moved → (pressed → released) × clicks, as one ordered batch: one round trip."""
    base = {"x": point.x, "y": point.y, "modifiers": modifiers}
    events: list[tuple[str, dict[str, Any]]] = [
        ("Input.dispatchMouseEvent", {"type": "mouseMoved", **base, "button": "none", "buttons": 0})
    ]
    mask = {"left": 1, "right": 2, "middle": 4}[button]
    for count in range(1, clicks + 1):
        events.append(
            (
                "Input.dispatchMouseEvent",
                {
                    "type": "mousePressed",
                    **base,
                    "button": button,
                    "buttons": mask,
                    "clickCount": count,
                },
            )
        )
        events.append(
            (
                "Input.dispatchMouseEvent",
                {
                    "type": "mouseReleased",
                    **base,
                    "button": button,
                    "buttons": 0,
                    "clickCount": count,
                },
            )
        )
    answers = await ctx.cdp_batch(events, sequential=True)
    held = ctx.part(MousePosition)
    held.x, held.y, held.buttons = point.x, point.y, 0
    if any(isinstance(answer, ReinsError) for answer in answers):
        raise _first_failure(answers)
    if len(answers) < len(events):
        raise ReinsError("the mouse events were cut short", code="cdp_error", transient=True)


async def click_element(
    ctx: CommandContext,
    el: Resolved,
    *,
    clicks: int = 1,
    button: str = "left",
    force_js: bool = False,
    hover_only: bool = False,
) -> dict[str, Any]:
    async def do(target: Resolved) -> dict[str, Any]:
        if force_js:
            await _js_click(ctx, target, clicks)
            ctx.note("js_click_forced")
            return {"method": "js", "warnings": ["js_click_forced"]}
        point = await actionable_point(ctx, target, need_enabled=not hover_only)
        if point is None:
            if hover_only:
                raise ResolutionError("the element has no box to hover", code="not_visible")
            await _js_click(ctx, target, clicks)
            ctx.note("js_click_fallback")
            return {"method": "js_fallback", "warnings": ["js_click_fallback"]}
        if hover_only:
            await ctx.cdp(
                "Input.dispatchMouseEvent",
                {"type": "mouseMoved", "x": point.x, "y": point.y, "button": "none"},
            )
        else:
            await _mouse(ctx, point, clicks=clicks, button=button)
        return {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}

    return await act_on(ctx, el, do)


async def _js_click(ctx: CommandContext, el: Resolved, clicks: int) -> None:
    await call_function(
        ctx, el.object_id, "jsClick", clicks, session_id=el.session_id, what="js click"
    )


async def press_element(ctx: CommandContext, el: Resolved) -> str:
    """One click on an element, without the effect reads around it (a step of a larger action):
    real mouse events at its actionable point, ``el.click()`` when it has none. Answers which."""
    point = await actionable_point(ctx, el)
    if point is None:
        await _js_click(ctx, el, 1)
        return "js_fallback"
    await _mouse(ctx, point, clicks=1)
    return "cdp"
