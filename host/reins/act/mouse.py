"""The mouse as reins drives it: where it is in a tab, the buttons it holds, and the CDP events
of a click, a press and a hover at a point (``Input.dispatchMouseEvent``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reins.act.actionability import Point
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.link import CdpCommand

__all__ = [
    "MousePosition",
    "click_events",
    "hover_events",
    "mouse_event",
    "moved_to",
    "press_events",
]


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


def click_events(
    point: Point, *, clicks: int, button: str = "left", modifiers: int = 0
) -> list[CdpCommand]:
    """moved → (pressed → released) × clicks."""
    base = {"x": point.x, "y": point.y, "modifiers": modifiers}
    events: list[CdpCommand] = [
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


def press_events(
    point: Point, *, clicks: int, button: str = "left", modifiers: int = 0
) -> list[CdpCommand]:
    """The click's events after its move: (pressed → released) × clicks."""
    return click_events(point, clicks=clicks, button=button, modifiers=modifiers)[1:]


def moved_to(ctx: CommandContext, x: float, y: float, *, released: bool) -> None:
    """Where the mouse is after input reins gave (a click ends with every button up)."""
    held = ctx.part(MousePosition)
    held.x, held.y = x, y
    if released:
        held.buttons = 0


def hover_events(ctx: CommandContext, point: Point) -> list[CdpCommand]:
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
