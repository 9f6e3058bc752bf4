"""Downshift 9's useCombobox, set to highlight the first match as one types: it marks the
highlighted option aria-selected, not the chosen one. The text `choose` typed to filter is no
choice, so the option it highlights is pressed, never taken for one chosen already; and the
agent loop works too (fill the field, `state`, click the option). The page is the oracle: its onSelectedItemChange log."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import open_widget, refs_by_name, widget_committed
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/downshift.html"


def _open(page: Any, browser: Browser) -> str:
    ready = "!!document.getElementById('ds-category')"
    return open_widget(page, browser, PAGE, ready, "Downshift never rendered")


def test_an_option_highlighted_by_the_typing_is_still_pressed(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "#ds-category", "Meals", "--tab", tab)
    assert body["shows"] == "Meals" and "already" not in body, body
    assert widget_committed(browser) == ("Meals", ["category:Meals"])


def test_the_agent_loop_on_downshift(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    browser.ok("fill", "#ds-category", "soft", "--tab", tab)
    browser.ok("click", refs_by_name(browser.ok("state", "--tab", tab))["Software"], "--tab", tab)
    assert widget_committed(browser) == ("Software", ["category:Software"])
