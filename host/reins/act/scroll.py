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

from __future__ import annotations

import time
from typing import TypedDict, cast

from reins._errors import DeadlineExceeded, ReinsError, ResolutionError
from reins.act.answers import Scrolled, ScrolledUntil
from reins.act.listsearch import ListSearch, Sweep
from reins.act.locate import Resolved, resolve_target
from reins.act.targets import Target, parse_target
from reins.bridge.context import CommandContext
from reins.bridge.link import CdpCommand
from reins.page.call import call_function, call_params, call_value, evaluate_handle
from reins.page.poll import NotYet, poll_until
from reins.page.visibility import require_rendering

__all__ = ["scroll_by", "scroll_until"]

# A wheel turn moves this share of the scroller's height: rows that were at the bottom edge stay
# in view after it, so nothing between two turns is skipped.
_WHEEL_SHARE = 0.8
# How often (in round trips) a target is looked up the whole way, not only in the scroller.
_FULL_LOOK_EVERY = 10
# The longest one call of the sweep runs (the whole lookup runs between calls), and its most
# steps (a bound that holds even where the page's clock does not).
_SWEEP_CALL_S = 1.5
_SWEEP_MOST_STEPS = 1000
# How long a list looked at whole must keep its end (a feed grows there) before the target is
# said to be in no part of it.
_GRACE_S = 2.0
_ABSENT_HINT = (
    "check the target (a text: any case, a part of a row's text; quoted: exact), give the"
    " SCROLLER that holds TARGET, or, where the list loads more slowly, run it again once it has"
)


class Look(TypedDict, total=False):
    """What a look at the scroller shows (pagescripts/src/scroll.js: ``wheelPoint``,
    ``rowsShown``, ``sweepList``): where a wheel over it lands (``x``, ``y``), its label, height
    and position (``scroll_top`` of ``max``, ``at_end``, ``at_top``), the rows it shows, the
    stretches of its content rendered (``seen``), and for a target the page looks for whether an
    element in view ``holds`` it and where in the content it is (``target_at``); a sweep's count
    of looks."""

    x: float
    y: float
    height: float
    scroller: str
    scroll_top: float
    max: float
    at_end: bool
    at_top: bool
    rows: list[str]
    seen: list[list[float]]
    holds: bool
    target_at: float | None
    looks: int


class TargetSpec(TypedDict, total=False):
    """A target as the page's list search takes it (pagescripts/src/scroll.js ``drawnTarget``):
    a text (``text``, ``exact``), a CSS selector (``css``), an XPath (``xpath``) or a role with
    its name (``role``, ``name``, ``exact``)."""

    text: str
    exact: bool
    css: str
    xpath: str
    role: str
    name: str


def _spec_of(parsed: Target) -> TargetSpec | None:
    """What the page looks for in the list at each look; None for a ref (looked up the whole
    way each turn)."""
    if parsed.kind == "text":
        return {"text": parsed.value, "exact": parsed.exact}
    if parsed.kind == "css":
        return {"css": parsed.value}
    if parsed.kind == "xpath":
        return {"xpath": parsed.value}
    if parsed.kind == "role":
        role: TargetSpec = {"role": parsed.value, "exact": parsed.exact}
        if parsed.name is not None:
            role["name"] = parsed.name
        return role
    return None


def _sort_text(parsed: Target) -> str | None:
    """The text a bisection of a sorted list looks for: a text target's, a role's name."""
    return parsed.value if parsed.kind == "text" else parsed.name if parsed.kind == "role" else None


def _look(value: object) -> Look:
    """A look as the page answered it ({} when it is no object)."""
    return cast(Look, value) if isinstance(value, dict) else {}


def _turn(point: Look) -> int:
    """One screen-sized wheel turn down."""
    return round(float(point["height"]) * _WHEEL_SHARE)


def _stretches(look: Look) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in look.get("seen") or []]


class _Plan:
    """Where one ``scroll --until`` with a target the page looks for goes next, from what the
    last look showed: the bisection of a sorted list (ListSearch) while it lasts; a wheel turn
    that centres the target once a look has it rendered; else the page's sweep (``sweepList``)
    from the first part not looked at (Sweep), until every part of the list was. A ref: a
    screen a wheel turn."""

    def __init__(
        self,
        ctx: CommandContext,
        spec: TargetSpec | None,
        search: ListSearch | None,
        sweep: Sweep | None,
        look: Look,
    ) -> None:
        self.ctx, self.spec, self.search, self.sweep, self.look = ctx, spec, search, sweep, look
        self.aim: float | None = None  # where a look of the last trip had the target rendered
        self.met = False  # the target was rendered at some look
        self.whole_since: float | None = None
        self.began = time.monotonic()
        self.wheels = self.steps = 0  # wheel turns made, and steps of the page's sweep
        self.end_since: float | None = None  # since when the end stayed the end (ListSearch gap)
        if sweep is not None:
            sweep.add(_stretches(look))
        if search is not None:
            rows = [str(row) for row in look.get("rows") or []]
            search.saw(float(look["scroll_top"]), rows, at_end=bool(look["at_end"]))

    def next_step(self, target: str) -> list[int] | float:
        """The wheel deltas of the next round trip, or where the sweep goes on from (raises
        not_found once every part of the list was looked at)."""
        look = self.look
        top, height = float(look["scroll_top"]), float(look["height"])
        if self.spec is None or self.sweep is None:
            return [_turn(look)]
        # A look that has the target rendered (above or below the box: a list renders a buffer)
        # centres it at once; the bisection would have gone on elsewhere first.
        aim = look.get("target_at")
        aim, self.aim = (self.aim if aim is None else float(aim)), None
        if aim is not None:
            self.met = True
            if self.search is not None:
                self.search.on = False
            return [round(aim - top - height / 2)]
        if self.search is not None and self.search.on:
            rows = [str(row) for row in look.get("rows") or []]
            at_end = bool(look["at_end"])
            ahead = self.search.next_position(top, height, float(look["max"]), rows, at_end=at_end)
            if ahead is not None:
                if not self.search.on:  # the bisection is over: the sweep goes on from there
                    self.sweep.origin = ahead
                return [round(ahead - top)]
        if self.search is not None and self.search.gap is not None:
            turn = self._by_order(target, self.search)
            if turn is not None:
                return turn
        length = float(look["max"]) + height
        ahead = self.sweep.next_top(length)
        if ahead is None:
            now = time.monotonic()
            self.whole_since = self.whole_since or now
            if now - self.whole_since >= _GRACE_S and not self.met:
                raise ResolutionError(
                    f"{target} is in no part of {look['scroller']}: all of its {round(length)}"
                    " px were rendered and looked at, and its end stayed the end for"
                    f" {_GRACE_S:.0f} s",
                    code="not_found",
                    transient=False,
                    hint=_ABSENT_HINT,
                    details=self._absent_details(whole=True),
                )
            return [_turn(look)]
        self.whole_since = None
        return ahead

    def _by_order(self, target: str, search: ListSearch) -> list[int] | None:
        """Where the bisection saw where the target would sort and no row there: a turn the
        proof that it is absent still needs (looks spread over the list, which must all read
        as one order; at the end, while a feed may still grow there), or None, no proof (the
        sweep goes on); raises not_found once the order proves it absent."""
        look = self.look
        top, end = float(look["scroll_top"]), float(look["max"])
        ahead = search.next_sample(end, float(look["height"]))
        if ahead is not None:
            return [round(ahead - top)]
        why = search.absent()
        if why is None:
            search.gap = None
            return None
        if search.gap_at_end:
            if not look["at_end"]:
                return [round(end - top) + 1]
            if not search.still_after_last():  # the list grew: what the order said holds no longer
                search.gap = None
                return None
            now = time.monotonic()
            self.end_since = self.end_since or now
            if now - self.end_since < _GRACE_S:
                return [_turn(look)]
        grace = f", and its end stayed the end for {_GRACE_S:.0f} s" if search.gap_at_end else ""
        raise ResolutionError(
            f"{target} is in no row of {look['scroller']}: its rows read as sorted (at"
            f" {len(search.spots)} places over the list), and the target would sort {why}{grace}",
            code="not_found",
            transient=False,
            hint=_ABSENT_HINT,
            details=self._absent_details(),
        )

    def _absent_details(self, *, whole: bool = False) -> dict[str, float]:
        """A not_found's details; ``whole``: every part of the list was looked at."""
        return {
            "share_seen": 1.0 if whole else round(self._share(), 3),
            "wheels": self.wheels,
            "sweep_steps": self.steps,
        }

    def took(self, looks: list[Look]) -> None:
        """What the looks of a round trip showed, in order."""
        for look in looks:
            if self.sweep is not None:
                self.sweep.add(_stretches(look))
            if self.search is not None:
                rows = [str(row) for row in look.get("rows") or []]
                top = float(look.get("scroll_top") or 0)
                self.search.saw(top, rows, at_end=bool(look.get("at_end")))
            aim = look.get("target_at")
            if self.aim is None and aim is not None:
                self.aim = float(aim)
        self.look = looks[-1]

    def _share(self) -> float:
        if self.sweep is None:
            return 0.0
        return self.sweep.share_seen(float(self.look["max"]) + float(self.look["height"]))

    def how_far(self) -> str:
        return f"; {self._share():.0%} of the list looked at" if self.sweep is not None else ""

    def details(self) -> dict[str, float]:
        return {"share_seen": round(self._share(), 3)} if self.sweep is not None else {}

    def hint(self) -> str:
        share = self._share()
        if self.sweep is None or self.met or share <= 0 or share >= 1:
            return "give a SCROLLER (the list that holds TARGET), or a longer --timeout-ms"
        whole = (time.monotonic() - self.began) / share
        return (
            "the list is in no order reins can search, so it is looked at whole: at this pace"
            f" that takes about {whole:.0f} s; give a longer --timeout-ms, or a TARGET that"
            " is nearer the top"
        )


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
        moved["at_top"],
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
    return [_look(call_value(a, what="scroll")) for a in answers[1::2] if isinstance(a, dict)]


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


async def scroll_until(
    ctx: CommandContext, target: str, scroller: str | None, frame: str | None
) -> ScrolledUntil:
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
    spec = _spec_of(parsed)
    sort_text = _sort_text(parsed)
    first = _look(await call_function(ctx, wheel_over.object_id, "rowsShown", spec, what="scroll"))
    plan = _Plan(
        ctx,
        spec,
        ListSearch.for_text(sort_text, exact=parsed.exact, proves=parsed.kind == "text")
        if spec and sort_text
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
                    return el.ref
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
            swept = _look(
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
            plan.took(await _wheel_turns(ctx, wheel_over.object_id, look, step, spec))
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
    last = _look(await call_function(ctx, wheel_over.object_id, "wheelPoint", what="scroll"))
    return ScrolledUntil(
        ref,
        last["scroller"],
        first["scroll_top"],
        last["scroll_top"],
        last["max"],
        last["at_end"],
        plan.wheels,
        plan.steps,
    )
