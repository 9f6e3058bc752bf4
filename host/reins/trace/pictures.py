"""A trace's pictures: the screenshot with the command's target marked and what is masked filled,
scaled down, as JPEG.

``trace_picture`` is pure: PNG bytes in, JPEG bytes out; ``action_target`` and ``target_box`` find
what to mark, ``mask_boxes`` what to fill (reins's own world finds it: ``maskBoxes`` of
pagescripts/src/mask.js). The mark is drawn by ``observe/annotate.py`` on the full-size image (so
it lands where the element was), then the masked boxes are filled over everything, each grown by
``MASK_MARGIN`` CSS pixels and cut to the image, in one opaque colour; then the picture is scaled
to at most ``MAX_WIDTH`` pixels wide: a run of a hundred steps stays a few megabytes.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reins._errors import BrowserError, UsageError
from reins.act.locate import Resolved, resolve_for_action, resolve_target
from reins.bridge.command import Command
from reins.bridge.context import CommandContext
from reins.bridge.protocol import Request
from reins.observe.annotate import Mark, annotate
from reins.page.call import call_function, evaluate, page_call

if TYPE_CHECKING:  # Pillow is imported where a picture is drawn (observe/annotate.py says why)
    from PIL import Image

__all__ = [
    "capture_masked",
    "MASK_COLOUR",
    "MAX_WIDTH",
    "QUALITY",
    "MaskFound",
    "action_target",
    "is_masked",
    "mask_boxes",
    "target_box",
    "trace_picture",
]

MAX_WIDTH = 960
QUALITY = 72
# A masked box is grown by this much on every side (an element's shadow, focus ring or
# anti-aliased edge can carry its colour past its box) and filled with this colour.
MASK_MARGIN = 4
MASK_COLOUR = (40, 40, 48)


def trace_picture(
    png: bytes,
    *,
    box: Sequence[float] | None = None,
    label: str = "",
    scale: float = 1.0,
    max_width: int = MAX_WIDTH,
    masks: Sequence[Sequence[float]] = (),
) -> bytes:
    """The screenshot as a scaled JPEG, with ``box`` (CSS pixels, ``scale`` = devicePixelRatio)
    outlined and labelled when given, and every box of ``masks`` (CSS pixels) filled."""
    if box is not None and len(box) == 4 and box[2] >= 0 and box[3] >= 0:
        png = annotate(png, [Mark(label[:40] or "target", *map(float, box))], scale=scale).png
    from PIL import Image

    with Image.open(io.BytesIO(png)) as source:
        image = source.convert("RGB")
    _fill(image, masks, scale)
    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=QUALITY, optimize=True)
    return out.getvalue()


def masked_png(
    png: bytes, masks: Sequence[Sequence[float]], scale: float, shift: tuple[float, float] = (0, 0)
) -> bytes:
    """The PNG with every box of ``masks`` (CSS pixels, moved by ``shift``: a full page's scroll
    offset) filled, as a PNG (`reins screenshot`); the PNG as it is when there is none."""
    if not masks:
        return png
    from PIL import Image

    with Image.open(io.BytesIO(png)) as source:
        image = source.convert("RGB")
    dx, dy = shift
    _fill(image, [(x + dx, y + dy, w, h) for x, y, w, h in masks], scale)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _fill(image: Image.Image, masks: Sequence[Sequence[float]], scale: float) -> None:
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    for mask in masks:
        x, y, width, height = (float(v) for v in mask)
        left = max(0, int((x - MASK_MARGIN) * scale))
        top = max(0, int((y - MASK_MARGIN) * scale))
        right = min(image.width - 1, int((x + width + MASK_MARGIN) * scale) + 1)
        bottom = min(image.height - 1, int((y + height + MASK_MARGIN) * scale) + 1)
        if right >= left and bottom >= top:
            draw.rectangle((left, top, right, bottom), fill=MASK_COLOUR)


@dataclass(frozen=True)
class MaskFound:
    """What ``mask_boxes`` found: boxes in CSS pixels, the device pixel ratio, notes."""

    boxes: list[list[float]]
    scale: float
    notes: list[str]


async def mask_boxes(ctx: CommandContext, rules: dict[str, dict[str, list[str]]]) -> MaskFound:
    """The boxes to fill on a picture of the tab's viewport now (CSS pixels), found in reins's
    own world, and notes on what could not be searched. A rule the page cannot use, too many
    boxes or an unreadable answer raise: the picture is then not written."""
    found = await evaluate(ctx, page_call("maskBoxes", rules), what="mask boxes")
    if not isinstance(found, dict) or not isinstance(found.get("boxes"), list):
        raise BrowserError("the masked boxes came back unreadable", code="page_answer_invalid")
    if found.get("bad"):
        bad = ", ".join(str(b)[:80] for b in found["bad"])
        raise UsageError(f"a masking rule the page cannot use: {bad}", code="invalid_selector")
    if found.get("too_many"):
        raise BrowserError("more boxes to mask than a picture holds", code="page_answer_invalid")
    boxes: list[list[float]] = []
    for item in found["boxes"]:
        if not (
            isinstance(item, list)
            and len(item) == 4
            and all(isinstance(v, int | float) and math.isfinite(v) for v in item)
        ):
            raise BrowserError("a masked box came back unreadable", code="page_answer_invalid")
        boxes.append([float(v) for v in item])
    notes: list[str] = []
    unsearched = found.get("unsearched")
    if isinstance(unsearched, int) and unsearched > 0:
        notes.append(f"{unsearched} frame(s) reins cannot search (another site's) filled whole")
    closed = [str(tag)[:40] for tag in found.get("closed") or [] if isinstance(tag, str)]
    if closed:
        notes.append(
            "not searched for masked elements (may hold a closed shadow root): " + ", ".join(closed)
        )
    dpr = found.get("dpr")
    scale = float(dpr) if isinstance(dpr, int | float) and math.isfinite(dpr) and dpr > 0 else 1.0
    return MaskFound(boxes, scale, notes)


async def capture_masked(
    ctx_for: Callable[[int], CommandContext],
    rules: dict[str, dict[str, list[str]]],
    params: dict[str, Any],
    *,
    mask_ms: int,
    shot_ms: int,
) -> tuple[bytes, MaskFound]:
    """The tab's PNG (``Page.captureScreenshot`` with ``params``) and the boxes to fill on it,
    found in reins's own world just before and just after the capture: both are filled, so what
    moved in between is covered where it was and where it went. ``ctx_for(ms)``: the context for
    one call with that budget. Raises when the boxes cannot be found: no boxes, no picture."""
    first = await mask_boxes(ctx_for(mask_ms), rules)
    shot = await ctx_for(shot_ms).cdp("Page.captureScreenshot", params)
    second = await mask_boxes(ctx_for(mask_ms), rules)
    png = base64.b64decode(shot.get("data", ""))
    notes = list(dict.fromkeys([*first.notes, *second.notes]))
    return png, MaskFound(first.boxes + second.boxes, second.scale, notes)


async def is_masked(ctx: CommandContext, el: Resolved, rules: dict[str, Any]) -> bool:
    """Is the element masked (by default, or by a selector rule of its site)? Asked in reins's
    own world; an element it cannot ask about (another site's frame) counts as masked."""
    if el.session_id is not None:
        return True
    found = await call_function(ctx, el.object_id, "maskedElement", rules, what="masked element")
    return found is not False


async def action_target(ctx: CommandContext, cmd: Command[Any], request: Request) -> Resolved:
    """The element an action names (TARGET or smart-mode options), found without waiting."""
    args = cmd.args.model_validate(request.args)
    smart = args.smart() if hasattr(args, "smart") else None
    target = getattr(args, "target", None)
    frame = getattr(args, "frame", None)
    if smart:
        return await resolve_for_action(ctx, None, frame, smart)
    if not isinstance(target, str):
        raise UsageError("no target")
    return await resolve_target(ctx, target, frame=frame, settle=False)


async def target_box(ctx: CommandContext, el: Resolved) -> tuple[list[float] | None, float]:
    """The element's box in CSS pixels and the device pixel ratio, to mark it on a picture."""
    if el.session_id is not None:  # an out-of-process frame: its offset is not worth a lookup
        return None, 1.0
    found = await call_function(
        ctx, el.object_id, "traceBox", session_id=el.session_id, what="trace box"
    )
    if not isinstance(found, dict) or not isinstance(found.get("box"), list):
        return None, 1.0
    return [float(v) for v in found["box"]], float(found.get("dpr") or 1.0)
