"""Observe commands: state (DOM or AX source), map, find, screenshot."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Any, Literal

from pydantic import Field

from reins.bridge.command import Args, Command, command
from reins._errors import ReinsError, ResolutionError
from reins._host import CommandContext
from reins.observe.imap import build_map, find_with_fallback
from reins.observe.collect import (
    PageSnapshot,
    SeenAt,
    ax_records,
    registry_for,
    save_registry,
    snapshot_page,
)
from reins.observe.render import FrameView, RefView, render_state, state_json

__all__ = ["COMMANDS", "observe_page"]

DEFAULT_SOURCE: Literal["dom", "ax"] = "dom"
MAP_TTL_S = 600.0


async def observe_page(
    ctx: CommandContext, *, source: str = DEFAULT_SOURCE, viewport_only: bool = False,
    full: bool = False,
) -> tuple[PageSnapshot, list[dict[str, Any]], list[str]]:
    """Collect the page, register what it shows, and return (snapshot, records, refs)."""
    snap = await snapshot_page(ctx, viewport_only=viewport_only, full=full)
    records = snap.elements
    if source == "ax":
        records, snap.ax_coverage = await ax_records(ctx, snap)
    registry = registry_for(ctx, snap.url)
    refs = registry.observe(records, now=time.monotonic(), document_id=snap.document_id,
                            source="ax" if source == "ax" else "dom", frames=snap.frames)
    state = ctx.host.tab(ctx.tab)
    seen = state.extra["seen"] = SeenAt.of(snap, refs)
    save_registry(ctx, registry, snap.url, seen)
    return snap, records, refs


def _frame_view(frame: dict[str, Any]) -> dict[str, Any]:
    return {k: frame.get(k) for k in ("id", "url", "status", "reason", "session_id") if
            frame.get(k) is not None}


class StateArgs(Args):
    source: Literal["dom", "ax"] | None = None
    viewport_only: bool = False
    max_tokens: int | None = Field(default=None, ge=0)
    compare_sources: bool = False
    # The CLI without --json prints only the text: the per-ref list is then not built or sent.
    text_only: bool = False


async def _state_once(ctx: CommandContext, args: StateArgs, source: str) -> dict[str, Any]:
    started = time.monotonic()
    snap, records, refs = await observe_page(ctx, source=source, viewport_only=args.viewport_only)
    views = [RefView.from_record(r, ref) for r, ref in zip(records, refs, strict=True)]
    frames = [FrameView.from_record(f) for f in snap.frames]
    rendered = render_state(views, frames, max_tokens=args.max_tokens or None)
    text = rendered.text
    coverage = snap.ax_coverage
    if coverage is not None and not coverage.complete:
        text += (f"\n… accessibility tree asked about {coverage.asked} of {coverage.total} elements "
                 "within the budget (viewport first); the rest show the page script's role and "
                 "name — raise --timeout-ms for more")
    listed = [] if args.text_only else state_json(views, include=rendered.shown_refs)
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


@command("state", StateArgs)
async def state(ctx: CommandContext, args: StateArgs) -> dict[str, Any]:
    if not args.compare_sources:
        return await _state_once(ctx, args, args.source or DEFAULT_SOURCE)
    args = args.model_copy(update={"text_only": True})
    sources: dict[str, Any] = {}
    url = ""
    for source in ("dom", "ax"):
        try:
            one = await _state_once(ctx, args, source)
            url = one["url"]
            sources[source] = {k: one[k] for k in ("approx_tokens", "elapsed_ms", "frame_sections")}
            sources[source]["refs"] = one["shown"]
            sources[source]["error"] = None
        except ReinsError as exc:
            sources[source] = {"refs": 0, "frame_sections": 0, "approx_tokens": 0,
                               "elapsed_ms": None, "error": exc.to_wire()}
    return {"url": url, "sources": sources, "default_source": DEFAULT_SOURCE}


class MapArgs(Args):
    force: bool = False


async def current_map(ctx: CommandContext, *, force: bool = False) -> dict[str, Any]:
    """The tab's interaction map: cached 10 minutes, dropped on a new document or another URL."""
    tab = ctx.host.tab(ctx.tab)
    cached = tab.extra.get("map")
    if not force and isinstance(cached, dict):
        from reins.page.frames import evaluate_value

        now_doc = await evaluate_value(ctx, "[performance.timeOrigin, location.href]", what="doc")
        fresh = time.monotonic() - cached["created"] < MAP_TTL_S
        same = isinstance(now_doc, list) and repr(now_doc[0]) == cached["document_id"] \
            and now_doc[1] == cached["url"]
        if fresh and same:
            return dict(cached["map"], cached=True)
    snap, records, refs = await observe_page(ctx, full=True)
    imap = build_map(snap.collected())
    for key, ref in zip(imap["elements"], refs, strict=True):
        imap["elements"][key]["ref"] = ref
    tab.extra["map"] = {"map": imap, "created": time.monotonic(), "document_id": snap.document_id,
                        "url": snap.url}
    path = ctx.host.home / "maps" / ctx.host.profile
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    (path / f"tab-{ctx.tab}.json").write_text(json.dumps(imap, ensure_ascii=False))
    return dict(imap, cached=False)


@command("map", MapArgs)
async def map_cmd(ctx: CommandContext, args: MapArgs) -> dict[str, Any]:
    return {"map": await current_map(ctx, force=args.force)}


class FindArgs(Args):
    text: str | None = None
    type: str | None = None
    tag: str | None = None
    index: int | None = Field(default=None, ge=1)
    viewport_only: bool = False
    id: str | None = None


async def find_elements(ctx: CommandContext, args: FindArgs) -> tuple[list[dict[str, Any]], str]:
    """Query the interaction map with the 3-stage fallback (type, tag, regenerate up to 3 times)."""
    imap = await current_map(ctx)
    query = args.model_dump(exclude_none=True)
    for attempt in range(4):
        try:
            found = find_with_fallback(imap, dict, max_regenerations=0, **query)
            return found.matches, found.stage if attempt == 0 else "regenerate"
        except ResolutionError:
            if attempt == 3:
                raise
            await asyncio.sleep(0.15 * (attempt + 1))
            imap = await current_map(ctx, force=True)
    raise ResolutionError("no element matched")  # not reached


def _found_view(e: dict[str, Any]) -> dict[str, Any]:
    return {"ref": e.get("ref"), "id": e["id"], "type": e["type"], "tag": e["tag"],
            "role": e.get("role"), "text": e["text"], "selector": e["selectors"].get("best"),
            "position": e["position"], "visibility": e["visibility"], "frame": e.get("frame")}


@command("find", FindArgs)
async def find(ctx: CommandContext, args: FindArgs) -> dict[str, Any]:
    matches, stage = await find_elements(ctx, args)
    return {"matches": [_found_view(e) for e in matches], "stage": stage}


class ScreenshotArgs(Args):
    annotate: bool = False
    full_page: bool = False


@command("screenshot", ScreenshotArgs)
async def screenshot(ctx: CommandContext, args: ScreenshotArgs) -> dict[str, Any]:
    params: dict[str, Any] = {"format": "png"}
    metrics = await ctx.cdp("Page.getLayoutMetrics")
    viewport = metrics.get("cssVisualViewport") or metrics.get("visualViewport") or {}
    content = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
    if args.full_page:
        params["captureBeyondViewport"] = True
        params["clip"] = {"x": 0, "y": 0, "width": content.get("width", 0),
                          "height": content.get("height", 0), "scale": 1}
    marks: list[dict[str, Any]] = []
    if args.annotate:
        snap, records, refs = await observe_page(ctx)
        scroll_x = float(viewport.get("pageX", 0)) if args.full_page else 0.0
        scroll_y = float(viewport.get("pageY", 0)) if args.full_page else 0.0
        for record, ref in zip(records, refs, strict=True):
            if not record.get("visible") or (not args.full_page and not record.get("in_viewport")):
                continue
            x, y, w, h = record["box"]
            marks.append({"ref": ref, "x": x + scroll_x, "y": y + scroll_y, "width": w, "height": h})
    shot = await ctx.cdp("Page.captureScreenshot", params)
    png = base64.b64decode(shot.get("data", ""))
    out: dict[str, Any] = {"format": "png"}
    if args.annotate:
        from reins.observe.annotate import Mark, annotate

        dpr = float(snap.viewport.get("dpr") or 1)
        result = annotate(png, [Mark(m["ref"], m["x"], m["y"], m["width"], m["height"])
                                for m in marks], scale=dpr)
        png = result.png
        out["labels"] = [{"ref": p.label, "box": list(p.box), "label_box": list(p.label_box)}
                         for p in result.placements]
    out["png_base64"] = base64.b64encode(png).decode()
    out["bytes"] = len(png)
    return out


COMMANDS: tuple[Command[Any], ...] = (state, map_cmd, find, screenshot)
