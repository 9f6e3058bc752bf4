"""`choose` on a multi-select (MUI Autocomplete `multiple`: each pick becomes a chip beside the
input, which empties again) verifies the pick by the chips the control shows, never by text that
would hold whatever was picked (issue 32 item 7, issue 47 classes 7 and 9). The page is the oracle."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/mui-multi.html"


def _committed(browser: Browser) -> str:
    return str(browser.js("return document.getElementById('mui-multi-value').textContent"))


def test_choose_adds_a_chip_to_a_multi_select(browser: Browser, page: Any) -> None:
    tab = str(page(PAGE)[0])
    body = browser.ok("choose", "#mui-multi", "Software", "--tab", tab)
    assert body["chose"] == "Software", body
    assert _committed(browser) == "Travel,Software"
    body = browser.ok("choose", "#mui-multi", "Meals", "--tab", tab)
    assert _committed(browser) == "Travel,Software,Meals"
    assert "Meals" in body["shows"], body
    events = list(browser.js("return window.__events.slice()"))
    assert events == ["commit:Travel,Software", "commit:Travel,Software,Meals"], events


def test_a_menu_inside_its_trigger_does_not_make_the_trigger_show_the_pick(
    browser: Browser, page: Any
) -> None:
    """The trigger's whole text holds every option of the menu rendered inside it; the pick
    commits nothing, and `choose` says so (`choose_mismatch`, what the trigger shows)."""
    tab = str(page("static/menu-inside.html")[0])
    code, body = browser.cli("choose", "#trigger", "Enterprise", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "choose_mismatch", body
    assert body["error"]["shows"] == "Choose a plan", body
    assert list(browser.js("return window.__log.slice()")) == ["picked:Enterprise"]


def test_choose_on_an_mui_select_multiple_that_stays_open(browser: Browser, page: Any) -> None:
    """MUI's Select with `multiple` keeps its menu open after a pick, over a backdrop that
    covers its trigger: the next `choose` picks from the open menu without pressing the trigger,
    and a color chosen already is not pressed (a press takes it out)."""
    tab = str(page(PAGE)[0])
    browser.ok("choose", "#mui-colors", "Green", "--tab", tab)
    body = browser.ok("choose", "#mui-colors", "Blue", "--tab", tab)
    assert body["shows"] == "Red, Green, Blue", body
    body = browser.ok("choose", "#mui-colors", "Red", "--tab", tab)
    assert body["already"] is True, body
    assert browser.js("return document.getElementById('mui-colors-value').textContent") == (
        "Red,Green,Blue"
    )
    events = [e for e in browser.js("return window.__events.slice()") if e.startswith("colors:")]
    assert events == ["colors:Red,Green", "colors:Red,Green,Blue"], events
