"""`reins expect` in real Chromium on fixtures/static/expect.html, the page as the oracle: each form
passes on a claim the page bears out (read back through selenium) and fails, exit 1 with
`expectation_failed` naming what was expected and what was seen, on one it does not."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import FIXTURES, Browser
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


def test_no_errors_passes_before_a_console_error_and_fails_after_it(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/expect.html")
    browser.ok("tab", "select", str(tab))
    browser.ok("click", "#later")
    browser.ok("expect", "no-errors")  # also switches the capture on
    browser.ok("click", "#later")
    body = browser.ok("expect", "no-errors")
    assert body["seen"] == {"console_errors": 0, "failed_requests": 0}

    browser.ok("click", "#oops")
    error = _fails(browser, "no-errors")
    assert error["seen"] == {"console_errors": 1, "failed_requests": 0}
    assert error["console"][0]["text"] == "expect fixture: something broke"
    assert "something broke" in error["message"]
    # Another expectation in between looks back to the same click.
    browser.ok("expect", "text", "#late", "Done")
    _fails(browser, "no-errors")

    # Since the command before: the click after the error is clean; --since reaches back.
    browser.ok("click", "#later")
    browser.ok("expect", "no-errors")
    _fails(browser, "no-errors", "--since", "60s")


class _Cached(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def cached_site() -> Iterator[str]:
    """The fixtures served without `Cache-Control: no-store` (the session's site sends it): with
    it Chromium keeps no resource timing of a response (docs/tracing.md, what is missed)."""
    handler = functools.partial(_Cached, directory=str(FIXTURES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_expect_request_reads_the_network_evidence(browser: Browser, cached_site: str) -> None:
    url = f"{cached_site}/static/expect.html?t=req"
    tab = browser.ok("tab", "new", url)["id"]
    try:
        browser.switch_to("t=req")
        _requests(browser)
    finally:
        browser.cli("tab", "close", str(tab))


def _requests(browser: Browser) -> None:
    browser.ok("expect", "no-errors")  # the capture on before the requests
    browser.ok("click", "#fetch-ok")
    body = browser.ok("expect", "request", "expect-data.json", "--timeout-ms", "3000")
    assert body["seen"]["status"] == 200 and "expect-data.json" in body["seen"]["url"]
    status = "return document.getElementById('status').textContent"
    browser.ok("wait", "--text", "fetch-ok: 200")
    assert browser.js(status) == "fetch-ok: 200"  # the page saw the same answer
    browser.ok("expect", "request", "*/static/expect-data.json", "--status", "200")
    _fails(browser, "request", "expect-data.json", "--status", "4xx")

    browser.ok("click", "#fetch-missing")
    browser.ok("wait", "--text", "fetch-missing: 404")
    assert browser.js(status) == "fetch-missing: 404"
    error = _fails(browser, "request", "expect-missing.json", budget="1500")
    assert error["expected"] == {"pattern": "expect-missing.json", "status": "2xx"}
    assert [r["status"] for r in error["seen"]] == [404]
    assert "answered 404" in error["message"]
    browser.ok("expect", "request", "expect-missing.json", "--status", "404")
    _fails(browser, "request", "never-requested.json", budget="300")
    # The 404 is a failed request: no-errors since the click before the wait says so.
    failed = _fails(browser, "no-errors", "--since", "60s")
    assert failed["seen"]["failed_requests"] == 1
    code, body = browser.cli("expect", "request", "x", "--status", "ok")
    assert code == 2 and body["error"]["code"] == "bad_request"
