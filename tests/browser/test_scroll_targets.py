"""`scroll --until` with a CSS, XPath or `role=` target on a far row of a long virtual list
(issue 32, item 6): the MUI X DataGrid Pro of 10,000 rows (app/datagrid-pro.html, row i shows
"Merchant " + i and carries data-id=i), TanStack Virtual's 10,000 rows in no order
(app/virtual-lists.html, row i shows "Vendor " + (i * 7919 + 13) mod 10,000 and carries
data-index=i) and the same rows in a list that scrolls with the page (app/virtual-window.html).
These targets turned the wheel a screen a turn and gave up within 8 s on a row 380,000 px down
(an XPath one gave up after 30 s a quarter of the way down); they are looked for page-side at
every look, as text targets are (the bisection of a sorted list by a role's name, else the
page's sweep). `found` only for the row itself in view inside the scroller: the page is the
oracle (the row's middle inside the scroller's box and the browser's hit test there landing in
it). Seconds are printed (run with -s), never asserted."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ._act_support import scroll_until
from .conftest import Browser

pytestmark = pytest.mark.browser

GRID = "#pro-grid .MuiDataGrid-virtualScroller"

# The element `arguments[0]` names, hit at its middle, inside the box of `arguments[1]`.
_IN_VIEW = """
const [css, scroller] = arguments;
const box = document.querySelector(scroller).getBoundingClientRect();
return [...document.querySelectorAll(css)].some((el) => {
  if (!el.checkVisibility({ opacityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  const x = r.left + Math.min(r.width, box.width) / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return y > box.top && y < box.bottom && !!hit && el.contains(hit);
});
"""


def _until(
    browser: Browser, tab: str, scroller: str, target: str, budget_ms: int = 8_000
) -> tuple[int, dict[str, Any]]:
    code, body, _ = scroll_until(browser, tab, scroller, target, budget_ms)
    return code, body


def _grid(browser: Browser, page: Any) -> str:
    tab = str(page("app/datagrid-pro.html")[0])
    browser.ok("wait", "--target", "#pro-grid [data-rowindex='0']", "--tab", tab)
    return tab


@pytest.mark.parametrize(
    "target",
    ['role=row[name="Merchant 7317"]', '[data-id="7317"]', "xpath=//*[@data-id='7317']"],
)
def test_a_far_row_of_the_grid_is_reached_by_css_xpath_or_role(
    browser: Browser, page: Any, target: str
) -> None:
    """The answer's ref is the row's, as `reins state` lists it (a CSS or XPath target answered
    `ref: null`): a click on it is the grid's row click, in the page's event log."""
    tab = _grid(browser, page)
    row = "#pro-grid [role=row][data-id='7317']"
    assert browser.js(_IN_VIEW, row, GRID) is False
    code, body = _until(browser, tab, GRID, target)
    assert code == 0 and body["found"] is True and body["ref"], body
    assert browser.js(_IN_VIEW, row, GRID) is True
    browser.ok("click", body["ref"], "--tab", tab)
    assert browser.js("return window.__events") == ["row:Merchant 7317"]


def test_the_transparent_copy_of_a_row_is_not_found_by_css(browser: Browser, page: Any) -> None:
    """The grid keeps its focused row rendered at opacity 0 once scrolled away: a CSS target
    naming it matches that copy, which is not in view."""
    tab = _grid(browser, page)
    on = ("--tab", tab)
    browser.ok("scroll", GRID, "--until", "text=Merchant 0742", *on)
    browser.ok("click", "text=Merchant 0742", *on)
    browser.ok("scroll", GRID, "--to", "top", *on)
    browser.ok("wait", "--idle", *on)
    row = "#pro-grid [role=row][data-id='742']"
    assert browser.js("return document.querySelectorAll(arguments[0]).length", row) == 1
    assert browser.js(_IN_VIEW, row, GRID) is False
    code, body = _until(browser, tab, GRID, '[data-id="742"]')
    assert code == 0 and body["found"] is True and body["wheels"] >= 1, body
    assert browser.js(_IN_VIEW, row, GRID) is True


@pytest.mark.parametrize("index", [7317])
def test_a_far_row_of_an_unsorted_list_is_reached_by_css_xpath_or_role(
    browser: Browser, page: Any, index: int
) -> None:
    tab = str(page("app/virtual-lists.html")[0])
    browser.ok("wait", "--target", "#unsorted-10k [data-index='0']", "--tab", tab)
    row = f"#unsorted-10k [data-index='{index}']"
    vendor = f"Vendor {(index * 7919 + 13) % 10_000:04d}"
    path = f"//*[@id='unsorted-10k']//*[@data-index='{index}']"
    for target in (row, path, f'role=button[name="{vendor}" s]'):
        browser.ok("scroll", "#unsorted-10k", "--to", "top", "--tab", tab)
        assert browser.js(_IN_VIEW, row, "#unsorted-10k") is False
        code, body = _until(browser, tab, "#unsorted-10k", target)
        assert code == 0 and body["found"] is True, body
        assert browser.js(_IN_VIEW, row, "#unsorted-10k") is True


def test_a_far_row_of_a_list_that_scrolls_with_the_page_is_reached_by_css(
    browser: Browser, page: Any
) -> None:
    """app/virtual-window.html: the page scrolls, no SCROLLER is named."""
    tab = str(page("app/virtual-window.html")[0])
    browser.ok("wait", "--target", "#window-list [data-index='0']", "--tab", tab)
    row = "#window-list [data-index='7317']"
    assert browser.js(_IN_VIEW, row, "html") is False
    began = time.monotonic()
    code, body = browser.cli(
        "scroll", "--until", row, "--tab", tab, "--timeout-ms", "8000", timeout=40
    )
    print(f"\npage {row}: exit {code}, {body}, {time.monotonic() - began:.2f} s whole process")
    assert code == 0 and body["found"] is True and body["scroller"] == "page", body
    assert browser.js(_IN_VIEW, row, "html") is True


@pytest.mark.parametrize(
    "target", ['role=row[name="Merchant 10000"]', 'role=gridcell[name="Merchant 7317.5" s]']
)
def test_the_sorted_order_proves_a_role_s_name_absent_without_a_sweep(
    browser: Browser, page: Any, target: str
) -> None:
    """The grid's rows and cells are named by the text they show, so a name the rows' order
    leaves no place for is in no row: not_found after a few looks (that name would sort after
    the last row, or between rows 7317 and 7318). A role's name proved nothing: the whole grid
    was swept first, 418 steps and 9 s."""
    tab = _grid(browser, page)
    code, body = _until(browser, tab, GRID, target, 6_000)
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert body["error"]["share_seen"] < 0.5, body
    assert "read as sorted" in body["error"]["message"], body
