"""The `state` answer, and the figures of both observation sources side by side.

``compare_sources`` is what `state --compare-sources` answers and what a trace records for each new
document: per source (dom, ax) the refs shown, the frame sections, the approximate tokens, the
elapsed milliseconds, and the source's typed error if it failed.
"""

from __future__ import annotations

import time
from typing import Any

from reins._errors import ReinsError
from reins.bridge.context import CommandContext
from reins.bridge.memory import gc_paused
from reins.observe.collect import PageSnapshot
from reins.observe.diff import Lines, StateDiff, diff_lines, lines_of
from reins.observe.page import DEFAULT_SOURCE, observe_page
from reins.observe.render import (
    FrameView,
    RefView,
    approx_tokens,
    holds_of,
    render_line,
    render_state,
    state_json,
)
from reins.observe.sealed import sealed
from reins.observe.sent import SentRecords, carry
from reins.observe.store import ObserveState

__all__ = ["SOURCES", "compare_sources", "scroll_line", "state_view"]

SOURCES = ("dom", "ax")


def _with_line(text: str, line: str) -> str:
    """``line`` added before the renderer's closing "… left out" line (or at the end)."""
    if not line:
        return text
    lines = text.split("\n") if text else []
    at = len(lines) - 1 if lines and lines[-1].startswith("…") else len(lines)
    return "\n".join([*lines[:at], line, *lines[at:]])


def scroll_line(regions: list[dict[str, Any]]) -> str:
    """One line saying what scrolls and how many pixels are left each way, or "" (pure)."""
    parts = []
    for r in regions:
        name = r.get("target") or r.get("label") or "?"
        below, above = int(r.get("below") or 0), int(r.get("above") or 0)
        left = f"{below:,} px below" if below > 0 else "at its end"
        parts.append(f"{name} {left}" + (f", {above:,} above" if above > 0 else ""))
    if not parts:
        return ""
    return (
        "↕ scrollable: "
        + " · ".join(parts)
        + " (`reins scroll TARGET --by PX`, or `--until TARGET` for rows not rendered yet)"
    )


def _frame_view(frame: dict[str, Any]) -> dict[str, Any]:
    return {
        k: frame.get(k)
        for k in ("id", "url", "origin", "status", "reason", "session_id")
        if frame.get(k) is not None
    }


def _view_and_line(record: dict[str, Any], ref: str) -> tuple[RefView, str]:
    view = RefView.from_record(record, ref)
    return view, render_line(view)


# Why `state --diff` answered the whole state instead (the answer's ``diff.full``).
_FULL_BECAUSE = {
    "first": "no earlier observation of this tab",
    "new_document": "a new document since the last observation",
    "too_large": "the page has too many elements to keep for a diff",
    "larger": "the changes are larger than the whole state",
}


def _diff_or_full(
    before: Lines | None, now: Lines | None, full_tokens: int, max_tokens: int | None
) -> tuple[StateDiff | None, str | None]:
    """(the diff, None) or (None, why the whole state is answered instead)."""
    if now is None:
        return None, "too_large"
    if before is None:
        return None, "first"
    if before.document_id != now.document_id:
        return None, "new_document"
    diff = diff_lines(before, now)
    if diff.approx_tokens > full_tokens or (max_tokens and diff.approx_tokens > max_tokens):
        return None, "larger"
    return diff, None


async def state_view(
    ctx: CommandContext,
    source: str,
    *,
    viewport_only: bool = False,
    max_tokens: int | None = None,
    text_only: bool = False,
    diff: bool = False,
) -> dict[str, Any]:
    """Observe the page with one source and answer what `state` prints (text, refs, figures);
    with ``diff``, only what changed since the tab's last `state` (see ``observe.diff``)."""
    started = time.monotonic()
    kept = ctx.part(ObserveState)
    before = kept.lines  # taken first: an observation of a new document drops it
    snap, records, refs = await observe_page(ctx, source=source, viewport_only=viewport_only)
    # What closed shadow roots hold, for the lines (not for lookups: observe_page serves those).
    records = await sealed(ctx, snap, records)
    with gc_paused():  # a view and a line per element (``bridge.memory``)
        return _answer(
            ctx,
            snap,
            records,
            refs,
            source,
            before,
            started,
            max_tokens=max_tokens,
            text_only=text_only,
            diff=diff,
        )


def _answer(
    ctx: CommandContext,
    snap: PageSnapshot,
    records: list[dict[str, Any]],
    refs: list[str],
    source: str,
    before: Lines | None,
    started: float,
    *,
    max_tokens: int | None,
    text_only: bool,
    diff: bool,
) -> dict[str, Any]:
    kept = ctx.part(ObserveState)
    # A record the page repeated from its last collection keeps its view and line (observe.sent).
    shown = carry(
        "views",
        None,
        snap.homes,
        snap.carried if source == "dom" else None,
        ctx.part(SentRecords),
        lambda i: _view_and_line(records[i], refs[i]),
        lambda kept_view, i: (
            kept_view[0].ref == refs[i] and kept_view[0].holds == holds_of(records[i])
        ),
    )
    views = [view for view, _ in shown]
    lines = [line for _, line in shown]
    frames = [FrameView.from_record(f) for f in snap.frames]
    main = next((f.id for f in frames if f.parent is None), "f0")
    kept.lines = lines_of(views, snap.document_id, main_frame=main, rendered=lines)
    why_full: str | None = None
    if diff:
        full_tokens = (
            sum(len(line) + 1 for line in kept.lines.lines.values()) // 4
            if kept.lines is not None
            else 0
        )
        changes, why_full = _diff_or_full(before, kept.lines, full_tokens, max_tokens)
        if changes is not None:
            return _diff_answer(snap, source, changes, views, text_only, started)
    regions = snap.scrollable  # found by the collection's walk
    scrolling = scroll_line(regions)
    cost = approx_tokens(scrolling + "\n") if scrolling else 0
    if max_tokens and cost > max_tokens // 2:
        scrolling, cost = "", 0  # a tiny budget goes to the elements
    # The line counts against the budget: the elements get what it leaves.
    rendered = render_state(
        views, frames, max_tokens=(max_tokens - cost) if max_tokens else None, lines=lines
    )
    text = _with_line(rendered.text, scrolling)
    if diff:
        text = f"= the whole state: {_FULL_BECAUSE[why_full or 'first']}\n" + text
    if snap.truncated:
        text += (
            f"\n… the page has more than one state reads: {len(snap.elements)} elements listed,"
            f" about {snap.unread} more of the page not read — narrow with --viewport-only, or"
            " scroll and look again"
        )
    coverage = snap.ax_coverage
    if coverage is not None and not coverage.complete:
        text += (
            f"\n… accessibility tree asked about {coverage.asked} of {coverage.total} elements "
            "within the budget (viewport first); the rest show the page script's role and "
            "name — raise --timeout-ms for more"
        )
    listed = [] if text_only else state_json(views, include=rendered.shown_refs)
    frames_by_id = {f["id"]: _frame_view(f) for f in snap.frames}
    by_ref = {ref: record for ref, record in zip(refs, records, strict=True)}
    for item in listed:
        record = by_ref.get(item["ref"]) or {}
        item["frame"] = frames_by_id.get(record.get("frame", "f0"), {"id": record.get("frame")})
        if record.get("backend_node_id") is not None:
            item["backend_node_id"] = record["backend_node_id"]
    return {
        "url": snap.url,
        "title": snap.title,
        "source": source,
        "text": text,
        "refs": listed,
        "frames": [_frame_view(f) for f in snap.frames],
        "shown": rendered.shown,
        "left_out": rendered.left_out,
        "frame_sections": rendered.frame_sections,
        "scrollable": regions,
        "approx_tokens": rendered.approx_tokens + cost,
        "truncated": snap.truncated,
        "unread": snap.unread,
        "ax_coverage": None
        if coverage is None
        else {"asked": coverage.asked, "total": coverage.total},
        "elapsed_ms": int((time.monotonic() - started) * 1000),
        **({"diff": {"full": True, "why": why_full}} if diff else {}),
    }


def _diff_answer(
    snap: PageSnapshot,
    source: str,
    changes: StateDiff,
    views: list[RefView],
    text_only: bool,
    started: float,
) -> dict[str, Any]:
    text = changes.text if not changes.empty else "= no change since the last observation"
    shown = (*changes.added, *changes.changed)
    return {
        "url": snap.url,
        "title": snap.title,
        "source": source,
        "text": text,
        "refs": [] if text_only else state_json(views, include=shown),
        "frames": [_frame_view(f) for f in snap.frames],
        "shown": len(shown),
        "left_out": 0,
        "frame_sections": 0,
        "approx_tokens": changes.approx_tokens,
        "truncated": snap.truncated,
        "ax_coverage": None,
        "elapsed_ms": int((time.monotonic() - started) * 1000),
        "diff": {
            "full": False,
            "added": list(changes.added),
            "removed": list(changes.removed),
            "changed": list(changes.changed),
        },
    }


async def compare_sources(
    ctx: CommandContext, *, viewport_only: bool = False, max_tokens: int | None = None
) -> dict[str, Any]:
    """Both sources on the same page, one after the other: refs, frame sections, approximate
    tokens, elapsed ms and the error of each (a failed source does not stop the other)."""
    sources: dict[str, Any] = {}
    url = ""
    for source in SOURCES:
        try:
            one = await state_view(
                ctx, source, viewport_only=viewport_only, max_tokens=max_tokens, text_only=True
            )
            url = one["url"]
            sources[source] = {k: one[k] for k in ("approx_tokens", "elapsed_ms", "frame_sections")}
            sources[source]["refs"] = one["shown"]
            sources[source]["error"] = None
        except ReinsError as exc:
            sources[source] = {
                "refs": 0,
                "frame_sections": 0,
                "approx_tokens": 0,
                "elapsed_ms": None,
                "error": exc.to_wire(),
            }
    return {"url": url, "sources": sources, "default_source": DEFAULT_SOURCE}
