"""Observe commands: state (DOM or AX source), map, find, screenshot."""

from __future__ import annotations

import base64
from typing import Any, Literal, cast

from pydantic import Field

from reins._errors import ResolutionError
from reins.act.locate import TextMatch, find_text, text_only
from reins.bridge.command import Args, Command, cli_hints, command
from reins.bridge.context import CommandContext
from reins.commands import answers
from reins.observe.annotate import Mark, annotate
from reins.observe.page import (
    DEFAULT_SOURCE,
    MapQuery,
    current_map,
    find_elements,
    observe_page,
)
from reins.observe.state import compare_sources, state_view
from reins.setup.config import mask_rules
from reins.trace.masking import page_rules
from reins.trace.pictures import capture_masked, masked_png

__all__ = ["COMMANDS"]


class StateArgs(Args):
    source: Literal["dom", "ax"] | None = Field(
        default=None, description="dom: the page script (default); ax: Chrome's accessibility tree."
    )
    viewport_only: bool = Field(default=False, description="Only what is in the viewport.")
    max_tokens: int | None = Field(
        default=None,
        ge=0,
        description="Hard budget (chars/4); viewport first, says what it left out.",
    )
    compare_sources: bool = Field(default=False, description="Measure both sources side by side.")
    diff: bool = Field(
        default=False,
        description="Only what changed since this tab's last state: + added, - removed, "
        "~ changed lines (the whole state when the document is new).",
    )
    # The CLI without --json prints only the text: the per-ref list is then not built or sent.
    text_only: bool = Field(
        default=False,
        description="Only the text, no per-ref list.",
        json_schema_extra=cli_hints(hidden=True),
    )


@command("state", StateArgs, answers.State, timeout_ms=30_000, read_only=True)
async def state(ctx: CommandContext, args: StateArgs) -> answers.State:
    """The page's interactive elements, one line each: @ref role "name" value [flags]."""
    if args.compare_sources:
        seen = await compare_sources(
            ctx, viewport_only=args.viewport_only, max_tokens=args.max_tokens
        )
    else:
        seen = await state_view(
            ctx,
            args.source or DEFAULT_SOURCE,
            viewport_only=args.viewport_only,
            max_tokens=args.max_tokens,
            text_only=args.text_only,
            diff=args.diff,
        )
    # Plain data built in observe/ (the recorded answers hold its fields to State's).
    return cast(answers.State, seen)


class MapArgs(Args):
    force: bool = Field(default=False, description="Regenerate even if the cached map is fresh.")


# Not an MCP tool: the whole map is tens of thousands of tokens on a real page; `find` queries it.
@command("map", MapArgs, answers.Map, timeout_ms=30_000, read_only=True, on_mcp=False)
async def map_cmd(ctx: CommandContext, args: MapArgs) -> answers.Map:
    """The interaction map (JSON): elements, selectors, indexes, statistics."""
    return {"map": await current_map(ctx, force=args.force)}


class FindArgs(Args):
    text: str | None = Field(default=None, description="Find by visible text (fuzzy fallback).")
    type: str | None = Field(
        default=None, description="Interaction-map type: button, input, input-text, a …"
    )
    tag: str | None = Field(default=None, description="HTML tag.")
    index: int | None = Field(default=None, ge=1, description="1-based among matches.")
    viewport_only: bool = Field(default=False, description="Only elements in the viewport.")
    id: str | None = Field(default=None, description="Map element id (elem_N).")


def _found_view(e: dict[str, Any]) -> dict[str, Any]:
    return {
        "ref": e.get("ref"),
        "id": e["id"],
        "type": e["type"],
        "tag": e["tag"],
        "role": e.get("role"),
        "text": e["text"],
        "selector": e["selectors"].get("best"),
        "position": e["position"],
        "visibility": e["visibility"],
        "frame": e.get("frame"),
    }


@command("find", FindArgs, answers.Found, read_only=True)
async def find(ctx: CommandContext, args: FindArgs) -> answers.Found:
    """Query the interaction map: --text, --type (aliases), --tag, --index, --viewport-only, --id."""
    query = cast(MapQuery, args.model_dump(exclude_none=True))  # FindArgs: MapQuery's fields
    try:
        matches, stage = await find_elements(ctx, query)
    except ResolutionError as exc:
        if exc.code != "not_found" or not text_only(query):
            raise
        # No interactive element holds the text: the visible elements that do (no refs; target
        # them with `text=` or `--text`).
        shown = await find_text(ctx, str(query["text"]), exact=False)
        index = query.get("index")
        if index is not None:
            shown = shown[index - 1 : index]
        if not shown:
            raise
        return {"matches": [_text_view(m) for m in shown], "stage": "text"}
    return {"matches": [_found_view(e) for e in matches], "stage": stage}


def _text_view(m: TextMatch) -> dict[str, Any]:
    x, y, width, height = m.get("box") or [0, 0, 0, 0]
    return {
        "ref": None,
        "tag": m.get("tag"),
        "text": m.get("text"),
        "position": {"x": round(x + width / 2), "y": round(y + height / 2)},
        "frame": "f0",
    }


class ScreenshotArgs(Args):
    annotate: bool = Field(
        default=False, description="Box and label each visible element with its ref."
    )
    full_page: bool = Field(default=False, description="The whole page, not only the viewport.")


@command("screenshot", ScreenshotArgs, answers.Screenshot, timeout_ms=30_000, read_only=True)
async def screenshot(ctx: CommandContext, args: ScreenshotArgs) -> answers.Screenshot:
    """A PNG of the tab; --annotate labels elements with the refs `state` prints. Password,
    one-time-code and card fields, and what `reins mask` rules name on the site, are filled."""
    params: dict[str, Any] = {"format": "png"}
    metrics = await ctx.cdp("Page.getLayoutMetrics")
    viewport = metrics.get("cssVisualViewport") or metrics.get("visualViewport") or {}
    content = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
    if args.full_page:
        params["captureBeyondViewport"] = True
        params["clip"] = {
            "x": 0,
            "y": 0,
            "width": content.get("width", 0),
            "height": content.get("height", 0),
            "scale": 1,
        }
    marks: list[dict[str, Any]] = []
    if args.annotate:
        snap, records, refs = await observe_page(ctx)
        scroll_x = float(viewport.get("pageX", 0)) if args.full_page else 0.0
        scroll_y = float(viewport.get("pageY", 0)) if args.full_page else 0.0
        for record, ref in zip(records, refs, strict=True):
            if not record.get("visible") or (not args.full_page and not record.get("in_viewport")):
                continue
            x, y, w, h = record["box"]
            marks.append(
                {"ref": ref, "x": x + scroll_x, "y": y + scroll_y, "width": w, "height": h}
            )
    # Masked as a trace's pictures are (the defaults, and the user's rules for the site).
    masks = page_rules(mask_rules(ctx.host.profile, ctx.host.home))
    png, found = await capture_masked(lambda _ms: ctx, masks, params, mask_ms=0, shot_ms=0)
    shift = (
        (float(viewport.get("pageX", 0)), float(viewport.get("pageY", 0)))
        if args.full_page
        else (0.0, 0.0)
    )
    png = masked_png(png, found.boxes, found.scale, shift)
    out: answers.Screenshot = {"format": "png"}
    if found.boxes:
        out["masked"] = len(found.boxes)
    if found.notes:
        out["mask_notes"] = found.notes
    if args.annotate:
        dpr = float(snap.viewport.get("dpr") or 1)
        result = annotate(
            png, [Mark(m["ref"], m["x"], m["y"], m["width"], m["height"]) for m in marks], scale=dpr
        )
        png = result.png
        out["labels"] = [
            {"ref": p.label, "box": list(p.box), "label_box": list(p.label_box)}
            for p in result.placements
        ]
    out["png_base64"] = base64.b64encode(png).decode()
    out["bytes"] = len(png)
    return out


COMMANDS: tuple[Command[Any], ...] = (state, map_cmd, find, screenshot)
