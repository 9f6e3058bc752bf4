"""Masking in real Chromium (issue 34, item 5): a trace recorded on a page with a password, a
one-time-code and a card field (masked by default) and an account number (masked by a selector
rule, and its text by a text rule). The written JPEGs are read back with Pillow: no masked part keeps any of
its own colour, while an unmasked control still shows its own; the trace's text holds neither the
typed secrets nor the masked account text, and `reins report --check` passes on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from .conftest import Browser
from .support import run_cli

PAGE = "static/mask.html"
COLOURS = {
    "pw": (0x00, 0xC8, 0x00),
    "otp": (0x00, 0x50, 0xFF),
    "card": (0xFF, 0x00, 0xC8),
    "acct": (0xFF, 0x8C, 0x00),
    "said": (0xFF, 0xE6, 0x00),
}
CONTROL = (0x00, 0xC8, 0xC8)
# A JPEG at quality 72 keeps a flat colour within a few levels; a pixel this close is that colour.
NEAR = 48


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = NEAR) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


def _boxes(browser: Browser, tab: str) -> dict[str, Any]:
    return browser.ok(
        "eval",
        """(() => {
          const out = {width: innerWidth, dpr: devicePixelRatio};
          for (const id of ["pw", "otp", "card", "acct", "said", "control"]) {
            const r = document.getElementById(id).getBoundingClientRect();
            out[id] = [r.x, r.y, r.width, r.height];
          }
          // a text rule fills the text it matched, not the element around it
          const range = document.createRange();
          range.selectNodeContents(document.getElementById("said").firstChild);
          const t = range.getBoundingClientRect();
          out.said = [t.x, t.y, t.width, t.height];
          return out;
        })()""",
        "--tab",
        tab,
    )["value"]


def _pixels(image: Image.Image, box: list[float], factor: float) -> list[tuple[int, ...]]:
    """Every pixel of the picture inside ``box`` (CSS pixels)."""
    x, y, w, h = (v * factor for v in box)
    return [
        image.getpixel((i, j))
        for i in range(max(0, int(x)), min(image.width, int(x + w)))
        for j in range(max(0, int(y)), min(image.height, int(y + h)))
    ]


def test_masked_parts_keep_none_of_their_colour_in_the_written_pictures(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    tab_id, url = page(PAGE)
    tab = str(tab_id)
    site = browser.ok("eval", "location.origin", "--tab", tab)["value"]
    browser.ok("mask", "add", site, "--selector", "#acct")
    browser.ok("mask", "add", site, "--text", r"ACCT-\d{8}")
    trace_dir = tmp_path / "run"
    try:
        browser.ok("trace", "start", str(trace_dir), "--screenshots")
        browser.ok("fill", "#pw", "hunter2-secret", "--tab", tab)
        browser.ok("fill", "#card", "4242424242424242", "--tab", tab)
        browser.ok("click", "#control", "--tab", tab)
        browser.ok("trace", "stop")
    finally:
        browser.ok("mask", "remove", site, "--selector", "#acct")
        browser.ok("mask", "remove", site, "--text", r"ACCT-\d{8}")
    boxes = _boxes(browser, tab)

    lines = [json.loads(line) for line in (trace_dir / "trace.jsonl").read_text().splitlines()]
    steps = [line for line in lines if line["type"] == "step"]
    assert [s["cmd"] for s in steps] == ["fill", "fill", "click"]
    pictures = [trace_dir / p for s in steps for p in (s.get("shots") or {}).values()]
    assert len(pictures) == 6, [s.get("notes") for s in steps]
    for path in pictures:
        with Image.open(path) as source:
            image = source.convert("RGB")
        factor = image.width / boxes["width"]
        for name, colour in COLOURS.items():
            kept = [p for p in _pixels(image, boxes[name], factor) if _near(p, colour)]
            assert not kept, f"{path.name}: {len(kept)} pixels of #{name}'s colour"
        shown = [p for p in _pixels(image, boxes["control"], factor) if _near(p, CONTROL)]
        assert len(shown) > 0.5 * len(_pixels(image, boxes["control"], factor)), path.name

    text = (trace_dir / "trace.jsonl").read_text()
    for secret in ("hunter2-secret", "4242424242424242", "ACCT-12345678"):
        assert secret not in text, secret
    assert "[masked]" in text  # the title and the console error said the account
    checked = run_cli(browser.home, "report", str(trace_dir), "--check")
    assert checked.code == 0, checked.stdout
    report = run_cli(browser.home, "report", str(trace_dir))
    assert report.code == 0, report.stderr
    written = Path(report.json()["file"]).read_text()
    assert "ACCT-12345678" not in written and "hunter2-secret" not in written
    assert url.startswith(site)


def test_a_rule_the_page_cannot_use_writes_no_picture_and_says_why(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    tab = str(page(PAGE)[0])
    site = browser.ok("eval", "location.origin", "--tab", tab)["value"]
    rule = "div:not-a-pseudo-class"  # CSS-shaped for the host's check; the page refuses it
    browser.ok("mask", "add", site, "--selector", rule)
    trace_dir = tmp_path / "run"
    try:
        browser.ok("trace", "start", str(trace_dir), "--screenshots")
        browser.ok("click", "#control", "--tab", tab)
        browser.ok("trace", "stop")
    finally:
        browser.ok("mask", "remove", site, "--selector", rule)
    lines = [json.loads(line) for line in (trace_dir / "trace.jsonl").read_text().splitlines()]
    (step,) = [line for line in lines if line["type"] == "step"]
    assert step["ok"] and not step.get("shots"), step
    assert any("no before picture" in n and "not-a-pseudo" in n for n in step["notes"]), step
    assert list((trace_dir / "shots").glob("*.jpg")) == []


@pytest.mark.parametrize("full_page", [False, True])
def test_reins_screenshot_is_masked_too(
    browser: Browser, page: Any, tmp_path: Path, full_page: bool
) -> None:
    """`reins screenshot -o`: the same defaults and rules as a trace's pictures, in the PNG it
    writes (the viewport, and the whole page with its scroll offset)."""
    tab_id, _ = page(PAGE)
    tab = str(tab_id)
    site = browser.ok("eval", "location.origin", "--tab", tab)["value"]
    if full_page:  # scrolled: a full page's boxes are the document's, not the viewport's
        browser.ok("eval", "document.body.style.height = '3000px'; scrollTo(0, 40)", "--tab", tab)
    out = tmp_path / "shot.png"
    browser.ok("mask", "add", site, "--selector", "#acct")
    try:
        args = ["screenshot", "-o", str(out), "--tab", tab] + (["--full-page"] if full_page else [])
        said = browser.ok(*args)
    finally:
        browser.ok("mask", "remove", site, "--selector", "#acct")
    assert said.get("masked", 0) >= 4, said
    boxes = _boxes(browser, tab)
    shift = 40 if full_page else 0
    with Image.open(out) as source:
        image = source.convert("RGB")
    factor = image.width / boxes["width"]
    for name in ("pw", "otp", "card", "acct"):
        x, y, w, h = boxes[name]
        kept = [p for p in _pixels(image, [x, y + shift, w, h], factor) if _near(p, COLOURS[name])]
        assert not kept, f"{len(kept)} pixels of #{name}'s colour"
    x, y, w, h = boxes["control"]
    shown = [p for p in _pixels(image, [x, y + shift, w, h], factor) if _near(p, CONTROL)]
    assert len(shown) > 0.5 * len(_pixels(image, [x, y + shift, w, h], factor))
