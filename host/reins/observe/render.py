"""Rendering page state for agents: compact text, one line per element, and the ``--json`` list.

Text format::

    @submitbtn button "Submit" [disabled]
    @emailfield textbox "Email" value="a@b.c" [focused]
    --- frame f1 "https://pay.example/card" ---
    @cardnumber textbox "Card number"
    --- frame f2 "https://ads.example/x" frame_unreachable: cross_origin ---
    … 412 elements left out (offscreen); run with --max-tokens 0 for all, or scroll and run again

Main-frame lines come first, without a header; every other frame gets a header, and a frame that
could not be read gets a ``frame_unreachable`` header and no lines, so nothing is silently missing.
A header names its frame by the URL Chrome's frame tree gives (``observe.collect``), with the
origin when the URL does not start with it (``about:srcdoc``); never by the page's own words.
Every part that came from the page follows ``reins._pagetext``'s rule: names, values, titles, URLs
and reasons are whitespace-collapsed, cut to 80 characters with ``…`` and quoted (``\\`` escaping
``"`` and ``\\``, controls, bidi and zero-width characters as visible escapes); a role is bare only
when it is an ARIA role, a tag or frame id only when it is a word, else quoted too. So no page
string can end its field or start a line. Flags are shown only when true, except a checkable
control that is not checked, shown ``[unchecked]``.

``approx_tokens`` is ``ceil(chars / 4)``. ``max_tokens`` is a hard budget: elements in the viewport
are kept first (in document order), then the rest in document order while they fit, and a last line
says how many were left out. The returned ``approx_tokens``, that line included, never exceeds it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reins._errors import UsageError
from reins._pagetext import ARIA_ROLES, quote, word
from reins._pagetext import ref as ref_field

__all__ = [
    "FrameView",
    "RefView",
    "RenderResult",
    "approx_tokens",
    "render_state",
    "state_json",
]

MAX_TEXT_CHARS: Final = 80
ELLIPSIS: Final = "…"
MAIN_FRAME: Final = "f0"


_NO_STATES: Mapping[str, Any] = {}


@dataclass(frozen=True, slots=True)
class RefView:
    """One element as the agent sees it."""

    ref: str
    role: str | None
    name: str | None
    tag: str | None = None
    value: str | None = None
    frame: str | None = None
    in_viewport: bool = True
    disabled: bool = False
    checked: bool | str | None = None  # None: not checkable; "mixed" for aria-checked="mixed"
    expanded: bool | None = None
    selected: bool | None = None
    focused: bool = False
    # The value reins's world read differs from what Chrome's accessibility tree shows (AX source).
    unverified: bool = False
    # The controls a closed shadow root of this element holds, (role, name) as Chrome's tree
    # names them (observe/sealed.py): no page script can reach them.
    holds: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any], ref: str) -> RefView:
        """Build from an element record (docs/element-record.md) and the ref the registry gave it."""
        # Once per element of every first look: a dict is checked as one before the ABC, and
        # the fields go positionally (each keyword costs a frozen dataclass's __init__ more).
        get = record.get
        raw_states = get("states")
        states: Mapping[str, Any] = (
            raw_states
            if type(raw_states) is dict or isinstance(raw_states, Mapping)
            else _NO_STATES
        )
        value = get("value")
        if states:
            checked, expanded, selected = (
                states.get("checked"),
                states.get("expanded"),
                states.get("selected"),
            )
            disabled, focused = states.get("disabled") is True, states.get("focused") is True
            unverified = states.get("unverified") is True
        else:
            checked = expanded = selected = None
            disabled = focused = unverified = False
        return cls(
            ref,
            _opt_str(get("role")),
            _opt_str(get("name")),
            _opt_str(get("tag")),
            value if isinstance(value, str) else (None if value is None else str(value)),
            _opt_str(get("frame")),
            bool(get("in_viewport", True)),
            disabled,
            checked if isinstance(checked, (bool, str)) else None,
            expanded if isinstance(expanded, bool) else None,
            selected if isinstance(selected, bool) else None,
            focused,
            unverified,
            holds_of(record),
        )


@dataclass(frozen=True, slots=True)
class FrameView:
    id: str
    url: str | None = None
    title: str | None = None
    status: str = "ok"  # anything else means its elements could not be read
    reason: str | None = None  # why it is unreachable; the status when None
    parent: str | None = None
    origin: str | None = None  # Chrome's security origin of the frame (its URL is Chrome's too)

    @property
    def reachable(self) -> bool:
        return self.status == "ok"

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> FrameView:
        """Build from a frame of the page script's ``frames`` list."""
        return cls(
            id=str(record.get("id")),
            url=_opt_str(record.get("url")),
            title=_opt_str(record.get("title")),
            status=_opt_str(record.get("status")) or "ok",
            reason=_opt_str(record.get("reason")),
            parent=_opt_str(record.get("parent")),
            origin=_opt_str(record.get("origin")),
        )


@dataclass(frozen=True, slots=True)
class RenderResult:
    text: str
    approx_tokens: int
    shown: int
    left_out: int
    left_out_in_viewport: int
    left_out_offscreen: int
    frame_sections: int  # frame headers written (unreachable ones included)
    shown_refs: tuple[str, ...]  # in document order; feed to ``state_json(include=...)``


def approx_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def holds_of(record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The (role, name) of each control a closed shadow root of the record's element holds
    (``holds``, observe/sealed.py)."""
    raw = record.get("holds")
    if not isinstance(raw, list):
        return ()
    return tuple(
        (str(h.get("role") or ""), str(h.get("name") or "")) for h in raw if isinstance(h, dict)
    )


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _quote(text: str) -> str:
    return quote(text, MAX_TEXT_CHARS)


def _ref_text(ref: str) -> str:
    return ref if ref.startswith("@") else "@" + ref


def render_line(view: RefView) -> str:
    """``@ref role "name" value="…" [flags]``: the role bare only when it is an ARIA (or Chrome
    accessibility) role, a tag only when it is a word, everything else from the page quoted."""
    if view.role:
        kind = word(view.role, ARIA_ROLES)
    elif view.tag:
        kind = word(view.tag)
    else:
        kind = "generic"
    parts = [ref_field(view.ref), kind, _quote(view.name or "")]
    if view.value:
        parts.append("value=" + _quote(view.value))
    if view.unverified:
        parts.append("[unverified]")
    if view.disabled:
        parts.append("[disabled]")
    if view.checked is True:
        parts.append("[checked]")
    elif view.checked is False:
        parts.append("[unchecked]")
    elif view.checked == "mixed":
        parts.append("[mixed]")
    elif isinstance(view.checked, str) and view.checked:
        parts.append("[checked=" + _quote(view.checked) + "]")
    if view.expanded:
        parts.append("[expanded]")
    if view.selected:
        parts.append("[selected]")
    if view.focused:
        parts.append("[focused]")
    for role, name in view.holds:
        # A control of a closed shadow root inside this element: pressing here may press it.
        parts.append(f"[holds {word(role, ARIA_ROLES)} {_quote(name)}]")
    return " ".join(parts)


_REASON: Final = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _frame_header(frame: FrameView) -> str:
    name = word(frame.id)
    url = _quote(frame.url) if frame.url else "(no url)"
    if frame.origin and not (frame.url or "").startswith(frame.origin):
        url += " origin " + _quote(frame.origin)  # about:srcdoc, blob:, a sandboxed frame
    if not frame.reachable:
        reason = frame.reason or frame.status
        # The reason is reins's own (a code or a sentence), carried in a record the page script
        # wrote: a word bare, anything else quoted.
        why = reason if _REASON.fullmatch(reason) else quote(reason, 200)
        return f"--- frame {name} {url} frame_unreachable: {why} ---"
    # Named by its URL alone: a title is the page's own word for it.
    return f"--- frame {name} {url} ---"


def _left_out_line(in_view: int, offscreen: int) -> str:
    total = in_view + offscreen
    noun = "element" if total == 1 else "elements"
    if in_view == 0:
        return (
            f"{ELLIPSIS} {total} {noun} left out (offscreen); "
            "run with --max-tokens 0 for all, or scroll and run again"
        )
    return (
        f"{ELLIPSIS} {total} {noun} left out ({in_view} in view, {offscreen} offscreen); "
        "run with --max-tokens 0 for all"
    )


@dataclass(frozen=True, slots=True)
class _Section:
    header: str | None  # None for the main frame
    reachable: bool
    members: tuple[int, ...]  # indexes into refs


def _sections(refs: Sequence[RefView], frames: Sequence[FrameView]) -> list[_Section]:
    main = next((f.id for f in frames if f.parent is None), frames[0].id if frames else MAIN_FRAME)
    members: dict[str, list[int]] = {}
    for index, view in enumerate(refs):
        members.setdefault(view.frame or main, []).append(index)
    out = [_Section(None, True, tuple(members.pop(main, [])))]
    for frame in frames:
        if frame.id == main:
            continue
        found = members.pop(frame.id, [])
        if frame.reachable:
            out.append(_Section(_frame_header(frame), True, tuple(found)))
        else:
            out.append(_Section(_frame_header(frame), False, ()))
    for frame_id, found in members.items():  # elements of frames the list did not describe
        out.append(_Section(_frame_header(FrameView(frame_id)), True, tuple(found)))
    return out


def _assemble(
    sections: Sequence[_Section], lines: Sequence[str], keep: Collection[int], trailer: str | None
) -> tuple[str, int, tuple[int, ...]]:
    out: list[str] = []
    headers = 0
    shown: list[int] = []
    for section in sections:
        kept = [i for i in section.members if i in keep]
        if section.header is not None and (kept or not section.reachable):
            out.append(section.header)
            headers += 1
        out.extend(lines[i] for i in kept)
        shown.extend(kept)
    if trailer is not None:
        out.append(trailer)
    return "\n".join(out), headers, tuple(shown)


def render_state(
    refs: list[RefView],
    frames: list[FrameView],
    *,
    max_tokens: int | None = None,
    lines: Sequence[str] | None = None,
) -> RenderResult:
    """Render elements (in document order) grouped by frame; see the module docstring.

    ``max_tokens`` None or 0 means no budget. Raises ``UsageError`` when the budget cannot hold even
    the frame markers and the left-out line. ``lines``: each view's ``render_line``, when the
    caller has them already.
    """
    if max_tokens is not None and max_tokens < 0:
        raise UsageError(f"--max-tokens must be 0 (no limit) or more, not {max_tokens}")
    if lines is None or len(lines) != len(refs):
        lines = [render_line(view) for view in refs]
    sections = _sections(refs, frames)
    everything = set(range(len(refs)))
    text, headers, shown = _assemble(sections, lines, everything, None)
    if not max_tokens or approx_tokens(text) <= max_tokens:
        # Elements of a frame that could not be read are not shown (nor left out: there are none).
        return RenderResult(
            text, approx_tokens(text), len(shown), 0, 0, 0, headers, _refs(refs, shown)
        )

    budget_chars = max_tokens * 4
    section_of = {i: s for s in sections for i in s.members}
    # Fixed cost: unreachable-frame markers and a left-out line as long as it can get.
    fixed = [s.header for s in sections if not s.reachable and s.header is not None]
    most = int("9" * len(str(len(refs))))
    trailer_bound = max(_left_out_line(0, most), _left_out_line(most, most), key=len)
    used = sum(len(h) + 1 for h in fixed) + len(trailer_bound)
    if used > budget_chars:
        minimum = approx_tokens("\n".join([*fixed, trailer_bound]))
        raise UsageError(
            f"--max-tokens {max_tokens} cannot hold even the summary line; "
            f"use at least {minimum}, or 0 for no limit",
            details={"min_tokens": minimum},
        )
    # An element of a frame that could not be read has no section: never shown, not left out.
    listed = [i for i in range(len(refs)) if i in section_of]
    order = [i for i in listed if refs[i].in_viewport]
    order += [i for i in listed if not refs[i].in_viewport]
    keep: set[int] = set()
    opened: set[int] = set()  # ids of sections whose header is already paid for
    for i in order:
        section = section_of[i]
        cost = len(lines[i]) + 1
        if section.header is not None and id(section) not in opened:
            cost += len(section.header) + 1
        if used + cost > budget_chars:
            break
        used += cost
        keep.add(i)
        opened.add(id(section))

    left = [i for i in listed if i not in keep]
    in_view = sum(1 for i in left if refs[i].in_viewport)
    trailer = _left_out_line(in_view, len(left) - in_view)
    text, headers, shown = _assemble(sections, lines, keep, trailer)
    return RenderResult(
        text=text,
        approx_tokens=approx_tokens(text),
        shown=len(keep),
        left_out=len(left),
        left_out_in_viewport=in_view,
        left_out_offscreen=len(left) - in_view,
        frame_sections=headers,
        shown_refs=_refs(refs, shown),
    )


def _refs(refs: Sequence[RefView], indexes: Sequence[int]) -> tuple[str, ...]:
    return tuple(_ref_text(refs[i].ref) for i in sorted(indexes))


def state_json(
    refs: list[RefView], *, include: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The ``refs`` list of ``reins state --json``, in document order; ``include`` limits it to
    those refs (e.g. ``RenderResult.shown_refs``)."""
    wanted = None if include is None else {_ref_text(r) for r in include}
    out: list[dict[str, Any]] = []
    for view in refs:
        ref = _ref_text(view.ref)
        if wanted is not None and ref not in wanted:
            continue
        out.append(
            {
                "ref": ref,
                "role": view.role,
                "name": view.name,
                "tag": view.tag,
                "value": view.value,
                "frame": view.frame,
                "in_viewport": view.in_viewport,
                "disabled": view.disabled,
                "checked": view.checked,
                "expanded": view.expanded,
                "selected": view.selected,
                "focused": view.focused,
                "unverified": view.unverified,
                "holds": [{"role": role, "name": name} for role, name in view.holds],
            }
        )
    return out
