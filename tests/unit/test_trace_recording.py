"""The recording: a trace's pictures as one animated WebP beside the report and in it, each
frame captioned with its step (red under a failed step's picture after)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from PIL import Image
from reins.trace.recording import MAX_FRAMES, make_recording
from reins.trace.report import read_trace_run, write_report


def _jpeg(colour: tuple[int, int, int], size: tuple[int, int] = (800, 500)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="JPEG")
    return out.getvalue()


def _trace(
    folder: Path,
    steps: int,
    *,
    failed: int | None = None,
    pictures: bool = True,
    size: tuple[int, int] = (800, 500),
) -> Path:
    (folder / "shots").mkdir(parents=True)
    lines: list[dict[str, Any]] = [
        {"type": "start", "name": "r", "t": 0.0, "screenshots": pictures}
    ]
    for n in range(1, steps + 1):
        line: dict[str, Any] = {"type": "step", "step": n, "t": float(n), "cmd": "click"}
        line["cli"] = f"reins click @e{n}"
        line["ok"] = n != failed
        if n == failed:
            line["error"] = {"code": "obscured", "message": "covered"}
        if pictures:
            for when, colour in (("before", (0, 0, 200)), ("after", (0, 200, 0))):
                name = f"shots/{n:04d}-{when}.jpg"
                (folder / name).write_bytes(_jpeg(colour, size))
                line.setdefault("shots", {})[when] = name
        lines.append(line)
    lines.append({"type": "stop", "t": 99.0, "steps": steps})
    (folder / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def test_the_report_shows_and_writes_the_recording(tmp_path: Path) -> None:
    folder = _trace(tmp_path / "t", 3, failed=3)
    written, _, _ = write_report(folder)
    film = folder / "report-recording.webp"
    assert film.is_file()
    page = written.read_text()
    assert "data:image/webp;base64," in page and "report-recording.webp" in page
    with Image.open(film) as image:
        assert image.format == "WEBP" and image.n_frames == 6
        assert image.width == 720, "scaled to the recording's width"
        frames = []
        for i in range(image.n_frames):
            image.seek(i)
            frames.append(image.convert("RGB"))
    body, caption = (360, 100), (700, frames[0].height - 5)
    # Before (blue), after (green), in step order; the caption bar grey before, green after an
    # ok step, red after the failed one.
    assert [_near(f.getpixel(body), PICTURES) for f in frames] == ["before", "after"] * 3
    captions = [_near(f.getpixel(caption), CAPTIONS) for f in frames]
    assert captions == ["before", "ok", "before", "ok", "before", "failed"]


PICTURES = {"before": (0, 0, 200), "after": (0, 200, 0)}
CAPTIONS = {"before": (60, 60, 60), "ok": (26, 127, 55), "failed": (207, 34, 46)}


def _near(pixel: Any, palette: dict[str, tuple[int, int, int]]) -> str:
    def distance(name: str) -> int:
        return sum((a - c) ** 2 for a, c in zip(palette[name], pixel, strict=True))

    return min(palette, key=distance)


def test_a_trace_without_pictures_has_no_recording(tmp_path: Path) -> None:
    folder = _trace(tmp_path / "t", 2, pictures=False)
    written, _, _ = write_report(folder)
    assert not (folder / "report-recording.webp").exists()
    assert "data:image/webp" not in written.read_text()


def test_a_long_run_is_sampled_and_keeps_its_failed_step(tmp_path: Path) -> None:
    steps = MAX_FRAMES  # twice as many pictures as frames
    folder = _trace(tmp_path / "t", steps, failed=steps // 2 + 1, size=(160, 100))
    film = make_recording(read_trace_run(folder), folder)
    assert film is not None
    with Image.open(io.BytesIO(film)) as image:
        assert MAX_FRAMES <= image.n_frames <= MAX_FRAMES + 2
