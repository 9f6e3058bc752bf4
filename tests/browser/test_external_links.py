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


def test_a_text_target_on_a_clickable_row_presses_the_text_not_the_rows_middle(
    browser: Browser, page: Any
) -> None:
    """Issue 32, item 2: `click 'text=Yoshiko Boehm'` resolves to the clickable row; the press
    lands on the cell that shows the name, not on the row's middle (the mail link)."""
    tab, _ = page("static/external.html")
    on = ("--tab", str(tab))
    middle = browser.js(
        "const r = document.getElementById('row').getBoundingClientRect();"
        "return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).id"
    )
    assert middle == "mail"  # the fixture does what the datagrid did
    browser.ok("click", "text=Yoshiko Boehm", *on)
    assert browser.js("return document.getElementById('log').textContent") == "row;"
