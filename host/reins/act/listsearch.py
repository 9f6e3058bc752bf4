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

The order also proves a text absent (``ListSearch.absent``): two rows next to each other in one
look with the target between them and neither starting as it does (or the target before the
first row of the list, or after its last), for a quoted text or one that does not end in digits,
once looks spread over the whole list (``next_sample``) all read as one order: a list sorted
only a screen at a time (row i shows i * 7919 mod N) reads as sorted in any one look.
A text that ends in a number n also matches rows whose number starts with n's digits (n0, n00,
…: "Vendor 73" is in "Vendor 7301"), which sort elsewhere; so there the last row of the list must
sort before n0 too. The proof takes a row's text to start with what it is sorted by; a row that
holds the text only further along (in a later column) is not looked for once it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ListSearch", "Sweep", "natural_key"]

_CHUNKS = re.compile(r"\d+|\D+")
# How many parts a list is cut into by the looks that check it is in one order before the order
# proves a text absent (their ends included: _SAMPLES + 1 looks).
_SAMPLES = 8

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
    """One search: the positions known to lie before (``lo``) and after (``hi``) the target;
    where the order puts it with no row holding it (``gap``, said in words; ``gap_at_end``: after
    the last row), the last row of the list once a look at its end showed it, and what each look
    showed (``spots``: its position, first and last row) for the check that the whole list is in
    one order. ``proves``: the target is the text rows are matched by (a role's name, while
    every element of the role looked at is named by the text it shows)."""

    target: Key
    exact: bool = False
    proves: bool = False
    lo: float = 0.0
    hi: float | None = None
    on: bool = True
    gap: str | None = None
    gap_at_end: bool = False
    last: Key | None = None
    spots: list[tuple[float, Key, Key]] = field(default_factory=list)
    disordered: bool = False
    tried: set[int] = field(default_factory=set)
    sampled: bool = False

    @classmethod
    def for_text(cls, text: str, *, exact: bool = False, proves: bool = False) -> ListSearch:
        return cls(natural_key(text), exact=exact, proves=proves)

    def saw(self, top: float, rows: list[str], *, at_end: bool) -> None:
        """A look's rows at scroll position ``top``: kept for the order check, and the last row
        of the list once a look at its end shows it."""
        keys = [natural_key(row) for row in rows]
        if at_end and keys:
            self.last = keys[-1]
        # Once the order was checked, later looks (turns at the end while a feed may grow,
        # rows drawn a frame late) do not undo it.
        if len(keys) < 2 or self.sampled:
            return
        kind = all(key[:1] == self.target[:1] for key in keys)
        if not kind or any(a > b for a, b in zip(keys, keys[1:], strict=False)):
            self.disordered = True
        else:
            self.spots.append((top, keys[0], keys[-1]))

    def next_sample(self, end: float, height: float) -> float | None:
        """Where a look still has to go before the order may prove anything: one of _SAMPLES + 1
        positions spread evenly from the top to the end (``end``: the last scroll position)
        that no look was near; None once each was looked at. A list that only reads as sorted
        a screen at a time (rows i * 7919 mod N) shows that across them."""
        for k in range(_SAMPLES + 1):
            at = end * k / _SAMPLES
            near = any(abs(top - at) <= height / 2 for top, _, _ in self.spots)
            if k not in self.tried and not near:
                self.tried.add(k)
                return at
        self.sampled = True
        return None

    def _one_order(self) -> bool:
        """Every look read as sorted, and the looks in the order of their positions too."""
        spots = sorted(self.spots, key=lambda spot: spot[0])
        return not self.disordered and all(
            a[1] <= b[1] and a[2] <= b[2] for a, b in zip(spots, spots[1:], strict=False)
        )

    def _longer(self) -> Key | None:
        """For a text that ends in a number n (and is not quoted), the key of the same text
        ending in n0: every longer number a row may start with sorts at or after it. None when
        the text ends in no number; the text itself when the number is 0 (no bound holds)."""
        kind, value = self.target[-1] if self.target else (1, "")
        if self.exact or kind != 0:
            return None
        if int(value) == 0:
            return self.target
        return (*self.target[:-1], (0, int(value) * 10))

    def still_after_last(self) -> bool:
        """The target still sorts after the last row seen at the list's end (a feed grows)."""
        return self.last is not None and _compare(self.target, self.last) > 0

    def absent(self) -> str | None:
        """Why the order proves that no row holds the target, or None (it does not, or not
        until ``next_sample`` has nothing left)."""
        if not (self.proves and self.gap is not None and self.sampled and self._one_order()):
            return None
        longer = self._longer()
        if longer is None:
            return self.gap
        if self.last is None or longer == self.target or not self.last < longer:
            return None
        return self.gap

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
            if top <= 0:
                self.gap = f"before its first row {_quoted(rows[0])}"
                self.on = False
                return None
            self.hi = top if self.hi is None else min(self.hi, top)
        elif _compare(self.target, keys[-1]) > 0:
            if at_end:  # the list may grow at its end (a feed): turns go on there
                self.gap, self.gap_at_end = f"after its last row {_quoted(rows[-1])}", True
                self.lo = top
                self.on = False
                return None
            self.lo = max(self.lo, top + 1)
        else:  # the rows around the target are shown, and it is not among them as a row
            self.gap = _between(self.target, keys, rows)
            self.on = False
            return None
        hi = end if self.hi is None else self.hi
        if hi - self.lo <= height:
            if self.hi is None:  # no look showed a row after it: the end is looked at
                return end
            self.on = False
            return self.lo
        return (self.lo + hi) / 2


def _quoted(row: str) -> str:
    return repr(row if len(row) <= 40 else row[:39] + "…")


def _between(target: Key, keys: list[Key], rows: list[str]) -> str | None:
    """Where the target sorts between two rows next to each other, neither starting as it does
    (None: a row starts so, or it sorts nowhere strictly between two)."""
    order = [_compare(target, key) for key in keys]
    if 0 in order:
        return None
    for i in range(len(keys) - 1):
        if order[i] > 0 > order[i + 1]:
            return f"between its rows {_quoted(rows[i])} and {_quoted(rows[i + 1])}"
    return None


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
