"""JavaScript dialogs: an action that opens one reports it; the page waits; reins dialog answers."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import Browser


def _log(browser: Browser, tab: int) -> list[str]:
    """What the page itself recorded, read through selenium (the `page` fixture switched to it)."""
    return list(browser.js("return window.__log"))


def test_confirm_opened_by_a_click_is_the_effect_and_is_answered(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/dialogs.html")
    body = browser.ok("click", "#confirm-btn", "--tab", str(tab))
    assert body["effect"]["dialog"]["type"] == "confirm"
    assert body["effect"]["dialog"]["message"] == "Delete this expense?"
    assert body["warnings"] == ["dialog_open"]
    # While it is open, page commands answer at once with the dialog, not after their budget.
    code, answer = browser.cli("state", "--tab", str(tab), "--timeout-ms", "20000")
    assert code == 1 and answer["error"]["code"] == "dialog_open"
    assert answer["error"]["dialog"]["message"] == "Delete this expense?"
    shown = browser.ok("dialog", "--tab", str(tab))
    assert shown["dialog"]["type"] == "confirm"
    handled = browser.ok("dialog", "accept", "--tab", str(tab))
    assert handled["accepted"] is True and handled["handled"]["type"] == "confirm"
    assert _log(browser, tab) == ["confirm:true"]  # the page saw the confirm accepted


def test_prompt_gets_the_text_and_alert_is_dismissed(browser: Browser, page: Any) -> None:
    tab, _ = page("static/dialogs.html")
    body = browser.ok("click", "#prompt-btn", "--tab", str(tab))
    assert body["effect"]["dialog"] == {
        "type": "prompt",
        "message": "Your name?",
        "url": body["effect"]["dialog"]["url"],
        "default_prompt": "anon",
    }
    browser.ok("dialog", "accept", "Ada Lovelace", "--tab", str(tab))
    browser.ok("click", "#alert-btn", "--tab", str(tab))
    browser.ok("dialog", "dismiss", "--tab", str(tab))
    browser.ok("click", "#plain-btn", "--tab", str(tab))
    assert _log(browser, tab) == ["prompt:Ada Lovelace", "alert:closed", "plain"]


def test_dismissed_confirm_and_dialog_from_eval(browser: Browser, page: Any) -> None:
    tab, _ = page("static/dialogs.html")
    code, answer = browser.cli(
        "eval", "confirm('from eval')", "--tab", str(tab), "--timeout-ms", "5000"
    )
    assert code == 1 and answer["error"]["code"] == "dialog_open"
    browser.ok("dialog", "dismiss", "--tab", str(tab))
    browser.ok("click", "#confirm-btn", "--tab", str(tab))
    browser.ok("dialog", "dismiss", "--tab", str(tab))
    assert _log(browser, tab) == ["confirm:false"]
    code, answer = browser.cli("dialog", "accept", "--tab", str(tab))
    assert code == 1 and answer["error"]["code"] == "not_found"  # nothing open any more


def _page_value(browser: Browser, tab: int, expression: str) -> Any:
    """The page's own value, read through reins's eval (the page is the oracle)."""
    return browser.ok("eval", expression, "--tab", str(tab))["value"]


def test_an_alert_that_reopens_on_every_answer_is_never_lost(browser: Browser, page: Any) -> None:
    tab, _ = page("static/dialogs-hostile.html")
    body = browser.ok("click", "#reopen-btn", "--tab", str(tab))
    assert body["effect"]["dialog"]["message"] == "round 1"
    for n in range(1, 11):
        # The page opens the next one as soon as its alert() returns; on a loaded machine that
        # can come after the answer. A lost one never shows again.
        for _ in range(50):
            shown = browser.ok("dialog", "--tab", str(tab))
            if shown["dialog"] is not None:
                break
            time.sleep(0.1)
        assert shown["dialog"] is not None, f"round {n}: the open alert was lost"
        assert shown["dialog"]["type"] == "alert"
        assert shown["dialog"]["message"] == f"round {n}"
        handled = browser.ok("dialog", "accept", "--tab", str(tab))
        assert handled["handled"]["message"] == f"round {n}"
    assert _page_value(browser, tab, "window.__answered") == 10  # the page saw all 10 answered
    assert browser.ok("dialog", "--tab", str(tab))["dialog"] is None
    browser.ok("click", "#plain-btn", "--tab", str(tab))
    assert _page_value(browser, tab, "window.__log") == ["plain"]


def test_tab_close_on_a_page_that_asks_before_leaving_answers_dialog_open(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/dialogs-hostile.html")
    browser.ok("click", "#guard-btn", "--tab", str(tab))  # a user gesture: Chrome will ask
    code, answer = browser.cli("tab", "close", str(tab), "--timeout-ms", "15000")
    assert code == 1 and answer["error"]["code"] == "dialog_open", answer
    assert answer["error"]["dialog"]["type"] == "beforeunload"
    assert f"reins dialog accept --tab {tab}" in answer["error"]["message"]
    # Dismissed: the page stays, and answers.
    browser.ok("dialog", "dismiss", "--tab", str(tab))
    assert _page_value(browser, tab, "window.__log") == ["guarded"]
    # Asked again and accepted: the tab is gone.
    code, answer = browser.cli("tab", "close", str(tab), "--timeout-ms", "15000")
    assert answer["error"]["code"] == "dialog_open", answer
    browser.ok("dialog", "accept", "--tab", str(tab))
    listed = browser.ok("tabs")["tabs"]
    assert tab not in [t["id"] for t in listed]


def _new_tab(browser: Browser, before: set[int]) -> int:
    for _ in range(50):
        new = [t["id"] for t in browser.ok("tabs")["tabs"] if t["id"] not in before]
        if new:
            return int(new[0])
        time.sleep(0.1)
    raise AssertionError("no popup opened")


def _opener_answer(browser: Browser, tab: int) -> dict[str, Any]:
    """The opener's first command waits out its budget (nothing told reins yet); the next one
    probes the tab and says what holds it."""
    answer: dict[str, Any] = {}
    for _ in range(3):
        code, answer = browser.cli("eval", "1", "--tab", str(tab), "--timeout-ms", "2000")
        assert code == 1, answer
        if answer["error"]["code"] != "timeout":
            return answer
    return answer


@pytest.mark.parametrize(
    ("button", "message", "logged"),
    [
        ("#jspopup-btn", "from a javascript: popup", ["jspopup"]),
        ("#popup-btn", "from the popup", ["popup", "popup:closed"]),
    ],
)
def test_a_popups_dialog_is_reachable_and_frees_its_opener(
    browser: Browser, page: Any, button: str, message: str, logged: list[str]
) -> None:
    """The extension arms a popup of a driven tab as Chrome creates it. Chrome reports a dialog
    only to a session that had Page on when it opened, so an alert the popup shows at once can win
    that race (more often on a loaded machine): then reins says so and closing the popup frees the
    opener. Either way the opener is never answered as blocked by a script of its own."""
    tab, _ = page("static/dialogs-hostile.html")
    before = {t["id"] for t in browser.ok("tabs")["tabs"]}
    # The popup's alert holds this page's thread too: the click's effect may not be readable.
    browser.cli("click", button, "--tab", str(tab), "--timeout-ms", "3000")
    popup = _new_tab(browser, before)
    try:
        shown: dict[str, Any] = {}
        for _ in range(50):  # the second popup alerts a moment after it opened
            code, shown = browser.cli("dialog", "--tab", str(popup), "--timeout-ms", "5000")
            if code != 0 or shown["dialog"] is not None:
                break
            time.sleep(0.1)
        answer = _opener_answer(browser, tab)
        if code == 0:  # heard: shown, named by the opener, answered where it is
            assert shown["dialog"]["type"] == "alert", shown
            assert shown["dialog"]["message"] == message
            assert answer["error"]["code"] == "dialog_open", answer
            assert answer["error"]["dialog"]["tab"] == popup
            assert answer["error"]["dialog"]["message"] == message
            assert f"--tab {popup}" in answer["error"]["message"]
            browser.ok("dialog", "dismiss", "--tab", str(popup))
            assert browser.ok("dialog", "--tab", str(popup))["dialog"] is None
        else:  # opened before the popup was armed: out of CDP's reach, and said so
            assert button == "#jspopup-btn", shown  # the delayed one is always heard
            assert shown["error"]["code"] == "tab_unresponsive", shown
            assert f"reins tab close {popup}" in shown["error"]["message"]
            assert answer["error"]["code"] == "tab_unresponsive", answer
            assert f"reins tab close {popup}" in answer["error"]["message"]
            browser.ok("tab", "close", str(popup), "--timeout-ms", "5000")
            logged = logged[:1]
        assert _page_value(browser, tab, "window.__log") == logged  # the opener runs again
    finally:
        browser.cli("tab", "close", str(popup))
