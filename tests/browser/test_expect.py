"""`reins expect` in real Chromium on fixtures/static/expect.html, the page as the oracle: each form
passes on a claim the page bears out (read back through selenium) and fails, exit 1 with
`expectation_failed` naming what was expected and what was seen, on one it does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser
from .support import run_cli

pytestmark = pytest.mark.browser


def _fails(browser: Browser, *args: str, budget: str = "600") -> dict[str, Any]:
    code, body = browser.cli("expect", *args, "--timeout-ms", budget)
    assert code == 1 and body["error"]["code"] == "expectation_failed", body
    return dict(body["error"])


def test_element_forms_pass_on_what_the_page_holds_and_fail_on_what_it_does_not(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/expect.html")
    browser.ok("tab", "select", str(tab))
    merchant = browser.js("return document.querySelector('#merchant').value")
    assert merchant == "Blue Bottle"
    body = browser.ok("expect", "value", "#merchant", merchant)
    assert body["seen"] == merchant and body["expectation"] == "value"
    browser.ok("expect", "value", "#category", browser.js("return category.value"))
    browser.ok("expect", "value", "#notes", "paid by card")
    error = _fails(browser, "value", "#merchant", "Blue")  # a value is compared whole
    assert error["expected"] == "Blue" and error["seen"] == merchant
    assert "Blue Bottle" in error["message"] and "reins state" in error["message"]

    # Text: the one text rule (normalized whitespace, any case, a part; quoted: whole, exact),
    # on the DOM text (the heading is shown upper-case by CSS).
    assert browser.js("return heading.textContent") == "March   2026"
    browser.ok("expect", "text", "#heading", "march 2026")
    browser.ok("expect", "text", "#heading", '"March 2026"')
    error = _fails(browser, "text", "#heading", '"march 2026"')
    assert error["seen"] == "March 2026"
    _fails(browser, "text", "#heading", "April")

    assert browser.js("return [agree.checked, news.checked]") == [True, False]
    browser.ok("expect", "checked", "#agree")
    browser.ok("expect", "unchecked", "#news")
    error = _fails(browser, "checked", "#news")
    assert error["expected"] is True and error["seen"] is False
    _fails(browser, "unchecked", 'role=checkbox[name="I agree"]')

    assert browser.js("return document.querySelectorAll('#rows li').length") == 3
    assert browser.ok("expect", "count", "#rows li", "3")["seen"] == 3
    browser.ok("expect", "count", "text=Row", "3")
    browser.ok("expect", "count", "#nothing-here", "0")
    error = _fails(browser, "count", "#rows li", "4")
    assert error["expected"] == 4 and error["seen"] == 3

    browser.ok("expect", "visible", "#late")
    browser.ok("expect", "hidden", "#secret")
    browser.ok("expect", "hidden", "#nothing-here")
    _fails(browser, "visible", "#secret")
    _fails(browser, "hidden", "#late")


def test_document_forms_match_the_url_and_title(browser: Browser, page: Any) -> None:
    tab, url = page("static/expect.html")
    browser.ok("tab", "select", str(tab))
    assert browser.driver.current_url == url
    seen = browser.ok("expect", "url", "*/static/expect.html?*")["seen"]
    assert "/static/expect.html" in seen
    error = _fails(browser, "url", "*/done")
    assert error["expected"] == "*/done" and "/static/expect.html" in error["seen"]

    assert browser.driver.title == "Expect fixture: Expenses"
    browser.ok("expect", "title", "expect fixture")
    error = _fails(browser, "title", '"Expect fixture"')
    assert error["seen"] == "Expect fixture: Expenses"


def test_an_expectation_waits_for_a_text_that_comes_300_ms_later(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/expect.html")
    browser.ok("tab", "select", str(tab))
    _fails(browser, "text", "#late", "Done", budget="300")
    browser.ok("click", "#later")
    assert browser.js("return late.textContent") == "Waiting"  # not yet when the expect starts
    body = browser.ok("expect", "text", "#late", "done at last", "--timeout-ms", "3000")
    assert body["seen"] == "Done at last"
    assert browser.js("return late.textContent") == "Done at last"


def test_a_failed_expect_is_a_failed_step_and_the_report_says_fail(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    tab, _ = page("static/expect.html")
    browser.ok("tab", "select", str(tab))
    trace_dir = tmp_path / "run"
    browser.ok("trace", "start", str(trace_dir), "--name", "expect run")
    browser.ok("expect", "value", "#merchant", "Blue Bottle")
    _fails(browser, "text", "#heading", "April 2026")
    browser.ok("trace", "stop")

    run = run_cli(browser.home, "report", str(trace_dir), "--format", "md")
    assert run.code == 0, run.stderr
    md = (trace_dir / "report.md").read_text()
    assert md.startswith("## expect run: FAIL")
    assert "### Failure at step 2: `expectation_failed`" in md
    assert "April 2026" in md and "March 2026" in md
    lines = [json.loads(line) for line in (trace_dir / "trace.jsonl").read_text().splitlines()]
    steps = [line for line in lines if line["type"] == "step"]
    assert [(s["cmd"], s["ok"]) for s in steps] == [("expect_value", True), ("expect_text", False)]
    failed = steps[1]
    assert failed["cli"] == "reins expect text '#heading' 'April 2026'"
    assert failed["error"]["expected"] == "April 2026" and failed["error"]["seen"] == "March 2026"
