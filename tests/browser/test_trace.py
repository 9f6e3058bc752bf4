"""Traces in real Chromium: a validation run with a deliberate failure, recorded with pictures,
then its report opened in Chromium (through reins, served on 127.0.0.1) and read as a person
reads it; console and network evidence; a host killed in the middle of a trace."""

from __future__ import annotations

import functools
import http.server
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser
from .support import run_cli


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def serve_dir() -> Iterator[Any]:
    """Serve a directory on 127.0.0.1 (reins refuses file:// pages unless allowed)."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def serve(directory: Path) -> str:
        handler = functools.partial(_Quiet, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def _lines(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (directory / "trace.jsonl").read_text().splitlines()]


def _run_with_failure(browser: Browser, tab: int, trace_dir: Path) -> None:
    t = str(tab)
    browser.ok("trace", "start", str(trace_dir), "--screenshots", "--name", "fixture <run>")
    browser.ok("fill", "#note", "hello", "--tab", t)
    browser.ok("click", "#boom", "--tab", t)
    browser.ok("wait", "--text", "boomed", "--tab", t)
    code, body = browser.cli("click", "#save", "--tab", t, "--timeout-ms", "3000")
    assert code == 1 and body["error"]["code"] == "disabled", body
    stopped = browser.ok("trace", "stop")
    assert stopped["steps"] == 4


def test_a_traced_run_with_a_failure_reads_right_in_its_report(
    browser: Browser, page: Any, tmp_path: Path, serve_dir: Any
) -> None:
    tab, _ = page("static/trace.html")
    trace_dir = tmp_path / "run"
    _run_with_failure(browser, tab, trace_dir)

    lines = _lines(trace_dir)
    steps = [line for line in lines if line["type"] == "step"]
    assert [s["cmd"] for s in steps] == ["fill", "click", "wait", "click"]
    boom = steps[1]
    assert any("save failed" in c["text"] for c in boom["console"])
    assert any(n["status"] == 404 and n["failed"] for n in boom["network"])
    assert all("s3cret" not in json.dumps(line) for line in lines)  # query values never kept
    assert set(boom["shots"]) == {"before", "after"}
    assert [p["step"] for p in lines if p["type"] == "page"] == [1]  # the first step's document
    assert (trace_dir.stat().st_mode & 0o777) == 0o700

    run = run_cli(browser.home, "report", str(trace_dir))
    assert run.code == 0, run.stderr
    report = Path(run.json()["file"])
    assert report == trace_dir / "report.html"

    # Open it as a person would: in the browser, through reins.
    base = serve_dir(trace_dir)
    opened = browser.ok("tab", "new", f"{base}/report.html")
    shown = str(opened["id"])
    try:
        seen = browser.ok(
            "eval",
            """(() => {
          const q = (s) => [...document.querySelectorAll(s)];
          const failure = document.querySelector('.failure');
          const boom = document.querySelector('#step-2');
          return {
            title: document.title,
            steps: q('.step').length,
            failedSteps: q('.step.failed').map((e) => e.id),
            failureText: failure.innerText,
            sequence: q('.failure ol.sequence li').map((li) => li.innerText),
            images: q('img').map((img) => img.naturalWidth),
            boomText: boom.innerText,
            boomBadRows: boom.querySelectorAll('tr.bad').length,
            pwned: window.__pwned === undefined ? null : window.__pwned,
            stray: document.querySelectorAll('img[src="x"], script').length,
          };
        })()""",
            "--tab",
            shown,
        )["value"]
    finally:
        browser.cli("tab", "close", shown)
    assert "FAIL" in seen["title"] and "fixture <run>" in seen["title"]
    assert seen["steps"] == 4
    assert seen["failedSteps"] == ["step-4"]
    assert "disabled" in seen["failureText"]
    assert "reins click '#save'" in seen["failureText"]
    # the command sequence that led to the failure, in order, the failure last
    assert len(seen["sequence"]) == 4
    assert "reins fill '#note' hello" in seen["sequence"][0]
    assert "reins click '#save'" in seen["sequence"][-1] and "disabled" in seen["sequence"][-1]
    # pictures embedded and loading: before and after each of the three actions
    assert len(seen["images"]) >= 6 and all(w > 0 for w in seen["images"])
    # the evidence sits on the step that caused it, the hostile markup shown as text
    assert '<img src=x onerror="window.__pwned=1">' in seen["boomText"]
    assert "missing-endpoint.json?token=…&user=…" in seen["boomText"]
    assert seen["boomBadRows"] >= 2  # the console error and the 404
    assert seen["pwned"] is None and seen["stray"] == 0

    md = run_cli(browser.home, "report", str(trace_dir), "--format", "md")
    assert md.code == 0
    text = (trace_dir / "report.md").read_text()
    assert "Failure at step 4" in text and "disabled" in text
    assert "<img" not in text


def test_console_and_network_show_what_the_page_did(browser: Browser, page: Any) -> None:
    tab, _ = page("static/trace.html")
    t = str(tab)
    first = browser.ok("console", "--tab", t)  # switches the capture on
    assert first["entries"] == []
    browser.ok("click", "#boom", "--tab", t)
    browser.ok("wait", "--text", "boomed", "--tab", t)
    errors = browser.ok("console", "--errors", "--since", "2m", "--tab", t)["entries"]
    assert [e["kind"] for e in errors] == ["console"]
    assert "save failed" in errors[0]["text"]
    failed = browser.ok("network", "--failed", "--tab", t)["requests"]
    assert [r["status"] for r in failed] == [404]
    assert failed[0]["url"].endswith("missing-endpoint.json?token=…&user=…")
    assert failed[0]["method"] is None
    everything = browser.ok("network", "--tab", t)["requests"]
    assert any(r["type"] == "navigation" and r["status"] == 200 for r in everything)
    code, body = browser.cli("console", "--since", "yesterday", "--tab", t)
    assert code == 2 and body["error"]["code"] == "bad_request"


def test_a_trace_survives_a_host_restart_and_says_so(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    tab, _ = page("static/trace.html")
    t = str(tab)
    trace_dir = tmp_path / "restart"
    browser.ok("trace", "start", str(trace_dir))
    browser.ok("fill", "#note", "before", "--tab", t)
    old_pid = browser.ok("status")["host"]["pid"]
    os.kill(old_pid, signal.SIGKILL)
    killed = time.monotonic()
    while time.monotonic() - killed < 10:
        code, answer = browser.cli("status", timeout=5)
        if code == 0 and answer.get("connected") and answer["host"]["pid"] != old_pid:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("no new host")
    browser.ok("fill", "#note", "after", "--tab", t)
    stopped = browser.ok("trace", "stop")
    assert stopped["dir"] == str(trace_dir)
    lines = _lines(trace_dir)
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "start" and kinds[-1] == "stop"
    gap = next(line for line in lines if line["type"] == "gap")
    assert gap["previous_pid"] == old_pid and gap["after_step"] >= 1
    steps = [line for line in lines if line["type"] == "step"]
    assert [s["args"].get("value") for s in steps if s["cmd"] == "fill"] == ["before", "after"]
    assert kinds.index("gap") < max(i for i, k in enumerate(kinds) if k == "step")
    assert not (browser.home / "traces" / "test.json").exists()


def test_what_happened_before_the_capture_is_known_from_chrome(browser: Browser, page: Any) -> None:
    """A page that fails before any reins command on it: the failed load is known from Chrome's
    log (Log.enable replays it), its console.error and uncaught error from Chrome's console
    (Runtime, turned on by the extension, replays what the page logged: docs/tracing.md)."""
    tab, _ = page("static/trace.html", atload=1)
    t = str(tab)
    time.sleep(0.3)  # the page's own load-time errors are done
    browser.ok("console", "--tab", t)  # switches the capture on, late for this document
    failed = browser.ok("network", "--failed", "--tab", t)["requests"]
    assert [r["url"].rsplit("/", 1)[-1] for r in failed] == ["missing-at-load.json"]
    assert failed[0]["status"] == 404 and failed[0]["via"] == "chrome"
    entries = browser.ok("console", "--tab", t)["entries"]
    texts = [(e["kind"], e["text"]) for e in entries]
    assert ("console", "logged at load") in texts, texts
    assert ("exception", "Error: thrown at load") in texts, texts


def test_batch_trace_records_its_lines(browser: Browser, page: Any, tmp_path: Path) -> None:
    tab, _ = page("static/trace.html")
    trace_dir = tmp_path / "batch"
    run = run_cli(
        browser.home,
        "batch",
        "--trace",
        str(trace_dir),
        "--tab",
        str(tab),
        stdin="fill #note 'from batch'\nclick #save --timeout-ms 2000\n",
    )
    assert run.code == 1  # the second line failed
    assert [a["ok"] for a in run.json_lines()] == [True, False]
    assert f"report: reins report {trace_dir}" in run.stderr
    steps = [line for line in _lines(trace_dir) if line["type"] == "step"]
    assert [(s["cmd"], s["ok"]) for s in steps] == [("fill", True), ("click", False)]
    assert "shots" not in steps[0]  # no --screenshots


def _until(what: str, check: Any, within: float = 15) -> Any:
    since = time.monotonic()
    while time.monotonic() - since < within:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {within} s: {what}")


def test_a_trace_whose_file_becomes_unwritable_reports_incomplete(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    """The trace's file and picture folder are taken away for two steps (a directory where the
    file was, a file where the folder was: every write fails), then given back: `trace stop`
    warns, and the report says INCOMPLETE and names the steps, never PASS."""
    tab, _ = page("static/trace.html")
    t = str(tab)
    trace_dir = tmp_path / "unwritable"
    state = browser.home / "traces" / "test.json"
    browser.ok("trace", "start", str(trace_dir), "--screenshots", "--name", "unwritable")
    browser.ok("fill", "#note", "one", "--tab", t)
    # steps are written on the host's I/O worker after the answer: wait for step 1's lines
    _until(
        "step 1 and its page figures written",
        lambda: {"step", "page"} <= {line["type"] for line in _lines(trace_dir)},
    )
    file, shots = trace_dir / "trace.jsonl", trace_dir / "shots"
    file.rename(trace_dir / "kept.jsonl")
    file.mkdir()
    shots.rename(trace_dir / "kept-shots")
    shots.write_bytes(b"")
    browser.ok("fill", "#note", "two", "--tab", t)
    browser.ok("click", "#boom", "--tab", t)
    _until(
        "steps 2 and 3 counted as lost",
        lambda: json.loads(state.read_text()).get("lost_steps") == [[2, 3]],
    )
    file.rmdir()
    (trace_dir / "kept.jsonl").rename(file)
    shots.unlink()
    (trace_dir / "kept-shots").rename(shots)
    browser.ok("fill", "#note", "four", "--tab", t)
    stopped = browser.ok("trace", "stop")
    assert stopped["warnings"] == ["trace_incomplete"] and stopped["complete"] is False
    assert stopped["steps"] == 4 and stopped["recorded"] == 2
    assert stopped["lost"]["step_numbers"] == [[2, 3]] and stopped["lost"]["pictures"] >= 1
    steps = [line["step"] for line in _lines(trace_dir) if line["type"] == "step"]
    assert steps == [1, 4]

    run = run_cli(browser.home, "report", str(trace_dir))
    assert run.code == 0, run.stderr
    answer = run.json()
    assert answer["verdict"] == "INCOMPLETE"
    assert any("No record of 2 steps of 4: 2–3" in m for m in answer["missing"])
    html = (trace_dir / "report.html").read_text()
    assert "<title>unwritable — INCOMPLETE</title>" in html
    assert "No record of 2 steps of 4: 2–3" in html and ">PASS<" not in html.split("</h1>")[0]
    md = run_cli(browser.home, "report", str(trace_dir), "--format", "md")
    assert md.code == 0
    assert (trace_dir / "report.md").read_text().startswith("## unwritable: INCOMPLETE")


def test_a_step_by_ref_records_what_the_ref_named(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    """A recorded `click @ref` keeps the control the ref named then (role, name, id…), which
    means something in another session where the ref does not (issue 34: a run into a check
    file); a step by CSS keeps none."""
    tab, _ = page("static/trace.html")
    t = str(tab)
    refs = browser.ok("state", "--tab", t)["refs"]
    [boom] = [r for r in refs if r.get("name") == "Report problem"]
    trace_dir = tmp_path / "refs"
    browser.ok("trace", "start", str(trace_dir))
    browser.ok("click", boom["ref"], "--tab", t)
    browser.ok("fill", "#note", "by css", "--tab", t)
    browser.ok("trace", "stop")
    steps = [line for line in _lines(trace_dir) if line["type"] == "step"]
    assert steps[0]["target_is"] == {
        "role": "button",
        "name": "Report problem",
        "id": "boom",
        "tag": "button",
    }
    assert "target_is" not in steps[1]


def test_evidence_asked_for_after_the_failure_is_there(browser: Browser, page: Any) -> None:
    """Issue 34, item 6: an agent asks `console --errors` and `network --failed` after a step
    failed, on a host that never captured: what the page logged and the request that failed
    during that step are there (Chrome replays the page's console when the extension turns
    Runtime on; the resource timings are buffered; Chrome's log replays failed loads)."""
    browser.restart_host()  # a host that has captured nothing yet
    tab, _ = page("static/trace.html")
    t = str(tab)
    browser.ok("click", "#boom", "--tab", t)
    browser.ok("wait", "--text", "boomed", "--tab", t)
    errors = browser.ok("console", "--errors", "--tab", t)["entries"]
    assert any(e["text"].startswith("save failed") for e in errors), errors
    failed = browser.ok("network", "--failed", "--tab", t)["requests"]
    assert any("missing-endpoint.json" in r["url"] for r in failed), failed
