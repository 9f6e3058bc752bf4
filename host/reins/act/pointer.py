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
from reins.act.effects import act_by_input, act_on, dialog_answer, input_answer, read_options
from reins.act.handles import Press
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext, TabPart
from reins.page.call import call_function

__all__ = ["MousePosition", "click_element", "mouse_event", "pointer_press", "press_element"]


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


def _click_events(
    point: Point, *, clicks: int, button: str = "left", modifiers: int = 0
) -> list[tuple[str, dict[str, Any]]]:
    """moved → (pressed → released) × clicks."""
    base = {"x": point.x, "y": point.y, "modifiers": modifiers}
    events: list[tuple[str, dict[str, Any]]] = [
        ("Input.dispatchMouseEvent", {"type": "mouseMoved", **base, "button": "none", "buttons": 0})
    ]
    mask = _BUTTON_MASK[button]
    for count in range(1, clicks + 1):
        for kind, buttons in (("mousePressed", mask), ("mouseReleased", 0)):
            events.append(
                (
                    "Input.dispatchMouseEvent",
                    {
                        "type": kind,
                        **base,
                        "button": button,
                        "buttons": buttons,
                        "clickCount": count,
                    },
                )
            )
    return events


async def _mouse(
    ctx: CommandContext, point: Point, *, clicks: int, button: str = "left", modifiers: int = 0
) -> None:
    """The click's events as one ordered batch: one round trip."""
    events = _click_events(point, clicks=clicks, button=button, modifiers=modifiers)
    answers = await ctx.cdp_batch(
        events, sequential=True, each=[{"noWait": True}] * (len(events) - 1)
    )
    _moved_to(ctx, point.x, point.y, released=True)
    if any(isinstance(answer, ReinsError) for answer in answers):
        raise _first_failure(answers)
    if len(answers) < len(events):
        raise ReinsError("the mouse events were cut short", code="cdp_error", transient=True)


def _moved_to(ctx: CommandContext, x: float, y: float, *, released: bool) -> None:
    """Where the mouse is after input reins gave (a click ends with every button up)."""
    held = ctx.part(MousePosition)
    held.x, held.y = x, y
    if released:
        held.buttons = 0


def _hover_events(ctx: CommandContext, point: Point) -> list[tuple[str, dict[str, Any]]]:
    held = ctx.part(MousePosition)
    return [
        (
            "Input.dispatchMouseEvent",
            {
                "type": "mouseMoved",
                "x": point.x,
                "y": point.y,
                "button": "none",
                "buttons": held.buttons,
            },
        )
    ]


def pointer_press(
    ctx: CommandContext, *, clicks: int = 1, button: str = "left", hover_only: bool = False
) -> Press:
    """The click (or hover) as a ``Press``: the input its ref's lookup may give at once."""

    def events(x: float, y: float) -> list[tuple[str, dict[str, Any]]]:
        if hover_only:
            return _hover_events(ctx, Point(x, y))
        return _click_events(Point(x, y), clicks=clicks, button=button)

    return Press(events, need_enabled=not hover_only, read_after=read_options(ctx))


async def click_element(
    ctx: CommandContext,
    el: Resolved,
    *,
    clicks: int = 1,
    button: str = "left",
    force_js: bool = False,
    hover_only: bool = False,
    press: Press | None = None,
) -> dict[str, Any]:
    """Real mouse events at the element's actionable point, the state reads around them in the
    same round trip (act_by_input); ``el.click()`` when it has no point (or forced), then
    reported as such. ``press``: built by ``pointer_press`` with the same arguments; when the
    lookup gave it already, its answers are read into the answer here."""
    if press is not None and press.point is not None:  # given with the lookup
        x, y = press.point
        _moved_to(ctx, x, y, released=not hover_only)
        if press.dialog is not None:
            return dialog_answer(el, press.dialog)
        extra = {"method": "cdp", "point": [round(x, 1), round(y, 1)]}
        return await input_answer(ctx, el, press.before, press.answers or [], press.count, extra)

    async def js(target: Resolved) -> dict[str, Any]:
        await _js_click(ctx, target, clicks)
        kind = "js_click_forced" if force_js else "js_click_fallback"
        ctx.note(kind)
        return {"method": "js" if force_js else "js_fallback", "warnings": [kind]}

    if force_js:
        return await act_on(ctx, el, js)
    point = await actionable_point(ctx, el, need_enabled=not hover_only)
    if point is None:
        if hover_only:
            raise ResolutionError("the element has no box to hover", code="not_visible")
        return await act_on(ctx, el, js)
    if hover_only:
        events = _hover_events(ctx, point)
    else:
        events = _click_events(point, clicks=clicks, button=button)
    _moved_to(ctx, point.x, point.y, released=not hover_only)
    extra = {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}
    return await act_by_input(ctx, el, events, extra)


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
