"""A click that hands a URL to another application (mailto:, tel:, an app link) leaves the tab
where it is (issue 32): reins does not call the tab closed and keeps working in it, with or without
--tab; which tabs exist comes from the browser."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Browser


@pytest.mark.parametrize("link", ["#mail", "#tel", "#app"])
def test_an_external_link_leaves_the_tab_working(browser: Browser, page: Any, link: str) -> None:
    tab, _ = page("static/external.html")
    browser.ok("tab", "select", str(tab))
    body = browser.ok("click", link)
    assert not body["effect"].get("tab_closed"), body
    # the tab is there and answers, as the agent's current tab too
    assert any(t["id"] == tab for t in browser.ok("tabs")["tabs"])
    assert browser.ok("eval", "document.title")["value"] == "Contacts"
    browser.ok("click", "#row td:first-child")
    assert browser.js("return document.getElementById('log').textContent").endswith("row;")
