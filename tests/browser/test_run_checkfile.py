"""`reins run FILE` on the expense form (app/expense.html, a Radix select): a check file a
person writes — batch lines, `expect` lines, comments, a name and ${variables} — runs in the
test profile's tab, exits 0 when every step passed, and stops at the first failed `expect` with
exit 1 and that step's evidence. The page is the oracle: what it saved (`window.__saved`)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser
from .support import run_cli

pytestmark = pytest.mark.browser

FLOW = """\
# name: an expense is saved with its category
navigate "${page}"
fill "role=textbox[name='Merchant']" "${merchant}"
fill "#amount" 12.50
choose "#category" Meals
click "role=button[name='Save']"
expect text "#saved" "Saved: ${merchant}"
expect text "#saved" "${expected}"
# never reached when the expectation above fails
click "role=button[name='Save']"
"""


def _run(browser: Browser, path: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    run = run_cli(browser.home, "run", str(path), *args)
    lines = [json.loads(x) for x in run.stdout.splitlines() if x.startswith("{")]
    return run.code, lines


def test_a_check_file_passes_then_fails_at_its_expectation(
    browser: Browser, page: Any, site: Any, tmp_path: Path
) -> None:
    tab, url = page("app/expense.html")
    browser.ok("tab", "select", str(tab))
    flow = tmp_path / "expense.reins"
    flow.write_text(FLOW)
    variables = ["--var", f"page={url}", "--var", "merchant=Blue Bottle"]

    code, lines = _run(browser, flow, *variables, "--var", "expected=Meals")
    assert code == 0, lines
    assert [line["step"] for line in lines[:-1]] == [2, 3, 4, 5, 6, 7, 8, 10], lines
    assert lines[-1] == {
        "ok": True,
        "check": "an expense is saved with its category",
        "passed": 8,
        "failed": 0,
        "not_run": 0,
        "trace_complete": True,
    }
    entry = {"merchant": "Blue Bottle", "amount": "12.50", "category": "Meals"}
    assert list(browser.js("return window.__saved")) == [entry, entry]  # lines 6 and 10

    code, lines = _run(browser, flow, *variables, "--var", "expected=Travel")
    assert code == 1, lines
    failed = lines[-2]
    assert failed["step"] == 8 and not failed["ok"], lines
    assert failed["error"]["code"] == "expectation_failed", failed
    assert lines[-1]["passed"] == 6 and lines[-1]["failed"] == 1 and lines[-1]["not_run"] == 1
    # The step after the failed expectation never ran: the page (loaded again by line 2) saved
    # once, at line 6.
    assert list(browser.js("return window.__saved")) == [entry]


def test_a_local_command_is_a_step_judged_by_its_own_answer(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    """A line that runs in the CLI itself (`config`, `report`, `guide` …) prints its answer
    rather than handing it to the run: it passes when that answer says ok and it exited 0, and
    fails with that answer's error otherwise (it was counted failed, "the step answered
    nothing", whatever it did)."""
    tab, url = page("app/expense.html")
    browser.ok("tab", "select", str(tab))
    flow = tmp_path / "local.reins"
    flow.write_text(
        f'navigate "{url}"\nconfig evaluate\nexpect url "*expense*"\n'
        f'report "{tmp_path / "no-such-trace"}"\nexpect url "*expense*"\n'
    )
    code, lines = _run(browser, flow)
    assert code == 1, lines
    assert [(line["step"], line["ok"]) for line in lines[:-1]] == [
        (1, True),
        (2, True),
        (3, True),
        (4, False),
    ], lines
    assert lines[1]["evaluate"] in (True, False), lines[1]
    assert lines[3]["error"]["code"] not in ("internal", None), lines[3]
    assert lines[-1]["passed"] == 3 and lines[-1]["failed"] == 1 and lines[-1]["not_run"] == 1


def test_a_run_recorded_by_refs_is_exported_and_runs_again(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    """Issue 34: a flow done once by refs (which mean nothing in another session) is recorded,
    exported as a check file that names each control by what the ref named, and that file runs
    again green on a fresh load of the page — which saves the same entry again."""
    tab, url = page("app/expense.html")
    t = str(tab)
    browser.ok("tab", "select", t)
    refs = {r["name"]: r["ref"] for r in browser.ok("state", "--tab", t)["refs"]}
    trace_dir = tmp_path / "recorded"
    browser.ok("trace", "start", str(trace_dir))
    browser.ok("navigate", url, "--tab", t)
    refs = {r["name"]: r["ref"] for r in browser.ok("state", "--tab", t)["refs"]}
    browser.ok("fill", refs["Merchant"], "Blue Bottle", "--tab", t)
    browser.ok("fill", "#amount", "12.50", "--tab", t)
    browser.ok("choose", "#category", "Meals", "--tab", t)
    browser.ok("click", refs["Save"], "--tab", t)
    browser.ok("expect", "text", "#saved", "Saved: Blue Bottle", "--tab", t)
    browser.ok("trace", "stop")
    entry = {"merchant": "Blue Bottle", "amount": "12.50", "category": "Meals"}
    assert list(browser.js("return window.__saved")) == [entry]

    flow = tmp_path / "again.reins"
    exported = run_cli(browser.home, "trace", "export", str(trace_dir), "-o", str(flow))
    assert exported.code == 0, exported.stderr
    text = flow.read_text()
    assert "@" not in "".join(line for line in text.splitlines() if not line.startswith("#"))
    assert 'role=textbox[name="Merchant"]' in text and "state" not in text.splitlines()

    # The page's URL has a query, which the trace does not record: the file asks for it.
    assert "# --var URL_1=…" in text
    code, lines = _run(browser, flow, "--var", f"URL_1={url}")
    assert code == 0, lines
    assert lines[-1]["passed"] == 6 and lines[-1]["failed"] == 0, lines[-1]
    assert list(browser.js("return window.__saved")) == [entry]  # the page loaded again by line 1


RELEASE_FLOW = """\
# name: an expense after a release
navigate "${page}"
fill "role=textbox[name='Merchant']" "Blue Bottle"
check "role=checkbox[name='Send receipt']"
click "role=button[name='Save']"
expect text "#saved" "Saved: Blue Bottle"
"""


def test_a_run_after_a_release_is_compared_with_the_good_one(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    """Issue 34 item 3: the check run once on the good release is the baseline; after each new
    release (static/release.html, picked by localStorage) the same check runs with --baseline
    and says which step diverged first and how; the page says what was really saved."""
    tab, url = page("static/release.html")
    browser.ok("tab", "select", str(tab))
    flow = tmp_path / "expense.reins"
    flow.write_text(RELEASE_FLOW)
    good = tmp_path / "runs" / "good"

    def release(n: int, *args: str) -> tuple[int, list[dict[str, Any]]]:
        browser.js(f"localStorage.setItem('release', '{n}')")
        return _run(browser, flow, "--var", f"page={url}", *args)

    code, lines = release(1, "--trace", str(good), "--screenshots")
    assert code == 0, lines
    assert list(browser.js("return window.__saved")) == [
        {"merchant": "Blue Bottle", "receipt": True}
    ]

    # Release 2 renamed Save: the click fails by its stable description and acts on nothing else.
    code, lines = release(2, "--baseline", str(good), "--report")
    assert code == 1, lines
    first = lines[-1]["baseline"]["first_divergence"]
    assert first["command"] == shlex.join(["reins", "click", "role=button[name='Save']"]), first
    assert first["differences"] == ["passed then, failed (not_found) now"], first
    assert list(browser.js("return window.__saved")) == []
    traced = sorted(p for p in good.parent.iterdir() if p.name != "good")
    assert len(traced) == 1 and (traced[0] / "report.html").is_file(), traced
    report = (traced[0] / "report.html").read_text()
    assert 'id="first-divergence"' in report and "not run now (only in the baseline)" in report
    assert "baseline, step 4, after" in report, "the baseline's pictures beside the run's"

    # Release 3 still saves, but logs an error and a request fails when it does.
    code, lines = release(3, "--baseline", str(good))
    assert code == 0, lines
    first = lines[-1]["baseline"]["first_divergence"]
    assert first["step_now"] == 4, first
    assert any(d.startswith("new console error: TypeError") for d in first["differences"]), first
    assert any("no-such-endpoint.json (404)" in d for d in first["differences"]), first

    # Release 4 checks "Send receipt" by default: the check step changes nothing any more.
    code, lines = release(4, "--baseline", str(good))
    assert code == 0, lines
    first = lines[-1]["baseline"]["first_divergence"]
    assert first["step_now"] == 3, first
    assert first["differences"] == ["effect then: checked: true; now: none"], first
    assert lines[-1]["baseline"]["differing"] == 1, lines[-1]
    assert list(browser.js("return window.__saved")) == [
        {"merchant": "Blue Bottle", "receipt": True}
    ]
