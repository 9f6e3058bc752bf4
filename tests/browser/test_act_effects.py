"""What an action changed, read around it in one round trip (act/effects.py, effects.js).

The page is the oracle: its log, its text, its URL, and, for a CSS-only hover menu, whether the
menu's item takes a real click (it can only while the menu is shown).
"""

from __future__ import annotations

from typing import Any

from ._act_support import eventually, page_log
from .conftest import Browser


def test_hover_reports_the_css_menu_it_opened_and_its_item_takes_a_click(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/effects.html")[0])
    # closed: the item is not there to click
    code, body = browser.cli("click", "#item-pricing", "--tab", tab, "--timeout-ms", "800")
    assert code == 1 and body["error"]["code"] == "not_visible", body
    body = browser.ok("hover", "#products-trigger", "--tab", tab)
    assert "no_effect" not in body["warnings"], body
    assert [s for s in body["effect"]["shown"] if s.startswith("ul#products-menu")], body
    assert (
        browser.js("return getComputedStyle(document.querySelector('#products-menu')).display")
        == "block"
    )
    body = browser.ok("click", "#item-pricing", "--tab", tab)
    assert body["method"] == "cdp"
    assert page_log(browser) == ["item-pricing:click"]


def test_a_click_that_changes_nothing_answers_no_effect_at_once(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/effects.html")[0])
    browser.ok("click", "#quiet", "--tab", tab)  # the first click also moves the focus to it
    body = browser.ok("click", "#quiet", "--tab", tab)
    assert body["effect"] == {} and body["warnings"] == ["no_effect"], body
    assert page_log(browser) == ["quiet:click", "quiet:click"]


def test_a_click_that_changes_the_page_reports_it(browser: Browser, page: Any) -> None:
    tab = str(page("static/effects.html")[0])
    for n in (1, 2):
        body = browser.ok("click", "#changes", "--tab", tab)
        assert body["effect"].get("dom_changed_elsewhere", 0) >= 1, body
        assert browser.js("return document.querySelector('#out').textContent") == f"changed {n}"


def _navigated(body: dict[str, Any], ending: str) -> None:
    assert body["effect"].get("navigated") is True, body
    assert body["effect"]["url"]["to"].endswith(ending), body
    assert "no_effect" not in body["warnings"]


def test_a_link_a_form_and_a_script_navigation_are_reported_as_navigated(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/effects.html")[0])
    _navigated(browser.ok("click", "#away", "--tab", tab), "effects.html?page=2")
    assert browser.driver.current_url.endswith("effects.html?page=2")
    _navigated(browser.ok("click", "#submit", "--tab", tab), "effects.html?q=x")
    assert browser.driver.current_url.endswith("effects.html?q=x")
    _navigated(browser.ok("click", "#assign", "--tab", tab), "effects.html?page=4")
    assert browser.driver.current_url.endswith("effects.html?page=4")


def test_a_form_the_page_submits_itself_is_waited_for(browser: Browser, page: Any) -> None:
    tab, url = page("static/effects.html")
    body = browser.ok("click", "#spa-submit", "--tab", str(tab))
    # the page renders 300 ms after the submit it prevented: the read waited for that change
    assert body["effect"].get("dom_changed_elsewhere", 0) >= 1, body
    assert browser.js("return document.querySelector('#spa-out').textContent") == "results for y"
    assert browser.driver.current_url == url  # nothing navigated


def test_a_fetch_then_render_is_either_reported_or_honestly_not(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/effects.html")[0])
    body = browser.ok("click", "#fetches", "--tab", tab)
    shown = eventually(
        lambda: browser.js("return document.querySelector('#fetched').textContent"),
        lambda text: text == "fetched 200",
    )
    assert shown == "fetched 200"
    assert "navigated" not in body["effect"] and "unknown" not in body["effect"], body
