"""Pointer input: real CDP mouse events at a point that passed the actionability checks.

A click is `Input.dispatchMouseEvent` moved → pressed → released. The move goes first, with
Chrome's hit test at the point right after it (act/hittest.py): the press is sent only when what
Chrome will press is the target or inside it — in the same ordered batch, the extension holding
it back otherwise (act/guarded.py); a hit held back is judged here by the full rule and pressed in
a batch of its own when it reaches the target; else `obscured`, retried within the budget from a
new probe. DOM `el.click()` is used only when no usable point exists,
and the answer says so; `REINS_CLICK=js` forces it as an emergency switch.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from reins._errors import ReinsError, ResolutionError
from reins.act.actionability import Point, actionable_point, frame_owner
from reins.act.answers import ActionAnswer
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
from reins.act.guarded import (
    HeldBack,
    PressFields,
    arm_receipt,
    guard_ready,
    guarded_part,
    judge_receipt,
    read_guarded,
    receipt_in,
)
from reins.act.handles import Press, StateRead
from reins.act.hittest import (
    HitPlan,
    dom_node,
    hit_commands,
    judge_hit,
)
from reins.act.locate import Resolved
from reins.act.mouse import (
    MousePosition,
    click_events,
    hover_events,
    moved_to,
    press_events,
)
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, BatchStep, CdpCommand
from reins.page.call import call_function, call_params
from reins.page.dialogs import DialogOpened, DialogWatch, until_dialog
from reins.page.poll import poll_until

T = TypeVar("T")

__all__ = [
    "checked_point",
    "click_element",
    "move_and_hit",
    "pointer_press",
    "press_element",
]


def _first_failure(answers: list[BatchAnswer]) -> ReinsError:
    return next(a for a in answers if isinstance(a, ReinsError))


def _reads(el: Resolved) -> BatchStep:
    return {"sessionId": el.session_id} if el.session_id else {}


async def _hit_plan(ctx: CommandContext, el: Resolved, point: Point) -> HitPlan:
    owner = await frame_owner(ctx, el) if el.session_id is not None else None
    return HitPlan(int(point.x), int(point.y), owner)


async def _move_and_hit(
    ctx: CommandContext, el: Resolved, point: Point, *, read_before: bool
) -> StateRead | None:
    """One ordered batch: the state read before the action (``read_before``), the target's tree
    as Chrome has it, the mouse move to ``point`` (answered once the page handled it), then
    Chrome's hit test there. Raises ``obscured`` when the press would not reach the target;
    answers the state read before (None: not read)."""
    plan = await _hit_plan(ctx, el, point)
    held = ctx.part(MousePosition)
    commands: list[CdpCommand] = []
    each: list[BatchStep] = []
    if read_before:
        commands.append(before_command(el))
        each.append(_reads(el))
    commands.append(("DOM.describeNode", {"objectId": el.object_id, "depth": -1, "pierce": True}))
    each.append(_reads(el))
    commands += hover_events(ctx, point)
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
    await judge_hit(ctx, el.object_id, el.session_id, plan, dom_node(target), answers, lead + 2)
    return before_value(answers[0]) if read_before else None


async def move_and_hit(ctx: CommandContext, el: Resolved, point: Point) -> None:
    """The mouse moved to ``point`` and Chrome's hit test there, as before a click: raises
    ``obscured`` (or ``ambiguous``) when a press there would not reach ``el`` (a drag's press)."""
    await _move_and_hit(ctx, el, point, read_before=False)


async def _at_checked_points(
    ctx: CommandContext,
    el: Resolved,
    step: Callable[[Point], Awaitable[T]],
    *,
    first: Point | None = None,
    need_enabled: bool = True,
    defer_stable: bool = False,
) -> T | None:
    """``step`` at an actionable point of ``el`` (made integral; ``first``, a point the page
    checked already, tried before any probe), retried from a new probe while it answers
    ``obscured`` (or, with ``defer_stable``: its press took the second look of "stable",
    ``not_stable``) until the budget ends; None when the element has no box."""
    tries = 0

    async def attempt() -> T | None:
        nonlocal tries
        tries += 1
        point = first if first is not None and tries == 1 else None
        if point is None:
            # The probe its ref's lookup took is the first look, never a later one.
            probed = el.probed if tries == 1 else None
            point = await actionable_point(
                ctx, el, need_enabled=need_enabled, first_probe=probed, defer_stable=defer_stable
            )
        if point is None:
            return None
        return await step(Point(float(round(point.x)), float(round(point.y)), point.deferred))

    again = ("obscured", "not_stable") if defer_stable else ("obscured",)
    return await poll_until(
        ctx.deadline,
        attempt,
        interval=0.1,
        reserve_s=0.15,
        retry=lambda exc: exc.code in again,
        explain_timeout=True,
    )


async def checked_point(
    ctx: CommandContext,
    el: Resolved,
    *,
    need_enabled: bool = True,
    read_before: bool = False,
    first: Point | None = None,
) -> tuple[Point, StateRead | None] | None:
    """An actionable point the mouse has moved to and Chrome's hit test there found the target
    at (with the state read before the move, ``read_before``). ``first``: a point already
    checked by the page (a ref's lookup), tried before any probe. A hit elsewhere is retried
    from a new probe until the budget ends, then answers ``obscured``; None when the element has
    no box (the caller may use ``el.click()``)."""

    async def moved(point: Point) -> tuple[Point, StateRead | None]:
        return point, await _move_and_hit(ctx, el, point, read_before=read_before)

    return await _at_checked_points(ctx, el, moved, first=first, need_enabled=need_enabled)


async def _click_checked(
    ctx: CommandContext,
    el: Resolved,
    *,
    first: Point | None,
    before: StateRead | None,
    read_before: bool,
    clicks: int,
    button: str,
) -> ActionAnswer[PressFields] | None:
    """The click with its move and Chrome's hit test in the same round trip, the extension holding
    the press back unless the hit reaches ``el`` (act/guarded.py); a hit it held back is judged
    here by the full rule and pressed in a batch of its own when it reaches. Retried from a new
    probe while ``obscured``, as ``checked_point``; None when the element has no box. ``first``
    and ``before``: a point the page checked and the state it read before (a ref's lookup);
    ``read_before``: the state before is read in the batch instead."""

    async def clicked(point: Point) -> ActionAnswer[PressFields]:
        return await _click_guarded(
            ctx, el, point, before, read_before=read_before, clicks=clicks, button=button
        )

    return await _at_checked_points(ctx, el, clicked, first=first, defer_stable=True)


async def _click_guarded(
    ctx: CommandContext,
    el: Resolved,
    point: Point,
    before: StateRead | None,
    *,
    read_before: bool,
    clicks: int,
    button: str,
) -> ActionAnswer[PressFields]:
    lead = [before_command(el)] if read_before else []
    events = press_events(point, clicks=clicks, button=button)
    after = (
        "Runtime.callFunctionOn",
        call_params(el.object_id, "readState", "after", read_options(ctx), await_promise=True),
    )
    move = hover_events(ctx, point)[0]
    part, each = guarded_part(
        ctx, move, events, handle=el.object_id, after=after, at=len(lead), steady=point.deferred
    )
    answers = await input_batch(ctx, el, [*lead, *part], [*(BatchStep() for _ in lead), *each])
    extra: PressFields = {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}
    if isinstance(answers, ActionAnswer):  # a dialog the move or the press opened
        moved_to(ctx, point.x, point.y, released=True)
        return answers
    first = answers[0] if answers else None
    if len(answers) == 1 and isinstance(first, ReinsError) and first.code == "target_closed":
        moved_to(ctx, point.x, point.y, released=True)  # the tab let go meanwhile
        return await input_answer(ctx, el, before, answers, len(events), extra)
    if lead:
        if isinstance(first, ReinsError):
            raise first
        before = before_value(first)
    outcome = read_guarded(ctx, answers, len(lead))
    if isinstance(outcome, HeldBack):
        moved_to(ctx, point.x, point.y, released=False)
        plan = HitPlan(int(point.x), int(point.y))
        await judge_hit(ctx, el.object_id, None, plan, outcome.tree, outcome.answers, outcome.at)
        ctx.note("press_guard_held_back")
        return await press_checked(ctx, el, point, before, extra, clicks=clicks, button=button)
    moved_to(ctx, point.x, point.y, released=True)
    if outcome.armed and len(outcome.given) > len(events):
        extra = judge_receipt(receipt_in(outcome.given[len(events)]), extra)
    ctx.note("press_guarded")
    return await input_answer(ctx, el, before, outcome.given, len(events), extra)


async def press_checked(
    ctx: CommandContext,
    el: Resolved,
    point: Point,
    before: StateRead | None,
    extra: PressFields,
    *,
    clicks: int = 1,
    button: str = "left",
    after: CdpCommand | None = None,
) -> ActionAnswer[PressFields]:
    """The press after a checked move, and the state read after it, as one ordered batch; the
    answer from the state read before (``before``). ``after``: the read-after command (default:
    ``readState`` on the element's handle)."""
    events = press_events(point, clicks=clicks, button=button)
    read = after or (
        "Runtime.callFunctionOn",
        call_params(el.object_id, "readState", "after", read_options(ctx), await_promise=True),
    )
    guarded = after is None  # the read after takes the receipt (readState)
    commands = [*([arm_receipt(el.object_id)] if guarded else []), *events, read]
    each: list[BatchStep] = [
        *([_reads(el)] if guarded else []),
        *(BatchStep(noWait=True) for _ in events[:-1]),
        {},
        _reads(el),
    ]
    try:
        answers = await input_batch(ctx, el, commands, each)
    finally:
        moved_to(ctx, point.x, point.y, released=True)
    if isinstance(answers, ActionAnswer):  # a dialog the press opened
        return answers
    if guarded and not (len(answers) == 1 and isinstance(answers[0], ReinsError)):
        # (one failure alone: the tab let go meanwhile, or the arm was refused; told as is)
        armed, answers = answers[:1], answers[1:]
        if armed and not isinstance(armed[0], ReinsError) and len(answers) > len(events):
            extra = judge_receipt(receipt_in(answers[len(events)]), extra)
    return await input_answer(ctx, el, before, answers, len(events), extra)


def pointer_press(
    ctx: CommandContext, *, clicks: int = 1, button: str = "left", hover_only: bool = False
) -> Press:
    """The click (or hover) as a ``Press``: the input its ref's lookup may give at once."""

    def events(x: float, y: float) -> list[CdpCommand]:
        if hover_only:
            return hover_events(ctx, Point(x, y))
        return click_events(Point(x, y), clicks=clicks, button=button)

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
) -> ActionAnswer[PressFields]:
    """Real mouse events at the element's actionable point, the state reads around them in the
    same round trip (act_by_input); ``el.click()`` when it has no point (or forced), then
    reported as such. ``el.pressed``: what its ref's lookup did with the ``Press`` that
    ``pointer_press`` built with the same arguments; when it gave the input already, its answers
    are read into the answer here."""
    pressed = el.pressed
    if pressed is not None and pressed.point is not None:  # given with the lookup
        x, y = pressed.point
        moved_to(ctx, x, y, released=not hover_only)
        if pressed.dialog is not None:
            return dialog_answer(el, pressed.dialog)
        extra: PressFields = {"method": "cdp", "point": [round(x, 1), round(y, 1)]}
        given = list(pressed.answers)
        if pressed.armed and len(given) > pressed.count:
            extra = judge_receipt(receipt_in(given[pressed.count]), extra)
        return await input_answer(ctx, el, pressed.before, given, pressed.count, extra)

    guarded = not force_js and not hover_only and guard_ready(ctx, el.session_id)
    if pressed is not None and pressed.checked_at is not None and not hover_only:
        # The lookup checked the node and read the state before (refs.py): the move, Chrome's
        # hit test and the press follow here, at the point the page checked first.
        if guarded:
            first = Point(*pressed.checked_at)
            answer = await _click_checked(
                ctx,
                el,
                first=first,
                before=pressed.before,
                read_before=False,
                clicks=clicks,
                button=button,
            )
            if answer is not None:
                return answer
        try:
            checked = await checked_point(ctx, el, first=Point(*pressed.checked_at))
        except DialogOpened as opened:
            return dialog_answer(el, opened.dialog)
        if checked is not None:
            point = checked[0]
            fields: PressFields = {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}
            return await press_checked(
                ctx, el, point, pressed.before, fields, clicks=clicks, button=button
            )

    async def js(target: Resolved) -> PressFields:
        await _js_click(ctx, target, clicks)
        kind = "js_click_forced" if force_js else "js_click_fallback"
        ctx.note(kind)
        return {"method": "js" if force_js else "js_fallback", "warnings": [kind]}

    if force_js:
        return await act_on(ctx, el, js)
    if hover_only:
        spot = await actionable_point(ctx, el, need_enabled=False, first_probe=el.probed)
        if spot is None:
            raise ResolutionError("the element has no box to hover", code="not_visible")
        moved_to(ctx, spot.x, spot.y, released=False)
        hovered: PressFields = {"method": "cdp", "point": [round(spot.x, 1), round(spot.y, 1)]}
        return await act_by_input(ctx, el, hover_events(ctx, spot), hovered)
    if guarded:
        answer = await _click_checked(
            ctx, el, first=None, before=None, read_before=True, clicks=clicks, button=button
        )
        return answer if answer is not None else await act_on(ctx, el, js)
    try:
        checked = await checked_point(ctx, el, read_before=True)
    except DialogOpened as opened:  # the move opened a dialog: no press was given
        return dialog_answer(el, opened.dialog)
    if checked is None:
        return await act_on(ctx, el, js)
    point, before = checked
    pressing: PressFields = {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}
    return await press_checked(ctx, el, point, before, pressing, clicks=clicks, button=button)


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
    events = press_events(point, clicks=1)
    take = ("Runtime.callFunctionOn", call_params(el.object_id, "takeReceipt"))
    answers = await ctx.cdp_batch(
        [arm_receipt(el.object_id), *events, take],
        sequential=True,
        each=[_reads(el), *([BatchStep(noWait=True)] * (len(events) - 1)), {}, _reads(el)],
    )
    moved_to(ctx, point.x, point.y, released=True)
    if any(isinstance(answer, ReinsError) for answer in answers[1 : 1 + len(events)]):
        raise _first_failure(answers[1 : 1 + len(events)])
    if len(answers) < 1 + len(events):
        raise ReinsError("the mouse events were cut short", code="cdp_error", transient=True)
    if not isinstance(answers[0], ReinsError) and len(answers) > 1 + len(events):
        judge_receipt(receipt_in(answers[-1]), {})
    return "cdp"
