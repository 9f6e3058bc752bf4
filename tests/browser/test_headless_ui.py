"""Headless UI 2.2 (Tailwind Labs), as a new user drives it (issue 47): a Listbox whose options
render in a floating panel after the click, a Menu, and a Combobox whose input opens nothing
when clicked (only typing, the arrow keys or its button do: class 6). `choose` commits the option
asked for — never another one — and says what it saw when the option is not there. The page is
the oracle: its onChange log and the text it shows."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import page_log, refs_by_name
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/headless.html"


def _events(browser: Browser) -> list[str]:
    return page_log(browser, "__events")


def _open(browser: Browser, page: Any) -> str:
    tab = str(page(PAGE)[0])
    browser.ok("wait", "--target", "#category", "--tab", tab)
    return tab


def test_the_loop_sees_the_options_right_after_the_click(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    body = browser.ok("click", "#category", "--tab", tab)
    assert body["effect"]["expanded"] == {"from": False, "to": True}, body
    option = refs_by_name(browser.ok("state", "--tab", tab))["Hardware"]
    browser.ok("click", option, "--tab", tab)
    assert _events(browser) == ["category:Hardware"]


def test_choose_on_a_listbox_and_on_a_combobox_whose_input_opens_nothing(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page)
    browser.ok("choose", "#category", "Software", "--tab", tab)
    body = browser.ok("choose", "#vendor", "Office", "--tab", tab)
    assert body["kind"] == "combobox" and body["chose"] == "Office", body
    body = browser.ok("choose", "#vendor", "Hardware", "--tab", tab)
    assert body["chose"] == "Hardware", body
    assert _events(browser) == ["category:Software", "vendor:Office", "vendor:Hardware"]
    assert browser.js("return document.getElementById('committed').textContent") == (
        "Software|Hardware"
    )


def test_an_option_not_offered_is_not_found_and_nothing_is_committed(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page)
    code, body = browser.cli("choose", "#vendor", "Groceries", "--tab", tab, "--timeout-ms", "6000")
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert _events(browser) == []
