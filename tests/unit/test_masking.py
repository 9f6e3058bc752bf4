"""Masking (issue 34, item 5): a step's text masked by its sites' rules, pictures filled, and
`reins report --check` on hand-built traces (the rules themselves: test_mask_rules.py)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from click.testing import CliRunner
from PIL import Image
from reins.cli.group import main
from reins.trace.masking import (
    MASKED,
    check_directory,
    mask_text,
    page_rules,
    partly,
    scan_lines,
    site_rules,
)
from reins.trace.pictures import MASK_COLOUR, trace_picture

# ---- a step's text --------------------------------------------------------------------------------


def test_a_steps_text_is_masked_by_its_sites_rules_and_its_unrecorded_values() -> None:
    rules = {
        "https://bank.test": [{"text": r"ACCT-\d{8}"}, {"selector": "#balance"}],
        "https://other.test": [{"text": "other"}],
        "*": [{"text": r"\d{3}-\d{2}-\d{4}"}],
    }
    site = site_rules(rules, ["https://bank.test/home?x=1", None, "about:blank"])
    assert site.selectors == ("#balance",)
    assert set(site.patterns) == {r"ACCT-\d{8}", r"\d{3}-\d{2}-\d{4}"}
    line = {
        "title": "Account ACCT-12345678",
        "answer": {"effect": {"value": {"from": "", "to": "hunter22"}}},
        "console": [{"text": "ssn 123-45-6789 for ACCT-87654321"}],
        "cli": "reins fill '#pw' hunter22",
        "other": "other stays",
        "keys": {"ACCT-00000000": 1},
    }
    masked = mask_text(line, site.patterns, ["hunter22"])
    text = json.dumps(masked)
    assert "ACCT-" not in text and "hunter22" not in text and "6789" not in text
    assert masked["title"] == f"Account {MASKED}"
    assert masked["other"] == "other stays"
    assert mask_text(line, (), ["ab"]) == line  # a secret this short is not searched for


def test_a_match_in_a_long_text_is_found_in_its_overlapping_windows() -> None:
    text = "x" * 3500 + "ACCT-12345678" + "y" * 9000 + "ACCT-87654321"
    masked = mask_text(text, [r"ACCT-\d{8}"])
    assert "ACCT" not in masked and masked.count(MASKED) == 2


def test_the_page_gets_every_sites_rules_to_pick_its_own() -> None:
    rules = {"*": [{"text": "a"}], "https://b.test": [{"selector": "#x"}, {"text": "b"}]}
    assert page_rules(rules) == {
        "*": {"selectors": [], "patterns": ["a"]},
        "https://b.test": {"selectors": ["#x"], "patterns": ["b"]},
    }


# ---- pictures -------------------------------------------------------------------------------------


def _png(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def test_a_masked_box_is_filled_generously_and_cut_to_the_picture() -> None:
    red = (220, 30, 30)
    jpeg = trace_picture(
        _png(200, 100, red), scale=2.0, masks=[[10, 10, 20, 10], [90, 40, 50, 50]], max_width=200
    )
    with Image.open(io.BytesIO(jpeg)) as image:
        rgb = image.convert("RGB")
    # at scale 2 the first box is x 20..60, y 20..40 of the picture, and 12..68, 12..48 with its
    # margin (4 CSS pixels): none of the page's red inside, even where JPEG blurs the edge
    for x, y in [(15, 15), (20, 20), (59, 39), (65, 45)]:
        assert not _near(rgb.getpixel((x, y)), red, 120), (x, y)
    assert _near(rgb.getpixel((40, 30)), MASK_COLOUR)
    assert _near(rgb.getpixel((190, 90)), MASK_COLOUR)  # the second box, cut at the edge
    assert _near(rgb.getpixel((5, 5)), red)  # outside every box: the page as it was


def _near(pixel: object, colour: tuple[int, int, int], tolerance: int = 24) -> bool:
    assert isinstance(pixel, tuple)
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


# ---- report --check -------------------------------------------------------------------------------


def test_partly_shows_the_ends_and_the_length_only() -> None:
    assert partly("bob.smith@example.com") == "bo…om (21 characters)"
    assert partly("abc") == "a… (3 characters)"


def test_the_check_finds_what_could_be_sensitive_with_its_step_and_field() -> None:
    lines = [
        {"type": "start", "name": "run", "time": "2024-01-01T10:00:00Z", "t": 1712345678.25},
        {
            "type": "step",
            "step": 3,
            "cli": "reins fill '#email' bob.smith@example.com",
            "answer": {"effect": {"value": {"to": "4242 4242 4242 4242"}}},
            "console": [{"text": "Authorization: Bearer abcdefghij12345"}],
            "network": [{"url": "https://x.test/u/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"}],
            "notes": ["iban DE89370400440532013000", "key sk_live_51HqLyjWDarjtT1zdp7dcQ"],
            "shots": {"before": "shots/0003-before.jpg"},
        },
        {"type": "step", "step": 4, "cli": "reins click '#save'", "title": "Order 12 saved"},
    ]
    found = {(f.kind, f.where) for f in scan_lines(lines)}
    assert found == {
        ("email", "step 3, cli"),
        ("card-like number", "step 3, answer.effect.value.to"),
        ("bearer token", "step 3, console[0].text"),
        ("JWT", "step 3, network[0].url"),
        ("IBAN-like", "step 3, notes[0]"),
        ("token", "step 3, notes[1]"),
    }
    shown = " ".join(f.shown for f in scan_lines(lines))
    assert "example.com" not in shown and "4242 4242" not in shown


def test_ordinary_trace_text_is_not_flagged() -> None:
    line = {
        "type": "step",
        "step": 1,
        "cli": "reins click '#submit-order-button-primary-large'",
        "url": "http://127.0.0.1:8123/static/trace.html",
        "console": [{"text": "GET /static/js/main.3f2a9c1b.chunk.js 404"}],
        "answer": {"count": 12, "effect": {"url": {"from": "a", "to": "b"}}},
        "notes": ["target not marked: not_found: no element matches"],
    }
    assert scan_lines([line]) == []


def test_report_check_exits_1_on_findings_and_0_when_clean(tmp_path: Path) -> None:
    dirty = tmp_path / "dirty"
    dirty.mkdir()
    step = {"type": "step", "step": 1, "cli": "reins fill '#e' ann@example.org"}
    (dirty / "trace.jsonl").write_text(json.dumps(step) + "\n")
    (dirty / "report.md").write_text(
        "![x](data:image/jpeg;base64,QUJDRA1234abcdEFGH5678ijklMNOP)\n"
    )
    runner = CliRunner()
    got = runner.invoke(main, ["report", str(dirty), "--check", "--json"])
    assert got.exit_code == 1, got.output
    body = json.loads(got.output)
    assert body["ok"] is False
    assert body["findings"] == [
        {"kind": "email", "where": "step 1, cli", "shown": "an…rg (15 characters)"}
    ]
    assert not (dirty / "report.html").exists()  # --check writes nothing
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "trace.jsonl").write_text(json.dumps({**step, "cli": "reins click '#go'"}) + "\n")
    assert runner.invoke(main, ["report", str(clean), "--check"]).exit_code == 0
    assert [f.where for f in check_directory(clean)] == []


def test_report_check_reads_the_reports_beside_the_trace(tmp_path: Path) -> None:
    (tmp_path / "trace.jsonl").write_text(json.dumps({"type": "step", "step": 1}) + "\n")
    (tmp_path / "report.html").write_text("<p>ok</p>\n<p>call 0123 4567 8901 2345 678</p>\n")
    found = check_directory(tmp_path)
    assert [(f.kind, f.where) for f in found] == [("long digit run", "report.html line 2")]
    assert re.search(r"\d{6}", found[0].shown) is None
