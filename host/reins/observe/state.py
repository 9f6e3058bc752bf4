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
from reins.observe.collect import PageSnapshot
from reins.observe.diff import Lines, StateDiff, diff_lines, lines_of
from reins.observe.page import DEFAULT_SOURCE, observe_page
from reins.observe.render import FrameView, RefView, render_state, state_json
from reins.observe.store import ObserveState

__all__ = ["SOURCES", "compare_sources", "state_view"]

SOURCES = ("dom", "ax")


def _frame_view(frame: dict[str, Any]) -> dict[str, Any]:
    return {
        k: frame.get(k)
        for k in ("id", "url", "status", "reason", "session_id")
        if frame.get(k) is not None
    }


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
    views = [RefView.from_record(r, ref) for r, ref in zip(records, refs, strict=True)]
    frames = [FrameView.from_record(f) for f in snap.frames]
    main = next((f.id for f in frames if f.parent is None), "f0")
    kept.lines = lines_of(views, snap.document_id, main_frame=main)
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
    rendered = render_state(views, frames, max_tokens=max_tokens or None)
    text = rendered.text
    if diff:
        text = f"= the whole state: {_FULL_BECAUSE[why_full or 'first']}\n" + text
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
        "approx_tokens": rendered.approx_tokens,
        "truncated": snap.truncated,
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
