"""JavaScript dialogs: an action that opens one reports it; the page waits; reins dialog answers."""

from __future__ import annotations

from typing import Any

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
        shown = browser.ok("dialog", "--tab", str(tab))
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
