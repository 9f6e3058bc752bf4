"""Where ``scroll --until`` goes next (act/scroll.py does the turns and looks): what a look at
the scroller shows (``Look``), the target as the page looks for it (``TargetSpec``), and the
``Plan`` that, from the last look, chooses the next wheel deltas or where the page's sweep goes
on, and says when the list proves the target absent (a typed ``not_found``)."""

from __future__ import annotations

import time
from typing import TypedDict, cast

from reins._errors import ResolutionError
from reins.act.listsearch import ListSearch, Sweep
from reins.act.targets import Target

__all__ = ["Look", "Plan", "TargetSpec", "look_of", "sort_text", "spec_of"]

# A wheel turn moves this share of the scroller's height: rows that were at the bottom edge stay
# in view after it, so nothing between two turns is skipped.
_WHEEL_SHARE = 0.8
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
    named_by_text: bool
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


def spec_of(parsed: Target) -> TargetSpec | None:
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


def sort_text(parsed: Target) -> str | None:
    """The text a bisection of a sorted list looks for: a text target's, a role's name."""
    return parsed.value if parsed.kind == "text" else parsed.name if parsed.kind == "role" else None


def look_of(value: object) -> Look:
    """A look as the page answered it ({} when it is no object)."""
    return cast(Look, value) if isinstance(value, dict) else {}


def _turn(point: Look) -> int:
    """One screen-sized wheel turn down."""
    return round(float(point["height"]) * _WHEEL_SHARE)


def _stretches(look: Look) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in look.get("seen") or []]


class Plan:
    """Where one ``scroll --until`` with a target the page looks for goes next, from what the
    last look showed: the bisection of a sorted list (ListSearch) while it lasts; a wheel turn
    that centres the target once a look has it rendered; else the page's sweep (``sweepList``)
    from the first part not looked at (Sweep), until every part of the list was. A ref: a
    screen a wheel turn."""

    def __init__(
        self,
        spec: TargetSpec | None,
        search: ListSearch | None,
        sweep: Sweep | None,
        look: Look,
    ) -> None:
        self.spec, self.search, self.sweep, self.look = spec, search, sweep, look
        self.aim: float | None = None  # where a look of the last trip had the target rendered
        self.met = False  # the target was rendered at some look
        self.began = time.monotonic()
        self.wheels = self.steps = 0  # wheel turns made, and steps of the page's sweep
        # Since when the end stayed the end: the first wheel turn's look at rest there (its
        # scroll events and two frames: a feed was told), and the scroll height then; any look
        # with another height (the list grew) starts it again.
        self.end_seen: tuple[float, float] | None = None
        self._read(look)

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
            if not look["at_end"]:  # a feed grows when its end is reached: wait there
                return [round(float(look["max"]) - top) + 1]
            if self._end_held() and not self.met:
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
            if not self._end_held():
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

    def _end_held(self) -> bool:
        """The end stayed the end for _GRACE_S since a wheel turn's look at rest there."""
        return self.end_seen is not None and time.monotonic() - self.end_seen[0] >= _GRACE_S

    def took(self, looks: list[Look], *, rested: bool = False) -> None:
        """What the looks of a round trip showed, in order (``rested``: each after a wheel
        turn, once the page drew it)."""
        for look in looks:
            self._read(look)
            height = float(look.get("max") or 0)
            if self.end_seen is not None and self.end_seen[1] != height:
                self.end_seen = None
            if rested and look.get("at_end") and self.end_seen is None:
                self.end_seen = (time.monotonic(), height)
            aim = look.get("target_at")
            if self.aim is None and aim is not None:
                self.aim = float(aim)
        self.look = looks[-1]

    def _read(self, look: Look) -> None:
        """A look's stretches for the sweep, its rows for the search; a role= target's name
        proves nothing once an element of its role is named otherwise than by its text."""
        if self.sweep is not None:
            self.sweep.add(_stretches(look))
        if self.search is not None:
            rows = [str(row) for row in look.get("rows") or []]
            top = float(look.get("scroll_top") or 0)
            self.search.saw(top, rows, at_end=bool(look.get("at_end")))
            if look.get("named_by_text") is False:
                self.search.proves = False

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
