"""One URL policy, read the way Chrome reads URLs, applied at every door of the extension.

Real headless Chromium, the real extension and host. The oracle is the browser itself: where the
tab is (selenium's `current_url` for that tab), how many tabs there are, whether the page answers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from reins._paths import EXTENSION_ID

from .conftest import FIXTURES, Browser, Site, browser_of_its_own
from .support import WaitingCommand, close_every_page

pytestmark = pytest.mark.browser

OWN_PAGE = f"chrome-extension://{EXTENSION_ID}/popup.html"
POPUP = OWN_PAGE

# Spellings Chrome reads as a page reins must never drive (the tab would land there attached, or
# the browser would crash: about:settings through chrome.debugger takes the whole browser down).
HOSTILE = [
    f" {OWN_PAGE}",
    f"\u0000{OWN_PAGE}",
    f"chrome-ext\tension://{EXTENSION_ID}/popup.html",
    "CHROME://version",
    "\tchrome://version",
    "chr\tome://version",
    "chrome://settings\n",
    " view-source:https://example.com/",
    "view-\nsource:http://127.0.0.1/",
    "file:///etc/passwd",
    " FILE:///etc/passwd",
    "javascript:document.title='pwned'",
    "data:text/html,<title>pwned</title>",
    "https://chromewebstore.google.com/",
    "https://chrome.google.com/webstore/detail/x",
]


def _tab_urls(browser: Browser) -> dict[int, str]:
    return {t["id"]: t["url"] for t in browser.ok("tabs")["tabs"]}


def _evaluate(browser: Browser, tab_id: int, expression: str) -> tuple[int, dict[str, Any]]:
    return browser.cli(
        "cdp",
        "Runtime.evaluate",
        json.dumps({"expression": expression, "returnByValue": True}),
        "--tab",
        str(tab_id),
    )


def _set_popup_switch(browser: Browser, element_id: str, on: bool) -> None:
    """Flip one of the user's switches in the popup, as the user would (then back to the tab)."""
    driver = browser.driver
    back = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP)
        box = driver.find_element("id", element_id)
        deadline = time.monotonic() + 5
        while box.is_selected() != on and time.monotonic() < deadline:
            box.click()
            time.sleep(0.1)
        assert box.is_selected() == on
    finally:
        driver.close()
        driver.switch_to.window(back)


@pytest.mark.parametrize("url", HOSTILE, ids=[repr(u) for u in HOSTILE])
def test_navigate_to_a_hostile_spelling_is_refused_and_the_tab_stays(
    browser: Browser, page: Any, url: str
) -> None:
    tab_id, start = page("static/bridge.html")
    answer = browser.call("navigate", {"url": url}, tab=tab_id)
    assert answer["ok"] is False and answer["error"]["code"] == "page_refused", answer
    assert "reins" in answer["error"]["message"]
    assert browser.driver.current_url == start
    assert browser.driver.title == "Bridge fixture"
    # The tab is still driven as before.
    code, body = _evaluate(browser, tab_id, "location.href")
    assert code == 0 and body["result"]["result"]["value"] == start


def test_raw_page_navigate_is_checked_too(browser: Browser, page: Any) -> None:
    tab_id, start = page("static/bridge.html")
    for url in (f" {OWN_PAGE}", "chr\tome://version", "file:///etc/passwd"):
        code, body = browser.cli(
            "cdp", "Page.navigate", json.dumps({"url": url}), "--tab", str(tab_id)
        )
        assert code == 1 and body["error"]["code"] == "page_refused", (url, body)
    assert browser.driver.current_url == start


@pytest.mark.parametrize(
    "url",
    [
        f" {OWN_PAGE}",
        "\tchrome://version",
        "CHROME://settings",
        "file:///etc/passwd",
        " view-source:https://example.com/",
        "about:version",
        "javascript:1",
    ],
)
def test_tab_new_with_a_refused_url_opens_no_tab(browser: Browser, url: str) -> None:
    before = _tab_urls(browser)
    handles = len(browser.driver.window_handles)
    answer = browser.call("tab_new", {"url": url})
    assert answer["ok"] is False and answer["error"]["code"] == "page_refused", answer
    assert _tab_urls(browser).keys() == before.keys()
    assert len(browser.driver.window_handles) == handles


def test_back_into_a_chrome_page_is_refused(browser: Browser, page: Any, site: Site) -> None:
    tab_id, first = page("static/bridge.html")
    # reins refuses to go there, so the history is built the way a user builds it.
    browser.driver.get("chrome://version")
    later = site.url("static/eval.html")
    browser.driver.get(later)
    browser.ok("cdp", "Runtime.evaluate", '{"expression": "1"}', "--tab", str(tab_id))
    code, body = browser.cli("back", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_refused", body
    assert browser.driver.current_url == later
    history = browser.ok("cdp", "Page.getNavigationHistory", "--tab", str(tab_id))["result"]
    entries = history["entries"]
    assert entries[history["currentIndex"]]["url"] == later
    assert entries[history["currentIndex"] - 1]["url"].startswith("chrome://version")
    # Forward and back among allowed pages still work.
    browser.driver.back()
    browser.driver.back()
    assert browser.driver.current_url == first
    code, body = browser.cli("forward", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_refused", body


def _wait_refused(browser: Browser, tab_id: int, within: float) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        answer = browser.call(
            "cdp",
            {
                "method": "Runtime.evaluate",
                "params": {"expression": "typeof chrome.debugger", "returnByValue": True},
            },
            tab=tab_id,
        )
        if not answer["ok"] or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


@pytest.mark.parametrize("where", [OWN_PAGE, "chrome://version", "file:///etc/hostname"])
def test_user_taking_an_attached_tab_to_a_refused_page_detaches_it(
    browser: Browser, page: Any, site: Site, where: str
) -> None:
    tab_id, _ = page("static/bridge.html")
    browser.ok("cdp", "Runtime.evaluate", '{"expression": "1"}', "--tab", str(tab_id))
    browser.driver.get(where)  # the user types it in the agent's tab
    started = time.monotonic()
    answer = _wait_refused(browser, tab_id, within=3)
    # An attached extension page would answer "object": chrome.debugger, the whole browser.
    assert answer["ok"] is False, f"the tab on {where} still answered: {answer}"
    assert answer["error"]["code"] == "page_refused", answer
    assert time.monotonic() - started < 3
    code, body = browser.cli("reload", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_refused", body
    status = browser.ok("status", "--tab", str(tab_id))
    assert tab_id not in status["attached_tabs"]
    # The way out: navigate sends the tab to an allowed page without the debugger.
    back = site.url("static/eval.html")
    body = browser.ok("navigate", back, "--tab", str(tab_id))
    assert body["url"] == back
    assert browser.driver.current_url == back
    code, body = _evaluate(browser, tab_id, "location.href")
    assert code == 0 and body["result"]["result"]["value"] == back


def test_the_way_out_is_checked_too(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    browser.driver.get("chrome://version")
    code, body = browser.cli("navigate", f" {OWN_PAGE}", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_refused", body
    time.sleep(0.3)  # a navigation that got through would have committed by now
    assert browser.driver.current_url == "chrome://version/"


def test_a_command_in_flight_when_the_user_leaves_answers_page_refused(
    browser: Browser, page: Any
) -> None:
    tab_id, _ = page("static/bridge.html")
    waiting = WaitingCommand(browser, tab_id)
    left = time.monotonic()
    browser.driver.get("chrome://version")
    waiting.join(10)
    assert not waiting.is_alive()
    assert time.monotonic() - left < 5
    assert waiting.answer["ok"] is False
    assert waiting.answer["error"]["code"] == "page_refused", waiting.answer
    assert _wait_refused(browser, tab_id, within=3)["error"]["code"] == "page_refused"


def test_file_pages_only_when_the_user_allows_them(browser: Browser, page: Any) -> None:
    tab_id, start = page("static/bridge.html")
    local = (FIXTURES / "static" / "eval.html").as_uri()
    code, body = browser.cli("navigate", local, "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_refused", body
    assert "Allow file:// pages" in body["error"]["message"]
    assert browser.driver.current_url == start
    _set_popup_switch(browser, "allow-file", True)
    try:
        body = browser.ok("navigate", local, "--tab", str(tab_id))
        assert browser.driver.current_url == local
        code, read = _evaluate(browser, tab_id, "location.protocol")
        assert code == 0 and read["result"]["result"]["value"] == "file:"
    finally:
        _set_popup_switch(browser, "allow-file", False)
    # Switched off while a file: page is attached: it is let go of at once.
    answer = _wait_refused(browser, tab_id, within=3)
    assert answer["ok"] is False and answer["error"]["code"] == "page_refused", answer


def test_set_auto_attach_may_not_pause_new_targets(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    code, body = browser.cli(
        "cdp",
        "Target.setAutoAttach",
        json.dumps({"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}),
        "--tab",
        str(tab_id),
    )
    assert code == 1 and body["error"]["code"] == "cdp_blocked", body
    assert "waitForDebuggerOnStart" in body["error"]["message"]
    code, body = browser.cli(
        "cdp",
        "Target.setAutoAttach",
        json.dumps({"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}),
        "--tab",
        str(tab_id),
    )
    assert code == 0, body


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("Runtime.evaluate", {"expression": "1", "contextId": 1}),
        ("Runtime.evaluate", {"expression": "1", "uniqueContextId": "1.2"}),
        ("Runtime.callFunctionOn", {"functionDeclaration": "() => 1", "executionContextId": 1}),
        ("DOM.resolveNode", {"backendNodeId": 1, "executionContextId": 1}),
        ("Runtime.enable", {}),
    ],
)
def test_other_worlds_are_out_of_reach(
    browser: Browser, page: Any, method: str, params: dict[str, Any]
) -> None:
    tab_id, _ = page("static/bridge.html")
    code, body = browser.cli("cdp", method, json.dumps(params), "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "cdp_blocked", body


@pytest.mark.parametrize(
    "url", ["about:settings", " about:extensions", "ABOUT:version", "about:\tsettings"]
)
def test_about_pages_are_refused_and_the_browser_survives(
    browser: Browser, page: Any, url: str
) -> None:
    tab_id, start = page("static/bridge.html")
    answer = browser.call("navigate", {"url": url}, tab=tab_id)
    assert answer["ok"] is False and answer["error"]["code"] == "page_refused", answer
    status = browser.ok("status", "--tab", str(tab_id))
    assert status["connected"] is True
    assert browser.driver.current_url == start


# ---- faults that take the browser apart: a browser of their own -------------------------------


@pytest.fixture(scope="module")
def own_browser(site: Site) -> Iterator[Browser]:
    with browser_of_its_own("ro-") as b:
        yield b


def _worker_target(driver: Any) -> dict[str, Any] | None:
    targets = driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    return next(
        (
            t
            for t in targets
            if t["type"] == "service_worker"
            and t["url"].startswith(f"chrome-extension://{EXTENSION_ID}/")
        ),
        None,
    )


def test_a_stopped_service_worker_comes_back_by_itself(own_browser: Browser, site: Site) -> None:
    """...and the page it had observed is observed right by the new host: the collection the old
    one installed in reins's world is either reinstalled or still the same build's, and what it
    reads is the page as it is now."""
    b = own_browser
    big = site.url("static/big.html", n=30)
    tab = str(b.ok("tab", "new", big)["id"])
    assert '@btn4 button "Button 4"' in b.ok("state", "--tab", tab, "--max-tokens", "0")["text"]
    old_pid = b.ok("status")["host"]["pid"]
    worker = _worker_target(b.driver)
    assert worker is not None
    b.driver.execute_cdp_cmd("Target.closeTarget", {"targetId": worker["targetId"]})
    # Nothing touches the browser meanwhile: no tab events, only the worker's own alarm.
    took = b.wait_for_new_host(old_pid, within=45)
    print(f"\nservice worker stopped -> reins connected again in {took:.1f} s")
    b.switch_to(big.rsplit("t=", 1)[1])
    b.js("document.getElementById('btn-4').textContent = 'Renamed after the restart'")
    after = b.ok("state", "--tab", tab, "--max-tokens", "0")["text"]
    assert '@btn4 button "Renamed after the restart"' in after, after
    body = b.ok("tab", "new", site.url("static/bridge.html"))
    assert body["title"] == "Bridge fixture"


def test_tab_new_after_the_last_window_closed(own_browser: Browser, site: Site) -> None:
    b = own_browser
    close_every_page(b.driver)  # as the user would: `reins tab close` keeps a blank last tab
    # With no tab at all `reins tabs` lists nothing (and no current tab): that is the sign.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        code, body = b.cli("tabs")
        if code == 0 and body["tabs"] == []:
            break
        time.sleep(0.1)
    assert code == 0 and body == {"ok": True, "tabs": [], "current": None}, body
    url = site.url("static/bridge.html")
    body = b.ok("tab", "new", url)
    assert body["title"] == "Bridge fixture"
    assert [t["url"] for t in b.ok("tabs")["tabs"]] == [url]
