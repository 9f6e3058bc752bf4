"""A press that opens a popup inside an open shadow root answers once that popup renders, as it
does for a popup in the document: a web component's select whose combobox (no aria-controls) adds
its listbox to its shadow root at opacity 0 and shows it 300 ms later. A `state` sent the moment
the click answers (both on one connection: no process start between them) lists the options,
whether the click named the combobox inside the root or the component itself. The page is the
oracle: the options it renders, and that it opened once."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import refs_by_name
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "static/shadow-popup.html"


@pytest.mark.parametrize("by", ["the combobox", "the component"])
def test_the_options_are_there_when_the_click_answers(browser: Browser, page: Any, by: str) -> None:
    tab = int(page(PAGE)[0])
    target = refs_by_name(browser.call("state", {}, tab=tab))["Category"]
    if by == "the component":
        target = "#picker"
    opened = browser.call("click", {"target": target}, tab=tab)
    state = browser.call("state", {}, tab=tab)
    names = [item["name"] for item in state["refs"]]
    assert {"Travel", "Meals", "Software", "Hardware"} <= set(names), (opened, names)
    assert browser.js("return window.__opened") == 1
