"""`scroll --until` on a MUI X DataGrid Pro of 10,000 rows (issue 32, item 6), from the real
library in app/datagrid-pro.html: one virtualized scroller of 520,056 px whose row i shows
"Merchant " + i (with ?order=unsorted, Merchant (i * 7919 + 13) mod 10,000). A row near or far
is reached, given the grid's scroller or the grid's root; `found` is answered only for the row
itself, drawn and in view inside the grid, never for the same text shown elsewhere on the page
(the page's event log) or for the transparent copy the grid keeps of its focused row, and a row
the grid does not have is answered `not_found`. The page is the oracle: the cell holding the text is in the DOM and the browser's
hit test at its middle lands in it (inside the grid's box, under no header), read by the test.
Wheel turns and seconds are printed (run with -s), never asserted as times."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import scroll_until
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/datagrid-pro.html"
SCROLLER = "#pro-grid .MuiDataGrid-virtualScroller"

# A cell that shows `text` exactly, in the grid, is drawn (not transparent) and hit at its
# middle: in view, uncovered.
_IN_VIEW = """
return [...document.querySelectorAll('#pro-grid [role=gridcell]')]
  .filter((c) => c.innerText.trim() === arguments[0])
  .some((cell) => {
    if (!cell.checkVisibility({ opacityProperty: true })) return false;
    const r = cell.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && cell.contains(hit);
  });
"""

_KEPT = (
    "return getComputedStyle(document.querySelector(`[data-rowindex='${arguments[0]}']`)).opacity"
)

_RENDERED = """
return [...document.querySelectorAll('#pro-grid [role=gridcell]')]
  .some((c) => c.innerText.trim() === arguments[0]);
"""


def _open(browser: Browser, page: Any, **query: str) -> str:
    tab = str(page(PAGE, **query)[0])
    browser.ok("wait", "--target", "#pro-grid [data-rowindex='0']", "--tab", tab)
    return tab


def _until(
    browser: Browser, tab: str, scroller: str, text: str, budget_ms: int = 20_000
) -> tuple[int, dict[str, Any]]:
    code, body, _ = scroll_until(browser, tab, scroller, f"text={text}", budget_ms)
    return code, body


@pytest.mark.parametrize("text", ["Merchant 0742", "Merchant 9317"])
def test_a_row_of_a_10k_grid_is_reached_and_in_view(browser: Browser, page: Any, text: str) -> None:
    tab = _open(browser, page)
    assert browser.js(_IN_VIEW, text) is False
    code, body = _until(browser, tab, SCROLLER, text)
    assert code == 0 and body["found"] is True, body
    assert browser.js(_IN_VIEW, text) is True


def test_a_row_rendered_below_the_box_is_centred_in_one_turn(browser: Browser, page: Any) -> None:
    """The grid renders a buffer of rows below its box: row 10 is there, not in view. The
    bisection went to the middle of the grid and back first (10 turns)."""
    tab = _open(browser, page)
    assert browser.js(_RENDERED, "Merchant 0010") is True
    assert browser.js(_IN_VIEW, "Merchant 0010") is False
    code, body = _until(browser, tab, SCROLLER, "Merchant 0010")
    assert code == 0 and body["found"] is True and body["wheels"] == 1, body
    assert browser.js(_IN_VIEW, "Merchant 0010") is True


def test_the_grid_root_named_as_the_scroller_wheels_its_virtual_scroller(
    browser: Browser, page: Any
) -> None:
    """The grid's root does not scroll; the scroller filling it does (not the page around it)."""
    tab = _open(browser, page)
    code, body = _until(browser, tab, "#pro-grid", "Merchant 0742")
    assert code == 0 and body["found"] is True, body
    assert "MuiDataGrid-virtualScroller" in body["scroller"], body
    assert browser.js(_IN_VIEW, "Merchant 0742") is True


def test_the_text_shown_outside_the_grid_is_not_the_row(browser: Browser, page: Any) -> None:
    """The page's event log shows "row:Merchant 0742" once that row was clicked; with the row
    scrolled out of the grid (and out of the DOM), `scroll --until 'text=Merchant 0742'` on the
    grid answered found after 0 wheel turns: it had found the log. The row is what is meant."""
    tab = _open(browser, page)
    on = ("--tab", tab)
    browser.ok("scroll", SCROLLER, "--until", "text=Merchant 0742", *on)
    browser.ok("click", "text=Merchant 0742", *on)
    browser.ok("scroll", SCROLLER, "--to", "top", *on)
    browser.ok("click", "text=Merchant 0001", *on)  # the focus leaves row 742: not rendered
    browser.ok("wait", "--idle", *on)
    assert browser.js("return window.__events") == ["row:Merchant 0742", "row:Merchant 0001"]
    assert browser.js(_RENDERED, "Merchant 0742") is False
    code, body = _until(browser, tab, SCROLLER, "Merchant 0742")
    assert code == 0 and body["found"] is True and body["wheels"] >= 1, body
    assert browser.js(_IN_VIEW, "Merchant 0742") is True


def test_the_focused_row_kept_transparent_is_not_in_view(browser: Browser, page: Any) -> None:
    """The grid keeps its focused row rendered once it is scrolled away, at opacity 0, laid
    over the rows in view after a far jump: `scroll --until 'text="Merchant 0742"'` on the grid
    answered found after one wheel turn (to the middle of the grid), the row not in view."""
    tab = _open(browser, page)
    on = ("--tab", tab)
    browser.ok("scroll", SCROLLER, "--until", "text=Merchant 0742", *on)
    browser.ok("click", "text=Merchant 0742", *on)
    browser.ok("scroll", SCROLLER, "--to", "top", *on)
    browser.ok("wait", "--idle", *on)
    assert browser.js(_KEPT, 742) == "0"
    assert browser.js(_IN_VIEW, "Merchant 0742") is False
    code, body = _until(browser, tab, SCROLLER, '"Merchant 0742"')
    assert code == 0 and body["found"] is True, body
    assert browser.js(_IN_VIEW, "Merchant 0742") is True


def test_the_transparent_copy_does_not_steer_the_sweep(browser: Browser, page: Any) -> None:
    """In the grid in no searchable order (?order=unsorted, row i shows Merchant (i * 7919 + 13)
    mod 10,000), the focused row's transparent copy was taken for where the text is: the wheel
    went after it a screen a turn (144 turns for row 3000, where the sweep takes one)."""
    tab = _open(browser, page, order="unsorted")
    on = ("--tab", tab)
    text = f"Merchant {(3000 * 7919 + 13) % 10000:04d}"
    code, body = _until(browser, tab, SCROLLER, text)
    assert code == 0 and body["found"] is True, body
    browser.ok("click", f"text={text}", *on)
    browser.ok("scroll", SCROLLER, "--to", "top", *on)
    browser.ok("wait", "--idle", *on)
    assert browser.js(_KEPT, 3000) == "0"
    code, body = _until(browser, tab, SCROLLER, text)
    assert code == 0 and body["found"] is True, body
    assert body["wheels"] <= 5 and body["sweep_steps"] > 0, body
    assert browser.js(_IN_VIEW, text) is True


def test_a_row_the_grid_in_no_order_does_not_have_is_not_found(browser: Browser, page: Any) -> None:
    """In no searchable order, every part of the grid is looked at before not_found."""
    tab = _open(browser, page, order="unsorted")
    code, body = _until(browser, tab, SCROLLER, "Merchant 10000", 30_000)
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert body["error"]["share_seen"] == 1.0, body


_ROW_COUNT = "return document.querySelector('#pro-grid [role=grid]').getAttribute('aria-rowcount')"


@pytest.mark.parametrize("text", ["Merchant 10000", '"Merchant 7317.5"'])
def test_the_sorted_order_proves_a_row_absent_without_a_sweep(
    browser: Browser, page: Any, text: str
) -> None:
    """The grid's 10,000 rows (and a header: aria-rowcount 10,001) hold no "Merchant 10000"
    (it would sort after the last row) and no "Merchant 7317.5" (between rows 7317 and 7318,
    next to each other). The whole list was swept first (about 6 s); the order says it at once
    (at the end, once the end stayed the end for 2 s)."""
    tab = _open(browser, page)
    assert browser.js(_ROW_COUNT) == "10001"
    code, body = _until(browser, tab, SCROLLER, text, 5_000)
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert body["error"]["share_seen"] < 0.5, body
    assert "read as sorted" in body["error"]["message"], body


_OUTSIDE = """
const b = document.createElement('button');
b.textContent = arguments[0];
b.onclick = () => { window.__outside = true; };
document.querySelector('h1').after(b);
"""


def test_the_ref_answered_is_the_row_s_when_the_text_sits_outside_too(
    browser: Browser, page: Any
) -> None:
    """A button above the grid shows "Merchant 0900" as wholly as row 900's cell: the lookup of
    the text was ambiguous, and `found` came with `ref: null`. The ref is the one inside the
    grid: a click on it is the grid's row click (the page's event log), not the button's."""
    tab = _open(browser, page)
    browser.js(_OUTSIDE, "Merchant 0900")
    code, body = _until(browser, tab, SCROLLER, "Merchant 0900")
    assert code == 0 and body["found"] is True and body["ref"], body
    assert browser.js(_IN_VIEW, "Merchant 0900") is True
    browser.ok("click", body["ref"], "--tab", tab)
    assert browser.js("return window.__events") == ["row:Merchant 0900"]
    assert browser.js("return window.__outside === true") is False
