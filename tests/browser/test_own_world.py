"""reins's own world (issue 44, first step), in real Chromium on fixtures/static/own-world.html: a
page that replaces the `value` getter, text getters, `getBoundingClientRect` and `JSON.stringify`
in its own world (and in its same-site frame; another site's frame lies about its card number).
`reins expect` reads through the isolated world the extension makes for reins and sees what the
page committed with the native setters before it lied (``window.truth``, read through
chromedriver's own CDP session by value — which the page's JSON.stringify cannot touch, while
selenium's scripts, in the page's world, are lied to, as the test shows first). The raw door does not
reach the world: `reins cdp` with any context id is refused, and nothing it tried was planted."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import Browser

pytestmark = pytest.mark.browser

LIE_VALUE = "DE00 AGENT TYPED THIS"
LIE_TEXT = "Payment received"


def _fails(browser: Browser, *args: str) -> dict[str, Any]:
    code, body = browser.cli("expect", *args, "--timeout-ms", "600")
    assert code == 1 and body["error"]["code"] == "expectation_failed", body
    return dict(body["error"])


def _page(browser: Browser, expression: str) -> Any:
    """What ``expression`` is in the page's world, as the browser serializes it by value (the
    page's JSON.stringify breaks chromedriver's execute_script, which calls it)."""
    answer = browser.driver.execute_cdp_cmd(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}
    )
    return answer["result"].get("value")


def _frames_ready(browser: Browser) -> None:
    until = time.monotonic() + 10
    while _page(browser, "window.innerReady === true") is not True:
        assert time.monotonic() < until, "the fixture's same-site frame never loaded"
        time.sleep(0.05)


def _open(browser: Browser, page: Any) -> tuple[int, dict[str, str]]:
    tab, _ = page("static/own-world.html")
    browser.ok("tab", "select", str(tab))
    _frames_ready(browser)
    _page(browser, "lieAboutJson()")
    truth: dict[str, str] = _page(browser, "window.truth")
    # Every script in the page's world is lied to.
    assert _page(browser, "document.querySelector('#iban').value") == LIE_VALUE
    assert _page(browser, "document.querySelector('#status').textContent") == LIE_TEXT
    assert _page(browser, "document.querySelector('#status').firstChild.data") == LIE_TEXT
    assert _page(browser, "document.querySelector('#status').getBoundingClientRect().width") == 0
    assert _page(browser, "JSON.stringify({a: 1})") == '"lie"'
    return tab, truth


def test_expect_reads_what_the_page_committed_not_what_its_world_says(
    browser: Browser, page: Any
) -> None:
    _, truth = _open(browser, page)
    body = browser.ok("expect", "value", "#iban", truth["value"])
    assert body["seen"] == truth["value"]
    error = _fails(browser, "value", "#iban", LIE_VALUE)
    assert error["seen"] == truth["value"]

    browser.ok("expect", "text", "#status", f'"{truth["text"]}"')
    error = _fails(browser, "text", "#status", LIE_TEXT)
    assert error["seen"] == truth["text"]
    browser.ok("expect", "visible", "#status")

    # A same-site frame (in process: reins's world made in that frame) and another site's frame
    # (out of process: the world made in its child session).
    browser.ok("expect", "text", "#receipt", f'"{truth["receipt"]}"', "--frame", "iframe#inner")
    body = browser.ok("expect", "value", "#card", "4111 1111 1111 1111", "--frame", "iframe#cross")
    assert body["seen"] == "4111 1111 1111 1111"


def test_after_a_reload_the_world_is_made_again(browser: Browser, page: Any) -> None:
    _, truth = _open(browser, page)
    browser.ok("expect", "value", "#iban", truth["value"])
    browser.ok("reload")
    _frames_ready(browser)
    _page(browser, "lieAboutJson()")
    assert _page(browser, "document.querySelector('#iban').value") == LIE_VALUE
    browser.ok("expect", "value", "#iban", truth["value"])
    browser.ok("expect", "text", "#status", f'"{truth["text"]}"')


def test_raw_cdp_does_not_reach_reins_world(browser: Browser, page: Any) -> None:
    tab, truth = _open(browser, page)
    browser.ok("expect", "value", "#iban", truth["value"])  # the world is there now
    plant = (
        "JSON.stringify = () => 'planted';"
        " Object.defineProperty(HTMLInputElement.prototype, 'value', {get() { return 'planted'; }})"
    )
    for n in range(1, 21):
        for method, params in (
            ("Runtime.evaluate", {"expression": plant, "contextId": n}),
            (
                "Runtime.callFunctionOn",
                {"functionDeclaration": f"function () {{ {plant} }}", "executionContextId": n},
            ),
            ("DOM.resolveNode", {"backendNodeId": 1, "executionContextId": n}),
        ):
            code, body = browser.cli("cdp", method, json.dumps(params), "--tab", str(tab))
            assert code == 1 and body["error"]["code"] == "cdp_blocked", (method, n, body)
            assert "raw CDP runs only in the page's own world" in body["error"]["message"]
    body = browser.ok("expect", "value", "#iban", truth["value"])
    assert body["seen"] == truth["value"]


def test_raw_cdp_does_not_reach_reins_world_by_a_guessed_object_id(
    browser: Browser, page: Any
) -> None:
    # V8 names remote objects isolate.context.number: a main-world handle gives the isolate, and
    # reins's world's handles are then a small guess away (measured: isolate.<world>.1 answered).
    tab, truth = _open(browser, page)
    browser.ok("expect", "value", "#iban", truth["value"])  # reins's world holds handles now
    body = browser.ok(
        "cdp", "Runtime.evaluate", json.dumps({"expression": "document.body"}), "--tab", str(tab)
    )
    isolate = body["result"]["result"]["objectId"].split(".")[0]
    reached, refused = [], 0
    for n in range(1, 7):
        for k in range(1, 7):
            params = {
                "objectId": f"{isolate}.{n}.{k}",
                "functionDeclaration": "function () { JSON.stringify = () => 'planted';"
                " return typeof window.truth; }",
                "returnByValue": True,
            }
            code, body = browser.cli(
                "cdp", "Runtime.callFunctionOn", json.dumps(params), "--tab", str(tab)
            )
            if code == 0:
                reached.append(body["result"]["result"].get("value"))
            elif body["error"]["code"] == "cdp_blocked":
                refused += 1
    assert set(reached) <= {"object"}, reached  # only the page's own world (it has window.truth)
    assert refused > 0, "no guess named reins's world"
    body = browser.ok("expect", "value", "#iban", truth["value"])
    assert body["seen"] == truth["value"]


def test_a_frame_is_named_by_the_browser_in_the_answer(
    browser: Browser, page: Any, site: Any
) -> None:
    # --frame's iframe is found in reins's world; the frame it shows is named from Chrome's DOM
    # and frame tree (issue 45: frames by the browser's identity), never the page's word.
    _open(browser, page)
    body = browser.ok("fill", "#card", "5555 4444 3333 1111", "--frame", "iframe#cross")
    assert body["frame"]["origin"] == f"http://localhost:{site.xport}", body
    assert "/static/own-world-child.html" in body["frame"]["url"], body
    assert body["frame"]["id"]
    browser.ok("expect", "value", "#card", "5555 4444 3333 1111", "--frame", "iframe#cross")
    # A srcdoc frame: Chrome names its URL and no origin of its own (it is its parent's).
    body = browser.ok("click", "#receipt", "--frame", "iframe#inner")
    assert body["frame"]["url"] == "about:srcdoc" and "origin" not in body["frame"], body


def test_a_frame_the_page_s_lookup_swaps_does_not_get_the_input(
    browser: Browser, page: Any, site: Any
) -> None:
    """`--frame 'iframe#pay'` where the page's querySelector answers its own look-alike frame:
    the card number goes to the payment provider's frame (another site), named in the answer."""
    from selenium.webdriver.common.by import By

    from ._act_support import frame_loaded

    tab, _ = page("static/frame-lookalike.html")
    browser.ok("tab", "select", str(tab))
    assert _page(browser, "document.querySelector('iframe#pay').id") == "fake"  # the page's lie
    frame_loaded(browser, "pay")
    body = browser.ok(
        "fill", "#card", "5555 4444 3333 1111", "--frame", "iframe#pay", "--timeout-ms", "8000"
    )
    assert body["frame"]["origin"] == f"http://localhost:{site.xport}", body
    fake = _page(
        browser, "document.getElementById('fake').contentDocument.getElementById('card').value"
    )
    assert fake == ""
    driver = browser.driver
    driver.switch_to.frame(driver.find_element(By.ID, "pay"))
    try:
        assert browser.js("return document.getElementById('card').value") == "5555 4444 3333 1111"
    finally:
        driver.switch_to.default_content()
