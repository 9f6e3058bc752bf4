"""Draw ref boxes and labels onto a screenshot for ``reins screenshot --annotate``.

Pure: PNG bytes and plain marks in, PNG bytes and a placement report out. Marks are in CSS pixels
relative to the screenshot's top-left; ``scale`` (devicePixelRatio) turns them into image pixels,
and every box in the report is in image pixels as ``(x0, y0, x1, y1)`` with exclusive ends.

Label placement is greedy and deterministic. Marks are taken in reading order (top to bottom,
then left to right); each label tries a fixed list of spots around its box (above-left outside,
inside top-left, below-left, right, left, the right-aligned variants), then nudged spots ordered
by how far they drift from the box. It takes the first spot within a label height of its box that
covers no placed label, no other mark's box and no more than half of its own box; failing that,
the first spot that covers no label and no other mark, then the first that covers no label, then
the one with the least label overlap. Labels always stay inside the image; a label that ends up
away from its box gets a leader line in the mark's colour.
"""

from __future__ import annotations

import io
import math
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from reins._errors import UsageError

# Pillow is imported where a picture is drawn, not with this module: the host imports it at start
# (for `screenshot --annotate` and traces), and Pillow's C libraries (FreeType among them) cost
# ~4 MiB of every host's resident memory, which most sessions never draw with.
if TYPE_CHECKING:
    from PIL import Image, ImageFont

    _Font: TypeAlias = ImageFont.FreeTypeFont | ImageFont.ImageFont

__all__ = ["AnnotatedImage", "Mark", "Placement", "annotate", "mark_color"]

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

# Dark enough to read against white pages, saturated enough to read against dark ones; no yellow
# or cyan, which vanish on white. Picked by a stable hash of the label, so a ref keeps its colour.
PALETTE: tuple[RGB, ...] = (
    (230, 25, 75),  # red
    (0, 110, 200),  # blue
    (40, 160, 60),  # green
    (245, 120, 30),  # orange
    (140, 40, 180),  # purple
    (0, 128, 128),  # teal
    (220, 40, 200),  # magenta
    (128, 0, 0),  # maroon
    (0, 0, 128),  # navy
    (150, 95, 30),  # brown
)

_ACCEPTED_FORMATS = frozenset({"PNG", "JPEG", "WEBP"})  # what Page.captureScreenshot can return
_FONT_FILES = ("DejaVuSans.ttf",)
_OUTLINE_CSS_PX = 2.0
_FONT_CSS_PX = 11.0  # DejaVuSans at 11 px plus padding gives a 14 px label
_PAD_X_CSS_PX = 3.0
_PAD_TOP_CSS_PX = 2.0
_PAD_BOTTOM_CSS_PX = 1.0
_HEIGHT_PROBE = "@Agjy|"  # ascender to descender, so every label has the same height
_CELL = 64  # spatial-hash cell size in image pixels


@dataclass(frozen=True)
class Mark:
    """One element to outline: its ref text and its box in CSS pixels."""

    label: str
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Placement:
    """Where a drawn mark ended up, in image pixels (exclusive ends)."""

    label: str
    box: Box  # the mark's box, clipped to the image
    label_box: Box  # the label's filled rectangle, always inside the image
    color: RGB


@dataclass(frozen=True)
class AnnotatedImage:
    png: bytes
    width: int
    height: int
    placements: tuple[Placement, ...]  # in drawing (placement) order
    skipped: tuple[Mark, ...]  # marks with no visible area inside the image, in input order


def mark_color(label: str) -> RGB:
    """The palette colour for a label; stable across calls and processes."""
    return PALETTE[zlib.crc32(label.encode("utf-8")) % len(PALETTE)]


def annotate(png: bytes, marks: Sequence[Mark], *, scale: float = 1.0) -> AnnotatedImage:
    """Outline each mark on the screenshot and label it with its ref text."""
    if not (math.isfinite(scale) and scale > 0):
        raise UsageError(f"annotate: scale must be a positive number, got {scale!r}")
    for mark in marks:
        _check_mark(mark)
    image = _decode(png)
    width, height = image.size

    boxes: list[tuple[int, Mark, Box]] = []
    skipped: list[Mark] = []
    for index, mark in enumerate(marks):
        box = _to_image_box(mark, scale, width, height)
        if box is None:
            skipped.append(mark)
        else:
            boxes.append((index, mark, box))
    # Reading order; the caller's order only breaks ties between identical boxes.
    boxes.sort(key=lambda item: (item[2][1], item[2][0], item[2][3], item[2][2], item[0]))

    font = _load_font(max(6, round(_FONT_CSS_PX * scale)))
    pad_x = max(1, round(_PAD_X_CSS_PX * scale))
    pad_top = max(1, round(_PAD_TOP_CSS_PX * scale))
    pad_bottom = max(1, round(_PAD_BOTTOM_CSS_PX * scale))
    _, top, _, bottom = font.getbbox(_HEIGHT_PROBE)
    text_top, text_bottom = math.floor(top), math.ceil(bottom)
    label_h = min(height, (text_bottom - text_top) + pad_top + pad_bottom)

    box_index = _RectIndex()
    for slot, (_, _, box) in enumerate(boxes):
        box_index.add(slot, box)
    label_index = _RectIndex()
    placements: list[Placement] = []
    for slot, (_, mark, box) in enumerate(boxes):
        label_w = min(width, math.ceil(font.getlength(mark.label)) + 2 * pad_x)
        label_box = _place_label(
            box, (label_w, label_h), (width, height), slot, box_index, label_index
        )
        label_index.add(slot, label_box)
        placements.append(Placement(mark.label, box, label_box, mark_color(mark.label)))

    _draw(image, placements, font, (pad_x, pad_top - text_top), scale)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return AnnotatedImage(out.getvalue(), width, height, tuple(placements), tuple(skipped))


def _check_mark(mark: Mark) -> None:
    values = (mark.x, mark.y, mark.width, mark.height)
    if not all(math.isfinite(v) for v in values):
        raise UsageError(f"annotate: mark {mark.label!r} has a non-finite coordinate")
    if mark.width < 0 or mark.height < 0:
        raise UsageError(f"annotate: mark {mark.label!r} has a negative size")


def _decode(png: bytes) -> Image.Image:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(png)) as source:
            if source.format not in _ACCEPTED_FORMATS:
                raise UsageError(
                    f"annotate: expected a PNG screenshot, got {source.format or 'unknown'} data"
                )
            source.load()
            mode = "RGBA" if "A" in source.getbands() or "transparency" in source.info else "RGB"
            return source.convert(mode)
    except UsageError:
        raise
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise UsageError(
            f"annotate: the screenshot is not a readable PNG ({exc})",
            hint="capture the screenshot again",
        ) from exc


def _to_image_box(mark: Mark, scale: float, width: int, height: int) -> Box | None:
    """The mark's box in image pixels, clipped to the image; None when nothing of it shows."""
    x0 = _round(mark.x * scale)
    y0 = _round(mark.y * scale)
    x1 = max(_round((mark.x + mark.width) * scale), x0 + (1 if mark.width > 0 else 0))
    y1 = max(_round((mark.y + mark.height) * scale), y0 + (1 if mark.height > 0 else 0))
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x0 >= x1 or y0 >= y1:
        return None
    return (x0, y0, x1, y1)


def _round(value: float) -> int:
    return math.floor(value + 0.5)  # half-up: round() is half-to-even and wobbles on .5 edges


def _load_font(size: int) -> _Font:
    from PIL import ImageFont

    for name in _FONT_FILES:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType: scalable
    except (OSError, TypeError, ValueError, ImportError):
        return ImageFont.load_default()


# -- placement ---------------------------------------------------------------------------------


class _RectIndex:
    """A uniform-grid spatial hash of rectangles keyed by an int id; local to one call."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[int]] = {}
        self._rects: dict[int, Box] = {}

    def add(self, key: int, rect: Box) -> None:
        self._rects[key] = rect
        for cell in _cells(rect):
            self._cells.setdefault(cell, []).append(key)

    def hits(self, rect: Box) -> Iterator[tuple[int, Box]]:
        seen: set[int] = set()
        for cell in _cells(rect):
            for key in self._cells.get(cell, ()):
                if key not in seen:
                    seen.add(key)
                    other = self._rects[key]
                    if _overlap(rect, other) > 0:
                        yield key, other


def _cells(rect: Box) -> Iterator[tuple[int, int]]:
    x0, y0, x1, y1 = rect
    for cx in range(x0 // _CELL, (max(x0, x1 - 1)) // _CELL + 1):
        for cy in range(y0 // _CELL, (max(y0, y1 - 1)) // _CELL + 1):
            yield cx, cy


def _overlap(a: Box, b: Box) -> int:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0


def _area(rect: Box) -> int:
    return (rect[2] - rect[0]) * (rect[3] - rect[1])


def _gap(a: Box, b: Box) -> float:
    dx = max(0, b[0] - a[2], a[0] - b[2])
    dy = max(0, b[1] - a[3], a[1] - b[3])
    return math.hypot(dx, dy)


def _place_label(
    box: Box,
    size: tuple[int, int],
    image_size: tuple[int, int],
    slot: int,
    box_index: _RectIndex,
    label_index: _RectIndex,
) -> Box:
    lw, lh = size
    near = lh  # a label this close still reads as belonging to its box
    margin = max(1, lh // 14)  # keeps neighbouring labels of the same colour apart

    first_clear: Box | None = None  # hides no label and no other mark, however far
    first_free: Box | None = None  # hides no label
    least: Box | None = None
    least_overlap = -1
    for rect in _candidates(box, size, image_size):
        padded = (rect[0] - margin, rect[1] - margin, rect[2] + margin, rect[3] + margin)
        label_overlap = sum(_overlap(padded, other) for _, other in label_index.hits(padded))
        if label_overlap:
            if least is None or label_overlap < least_overlap:
                least, least_overlap = rect, label_overlap
            continue
        if first_free is None:
            first_free = rect
        if _covers_foreign_box(rect, slot, box_index, lw * lh):
            continue
        if _gap(rect, box) <= near and 2 * _overlap(rect, box) <= _area(box):
            return rect
        if first_clear is None:
            first_clear = rect
    chosen = first_clear or first_free or least
    assert chosen is not None  # _candidates always yields at least one rectangle
    return chosen


def _covers_foreign_box(rect: Box, slot: int, box_index: _RectIndex, label_area: int) -> bool:
    """Whether the label would hide another mark; a much larger box wholly around it is fine."""
    for key, other in box_index.hits(rect):
        if key == slot:
            continue
        inside = (
            other[0] < rect[0] and other[1] < rect[1] and rect[2] < other[2] and rect[3] < other[3]
        )
        if not (inside and _area(other) >= 4 * label_area):
            return True
    return False


def _candidates(box: Box, size: tuple[int, int], image_size: tuple[int, int]) -> Iterator[Box]:
    """Label rectangles to try, best first, all inside the image and without repeats."""
    x0, y0, x1, y1 = box
    lw, lh = size
    width, height = image_size
    primary = [
        (x0, y0 - lh),  # above-left, outside
        (x0, y0),  # inside top-left
        (x0, y1),  # below-left, outside
        (x1, y0),  # right side
        (x0 - lw, y0),  # left side
        (x1 - lw, y0 - lh),  # above-right, outside
        (x1 - lw, y1),  # below-right, outside
    ]
    # Nudged spots: a grid around the box's top-left part (large boxes are capped so the grid
    # stays small), ordered by how far the label drifts from the box and how much of it it hides.
    step_x, step_y = max(1, lh), max(1, lh // 2)
    reach = 5 * lh
    span_x = min(x1, x0 + 3 * lw) - x0
    span_y = min(y1, y0 + 6 * lh) - y0
    label_area = lw * lh
    nudged: list[tuple[float, int, int, int]] = []
    for j in range(-_ceil_div(lh + reach, step_y), _ceil_div(span_y + reach, step_y) + 1):
        for i in range(-_ceil_div(lw + reach, step_x), _ceil_div(span_x + reach, step_x) + 1):
            lx, ly = x0 + i * step_x, y0 + j * step_y
            rect = (lx, ly, lx + lw, ly + lh)
            if not _within(rect, width, height):
                continue
            cost = _gap(rect, box) + lh * _overlap(rect, box) / label_area
            nudged.append((cost, abs(j) + abs(i), j, i))
    nudged.sort()

    seen: set[Box] = set()
    positions = primary + [(x0 + i * step_x, y0 + j * step_y) for _, _, j, i in nudged]
    for lx, ly in positions:
        rect = (lx, ly, lx + lw, ly + lh)
        if _within(rect, width, height) and rect not in seen:
            seen.add(rect)
            yield rect
    # Last resort, for a label as wide as the image: the first spot pushed inside the image.
    lx = min(max(0, x0), width - lw)
    ly = min(max(0, y0 - lh), height - lh)
    rect = (lx, ly, lx + lw, ly + lh)
    if rect not in seen:
        yield rect


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _within(rect: Box, width: int, height: int) -> bool:
    return rect[0] >= 0 and rect[1] >= 0 and rect[2] <= width and rect[3] <= height


# -- drawing -----------------------------------------------------------------------------------


def _draw(
    image: Image.Image,
    placements: Sequence[Placement],
    font: _Font,
    text_offset: tuple[int, int],
    scale: float,
) -> None:
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    outline = max(1, round(_OUTLINE_CSS_PX * scale))
    leader = max(1, round(scale))
    # Boxes, then leader lines, then labels, so no outline ever crosses a label's text.
    for p in placements:
        x0, y0, x1, y1 = p.box
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=p.color, width=outline)
    for p in placements:
        if _gap(p.label_box, p.box) > 0:
            draw.line(_leader(p.label_box, p.box), fill=p.color, width=leader)
    for p in placements:
        x0, y0, x1, y1 = p.label_box
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=p.color)
        draw.text(
            (x0 + text_offset[0], y0 + text_offset[1]),
            p.label,
            font=font,
            fill=_text_color(p.color),
        )


def _leader(label_box: Box, box: Box) -> tuple[int, int, int, int]:
    """A segment joining the nearest edges of the label and its box."""

    def axis(a0: int, a1: int, b0: int, b1: int) -> tuple[int, int]:
        if a1 <= b0:
            return a1 - 1, b0
        if b1 <= a0:
            return a0, b1 - 1
        mid = (max(a0, b0) + min(a1, b1) - 1) // 2
        return mid, mid

    ax, bx = axis(label_box[0], label_box[2], box[0], box[2])
    ay, by = axis(label_box[1], label_box[3], box[1], box[3])
    return ax, ay, bx, by


def _text_color(background: RGB) -> RGB:
    """White or black, whichever has the higher WCAG contrast ratio on the background."""

    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in background)
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    on_white = 1.05 / (luminance + 0.05)
    on_black = (luminance + 0.05) / 0.05
    return (255, 255, 255) if on_white >= on_black else (0, 0, 0)
