"""`scroll --until` on long virtual lists (issue 32, item 6), from the real libraries in
app/mui-x.html: a TanStack Virtual list of 10,000 rows (400,000 px) and a MUI X DataGrid (its free
edition pages at 100 rows). A row far down a sorted list is reached in a few looks (a bisection
while the rows shown read as sorted), and `found` is never answered for a row that is not there
and in view. The page is the oracle: the row's box inside the list's box, read by the test."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/mui-x.html"

_IN_VIEW = """
const [list, text] = arguments;
const box = document.querySelector(list).getBoundingClientRect();
const row = [...document.querySelectorAll(list + ' [role=listitem], ' + list + ' [role=row]')]
  .find((r) => r.innerText.includes(text));
if (!row) return false;
const r = row.getBoundingClientRect();
const mid = r.top + r.height / 2;
return mid > box.top && mid < box.bottom;
"""


def _open(browser: Browser, page: Any) -> str:
    tab = str(page(PAGE)[0])
    browser.ok("wait", "--target", "#tanstack-list", "--tab", tab)
    return tab


@pytest.mark.parametrize("row", ["Vendor 6000", "Vendor 9999", "Vendor 0742"])
def test_a_row_far_down_a_long_sorted_list_is_reached_in_a_few_looks(
    browser: Browser, page: Any, row: str
) -> None:
    tab = _open(browser, page)
    body = browser.ok("scroll", "#tanstack-list", "--until", f"text={row}", "--tab", tab)
    assert body["found"] is True, body
    assert body["wheels"] <= 40, body  # one screen a turn would take hundreds
    assert browser.js(_IN_VIEW, "#tanstack-list", row) is True
    # From there, a row above it.
    body = browser.ok("scroll", "#tanstack-list", "--until", "text=Vendor 0100", "--tab", tab)
    assert body["found"] is True and body["wheels"] <= 40, body
    assert browser.js(_IN_VIEW, "#tanstack-list", "Vendor 0100") is True


def test_a_grid_row_is_found_in_view_and_one_not_there_never_is(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page)
    grid = "#grid .MuiDataGrid-virtualScroller"
    body = browser.ok("scroll", grid, "--until", "text=Merchant 0090", "--tab", tab)
    assert body["found"] is True, body
    assert browser.js(_IN_VIEW, "#grid", "Merchant 0090") is True
    # Row 742 is on another page of the grid: never rendered, never "found"; the rows read as
    # sorted and it would sort after the last one, so a typed not_found says so within the budget
    # once the end stayed the end.
    code, body = browser.cli(
        "scroll", grid, "--until", "text=Merchant 0742", "--tab", tab, "--timeout-ms", "5000"
    )
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert "after its last row 'Merchant 0099" in body["error"]["message"], body
    assert browser.js(_IN_VIEW, "#grid", "Merchant 0742") is False


_UNCOVERED = """
const [text] = arguments;
const cell = [...document.querySelectorAll('#grid [role=gridcell]')]
  .find((c) => c.innerText.trim() === text);
if (!cell) return false;
const r = cell.getBoundingClientRect();
const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return !!hit && cell.contains(hit);
"""


def test_a_grid_row_under_the_sticky_header_is_not_found_until_it_is_uncovered(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page)
    grid = "#grid .MuiDataGrid-virtualScroller"
    # Row 20's middle scrolled beneath the column headers: in the scroller's box, not in view.
    browser.js(
        "const s = document.querySelector(arguments[0]);"
        "const row = s.querySelector('[data-rowindex=\"0\"]') || s.querySelector('[role=row][aria-rowindex=\"2\"]');"
        "const header = s.querySelector('.MuiDataGrid-columnHeaders').getBoundingClientRect();"
        "const first = row.getBoundingClientRect();"
        "s.scrollTop = first.top - s.getBoundingClientRect().top + s.scrollTop"
        " + 20 * first.height + first.height / 2 - (header.bottom - s.getBoundingClientRect().top) / 2",
        grid,
    )
    browser.ok("wait", "--idle", "--tab", tab)
    assert browser.js(_UNCOVERED, "Merchant 0020") is False  # the headers lie over it
    body = browser.ok("scroll", grid, "--until", "text=Merchant 0020", "--tab", tab)
    assert body["found"] is True and body["wheels"] >= 1, body
    assert browser.js(_UNCOVERED, "Merchant 0020") is True
