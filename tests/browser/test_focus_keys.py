"""Keys go only where reins put focus (issue 45, "focus before keys"): before each key, reins's
own world checks that keyboard focus is on the target or inside it, in the batch with the keys,
which stops there otherwise (`focus_elsewhere`, naming where focus is). The pages are the oracle:
fixtures/static/focus-steal.html hands focus to another site's frame (an out-of-process frame:
localhost against 127.0.0.1) when its field takes focus, or after the first character typed;
the frame logs every key that reached it."""

from __future__ import annotations

import time
from typing import Any

from ._act_support import frame_loaded, frame_log
from .conftest import Browser

PAGE = "static/focus-steal.html"


def _frame_log(browser: Browser) -> list[str]:
    return frame_log(browser, "pay")


def _open(browser: Browser, page: Any, steal: str) -> str:
    tab = str(page(PAGE, steal=steal)[0])
    frame_loaded(browser, "pay")
    return tab


def test_press_on_a_field_whose_focus_the_page_hands_to_another_site(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page, "focus")
    code, body = browser.cli("press", "Enter", "#card", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "focus_elsewhere", body
    assert body["error"]["focused"].startswith("iframe#pay"), body
    time.sleep(0.3)
    assert _frame_log(browser) == []  # no purchase confirmed in the other site's frame
    assert browser.js("return window.__log") == []


def test_fill_into_a_field_whose_focus_the_page_hands_away(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "focus")
    code, body = browser.cli("fill", "#card", "4111 1111 1111 1111", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "focus_elsewhere", body
    time.sleep(0.3)
    assert _frame_log(browser) == []
    assert browser.js("return document.getElementById('card').value") == ""


def test_typing_stops_when_focus_moves_between_characters(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "typing")
    code, body = browser.cli("type", "#note", "hello", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "focus_elsewhere", body
    time.sleep(0.3)
    # The first character reached the note; none reached the other site's frame.
    assert browser.js("return window.__log") == ["note:h"]
    assert _frame_log(browser) == []


def test_keys_on_a_field_that_keeps_focus_are_typed(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "none")
    browser.ok("fill", "#card", "4111 1111 1111 1111", "--tab", tab)
    browser.ok("type", "#note", "hi", "--tab", tab)
    browser.ok("press", "Enter", "#note", "--tab", tab)
    assert browser.js("return document.getElementById('card').value") == "4111 1111 1111 1111"
    assert browser.js("return window.__log") == ["note:h", "note:i", "note:Enter"]
    assert _frame_log(browser) == []


def test_a_click_that_hands_focus_to_another_sites_frame_is_an_error(
    browser: Browser, page: Any
) -> None:
    """Issue 45: an effect that shows focus moving into a frame the target does not contain is an
    error, not an ok with `focus: -> iframe#pay` that an agent would type after."""
    tab = _open(browser, page, "click")
    code, body = browser.cli("click", "#continue", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "focus_in_frame", body
    assert body["error"]["frame"].startswith("iframe#pay"), body
    assert body["error"]["url"].startswith("http://localhost:"), body
    assert body["error"]["effect"]["focus"]["to"].startswith("iframe#pay"), body
    assert browser.js("return window.__log") == ["continue:click"]  # the click was given


def test_a_click_that_keeps_focus_on_the_page_is_ok(browser: Browser, page: Any) -> None:
    tab = _open(browser, page, "none")
    body = browser.ok("click", "#continue", "--tab", tab)
    assert body["effect"]["focus"]["to"] == "button#continue", body
