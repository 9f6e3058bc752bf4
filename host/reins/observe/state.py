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
from reins.observe.page import DEFAULT_SOURCE, observe_page
from reins.observe.render import FrameView, RefView, render_state, state_json

__all__ = ["SOURCES", "compare_sources", "state_view"]

SOURCES = ("dom", "ax")


def _frame_view(frame: dict[str, Any]) -> dict[str, Any]:
    return {k: frame.get(k) for k in ("id", "url", "status", "reason", "session_id") if
            frame.get(k) is not None}


async def state_view(ctx: CommandContext, source: str, *, viewport_only: bool = False,
                     max_tokens: int | None = None, text_only: bool = False) -> dict[str, Any]:
    """Observe the page with one source and answer what `state` prints (text, refs, figures)."""
    started = time.monotonic()
    snap, records, refs = await observe_page(ctx, source=source, viewport_only=viewport_only)
    views = [RefView.from_record(r, ref) for r, ref in zip(records, refs, strict=True)]
    frames = [FrameView.from_record(f) for f in snap.frames]
    rendered = render_state(views, frames, max_tokens=max_tokens or None)
    text = rendered.text
    coverage = snap.ax_coverage
    if coverage is not None and not coverage.complete:
        text += (f"\n… accessibility tree asked about {coverage.asked} of {coverage.total} elements "
                 "within the budget (viewport first); the rest show the page script's role and "
                 "name — raise --timeout-ms for more")
    listed = [] if text_only else state_json(views, include=rendered.shown_refs)
    frames_by_id = {f["id"]: _frame_view(f) for f in snap.frames}
    by_ref = {ref: record for ref, record in zip(refs, records, strict=True)}
    for item in listed:
        record = by_ref.get(item["ref"]) or {}
        item["frame"] = frames_by_id.get(record.get("frame", "f0"), {"id": record.get("frame")})
        if record.get("backend_node_id") is not None:
            item["backend_node_id"] = record["backend_node_id"]
    return {
        "url": snap.url, "title": snap.title, "source": source, "text": text,
        "refs": listed, "frames": [_frame_view(f) for f in snap.frames],
        "shown": rendered.shown, "left_out": rendered.left_out,
        "frame_sections": rendered.frame_sections, "approx_tokens": rendered.approx_tokens,
        "truncated": snap.truncated,
        "ax_coverage": None if coverage is None else {"asked": coverage.asked,
                                                      "total": coverage.total},
        "elapsed_ms": int((time.monotonic() - started) * 1000),
    }


async def compare_sources(ctx: CommandContext, *, viewport_only: bool = False,
                          max_tokens: int | None = None) -> dict[str, Any]:
    """Both sources on the same page, one after the other: refs, frame sections, approximate
    tokens, elapsed ms and the error of each (a failed source does not stop the other)."""
    sources: dict[str, Any] = {}
    url = ""
    for source in SOURCES:
        try:
            one = await state_view(ctx, source, viewport_only=viewport_only,
                                   max_tokens=max_tokens, text_only=True)
            url = one["url"]
            sources[source] = {k: one[k] for k in ("approx_tokens", "elapsed_ms", "frame_sections")}
            sources[source]["refs"] = one["shown"]
            sources[source]["error"] = None
        except ReinsError as exc:
            sources[source] = {"refs": 0, "frame_sections": 0, "approx_tokens": 0,
                               "elapsed_ms": None, "error": exc.to_wire()}
    return {"url": url, "sources": sources, "default_source": DEFAULT_SOURCE}
