"""Angular Material (22) selects, as a new user drives them (issue 47): a select-only
`mat-select` (a `role=combobox` div whose options render in an overlay at the end of the body,
owned through `aria-controls`), one with `multiple` (the choice shown as comma-joined text, the
panel staying open), and an editable `mat-autocomplete` input. The page is built in JIT mode (the
components compiled in the page by @angular/compiler) from the libraries installed by exact
version. The page is the oracle: what it committed (its event log and the text it shows)."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import eventually, page_log, refs_by_name
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/angular-select.html"


def _committed(browser: Browser) -> str:
    return str(browser.js("return document.getElementById('committed').textContent"))


def _events(browser: Browser) -> list[str]:
    return page_log(browser, "__events")


def _open(browser: Browser, page: Any) -> str:
    tab = str(page(PAGE)[0])
    browser.ok("wait", "--target", "role=combobox[name='Category']", "--tab", tab)
    return tab


def test_choose_on_a_mat_select(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    body = browser.ok("choose", "role=combobox[name='Category']", "Software", "--tab", tab)
    assert body["shows"] == "Software", body
    assert _committed(browser) == "Software||"
    body = browser.ok("choose", "#category", "Meals", "--tab", tab)
    assert _committed(browser) == "Meals||"
    assert _events(browser) == ["category:Software", "category:Meals"]


def test_the_agent_loop_clicks_the_mat_select_then_the_option(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    trigger = refs_by_name(browser.ok("state", "--tab", tab))["Category"]
    browser.ok("click", trigger, "--tab", tab)
    option = refs_by_name(browser.ok("state", "--tab", tab))["Hardware"]
    clicked = browser.ok("click", option, "--tab", tab)
    # The page commits on the click (its log says so at once); Angular renders the committed
    # text at its next change detection, which may come a task after the click's answer.
    assert _events(browser) == ["category:Hardware"], clicked
    assert eventually(lambda: _committed(browser), lambda shown: shown == "Hardware||") == (
        "Hardware||"
    ), clicked


def test_choose_on_a_multiple_mat_select(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    browser.ok("choose", "role=combobox[name='Tags']", "Travel", "--tab", tab)
    browser.ok("press", "Escape", "--tab", tab)
    browser.ok("choose", "role=combobox[name='Tags']", "Office", "--tab", tab)
    assert _committed(browser) == "|Travel,Office|"
    assert _events(browser) == ["tags:Travel", "tags:Travel,Office"]


def test_choose_on_a_mat_autocomplete(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    body = browser.ok("choose", "#vendor", "Office", "--tab", tab)
    assert body["chose"] == "Office", body
    assert _committed(browser) == "||Office"
    assert _events(browser) == ["vendor:Office"]
