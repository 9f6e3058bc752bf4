"""SAP's UI5 Web Components `<ui5-select>` (issue 47, class 5): the combobox and the popover
that lists the options (role=option items of a ui5-list) live in shadow roots; the `<ui5-option>`s
of the light DOM carry only the data. `state` lists the options once it is open; `choose` finds
the same ones, by the element and by the combobox `state` lists. The page is the oracle: its
change log and the value it shows committed."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import open_widget, pick_by_the_agent_loop, widget_committed
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/ui5-select.html"


def _open(page: Any, browser: Browser) -> str:
    ready = "!!customElements.get('ui5-select') && !!document.getElementById('category').shadowRoot"
    return open_widget(page, browser, PAGE, ready, "UI5 never defined ui5-select")


def test_choose_by_the_element_and_by_the_combobox(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "#category", "Software", "--tab", tab)
    assert (body["chose"], body["shows"]) == ("Software", "Software"), body
    body = browser.ok("choose", "role=combobox[name='Category']", "Meals", "--tab", tab)
    assert body["chose"] == "Meals", body
    assert widget_committed(browser) == ("Meals", ["category:Software", "category:Meals"])
    assert browser.js("return window.__committed") == "Meals"


def test_an_option_it_does_not_offer_is_not_found(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    code, body = browser.cli("choose", "#category", "Groceries", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "not_found", body
    assert "Hardware" in body["error"]["message"], body
    assert widget_committed(browser) == ("", [])


def test_the_agent_loop_on_a_shadow_popover(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    pick_by_the_agent_loop(browser, tab, "Category", "Hardware")
    assert widget_committed(browser) == ("Hardware", ["category:Hardware"])
