"""What changed between two observations of one document: ``reins state --diff`` (pure).

Lines have the format of ``state`` with a mark in front::

    - @oldbtn button "Remove me"
    + @newbtn button "Added"
    ~ @title textbox "Title" value="new value" [focused]

``-`` an element the earlier observation showed and this one does not (its old line), ``+`` an
element new since then, ``~`` an element whose line changed (its new line). Refs are the registry's,
so the same element keeps its ref across both. Removed lines come first (in the earlier order), then
added and changed ones in document order; an element of another frame is followed by ``[frame fN]``
so a line needs no section header. An element whose line is unchanged is not mentioned, also when
only its position moved (in or out of the viewport is not part of a line either).

What is kept between observations is ``Lines``: per ref its frame and line, no more, capped at
``MAX_KEPT`` elements (a larger page keeps nothing and its next ``--diff`` is a full state).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from reins._pagetext import word
from reins.observe.render import MAIN_FRAME, RefView, approx_tokens, render_line

__all__ = ["MAX_KEPT", "Lines", "StateDiff", "diff_lines", "lines_of"]

# A 20,000-element page with some added: ~35 characters a line, a few MiB per tab at most.
MAX_KEPT: Final = 30_000


@dataclass(frozen=True, slots=True)
class Lines:
    """One observation as ``state`` printed its elements: ref -> line, in document order."""

    document_id: str
    lines: dict[
        str, str
    ]  # ref (with @) -> its line, ``[frame fN]`` appended outside the main frame

    def __len__(self) -> int:
        return len(self.lines)


@dataclass(frozen=True, slots=True)
class StateDiff:
    added: tuple[str, ...]  # refs
    removed: tuple[str, ...]
    changed: tuple[str, ...]
    text: str
    approx_tokens: int

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _line(view: RefView, main: str, line: str | None = None) -> str:
    if line is None:
        line = render_line(view)
    if view.frame and view.frame != main:
        line += f" [frame {word(view.frame)}]"
    return line


def lines_of(
    views: Sequence[RefView],
    document_id: str,
    *,
    main_frame: str = MAIN_FRAME,
    rendered: Sequence[str] | None = None,
) -> Lines | None:
    """What to keep of an observation for the next diff; None past ``MAX_KEPT`` elements.
    ``rendered``: each view's ``render_line``, when the caller has them already."""
    if len(views) > MAX_KEPT:
        return None
    if rendered is None or len(rendered) != len(views):
        rendered = [render_line(v) for v in views]
    return Lines(
        document_id,
        {
            (v.ref if v.ref.startswith("@") else "@" + v.ref): _line(v, main_frame, line)
            for v, line in zip(views, rendered, strict=True)
        },
    )


def diff_lines(old: Lines, new: Lines) -> StateDiff:
    """The ``+``/``-``/``~`` lines taking ``old`` to ``new`` (of the same document)."""
    out: list[str] = []
    removed = tuple(ref for ref in old.lines if ref not in new.lines)
    out.extend("- " + old.lines[ref] for ref in removed)
    added: list[str] = []
    changed: list[str] = []
    for ref, line in new.lines.items():
        before = old.lines.get(ref)
        if before is None:
            added.append(ref)
            out.append("+ " + line)
        elif before != line:
            changed.append(ref)
            out.append("~ " + line)
    text = "\n".join(out)
    return StateDiff(tuple(added), removed, tuple(changed), text, approx_tokens(text))
