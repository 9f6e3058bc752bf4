"""Scrolling: move what scrolls for a target (or the page), or turn a real mouse wheel over a
scroller until a target is there and in view.

"What scrolls" is the element itself when it scrolls, else its nearest scrolling ancestor, else
the page (``scrollerOf`` in pagescripts/src/scroll.js). ``scroll --until`` uses wheel events
(``Input.dispatchMouseEvent`` type ``mouseWheel``) rather than setting ``scrollTop``, because
virtualized lists and infinite feeds render from the scroll events a person's wheel makes. A
turn is a screen, except for a ``text=`` target in a list whose rows read as sorted: then each
turn goes where the bisection of act/listsearch.py looks next (``rowsShown`` tells it the rows).
"""

from __future__ import annotations

from typing import Any

from reins._errors import DeadlineExceeded, ReinsError, ResolutionError
from reins.act.listsearch import ListSearch
from reins.act.locate import Resolved, resolve_target
from reins.act.targets import parse_target
from reins.bridge.context import CommandContext
from reins.page.call import call_function, call_params, call_value, evaluate_handle
from reins.page.poll import NotYet, poll_until
from reins.page.visibility import require_rendering

__all__ = ["scroll_by", "scroll_until"]

# A wheel turn moves this share of the scroller's height: rows that were at the bottom edge stay
# in view after it, so nothing between two turns is skipped.
_WHEEL_SHARE = 0.8
# How often (in turns) a text target is looked up the whole way, not only in the scroller.
_FULL_LOOK_EVERY = 10


def _turn(point: dict[str, Any]) -> int:
    """One screen-sized wheel turn down."""
    return round(float(point["height"]) * _WHEEL_SHARE)


def _delta(search: ListSearch, point: dict[str, Any]) -> int:
    """The wheel turn to where the list search looks next (a screen-sized turn when it is over)."""
    rows = [str(row) for row in point.get("rows") or []]
    top, height = float(point["scroll_top"]), float(point["height"])
    ahead = search.next_position(
        top, height, float(point["max"]), rows, at_end=bool(point["at_end"])
    )
    return _turn(point) if ahead is None else round(ahead - top)


async def _page_scroller(ctx: CommandContext) -> Resolved:
    object_id = await evaluate_handle(
        ctx, "document.scrollingElement || document.documentElement", what="the page's scroller"
    )
    if object_id is None:
        raise ResolutionError("the page has no document to scroll", code="not_found")
    return Resolved(object_id, via="page")


async def scroll_by(
    ctx: CommandContext, target: Resolved | None, *, by: int | None, to: str | None
) -> dict[str, Any]:
    """Scroll what scrolls for ``target`` (None: the page) by pixels or to the top/bottom."""
    el = target or await _page_scroller(ctx)
    how: dict[str, Any] = {"to": to} if to else {"by": by if by is not None else 0}
    moved: dict[str, Any] = await call_function(
        ctx, el.object_id, "scrollOn", how, session_id=el.session_id, what="scroll"
    )
    return moved


async def scroll_until(
    ctx: CommandContext, target: str, scroller: str | None, frame: str | None
) -> dict[str, Any]:
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
    seen: dict[str, Any] = {"wheels": 0}
    parsed = parse_target(target, frame=frame)
    search = ListSearch.for_text(parsed.value) if parsed.kind == "text" else None

    # A text target is looked for in the scroller at each turn, cheaply, in the turn's own round
    # trip (``rowsShown``'s ``holds``); the whole lookup runs when that sees it, and every
    # _FULL_LOOK_EVERY turns (the target may lie outside the scroller named).
    spec = {"text": parsed.value, "exact": parsed.exact} if parsed.kind == "text" else None
    look: dict[str, Any] = await call_function(
        ctx, wheel_over.object_id, "rowsShown", spec, what="scroll"
    )

    async def in_view() -> dict[str, Any]:
        nonlocal look
        if spec is None or look.get("holds") or seen["wheels"] % _FULL_LOOK_EVERY == 0:
            try:
                el = await resolve_target(ctx, target, frame=frame, settle=False)
                if await call_function(
                    ctx, el.object_id, "shownInScrollers", session_id=el.session_id, what="scroll"
                ):
                    return {"found": True, "ref": el.ref}
            except ReinsError as exc:
                if exc.code not in ("not_found", "ref_stale"):
                    raise
        point = look
        seen.setdefault("before", point["scroll_top"])
        seen.update(
            scroller=point["scroller"],
            after=point["scroll_top"],
            max=point["max"],
            at_end=point["at_end"],
        )
        looking = search is not None and search.on
        wheel = {
            "type": "mouseWheel",
            "x": point["x"],
            "y": point["y"],
            "button": "none",
            "deltaX": 0,
            "deltaY": _delta(search, point) if looking and search else _turn(point),
        }
        # The turn, then the next look once the page has drawn the scroll and rendered what it
        # brings (not after a fixed pause: fast where the page is, patient where it is slow).
        answers = await ctx.cdp_batch(
            [
                ("Input.dispatchMouseEvent", wheel),
                (
                    "Runtime.callFunctionOn",
                    call_params(wheel_over.object_id, "framesPassed", await_promise=True),
                ),
                ("Runtime.callFunctionOn", call_params(wheel_over.object_id, "rowsShown", spec)),
            ],
            sequential=True,
        )
        seen["wheels"] += 1
        for answer in answers:
            if isinstance(answer, ReinsError):
                raise answer
        if len(answers) < 3:
            raise ReinsError("the wheel turn was cut short", code="cdp_error", transient=True)
        last = answers[2]
        assert isinstance(last, dict)
        look = call_value(last, what="scroll")
        end = " (at the end)" if look["at_end"] else ""
        raise NotYet(
            f"{target} is not in view after {seen['wheels']} wheel turn(s); "
            f"{look['scroller']} at {look['scroll_top']} of {look['max']}{end}"
        )

    def gave_up(last: ReinsError) -> ReinsError:
        return DeadlineExceeded(
            f"scroll --until: gave up at the end of the budget; last seen: {last.message}",
            details={"last_seen": last.message, "wheels": seen["wheels"]},
            hint="give a SCROLLER (the list that holds TARGET), or a longer --timeout-ms",
        )

    found = await poll_until(
        ctx.deadline,
        in_view,
        interval=0.0,
        reserve_s=0.2,
        gave_up=gave_up,
        retry=lambda exc: isinstance(exc, NotYet),
    )
    last = await call_function(ctx, wheel_over.object_id, "wheelPoint", what="scroll")
    return {
        **found,
        "scroller": last["scroller"],
        "before": seen.get("before", last["scroll_top"]),
        "after": last["scroll_top"],
        "max": last["max"],
        "at_end": last["at_end"],
        "wheels": seen["wheels"],
    }
