"""Where in a long list a text is: `scroll --until text=…`'s bisection and sweep (pure).

A virtual list renders only the rows around its scroll position, so a row far down is reached
only by scrolling there; a wheel turn of one screen at a time takes a thousand turns over a
10,000-row list. When the rows a look shows read as sorted by their text (natural order: numbers
by value, any case) and the target text reads as a row of that order (its first word is theirs),
the next look goes halfway between the positions known to lie before and after the target;
once those are less than a screen apart, or anything contradicts the order, the search hands
over to a sweep from the position known to lie before it. In a list in no such order, ``Sweep``
keeps which stretches of the content were rendered at some look, so that every part is looked at
once (gaps a turn left behind too) and the end of the sweep is known. Both only choose where to
look: a target is found only when it is there and in view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ListSearch", "Sweep", "natural_key"]

_CHUNKS = re.compile(r"\d+|\D+")

Key = tuple[tuple[int, int | str], ...]


def natural_key(text: str) -> Key:
    """A text's sort key: runs of digits by value, other runs by their lower case, digits first."""
    out: list[tuple[int, int | str]] = []
    for chunk in _CHUNKS.findall(" ".join(text.split()).lower()):
        out.append((0, int(chunk)) if chunk.isdigit() else (1, chunk))
    return tuple(out)


def _compare(target: Key, row: Key) -> int:
    """-1: a row holding the target comes before ``row``; 1: after it; 0: ``row`` starts as the
    target does (the last run of the target may be the start of the row's run)."""
    for i, part in enumerate(target):
        if i >= len(row):
            return 1
        theirs = row[i]
        last = i == len(target) - 1
        if last and part[0] == 1 and theirs[0] == 1 and str(theirs[1]).startswith(str(part[1])):
            return 0
        if part != theirs:
            return -1 if part < theirs else 1
    return 0


@dataclass
class ListSearch:
    """One search: the positions known to lie before (``lo``) and after (``hi``) the target."""

    target: Key
    lo: float = 0.0
    hi: float | None = None
    on: bool = True

    @classmethod
    def for_text(cls, text: str) -> ListSearch:
        return cls(natural_key(text))

    def next_position(
        self, top: float, height: float, end: float, rows: list[str], *, at_end: bool
    ) -> float | None:
        """Where to look next (a scroll position; once the span is a screen, the position known
        to lie before the target, and the search is over), or None: the search is over, and
        the sweep goes on from where the scroller is."""
        if not self.on:
            return None
        keys = [natural_key(row) for row in rows]
        first_word = self.target[:1]
        sorted_rows = len(keys) >= 2 and all(a <= b for a, b in zip(keys, keys[1:], strict=False))
        if not sorted_rows or any(key[:1] != first_word for key in keys):
            self.on = False
            return None
        if _compare(self.target, keys[0]) < 0:
            self.hi = top if self.hi is None else min(self.hi, top)
        elif _compare(self.target, keys[-1]) > 0:
            if at_end:  # the list may grow at its end (a feed): turns go on there
                self.lo = top
                self.on = False
                return None
            self.lo = max(self.lo, top + 1)
        else:  # the rows around the target are shown, and it is not among them as a row
            self.on = False
            return None
        hi = end if self.hi is None else self.hi
        if hi - self.lo <= height:
            self.on = False
            return self.lo
        return (self.lo + hi) / 2


@dataclass
class Sweep:
    """A sweep of a list in no order the search can use: which stretches of its content (px from
    its top) were rendered at some look, so every part of it is looked at once, gaps (a turn that
    went further than asked, a row drawn late) included. ``origin`` is where the sweep began: it
    goes down from there to the end, then from the top down to the origin."""

    origin: float
    seen: list[tuple[float, float]]

    @classmethod
    def starting_at(cls, top: float) -> Sweep:
        return cls(origin=top, seen=[])

    def add(self, stretches: list[tuple[float, float]]) -> None:
        """Mark stretches as looked at (merged where they touch, within a pixel)."""
        spans = sorted([*self.seen, *((a, b) for a, b in stretches if b > a)])
        out: list[tuple[float, float]] = []
        for a, b in spans:
            if out and a <= out[-1][1] + 1:
                out[-1] = (out[-1][0], max(out[-1][1], b))
            else:
                out.append((a, b))
        self.seen = out

    def first_unseen(self, start: float, end: float) -> float | None:
        """The first point of [start, end) not looked at, or None."""
        at = start
        for a, b in self.seen:
            if a > at + 1:
                break
            at = max(at, b)
        return at if at < end - 1 else None

    def next_top(self, length: float) -> float | None:
        """Where the next look's top goes (``length``: the content's height): the first point not
        looked at from the origin down, else from the top down; None once all was looked at."""
        ahead = self.first_unseen(self.origin, length)
        return ahead if ahead is not None else self.first_unseen(0.0, length)

    def share_seen(self, length: float) -> float:
        """How much of the content was looked at (0 to 1)."""
        if length <= 0:
            return 1.0
        return min(1.0, sum(min(b, length) - max(a, 0.0) for a, b in self.seen if b > 0) / length)
