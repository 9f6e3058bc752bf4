"""Pointer input: real CDP mouse events at a point that passed the actionability checks.

A click is `Input.dispatchMouseEvent` moved → pressed → released. The move goes first, with
Chrome's hit test at the point right after it (act/hittest.py): the press is sent only when what
Chrome will press is the target or inside it, in a second ordered batch; else `obscured`, retried
within the budget from a new probe. DOM `el.click()` is used only when no usable point exists,
and the answer says so; `REINS_CLICK=js` forces it as an emergency switch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reins._errors import ReinsError, ResolutionError
from reins._pagetext import quote
from reins.act.actionability import Point, actionable_point, frame_owner
from reins.act.effects import (
    act_by_input,
    act_on,
    before_command,
    before_value,
    dialog_answer,
    input_answer,
    input_batch,
    read_options,
)
from reins.act.handles import Press
from reins.act.hittest import (
    FRAME_OWNERS,
    HitPlan,
    closed_control,
    hit_after_move,
    hit_commands,
    judge,
    what_is_at,
)
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext, TabPart
from reins.page.call import OWN_WORLD, call_function, call_params, call_value
from reins.page.dialogs import DialogOpened, DialogWatch, until_dialog
from reins.page.poll import poll_until

__all__ = [
    "MousePosition",
    "checked_point",
    "click_element",
    "mouse_event",
    "move_and_hit",
    "pointer_press",
    "press_element",
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


def _reads(el: Resolved) -> dict[str, Any]:
    return {"sessionId": el.session_id} if el.session_id else {}


async def _hit_plan(ctx: CommandContext, el: Resolved, point: Point) -> HitPlan:
    owner = await frame_owner(ctx, el) if el.session_id is not None else None
    return HitPlan(int(point.x), int(point.y), owner)


async def _move_and_hit(
    ctx: CommandContext, el: Resolved, point: Point, *, read_before: bool
) -> dict[str, Any] | None:
    """One ordered batch: the state read before the action (``read_before``), the target's tree
    as Chrome has it, the mouse move to ``point`` (answered once the page handled it), then
    Chrome's hit test there. Raises ``obscured`` when the press would not reach the target;
    answers the state read before (None: not read)."""
    plan = await _hit_plan(ctx, el, point)
    held = ctx.part(MousePosition)
    commands: list[tuple[str, dict[str, Any]]] = []
    each: list[dict[str, Any]] = []
    if read_before:
        commands.append(before_command(el))
        each.append(_reads(el))
    commands.append(("DOM.describeNode", {"objectId": el.object_id, "depth": -1, "pierce": True}))
    each.append(_reads(el))
    commands += _hover_events(ctx, point)
    each.append({})
    commands += hit_commands(ctx, plan)
    each += [{}, {}]
    try:
        answers = await until_dialog(
            ctx.cdp_batch(commands, sequential=True, each=each), ctx.part(DialogWatch)
        )
    finally:
        held.x, held.y = point.x, point.y
    lead = 1 if read_before else 0
    for answer in answers[: lead + 2]:
        if isinstance(answer, ReinsError):
            raise answer
    if len(answers) < lead + 3:
        raise ReinsError("the mouse move was cut short", code="cdp_error", transient=True)
    target = answers[lead]
    assert isinstance(target, dict)
    hit = await hit_after_move(ctx, plan, answers, lead + 2)
    inner = closed_control(target.get("node") or {}, hit) if hit is not None else None
    if inner is not None:
        raise ResolutionError(
            f"the element holds controls of its own in a closed shadow root: the press would go"
            f" to {inner}, not to the element as one control; no press was given",
            code="ambiguous",
            details={"inner_control": inner},
        )
    if hit is None or not (
        judge(target.get("node") or {}, hit, owner=plan.owner)
        or (plan.owner is None and await _reaches_target(ctx, el, hit))
    ):
        raise _obscured(None if hit is None else await what_is_at(ctx, hit))
    return before_value(answers[0]) if read_before else None


async def _reaches_target(ctx: CommandContext, el: Resolved, hit: int) -> bool:
    """Does a press on the node Chrome's hit test found reach the target all the same? Inside the
    target's own ``<label>`` (the browser hands the press to its control), or a part drawn with
    it in its widget that is no control itself (a placeholder laid over the input): reins's
    world judges (``pressReaches``, the rule its probe and receipt guard use). Same document
    only: neither is ever in another frame than its control."""
    if el.session_id is not None:
        return False
    try:
        described = (await ctx.cdp("DOM.describeNode", {"backendNodeId": hit})).get("node") or {}
        if str(described.get("nodeName") or "").upper() in FRAME_OWNERS:
            return False  # a frame inside a label takes the click itself: never passed through
        # In reins's world of the top document, where the target's handle is: a node of another
        # document (a same-site frame) does not resolve there, so it is never taken for a label.
        node = await ctx.cdp(
            "DOM.resolveNode",
            {"backendNodeId": hit, "executionContextId": OWN_WORLD, "objectGroup": "reins"},
        )
        hit_object = (node.get("object") or {}).get("objectId")
        if not hit_object:
            return False
        params = call_params(str(hit_object), "pressReaches")
        params["arguments"].append({"objectId": el.object_id})
        answer = await ctx.cdp("Runtime.callFunctionOn", params)
    except ReinsError:
        return False
    return call_value(answer, what="label check") is True


async def move_and_hit(ctx: CommandContext, el: Resolved, point: Point) -> None:
    """The mouse moved to ``point`` and Chrome's hit test there, as before a click: raises
    ``obscured`` (or ``ambiguous``) when a press there would not reach ``el`` (a drag's press)."""
    await _move_and_hit(ctx, el, point, read_before=False)


def _obscured(label: str | None) -> ResolutionError:
    """Chrome's hit test found ``label`` (None: nothing) where the press would go."""
    if label is None:
        return ResolutionError(
            "nothing of the page is at the press point (Chrome's hit test)",
            code="obscured",
            transient=True,
        )
    return ResolutionError(
        f"the element is covered by {quote(label, 160)} (Chrome's hit test at the press point,"
        " after the mouse moved there): no press was given",
        code="obscured",
        transient=True,
        details={"covered_by": label},
        hint="`reins state` shows what the page offers now; a frame laid over the element takes"
        " the click, not the element",
    )


async def checked_point(
    ctx: CommandContext,
    el: Resolved,
    *,
    need_enabled: bool = True,
    read_before: bool = False,
    first: Point | None = None,
) -> tuple[Point, dict[str, Any] | None] | None:
    """An actionable point the mouse has moved to and Chrome's hit test there found the target
    at (with the state read before the move, ``read_before``). ``first``: a point already
    checked by the page (a ref's lookup), tried before any probe. A hit elsewhere is retried
    from a new probe until the budget ends, then answers ``obscured``; None when the element has
    no box (the caller may use ``el.click()``)."""
    tries = 0

    async def attempt() -> tuple[Point, dict[str, Any] | None] | None:
        nonlocal tries
        tries += 1
        if first is not None and tries == 1:
            point: Point | None = first
        else:
            point = await actionable_point(ctx, el, need_enabled=need_enabled)
        if point is None:
            return None
        point = Point(float(round(point.x)), float(round(point.y)))
        before = await _move_and_hit(ctx, el, point, read_before=read_before)
        return point, before

    return await poll_until(
        ctx.deadline,
        attempt,
        interval=0.1,
        reserve_s=0.15,
        retry=lambda exc: exc.code == "obscured",
        explain_timeout=True,
    )


def _press_events(
    point: Point, *, clicks: int, button: str = "left", modifiers: int = 0
) -> list[tuple[str, dict[str, Any]]]:
    """The click's events after its move: (pressed → released) × clicks."""
    return _click_events(point, clicks=clicks, button=button, modifiers=modifiers)[1:]


async def press_checked(
    ctx: CommandContext,
    el: Resolved,
    point: Point,
    before: dict[str, Any] | None,
    extra: dict[str, Any],
    *,
    clicks: int = 1,
    button: str = "left",
    after: tuple[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The press after a checked move, and the state read after it, as one ordered batch; the
    answer from the state read before (``before``). ``after``: the read-after command (default:
    ``readState`` on the element's handle)."""
    events = _press_events(point, clicks=clicks, button=button)
    read = after or (
        "Runtime.callFunctionOn",
        call_params(el.object_id, "readState", "after", read_options(ctx), await_promise=True),
    )
    guarded = after is None  # the read after takes the receipt (readState)
    commands = [*([_arm_receipt(el)] if guarded else []), *events, read]
    each: list[dict[str, Any]] = [
        *([_reads(el)] if guarded else []),
        *({"noWait": True} for _ in events[:-1]),
        {},
        _reads(el),
    ]
    try:
        answers = await input_batch(ctx, el, commands, each)
    finally:
        _moved_to(ctx, point.x, point.y, released=True)
    if isinstance(answers, dict):  # a dialog the press opened
        return answers
    if guarded and not (len(answers) == 1 and isinstance(answers[0], ReinsError)):
        # (one failure alone: the tab let go meanwhile, or the arm was refused; told as is)
        armed, answers = answers[:1], answers[1:]
        if armed and not isinstance(armed[0], ReinsError) and len(answers) > len(events):
            extra = _judge_receipt(_receipt_in(answers[len(events)]), extra)
    return await input_answer(ctx, el, before, answers, len(events), extra)


def _arm_receipt(el: Resolved) -> tuple[str, dict[str, Any]]:
    """The command that arms the press's receipt guard on ``el``'s window."""
    return ("Runtime.callFunctionOn", call_params(el.object_id, "armReceipt"))


def _receipt_in(answer: dict[str, Any] | ReinsError) -> dict[str, Any] | None:
    """The receipt a read after the press answered (``readState`` or ``takeReceipt``)."""
    if isinstance(answer, ReinsError):
        return None
    try:
        value = call_value(answer, what="receipt")
    except ReinsError:
        return None
    if isinstance(value, dict) and "seen" not in value:
        value = value.get("receipt")
    return value if isinstance(value, dict) else None


def _judge_receipt(receipt: dict[str, Any] | None, extra: dict[str, Any]) -> dict[str, Any]:
    """What received the press, by reins's capture listener on the target's window: an event
    of the press on anything but the target (or its label) is ``press_intercepted``; none seen
    at all is a warning (another frame took it, or the page stopped it first)."""
    if receipt is None:
        return extra
    elsewhere = [str(e) for e in receipt.get("elsewhere") or []]
    if elsewhere:
        raise ResolutionError(
            f"the press went to another element ({'; '.join(elsewhere[:3])}), not the target:"
            " reins stopped those events there (their default action and the page's later"
            " listeners), but what the page moved under the pointer may have seen them",
            code="press_intercepted",
            details={"received_by": elsewhere},
        )
    if not receipt.get("seen"):
        return {**extra, "warnings": [*extra.get("warnings", []), "press_not_seen"]}
    return extra


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

    return Press(
        events,
        need_enabled=not hover_only,
        read_after=read_options(ctx),
        hit_test=not hover_only,
    )


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

    if press is not None and press.checked_at is not None and not hover_only:
        # The lookup checked the node and read the state before (refs.py): the move, Chrome's
        # hit test and the press follow here, at the point the page checked first.
        try:
            checked = await checked_point(ctx, el, first=Point(*press.checked_at))
        except DialogOpened as opened:
            return dialog_answer(el, opened.dialog)
        if checked is not None:
            point = checked[0]
            extra = {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}
            return await press_checked(
                ctx, el, point, press.before, extra, clicks=clicks, button=button
            )

    async def js(target: Resolved) -> dict[str, Any]:
        await _js_click(ctx, target, clicks)
        kind = "js_click_forced" if force_js else "js_click_fallback"
        ctx.note(kind)
        return {"method": "js" if force_js else "js_fallback", "warnings": [kind]}

    if force_js:
        return await act_on(ctx, el, js)
    if hover_only:
        spot = await actionable_point(ctx, el, need_enabled=False)
        if spot is None:
            raise ResolutionError("the element has no box to hover", code="not_visible")
        _moved_to(ctx, spot.x, spot.y, released=False)
        extra = {"method": "cdp", "point": [round(spot.x, 1), round(spot.y, 1)]}
        return await act_by_input(ctx, el, _hover_events(ctx, spot), extra)
    try:
        checked = await checked_point(ctx, el, read_before=True)
    except DialogOpened as opened:  # the move opened a dialog: no press was given
        return dialog_answer(el, opened.dialog)
    if checked is None:
        return await act_on(ctx, el, js)
    point, before = checked
    extra = {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}
    return await press_checked(ctx, el, point, before, extra, clicks=clicks, button=button)


async def _js_click(ctx: CommandContext, el: Resolved, clicks: int) -> None:
    await call_function(
        ctx, el.object_id, "jsClick", clicks, session_id=el.session_id, what="js click"
    )


async def press_element(ctx: CommandContext, el: Resolved) -> str:
    """One click on an element, without the effect reads around it (a step of a larger action):
    real mouse events at its actionable point once Chrome's hit test there found the element,
    ``el.click()`` when it has none. Answers which."""
    checked = await checked_point(ctx, el)
    if checked is None:
        await _js_click(ctx, el, 1)
        return "js_fallback"
    point, _ = checked
    events = _press_events(point, clicks=1)
    take = ("Runtime.callFunctionOn", call_params(el.object_id, "takeReceipt"))
    answers = await ctx.cdp_batch(
        [_arm_receipt(el), *events, take],
        sequential=True,
        each=[_reads(el), *([{"noWait": True}] * (len(events) - 1)), {}, _reads(el)],
    )
    _moved_to(ctx, point.x, point.y, released=True)
    if any(isinstance(answer, ReinsError) for answer in answers[1 : 1 + len(events)]):
        raise _first_failure(answers[1 : 1 + len(events)])
    if len(answers) < 1 + len(events):
        raise ReinsError("the mouse events were cut short", code="cdp_error", transient=True)
    if not isinstance(answers[0], ReinsError) and len(answers) > 1 + len(events):
        _judge_receipt(_receipt_in(answers[-1]), {})
    return "cdp"
