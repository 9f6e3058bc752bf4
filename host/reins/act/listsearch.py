"""Where in a long sorted list a text is: `scroll --until text=…`'s bisection (pure).

A virtual list renders only the rows around its scroll position, so a row far down is reached
only by scrolling there; a wheel turn of one screen at a time takes a thousand turns over a
10,000-row list. When the rows a look shows read as sorted by their text (natural order: numbers
by value, any case) and the target text reads as a row of that order (its first word is theirs),
the next look goes halfway between the positions known to lie before and after the target;
once those are less than a screen apart, or anything contradicts the order, the search hands
over to screen-sized turns from the position known to lie before it. The search only chooses
where to look: a target is found only when it is there and in view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ListSearch", "natural_key"]

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
        screen-sized turns go on from where the scroller is."""
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
