"""reins's page scripts run in its own world (issue 44): a page that lies to every script in its
own world (fixtures/static/hostile-world.html, one class of lie per test) cannot steer what reins
looks up, names, reads back or waits for. The page is the oracle: ``window.truth()`` reads what it
committed with the built-ins it captured before lying, through the browser's by-value answer
(chromedriver's CDP session, which the page's JSON.stringify cannot touch)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import Browser

pytestmark = pytest.mark.browser


def _page(browser: Browser, expression: str) -> Any:
    answer = browser.driver.execute_cdp_cmd(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}
    )
    return answer["result"].get("value")


def _open(browser: Browser, page: Any, *lies: str) -> int:
    tab, _ = page("static/hostile-world.html")
    browser.ok("tab", "select", str(tab))
    for lie in lies:
        _page(browser, f"lies.{lie}()")
    return int(tab)


def _truth(browser: Browser) -> dict[str, Any]:
    truth: dict[str, Any] = _page(browser, "truth()")
    return truth


def test_lookups_that_lie_do_not_choose_the_element(browser: Browser, page: Any) -> None:
    _open(browser, page, "lookups")
    assert _page(browser, "document.querySelector('#save').id") == "delete"  # the page lies
    targets = ["#save", "//button[@id='save']", "text=Save", 'role=button[name="Save"]']
    for target in targets:
        browser.ok("click", target)
    assert _truth(browser)["pressed"] == ["save"] * len(targets)


def test_slots_on_the_window_do_not_reach_reins(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "slots")
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    [save] = [r for r in refs if r["name"] == "Save"]
    browser.ok("click", str(save["ref"]))
    assert _truth(browser)["pressed"] == ["save"]


def test_nothing_of_reins_is_on_the_page_s_window(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    [save] = [r for r in refs if r["name"] == "Save"]
    browser.ok("click", str(save["ref"]))
    browser.ok("fill", "#iban", "DE89")
    browser.ok("click", "text=Save")
    browser.ok("wait", "--text", "card declined", "--timeout-ms", "2000")
    symbols = _page(browser, "Object.getOwnPropertySymbols(window).map(String)")
    assert [s for s in symbols if "reins" in s] == [], symbols


def test_names_that_lie_do_not_rename_controls(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "names")
    assert _page(browser, "document.getElementById('save').textContent") == "Delete my account"
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    names = {r["name"] for r in refs}
    assert {"Save", "Delete my account"} <= names
    [save] = [r for r in refs if r["name"] == "Save"]
    browser.ok("click", str(save["ref"]))
    browser.ok("click", "text=Save")
    browser.ok("click", 'role=button[name="Save"]')
    browser.ok("click", "#save")
    assert _truth(browser)["pressed"] == ["save"] * 4
    # What the page shows is "card declined", whatever its getters say.
    code, body = browser.cli("wait", "--text", "Payment received", "--timeout-ms", "800")
    assert code == 1, body
    browser.ok("wait", "--text", "card declined", "--timeout-ms", "2000")


def test_values_that_lie_are_not_reported_as_committed(browser: Browser, page: Any) -> None:
    _open(browser, page, "values")
    iban = "DE89 3704 0044 0532 0130 00"
    code, body = browser.cli("fill", "#iban", iban)
    assert code == 1 and body["error"]["code"] == "fill_mismatch", body
    assert _truth(browser)["iban"] == "GB00 ATTACKER 0000"
    assert _page(browser, "document.getElementById('iban').value") == iban  # the page's lie

    code, body = browser.cli("check", "#agree")
    assert code == 1 and body["error"]["code"] == "check_failed", body
    assert _truth(browser)["checked"] is False

    code, body = browser.cli("select", "#plan", "Basic")
    assert code == 1 and body["error"]["code"] == "select_mismatch", body
    assert _truth(browser)["plan"] == "Enterprise"


def test_replaced_builtins_neither_break_nor_stall_reins(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "builtins")
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    assert {"Save", "Delete my account"} <= {r["name"] for r in refs}
    [save] = [r for r in refs if r["name"] == "Save"]
    browser.ok("click", str(save["ref"]))
    browser.ok("click", "text=Save")
    browser.ok("fill", "#iban", "DE89 3704 0044 0532 0130 00")
    browser.ok("wait", "--text", "card declined", "--timeout-ms", "2000")
    truth = _truth(browser)
    assert truth["pressed"] == ["save", "save"]
    assert truth["iban"] == "DE89 3704 0044 0532 0130 00"


def test_floods_of_labels_and_elements_are_bounded_and_said(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "labels")
    body = browser.ok("state", "--tab", str(tab), "--max-tokens", "0", timeout=120)
    flood = [r for r in body["refs"] if str(r["name"]).startswith("0")]
    assert len(flood) == 100
    assert all(len(r["name"]) <= 1000 for r in flood)
    assert body["truncated"] is False and body["unread"] == 0
    browser.ok("click", "#save")
    assert _truth(browser)["pressed"] == ["save"]

    tab = _open(browser, page, "elements")
    body = browser.ok("state", "--tab", str(tab), "--max-tokens", "0", timeout=120)
    assert body["truncated"] is True
    # The page has 60,000 "more" buttons and a few others; one state lists 50,000 elements.
    assert 10_000 <= body["unread"] <= 10_020, body["unread"]
    assert "more of the page not read" in body["text"].splitlines()[-1]


def test_the_console_capture_keeps_nothing_on_the_page_s_window_and_leaves_its_console(
    browser: Browser, page: Any
) -> None:
    """Issue 44: the capture behind `reins console` kept its buffers on a Symbol slot of the
    page's window (the page could read, fill or forge them), then a hook in the page's world
    wrapped ``console.error`` and ``console.warn`` (a page saw reins arrive). Now Chrome tells the
    extension (Runtime's console events, extension/console.js): the page's console functions are
    its own, and what it logged before reins first looked is there too."""
    tab = _open(browser, page)
    _page(browser, "window.__own = [console.error, console.warn]; console.error('before: 7')")
    assert browser.ok("console", "--tab", str(tab))["ok"]  # switches it on
    _page(browser, "console.error('declined: card 4242'); console.warn('slow');")
    _page(browser, "setTimeout(() => { throw new Error('unhandled boom'); }, 0)")
    _page(browser, "Promise.reject(new Error('refused'))")
    texts: list[tuple[str, str, str]] = []
    deadline = time.monotonic() + 5
    while not any(kind == "rejection" for _, kind, _ in texts) and time.monotonic() < deadline:
        entries = browser.ok("console", "--since", "1m", "--tab", str(tab))["entries"]
        texts = [(e["level"], e["kind"], e["text"]) for e in entries]
        time.sleep(0.1)
    assert ("error", "exception", "Error: unhandled boom") in texts, texts
    assert ("error", "rejection", "Unhandled rejection: Error: refused") in texts, texts
    assert ("error", "console", "declined: card 4242") in texts, texts
    assert ("warn", "console", "slow") in texts, texts
    assert ("error", "console", "before: 7") in texts, texts
    symbols = _page(browser, "Object.getOwnPropertySymbols(window).map(String)")
    assert [s for s in symbols if "reins" in s] == [], symbols
    assert _page(browser, "console.error === __own[0] && console.warn === __own[1]") is True
    native = _page(browser, "Function.prototype.toString.call(console.error)")
    assert "[native code]" in native, native


def test_a_text_the_page_hides_inside_what_it_shows_is_not_seen(
    browser: Browser, page: Any
) -> None:
    """The DOM text of `<p>Payment <span hidden>received</span></p>` reads "Payment received",
    which is what reins's world reads; Chrome's tree (and the screen) shows "Payment". reins
    answers `unverified`, never that the text is there."""
    tab, _ = page("static/hidden-part.html")
    browser.ok("tab", "select", str(tab))
    assert _page(browser, "document.getElementById('status').innerText") == "Payment"
    code, body = browser.cli("wait", "--text", "Payment received", "--timeout-ms", "1500")
    assert code == 1 and body["error"]["code"] == "unverified", body
    assert body["error"]["accessibility"] == "Payment", body
    code, body = browser.cli("expect", "text", "#status", "Payment received")
    assert code == 1 and body["error"]["code"] == "unverified", body
    # What the page shows, split across elements, is seen by both.
    assert browser.ok("wait", "--text", "invoice sent")["waited_for"] == "text"
    assert browser.ok("expect", "text", "#shown", "Invoice sent")["expectation"] == "text"
