"""Element Plus (Vue 3) selects, as a new user drives them (issue 47): the select-only one is a
read-only `<input role=combobox>` under a placeholder that covers it, and shows the choice in that
placeholder while its input stays empty. `click` and `choose` press through the placeholder (a part
of the same widget, not an obstruction: classes 3 and 4), `choose` verifies by what the widget
shows beside its input (class 7), and the filterable one filters as one types. The page is the
oracle: what it committed (its event log and the text it shows)."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import refs_by_name
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/element-select.html"


def _committed(browser: Browser) -> str:
    return str(browser.js("return document.getElementById('committed').textContent"))


def _events(browser: Browser) -> list[str]:
    return list(browser.js("return window.__events.slice()"))


def test_choose_on_a_select_only_combobox_under_its_placeholder(
    browser: Browser, page: Any
) -> None:
    tab = str(page(PAGE)[0])
    body = browser.ok("choose", "role=combobox[name='Category']", "Software", "--tab", tab)
    assert body["kind"] == "trigger" and body["shows"] == "Software", body
    assert _committed(browser) == "Software|"
    body = browser.ok("choose", "#category-select", "Meals", "--tab", tab)
    assert body["shows"] == "Meals", body
    assert _committed(browser) == "Meals|"
    assert _events(browser) == ["category:Software", "category:Meals"]


def test_the_agent_loop_clicks_the_trigger_then_the_option(browser: Browser, page: Any) -> None:
    tab = str(page(PAGE)[0])
    trigger = refs_by_name(browser.ok("state", "--tab", tab))["Category"]
    browser.ok("click", trigger, "--tab", tab)
    option = refs_by_name(browser.ok("state", "--tab", tab))["Hardware"]
    browser.ok("click", option, "--tab", tab)
    assert _committed(browser) == "Hardware|"


def test_choose_filters_a_filterable_select(browser: Browser, page: Any) -> None:
    tab = str(page(PAGE)[0])
    body = browser.ok("choose", "#vendor-select", "Office", "--tab", tab)
    assert body["kind"] == "combobox" and body["chose"] == "Office", body
    assert _committed(browser) == "|Office"
    assert _events(browser) == ["vendor:Office"]
