"""A trace's pictures: the screenshot with the command's target marked, scaled down, as JPEG.

Pure: PNG bytes in, JPEG bytes out. The mark is drawn by ``observe/annotate.py`` on the full-size
image (so it lands where the element was), then the picture is scaled to at most ``MAX_WIDTH``
pixels wide: a run of a hundred steps stays a few megabytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image

from reins.observe.annotate import Mark, annotate

__all__ = ["MAX_WIDTH", "QUALITY", "trace_picture"]

MAX_WIDTH = 960
QUALITY = 72


def trace_picture(png: bytes, *, box: Sequence[float] | None = None, label: str = "",
                  scale: float = 1.0, max_width: int = MAX_WIDTH) -> bytes:
    """The screenshot as a scaled JPEG, with ``box`` (CSS pixels, ``scale`` = devicePixelRatio)
    outlined and labelled when given."""
    if box is not None and len(box) == 4 and box[2] >= 0 and box[3] >= 0:
        png = annotate(png, [Mark(label[:40] or "target", *map(float, box))], scale=scale).png
    with Image.open(io.BytesIO(png)) as source:
        image = source.convert("RGB")
    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=QUALITY, optimize=True)
    return out.getvalue()
