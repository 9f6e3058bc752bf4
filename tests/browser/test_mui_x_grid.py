"""A MUI X DataGrid whose rows are clickable and hold a `mailto:` link in their middle cell
(app/mui-x.html), as react-admin's datagrid had it (issue 32, items 2 and 3, on the real library):
`click 'text=Merchant 0003'` presses the cell that shows the text, not the row's middle (the
link), and a click on the link hands the URL to another application without reins calling the
tab closed. The page is the oracle: its row-click log and its URL."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import page_log
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/mui-x.html"


def _log(browser: Browser) -> list[str]:
    return [e for e in page_log(browser, "__events") if e.startswith("row:")]


def test_a_text_target_in_a_clickable_grid_row_presses_the_text(
    browser: Browser, page: Any
) -> None:
    tab, url = page(PAGE)
    on = ("--tab", str(tab))
    browser.ok("wait", "--target", "text=Merchant 0003", *on)
    middle = browser.js(
        "const row = document.querySelector('[role=row][data-rowindex=\"3\"]');"
        "const r = row.getBoundingClientRect();"
        "return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).tagName"
    )
    assert middle == "A"  # the row's middle is its mail link
    browser.ok("click", "text=Merchant 0003", *on)
    assert _log(browser) == ["row:Merchant 0003"]
    assert browser.js("return location.href") == url


def test_a_mail_link_in_a_grid_row_leaves_the_tab_working(browser: Browser, page: Any) -> None:
    """The text is the name of the grid cell and of the link inside it: the text target is the
    link, the deepest element holding it (it was `ambiguous`)."""
    tab, url = page(PAGE)
    on = ("--tab", str(tab))
    browser.ok("wait", "--target", "text=billing2@example.com", *on)
    body = browser.ok("click", "text=billing2@example.com", *on)
    assert not body["effect"].get("tab_closed"), body
    pressed = browser.js("return document.activeElement.outerHTML.slice(0, 60)")
    assert pressed.startswith('<a href="mailto:billing2@example.com"'), pressed
    assert not body["effect"].get("tab_closed"), body
    assert any(t["id"] == tab for t in browser.ok("tabs")["tabs"])
    assert browser.js("return location.href") == url
    browser.ok("click", "text=Merchant 0001", *on)
    assert _log(browser)[-1] == "row:Merchant 0001"
