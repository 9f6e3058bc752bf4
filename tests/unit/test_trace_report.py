"""The report, from hand-built traces: what a person reads, and that nothing a page said can run
or turn into markup (the page is hostile: its URL, title, console messages, error texts)."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PIL import Image
from reins._errors import ReinsError
from reins._pagetext import UNSAFE
from reins.cli import main
from reins.trace.html import el, esc, raw
from reins.trace.markdown import md_text, render_markdown
from reins.trace.report import render_html
from reins.trace.run import picture_path, read_run

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="pwned=2">'


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(out, format="JPEG")
    return out.getvalue()


def _step(n: int, cmd: str, cli: str, *, ok: bool = True, **extra: Any) -> dict[str, Any]:
    line = {
        "type": "step",
        "step": n,
        "t": 1000.0 + n,
        "time": f"12:00:0{n}",
        "cmd": cmd,
        "cli": cli,
        "ok": ok,
        "duration_ms": 10 * n,
        "url": f"https://app.test/x?{HOSTILE}",
        "title": f"Title {HOSTILE}",
        "console": [],
        "network": [],
        "notes": [],
    }
    line.update(extra)
    return line


def _trace(tmp_path: Path) -> Path:
    folder = tmp_path / "t"
    (folder / "shots").mkdir(parents=True)
    (folder / "shots" / "0002-before.jpg").write_bytes(_jpeg())
    (folder / "shots" / "0002-after.jpg").write_bytes(_jpeg())
    lines = [
        {
            "type": "start",
            "name": f"run {HOSTILE}",
            "profile": "p",
            "t": 1000.0,
            "time": "2026-12-01T12:00:00",
            "screenshots": True,
        },
        _step(1, "navigate", "reins navigate https://app.test/"),
        {
            "type": "page",
            "step": 1,
            "url": "https://app.test/",
            "title": HOSTILE,
            "sources": {
                "dom": {
                    "refs": 12,
                    "frame_sections": 1,
                    "approx_tokens": 300,
                    "elapsed_ms": 40,
                    "error": None,
                },
                "ax": {
                    "refs": 0,
                    "frame_sections": 0,
                    "approx_tokens": 0,
                    "elapsed_ms": None,
                    "error": {"code": "timeout", "message": f"slow {HOSTILE}"},
                },
            },
        },
        _step(
            2,
            "click",
            "reins click @save",
            shots={"before": "shots/0002-before.jpg", "after": "shots/0002-after.jpg"},
            console=[
                {
                    "time": 1002500,
                    "level": "error",
                    "kind": "console",
                    "text": HOSTILE,
                    "source": "https://app.test/app.js",
                    "line": 3,
                }
            ],
            network=[
                {
                    "time": 1002600,
                    "url": "https://app.test/api?id=…",
                    "status": 404,
                    "type": "fetch",
                    "duration_ms": 5,
                    "failed": True,
                },
                {
                    "time": 1002600,
                    "url": "https://app.test/ok",
                    "status": 200,
                    "type": "fetch",
                    "duration_ms": 5,
                    "failed": False,
                },
            ],
            effect={"value": {"from": "", "to": HOSTILE}},
        ),
        {"type": "gap", "t": 1005.0, "after_step": 2, "text": "the host stopped"},
        _step(
            3,
            "click",
            "reins click @confirm",
            ok=False,
            error={
                "code": "ref_stale",
                "message": f"@confirm is stale {HOSTILE}; take a new snapshot with `reins state`",
                "transient": False,
                "candidates": [{"ref": "@e9", "name": HOSTILE}],
            },
            shots={"after": "../../../../etc/passwd"},
        ),
        _step(4, "fill", "reins fill @amount 12"),
        {"type": "stop", "t": 1010.0, "steps": 4},
    ]
    (folder / "trace.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


class _Scan(HTMLParser):
    """Every tag and attribute the report really has, as a browser would parse it."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _html(tmp_path: Path) -> tuple[str, _Scan]:
    folder = _trace(tmp_path)
    page = render_html(
        read_run([json.loads(x) for x in (folder / "trace.jsonl").read_text().splitlines()]), folder
    )
    scan = _Scan()
    scan.feed(page)
    return page, scan


def test_nothing_a_page_said_becomes_markup(tmp_path: Path) -> None:
    page, scan = _html(tmp_path)
    assert "script" not in scan.tags
    assert not [a for a in scan.attrs if a[0].startswith("on")]
    images = [value for name, value in scan.attrs if name == "src"]
    assert images and all(str(v).startswith("data:image/jpeg;base64,") for v in images)
    text = "".join(scan.text)
    assert HOSTILE in text  # shown, as text
    assert "<script>" not in page and "&lt;script&gt;" in page
    # and a policy that would stop a script anyway
    assert ("content", "default-src 'none'; img-src data:; style-src 'unsafe-inline'") in scan.attrs


def test_the_report_tells_the_run(tmp_path: Path) -> None:
    page, scan = _html(tmp_path)
    text = " ".join("".join(scan.text).split())
    assert "FAIL" in text
    assert "Failures (1)" in text and "Timeline (4 steps)" in text
    assert "ref_stale" in text and "take a new snapshot" in text and "@e9" in text
    # the sequence that led to the failure, in order
    sequence = re.search(r"How it got there:(.*?)(Step 3, before|Timeline|Console)", text)
    assert sequence is not None
    assert [
        c in sequence[1] for c in ("reins navigate", "reins click @save", "reins click @confirm")
    ] == [True, True, True]
    assert "the host stopped" in text  # the gap
    assert "Network (1 failed of 2 requests)" in text and "https://app.test/api?id=…" in text
    assert "Console (1)" in text
    assert "12" in text and "300" in text  # the dom figures
    assert scan.tags.count("img") == 2  # step 2's pictures; the bogus path of step 3 is not read


def test_only_the_recorders_own_picture_paths_are_read() -> None:
    assert picture_path("shots/0002-before.jpg") == "shots/0002-before.jpg"
    for bad in ("../../etc/passwd", "shots/../../x.jpg", "/etc/passwd", "shots/a.jpg", None, 3):
        assert picture_path(bad) is None


def test_a_run_with_no_failure_passes(tmp_path: Path) -> None:
    run = read_run(
        [
            {"type": "start", "t": 1.0},
            _step(1, "click", "reins click @a"),
            {"type": "stop", "t": 2.0, "steps": 1},
        ]
    )
    assert run.passed and not run.failures and run.stopped and run.complete
    assert run.verdict == ["PASS"]
    assert "<title>run — PASS</title>" in render_html(run, tmp_path).replace("reins run", "run")
    assert "incomplete" not in render_markdown(run, tmp_path).lower()
    nothing = read_run([{"type": "start", "t": 1.0}, {"type": "stop", "t": 2.0, "steps": 0}])
    assert nothing.verdict == ["FAIL"]  # nothing ran: nothing passed


# ---- incomplete traces: never PASS --------------------------------------------------------------


def _lines(*steps: dict[str, Any], stop: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    head: list[dict[str, Any]] = [{"type": "start", "name": "expense", "t": 1000.0}]
    return head + list(steps) + ([{"type": "stop", "t": 1100.0, **stop}] if stop else [])


def _headlines(run: Any, tmp_path: Path) -> tuple[str, str, str]:
    """The HTML title, the HTML h1's text, the Markdown headline."""
    page = render_html(run, tmp_path)
    title = re.search(r"<title>(.*?)</title>", page)
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert title and h1
    return title[1], re.sub(r"<[^>]+>", " ", h1[1]), render_markdown(run, tmp_path).splitlines()[0]


def _incomplete(run: Any, tmp_path: Path, *, failed: bool = False) -> str:
    """Assert every headline says INCOMPLETE (after FAIL if a step failed), never PASS; the
    HTML's list of what is missing, as text."""
    title, h1, md = _headlines(run, tmp_path)
    for headline in (title, h1, md):
        assert "INCOMPLETE" in headline and "PASS" not in headline, headline
        assert ("FAIL" in headline) == failed, headline
    page = render_html(run, tmp_path)
    scan = _Scan()
    scan.feed(page)
    text = " ".join("".join(scan.text).split())
    for sentence in run.missing:
        assert " ".join(sentence.split()) in text
        assert md_text(sentence, limit=600) in render_markdown(run, tmp_path)
    return text


def test_a_missing_step_number_makes_the_run_incomplete(tmp_path: Path) -> None:
    ok = [_step(n, "click", f"reins click @e{n}") for n in (1, 2, 4)]
    run = read_run(_lines(*ok, stop={"steps": 5}))
    assert run.passed  # what was recorded passed…
    assert run.missing_steps == [3, 5]  # …but 3 and 5 are not there
    assert run.missing == ["No record of 2 steps of 5: 3, 5."]
    _incomplete(run, tmp_path)


def test_a_recorder_that_says_it_wrote_more_than_the_file_has(tmp_path: Path) -> None:
    """The issue's full disk: trace stop said 20 steps, the file holds 9."""
    nine = [_step(n, "click", f"reins click @e{n}") for n in range(1, 10)]
    lost = {
        "steps": 11,
        "step_numbers": [[10, 20]],
        "other_lines": 0,
        "pictures": 7,
        "error": "No space left on device (ENOSPC)",
    }
    run = read_run(_lines(*nine, stop={"steps": 20, "lost": lost}))
    assert run.missing == [
        "No record of 11 steps of 20: 10–20 (No space left on device (ENOSPC)).",
        "7 pictures could not be written (No space left on device (ENOSPC)).",
    ]
    _incomplete(run, tmp_path)


def test_a_failed_step_in_an_incomplete_trace_reads_fail_and_incomplete(tmp_path: Path) -> None:
    steps = [_step(1, "click", "reins click @a"), _step(3, "click", "reins click @b", ok=False)]
    run = read_run(_lines(*steps, stop={"steps": 3}))
    assert run.verdict == ["FAIL", "INCOMPLETE"]
    _incomplete(run, tmp_path, failed=True)


def test_a_trace_with_no_stop_line_is_incomplete(tmp_path: Path) -> None:
    run = read_run(_lines(_step(1, "click", "reins click @a"), _step(2, "fill", "reins fill @b x")))
    assert run.missing == [
        "No stop line: the trace is still running, or it was cut short (the host killed, the "
        "disk full); anything after step 2 may be missing."
    ]
    _incomplete(run, tmp_path)


def test_a_step_lost_to_a_host_restart_is_a_hole(tmp_path: Path) -> None:
    gap = {"type": "gap", "t": 1003.0, "after_step": 3, "text": "the host stopped"}
    steps = [_step(1, "click", "reins click @a"), _step(2, "click", "reins click @b")]
    run = read_run(_lines(*steps, gap, _step(4, "click", "reins click @c"), stop={"steps": 4}))
    assert run.missing_steps == [3]
    _incomplete(run, tmp_path)


def _written(tmp_path: Path, body: bytes) -> Path:
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "trace.jsonl").write_bytes(body)
    return folder


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_truncated_last_line_is_reported(tmp_path: Path) -> None:
    whole = _jsonl(_lines(_step(1, "click", "reins click @a"), stop={"steps": 2}))
    step2 = json.dumps(_step(2, "click", "reins click @b"))
    # the stop line came first (a late step), and the last line was cut by a full disk
    folder = _written(tmp_path, whole + step2[: len(step2) // 2].encode())
    result = CliRunner().invoke(main, ["report", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["verdict"] == "INCOMPLETE" and answer["complete"] is False
    assert answer["missing"] == [
        "The file ends in the middle of a line: the last write was cut short.",
        "No record of 1 step of 2: 2.",
    ]
    html = (folder / "report.html").read_text()
    assert "INCOMPLETE" in html and "the last write was cut short" in html
    assert "— PASS" not in html


def test_a_damaged_line_in_the_middle_is_reported(tmp_path: Path) -> None:
    body = _jsonl(_lines(_step(1, "click", "reins click @a")))
    body += b'{"type":"step","step":2,"cmd":"cli\n'  # a write cut half-way, then a new line
    body += _jsonl([_step(3, "click", "reins click @c"), {"type": "stop", "t": 1.0, "steps": 3}])
    folder = _written(tmp_path, body)
    result = CliRunner().invoke(main, ["report", str(folder), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "INCOMPLETE" in result.output
    text = (folder / "report.md").read_text()
    assert text.splitlines()[0] == "## expense: INCOMPLETE"
    assert "- 1 damaged line could not be read." in text
    assert "- No record of 1 step of 3: 2." in text


def test_markdown_escapes_page_text_and_fences_code(tmp_path: Path) -> None:
    folder = _trace(tmp_path)
    run = read_run([json.loads(x) for x in (folder / "trace.jsonl").read_text().splitlines()])
    text = render_markdown(run, folder)
    # page text is escaped everywhere but inside code fences, where Markdown shows it as it is
    outside = re.sub(r"(?ms)^(`{3,})[a-z]*\n.*?^\1$", "", text)
    assert outside != text
    assert not re.search(r"(?<!\\)<", outside)  # every < escaped: no tag can start
    assert "### Failure at step 3: `ref_stale`" in text
    assert "FAIL" in text.splitlines()[0]
    assert md_text("a|b*c_<d>") == r"a\|b\*c\_\<d\>"
    assert md_text("x" * 400).endswith("…")


def test_the_html_builder_escapes_by_construction() -> None:
    assert (
        el("p", {"title": '"><script>'}, "<b>")
        == '<p title="&quot;&gt;&lt;script&gt;">&lt;b&gt;</p>'
    )
    assert el("p", None, raw("<b>ok</b>")) == "<p><b>ok</b></p>"
    assert esc(esc("<")) == "&lt;"
    with pytest.raises(ReinsError):
        el("p onclick", None)
    with pytest.raises(ReinsError):
        el("p", {"x onclick": "1"})


def test_reins_report_writes_both_formats(tmp_path: Path) -> None:
    folder = _trace(tmp_path)
    result = CliRunner().invoke(main, ["report", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["file"] == str(folder / "report.html")
    assert (folder / "report.html").stat().st_mode & 0o077 == 0
    out = tmp_path / "r.md"
    result = CliRunner().invoke(main, ["report", str(folder), "--format", "md", "-o", str(out)])
    assert result.exit_code == 0 and out.read_text().startswith("## run")
    missing = CliRunner().invoke(main, ["report", str(tmp_path), "--json"])
    assert missing.exit_code == 2 and json.loads(missing.output)["error"]["code"] == "bad_request"


CONTROLS = "Pay \u202eFDP.exe\u202c \x1b]52;c;ZXZpbA==\x07\u200b"


def test_controls_bidi_and_zero_width_characters_are_shown_not_obeyed(tmp_path: Path) -> None:
    folder = _trace(tmp_path)
    lines = [json.loads(x) for x in (folder / "trace.jsonl").read_text().splitlines()]
    for line in lines:
        if line.get("type") == "step":
            line["title"] = CONTROLS
            line["console"] = [{"level": "error", "kind": "console", "text": CONTROLS + "\nx"}]
    run = read_run(lines)
    for text in (render_html(run, folder), render_markdown(run, folder)):
        assert UNSAFE.search(text.replace("\n", "")) is None
        # shown as escapes (Markdown escapes the backslash itself: it renders as one)
        assert re.search(r"\\{1,2}u202eFDP\.exe\\{1,2}u202c", text)
        assert re.search(r"\\{1,2}x1b\\?\]52;c;ZXZpbA==\\{1,2}x07\\{1,2}u200b", text)
