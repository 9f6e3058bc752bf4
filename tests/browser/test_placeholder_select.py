"""Ant Design's Select (rc-select, React), as a new user drives it (issue 47, class 2): the
trigger is a read-only combobox input with no name, known only by the placeholder beside it, and
the options a person sees are plain divs with no role (the role=option elements rc-select renders
sit in a zero-size listbox for screen readers). `choose` finds them as the popup the trigger
opened, by the trigger's input and by the placeholder `state` lists; the loop works through the
placeholder. The page is the oracle: its change log and the value it shows committed."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import eventually, open_widget, refs_by_name, widget_committed
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/antd-select.html"


def _open(page: Any, browser: Browser) -> str:
    ready = "!!document.querySelector('.ant-select input#category')"
    return open_widget(page, browser, PAGE, ready, "Ant Design never rendered its select")


def test_choose_by_the_input_and_by_the_placeholder(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "#category", "Software", "--tab", tab)
    assert (body["chose"], body["shows"]) == ("Software", "Software"), body
    assert widget_committed(browser) == ("Software", ["category:Software"])
    assert browser.js("return window.__committed") == "Software"

    tab = _open(page, browser)
    placeholder = refs_by_name(browser.ok("state", "--tab", tab))["Select a category"]
    body = browser.ok("choose", placeholder, "Meals", "--tab", tab)
    assert body["chose"] == "Meals", body
    assert widget_committed(browser) == ("Meals", ["category:Meals"])


def test_an_option_it_does_not_offer_is_not_found(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    code, body = browser.cli("choose", "#category", "Groceries", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "not_found", body
    for offered in ("Travel", "Meals", "Software"):
        assert offered in body["error"]["message"], body
    assert widget_committed(browser) == ("", [])


def test_the_agent_loop_through_the_placeholder(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    trigger = refs_by_name(browser.ok("state", "--tab", tab))["Select a category"]
    browser.ok("click", trigger, "--tab", tab)
    option = refs_by_name(browser.ok("state", "--tab", tab))["Hardware"]
    browser.ok("click", option, "--tab", tab)
    assert widget_committed(browser) == ("Hardware", ["category:Hardware"])


def test_the_menu_is_there_when_the_click_answers(browser: Browser, page: Any) -> None:
    """Issue 47, class 8: antd mounts its menu on the click at opacity 0 and fades it in over the
    next frames (~100 ms). The click answers once the popup it opened renders, so a `state` sent
    the moment the click answers (both on one connection: no process start between them) lists
    the options, on the first open and on a reopen."""
    tab = int(_open(page, browser))
    trigger = refs_by_name(browser.call("state", {}, tab=tab))["Select a category"]
    for attempt in ("open", "reopen"):
        if attempt == "reopen":
            browser.ok("press", "Escape", "--tab", str(tab))
            eventually(
                lambda: browser.js(
                    "return !!document.querySelector('.ant-select-dropdown-hidden')"
                ),
                bool,
            )
        opened = browser.call("click", {"target": trigger}, tab=tab)
        state = browser.call("state", {}, tab=tab)
        names = [item["name"] for item in state["refs"]]
        assert {"Travel", "Hardware", "Office"} <= set(names), (attempt, opened, names)
    assert widget_committed(browser) == ("", [])
