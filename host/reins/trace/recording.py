"""A recording to watch: the run's pictures as one animated WebP, each frame captioned with its
step.

Built from the pictures the trace already holds (before and after each action, the action's
target outlined and labelled on them by ``pictures.py``), so it needs no screencast and shows
nothing the trace does not. Each frame gets a caption bar under the picture: the step's number,
its command line and, on the picture after, its result. Frames are fitted on one canvas (the
first picture's size, at most ``WIDTH`` wide); a failed step's last frame stays longer. Written
as ``recording.webp`` beside the report, and shown in it.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from reins._pagetext import visible
from reins.trace.html import Markup, el, join, raw
from reins.trace.run import RunView, Step

__all__ = ["WIDTH", "make_recording", "recording_section"]

WIDTH = 720
# At most this many frames: a long run is sampled evenly (its failed steps always kept).
MAX_FRAMES = 240
_CAPTION = 40
_SHOW_MS = 1200
_FAILED_MS = 3000
_OK = (26, 127, 55)
_BAD = (207, 34, 46)


def _frames(run: RunView) -> list[tuple[Step, str, str]]:
    """(step, picture path, when) in order: before, then after."""
    out = []
    for step in run.steps:
        for when, path in (("before", step.before), ("after", step.after)):
            if path is not None:
                out.append((step, path, when))
    if len(out) <= MAX_FRAMES:
        return out
    keep = {round(i * (len(out) - 1) / (MAX_FRAMES - 1)) for i in range(MAX_FRAMES)}
    return [f for i, f in enumerate(out) if i in keep or not f[0].ok]


def _caption(step: Step, when: str) -> tuple[str, tuple[int, int, int]]:
    text = f"#{step.number}  {visible(step.cli)}"
    if when == "before":
        return text, (60, 60, 60)
    if step.ok:
        return f"{text}  — ok", _OK
    return f"{text}  — FAILED {(step.error or {}).get('code', '')}", _BAD


def _fit(picture: Image.Image, size: tuple[int, int]) -> Image.Image:
    canvas = Image.new("RGB", (size[0], size[1] + _CAPTION), (255, 255, 255))
    picture.thumbnail(size, Image.Resampling.LANCZOS)
    canvas.paste(picture, (0, 0))
    return canvas


def make_recording(run: RunView, directory: Path) -> bytes | None:
    """The animated WebP of the run's pictures, or None when it has none to show."""
    frames: list[Image.Image] = []
    durations: list[int] = []
    size: tuple[int, int] | None = None
    font = ImageFont.load_default(size=15)
    for step, path, when in _frames(run):
        try:
            with Image.open(directory / path) as source:
                picture = source.convert("RGB")
        except (OSError, ValueError):
            continue  # a picture missing or damaged: the report says so; the film skips it
        if size is None:
            width = min(WIDTH, picture.width)
            size = (width, max(1, round(picture.height * width / picture.width)))
        frame = _fit(picture, size)
        text, colour = _caption(step, when)
        draw = ImageDraw.Draw(frame)
        draw.rectangle((0, size[1], size[0], size[1] + _CAPTION), fill=colour)
        while len(text) > 1 and draw.textlength(text, font=font) > size[0] - 16:
            text = text[:-2] + "…"  # shorter each turn, down to the "…" alone
        draw.text((8, size[1] + 11), text, fill=(255, 255, 255), font=font)
        frames.append(frame)
        durations.append(_FAILED_MS if when == "after" and not step.ok else _SHOW_MS)
    if not frames:
        return None
    durations[-1] = max(durations[-1], _FAILED_MS)
    out = io.BytesIO()
    frames[0].save(
        out,
        format="WEBP",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        quality=60,
        method=2,
    )
    return out.getvalue()


def recording_section(film: bytes, name: str) -> Markup:
    """The report's section that shows the recording (``name``: its file beside the report)."""
    uri = "data:image/webp;base64," + base64.b64encode(film).decode("ascii")
    return join(
        el("h2", None, "Recording"),
        el(
            "p",
            {"class": "muted"},
            "The run's pictures in order, each with its step (also ",
            el("code", None, name),
            ").",
        ),
        el("img", {"src": raw(uri), "alt": "the run's pictures, animated", "class": "film"}),
    )
