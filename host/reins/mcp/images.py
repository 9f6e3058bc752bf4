"""A screenshot made to fit a byte budget, legibility first (pure: bytes in, bytes out).

A picture fits when it is within the byte budget and within what a vision model takes without
shrinking it first (``MAX_EDGE``, ``MAX_PIXELS``: Anthropic's vision guide; a bigger picture would be
scaled down by the model, past legibility, whatever was sent). The order of resort: the PNG as taken; the same pixels in fewer bytes (a 256-colour PNG, which keeps
flat UI colours and ref labels crisp, then JPEG at falling quality); fewer pixels (scaled down, each
size tried with the same encodings); and last, for a picture that would have to shrink past the
point where its text can be read (``label_px``: ref labels; otherwise half size), its top at that
size, cut where the budget ends. The caller says so to the agent.

No encoding is tried that cannot fit: a JPEG of a page takes at least ``_MIN_BITS_PER_PX``, so a
full-page picture tens of thousands of pixels tall goes straight to the cut, and the cut is sized
from a band of rows, not from encodings of the whole picture.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image

from reins._errors import UsageError

__all__ = ["LEGIBLE_LABEL_PX", "MAX_EDGE", "MAX_PIXELS", "MIN_SCALE", "FittedImage", "fit_image"]

# A ref label this tall in image pixels (text about 8 px) still reads; annotate draws them 14 px
# tall at devicePixelRatio 1.
LEGIBLE_LABEL_PX = 11
# Below half size a page's own 13-16 px text no longer reads.
MIN_SCALE = 0.5
_STEP = 0.85  # each further reduction of the scale
_MAX_STEPS = 12
# Fewer bits than this per pixel no encoding here reaches on a screenshot (measured: UI pages
# take 0.3-2 at JPEG quality 50): a size that would need fewer is not tried.
_MIN_BITS_PER_PX = 0.15
_BAND_ROWS = 600  # rows encoded to learn what a row costs before a cut
# What Claude's vision takes as is (a longer edge, or more pixels, it scales down first).
MAX_EDGE = 1568
MAX_PIXELS = 1_150_000


@dataclass(frozen=True)
class FittedImage:
    data: bytes
    mime: str
    encoding: str  # "png", "png, 256 colours", "jpeg quality 75"
    width: int
    height: int
    scale: float  # of the picture as taken
    source_height: int  # the picture as taken
    cut_at: int | None = None  # rows kept (of the scaled picture) when its bottom was cut off


Encoded = tuple[bytes, str, str]
Encoder = Callable[[Image.Image], Encoded]


def _png_palette(image: Image.Image) -> Encoded:
    out = io.BytesIO()
    image.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(
        out, format="PNG", compress_level=9
    )
    return out.getvalue(), "image/png", "png, 256 colours"


def _jpeg(quality: int) -> Encoder:
    def encode(image: Image.Image) -> Encoded:
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=quality)
        return out.getvalue(), "image/jpeg", f"jpeg quality {quality}"

    return encode


# Fewer bytes for the same pixels, best first.
_ENCODINGS: tuple[Encoder, ...] = (_png_palette, _jpeg(75), _jpeg(50))


def fit_image(png: bytes, *, max_bytes: int, label_px: int | None = None) -> FittedImage:
    """The screenshot in at most ``max_bytes``; see the module docstring for the order of resort."""
    if max_bytes < 1024:
        raise UsageError(f"an image needs more than {max_bytes} bytes")
    image = _decode(png)
    width, height = image.size
    # The largest scale at which the whole picture could fit at all.
    scale = min(
        1.0,
        MAX_EDGE / max(width, height),
        math.sqrt(MAX_PIXELS / (width * height)),
        math.sqrt(max_bytes * 8 / (_MIN_BITS_PER_PX * width * height)),
    )
    if len(png) <= max_bytes and scale >= 1.0:
        return FittedImage(png, "image/png", "png", width, height, 1.0, height)
    floor = MIN_SCALE if not label_px else min(1.0, max(MIN_SCALE, LEGIBLE_LABEL_PX / label_px))
    image = image.convert("RGB")
    smallest: int | None = None
    for _ in range(_MAX_STEPS):
        if scale < floor:
            break
        scaled = _scaled(image, scale)
        for encode in _ENCODINGS:
            data, mime, encoding = encode(scaled)
            if len(data) <= max_bytes:
                return FittedImage(data, mime, encoding, *scaled.size, scale, height)
            smallest = len(data) if smallest is None else min(smallest, len(data))
        # Bytes go roughly with the area: aim just under the budget, at least one step down.
        aimed = scale * math.sqrt(max_bytes / smallest) * 0.95 if smallest else scale * _STEP
        scale = min(scale * _STEP, aimed)
    return _cut(image, floor, max_bytes)


def _cut(image: Image.Image, scale: float, max_bytes: int) -> FittedImage:
    """The top of the picture at ``scale``: as many rows as the budget holds."""
    source_height = image.height
    band = _top(image, scale, _BAND_ROWS)
    # The encoding that spends the fewest bytes per row on this picture.
    costs = [(len(encode(band)[0]) / band.height, index) for index, encode in enumerate(_ENCODINGS)]
    per_row, chosen = min(costs)
    encode = _ENCODINGS[chosen]
    width = band.width
    total_rows = max(1, round(source_height * scale))
    most_rows = max(1, min(MAX_EDGE, MAX_PIXELS // width))  # what the model takes as is
    rows = min(total_rows, most_rows, max(1, int(max_bytes / per_row * 0.95)))
    best: tuple[Image.Image, Encoded] | None = None
    for _ in range(_MAX_STEPS):
        part = _top(image, scale, rows)
        encoded = encode(part)
        size = len(encoded[0])
        if size <= max_bytes:
            best = (part, encoded)
            if size >= max_bytes * 0.9 or rows >= min(total_rows, most_rows):
                break
            rows = min(total_rows, most_rows, int(rows * max_bytes / size * 0.97))
        else:
            if best is not None:
                break
            rows = max(1, min(int(rows * _STEP), int(rows * max_bytes / size * 0.95)))
    if best is None:
        raise UsageError(
            "the screenshot cannot be made to fit the answer cap",
            hint="raise --max-tokens-per-answer",
        )
    part, (data, mime, encoding) = best
    return FittedImage(
        data,
        mime,
        encoding,
        part.width,
        part.height,
        scale,
        source_height,
        cut_at=part.height if part.height < total_rows else None,
    )


def _top(image: Image.Image, scale: float, rows: int) -> Image.Image:
    """The first ``rows`` rows of the picture scaled by ``scale`` (cropped before it is scaled)."""
    source_rows = min(image.height, max(1, math.ceil(rows / scale)))
    return _scaled(image.crop((0, 0, image.width, source_rows)), scale)


def _scaled(image: Image.Image, scale: float) -> Image.Image:
    if scale >= 1.0:
        return image
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


def _decode(png: bytes) -> Image.Image:
    try:
        with Image.open(io.BytesIO(png)) as source:
            source.load()
            return source.copy()
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise UsageError(
            f"the screenshot is not a readable image ({exc})", hint="take the screenshot again"
        ) from exc
