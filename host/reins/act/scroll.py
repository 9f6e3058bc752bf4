"""Scrolling: move what scrolls for a target (or the page), or turn a real mouse wheel over a
scroller until a target is there and in view.

"What scrolls" is the element itself when it scrolls, else the scrolling element filling it (a
data grid's root holds its virtual scroller), else its nearest scrolling ancestor, else the page
(``scrollerOf`` in pagescripts/src/scroll.js). ``scroll --until`` turns the wheel
(``Input.dispatchMouseEvent`` type ``mouseWheel``) rather than setting ``scrollTop`` where it
moves to a place: virtualized lists and infinite feeds render from the scroll events a person's
wheel makes. A ``text=``, CSS, XPath or ``role=`` target is looked for page-side at every look
(``drawnTarget``: the text rule, the selector or path, the role and name of the records): in a list
whose rows read as sorted by a text the target has (a text target's, a role's name) each turn
goes where the bisection of act/listsearch.py looks next (``rowsShown`` tells it the rows); once
a look has the target rendered, one turn centres it; in a list in any other order, or for a CSS
or XPath target, the page sweeps it (``sweepList``: many positions a round trip, each telling the list it
was scrolled, at about 2 ms a screen where the list renders in its scroll handler) until the
target is rendered, and the sweep's record (act/listsearch.py's ``Sweep``) says when every part
of the list was looked at: then a typed ``not_found``; in a sorted list as soon as the order
proves a text in no row (``ListSearch.absent``). Only the lookup of the target itself, in view
in its scrollers, ever answers ``found``; with a SCROLLER named, a target counts only inside it
(the same text elsewhere on the page, a log or a detail panel, is not the row). A ref: a screen
a turn.
"""

from reins._errors import DeadlineExceeded, ReinsError, ResolutionError
from reins.act.answers import Found, Scrolled
from reins.act.listsearch import ListSearch, Sweep
from reins.act.locate import Resolved, resolve_target
from reins.act.scrollplan import Look, Plan, TargetSpec, look_of, sort_text, spec_of
from reins.act.targets import parse_target
from reins.bridge.context import CommandContext
from reins.bridge.link import CdpCommand
from reins.observe.page import observe_page
from reins.page.call import call_function, call_params, call_value, evaluate_handle
from reins.page.poll import NotYet, poll_until
from reins.page.visibility import require_rendering

__all__ = ["scroll_by", "scroll_until"]

# How often (in round trips) a target is looked up the whole way, not only in the scroller.
_FULL_LOOK_EVERY = 10
# The longest one call of the sweep runs (the whole lookup runs between calls), and its most
# steps (a bound that holds even where the page's clock does not).
_SWEEP_CALL_S = 1.5
_SWEEP_MOST_STEPS = 1000
# Targets whose lookup gives no ref (a CSS selector, an XPath): the ref found is looked up after.
_QUERIES = ("css", "xpath")


async def _page_scroller(ctx: CommandContext) -> Resolved:
    object_id = await evaluate_handle(
        ctx, "document.scrollingElement || document.documentElement", what="the page's scroller"
    )
    if object_id is None:
        raise ResolutionError("the page has no document to scroll", code="not_found")
    return Resolved(object_id, via="page")


async def scroll_by(
    ctx: CommandContext, target: Resolved | None, *, by: int | None, to: str | None
) -> Scrolled:
    """Scroll what scrolls for ``target`` (None: the page) by pixels or to the top/bottom."""
    el = target or await _page_scroller(ctx)
    how = {"to": to} if to else {"by": by if by is not None else 0}
    moved = await call_function(
        ctx, el.object_id, "scrollOn", how, session_id=el.session_id, what="scroll"
    )
    return Scrolled(
        moved["scroller"],
        moved["before"],
        moved["after"],
        moved["max"],
        moved["at_end"],
        at_top=moved["at_top"],
    )


async def _wheel_turns(
    ctx: CommandContext,
    object_id: str,
    look: Look,
    deltas: list[int],
    spec: TargetSpec | None,
) -> list[Look]:
    """Wheel turns over the scroller, each followed by a look once the page has drawn the scroll
    and rendered what it brings (not after a fixed pause: fast where the page is, patient where
    it is slow); one round trip."""
    batch: list[CdpCommand] = []
    for delta in deltas:
        wheel = {"type": "mouseWheel", "x": look["x"], "y": look["y"], "button": "none"}
        batch.append(("Input.dispatchMouseEvent", {**wheel, "deltaX": 0, "deltaY": delta}))
        batch.append(
            (
                "Runtime.callFunctionOn",
                call_params(object_id, "rowsAfterFrames", spec, await_promise=True),
            )
        )
    answers = await ctx.cdp_batch(batch, sequential=True)
    for answer in answers:
        if isinstance(answer, ReinsError):
            raise answer
    if len(answers) < len(batch):
        raise ReinsError("the wheel turn was cut short", code="cdp_error", transient=True)
    return [look_of(call_value(a, what="scroll")) for a in answers[1::2] if isinstance(a, dict)]


async def _shown(ctx: CommandContext, el: Resolved, within: Resolved | None) -> bool:
    """Is ``el`` in view (``shownInScrollers``), and inside what scrolls for ``within`` when
    one is given?"""
    if within is None:
        shown = await call_function(
            ctx, el.object_id, "shownInScrollers", session_id=el.session_id, what="scroll"
        )
        return bool(shown)
    if el.session_id != within.session_id:
        return False
    params = call_params(el.object_id, "shownInScrollerOf")
    params["arguments"].append({"objectId": within.object_id})
    answer = await ctx.cdp("Runtime.callFunctionOn", params, session_id=el.session_id)
    return bool(call_value(answer, what="scroll"))


async def _candidate_inside(
    ctx: CommandContext, ambiguous: ReinsError, within: Resolved
) -> str | None:
    """Of an ambiguous lookup's candidates (refs: the text also sits outside the list, as
    whole as in the row), the first in view inside what scrolls for ``within``: the row's."""
    for ref in ambiguous.details.get("candidates") or []:
        if not (isinstance(ref, str) and ref.startswith("@")):
            continue
        try:
            el = await resolve_target(ctx, ref, settle=False)
        except ReinsError as exc:
            if exc.code in ("not_found", "ref_stale"):
                continue
            raise
        if await _shown(ctx, el, within):
            return el.ref or ref
    return None


async def _ref_of(ctx: CommandContext, el: Resolved) -> str | None:
    """The ref of a CSS or XPath target's element once it is found, as ``reins state`` would
    give it (the page observed, and the ref of the record the walk kept of that very node);
    None when the walk keeps no record of it, or the observation fails (found stands)."""
    try:
        snap, _records, refs = await observe_page(ctx)
        local = await call_function(
            ctx, el.object_id, "storedIndexOf", session_id=el.session_id, what="scroll"
        )
    except ReinsError:
        return None
    if not isinstance(local, int) or local < 0:
        return None
    home = (el.session_id, local)
    return next((ref for ref, at in zip(refs, snap.homes, strict=False) if at == home), None)


async def scroll_until(
    ctx: CommandContext, target: str, scroller: str | None, frame: str | None
) -> Scrolled:
    """Wheel over ``scroller`` (the page when None) until ``target`` exists and is in view."""
    require_rendering(ctx)
    wheel_over = (
        await resolve_target(ctx, scroller, frame=frame) if scroller else await _page_scroller(ctx)
    )
    if wheel_over.session_id is not None:
        raise ResolutionError(
            "scroll --until works in the main frame and same-origin frames",
            code="frame_unreachable",
        )
    parsed = parse_target(target, frame=frame)
    # A target is looked for in the scroller at each turn, cheaply, in the turn's own round trip
    # (``rowsShown``'s ``holds`` and ``target_at``); the whole lookup runs when that sees it, and
    # every _FULL_LOOK_EVERY round trips (the target may lie outside the scroller named).
    spec = spec_of(parsed)
    sorting = sort_text(parsed)
    first = look_of(
        await call_function(ctx, wheel_over.object_id, "rowsShown", spec, what="scroll")
    )
    plan = Plan(
        spec,
        ListSearch.for_text(sorting, exact=parsed.exact, proves=parsed.kind in ("text", "role"))
        if spec and sorting
        else None,
        Sweep.starting_at(float(first["scroll_top"])) if spec else None,
        first,
    )
    trips = 0

    # A target with a SCROLLER named is the row in it: the same text shown elsewhere on the page
    # (a log, a detail panel) is never it (it answered found after 0 turns, the row not there).
    within = wheel_over if scroller and spec else None

    async def in_view() -> str | None:
        """The target's ref once it is in view (None: it has none); NotYet after a turn."""
        nonlocal trips
        look = plan.look
        full = within is None and trips % _FULL_LOOK_EVERY == 0
        if spec is None or look.get("holds") or full:
            try:
                el = await resolve_target(ctx, target, frame=frame, settle=False)
                if await _shown(ctx, el, within):
                    return el.ref or (await _ref_of(ctx, el) if parsed.kind in _QUERIES else None)
            except ReinsError as exc:
                if exc.code not in ("not_found", "ref_stale", "ambiguous") or (
                    exc.code == "ambiguous" and within is None
                ):
                    raise
                if exc.code == "ambiguous" and within is not None:
                    inside = await _candidate_inside(ctx, exc, within)
                    if inside is not None:
                        return inside
            if within is not None and look.get("holds"):
                return None  # in view in the scroller; what the text names on the page is not it
        step = plan.next_step(target)
        trips += 1
        if isinstance(step, float):
            room = min(_SWEEP_CALL_S, ctx.deadline.remaining() - 0.4)
            swept = look_of(
                await call_function(
                    ctx,
                    wheel_over.object_id,
                    "sweepList",
                    spec,
                    step,
                    _SWEEP_MOST_STEPS,
                    max(50, round(room * 1000)),
                    await_promise=True,
                    what="scroll",
                )
            )
            plan.steps += int(swept["looks"])
            plan.took([swept])
        else:
            plan.took(await _wheel_turns(ctx, wheel_over.object_id, look, step, spec), rested=True)
            plan.wheels += len(step)
        look = plan.look
        end = " (at the end)" if look["at_end"] else ""
        raise NotYet(
            f"{target} is not in view after {plan.wheels} wheel turn(s)"
            + (f" and {plan.steps} sweep steps; " if plan.steps else "; ")
            + f"{look['scroller']} at {look['scroll_top']} of {look['max']}{end}"
        )

    def gave_up(last: ReinsError) -> ReinsError:
        return DeadlineExceeded(
            f"scroll --until: gave up at the end of the budget; last seen: {last.message}"
            + plan.how_far(),
            details={
                "last_seen": last.message,
                "wheels": plan.wheels,
                "sweep_steps": plan.steps,
                **plan.details(),
            },
            hint=plan.hint(),
        )

    ref = await poll_until(
        ctx.deadline,
        in_view,
        interval=0.0,
        reserve_s=0.2,
        gave_up=gave_up,
        retry=lambda exc: isinstance(exc, NotYet),
    )
    last = look_of(await call_function(ctx, wheel_over.object_id, "wheelPoint", what="scroll"))
    return Scrolled(
        last["scroller"],
        first["scroll_top"],
        last["scroll_top"],
        last["max"],
        last["at_end"],
        found=Found(ref, plan.wheels, plan.steps),
    )
