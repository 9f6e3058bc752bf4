"""`scroll --until` on long virtual lists in no searchable order (issue 32, item 6), from the real
library in app/virtual-lists.html: TanStack Virtual lists of 10,000 rows (400,000 px) and
100,000 rows (4,000,000 px) whose row i shows "Vendor " + (i * 7919 + 13) mod N; and in
app/virtual-window.html, 10,000 such rows in a list that scrolls with the page. Nothing tells
where a row is, so the list is swept; `found` is never answered for a row that is not there and
in view, and a row that is in no part of the list is answered `not_found` once the whole list was
seen. The page is the oracle: the row's box inside the list's box, read by the test. Wheel turns
and seconds are printed (run with -s), never asserted as times."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ._act_support import scroll_until
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/virtual-lists.html"

_IN_VIEW = """
const [list, text] = arguments;
const box = document.querySelector(list).getBoundingClientRect();
const row = [...document.querySelectorAll(list + ' [role=listitem]')]
  .find((r) => r.innerText.trim() === text);
if (!row) return false;
const r = row.getBoundingClientRect();
const mid = r.top + r.height / 2;
return mid > box.top && mid < box.bottom;
"""


def _vendor(index: int, count: int) -> str:
    return f"Vendor {(index * 7919 + 13) % count:0{len(str(count - 1))}d}"


def _open(browser: Browser, page: Any, list_id: str) -> str:
    tab = str(page(PAGE)[0])
    browser.ok("wait", "--target", f"#{list_id} [data-index='0']", "--tab", tab)
    return tab


def _until(
    browser: Browser, tab: str, list_id: str, text: str, budget_ms: int
) -> tuple[int, dict[str, Any], float]:
    return scroll_until(browser, tab, f"#{list_id}", f"text={text}", budget_ms)


@pytest.mark.parametrize(
    ("list_id", "size", "index"),
    [("unsorted-10k", 10_000, i) for i in (7, 1500, 5000, 9990)]
    + [("unsorted-100k", 100_000, i) for i in (7, 50_000, 99_990)],
)
def test_a_row_of_a_long_unsorted_list_is_reached_and_in_view(
    browser: Browser, page: Any, list_id: str, size: int, index: int
) -> None:
    tab = _open(browser, page, list_id)
    text = _vendor(index, size)
    code, body, _ = _until(browser, tab, list_id, text, 60_000)
    assert code == 0 and body["found"] is True, body
    assert browser.js(_IN_VIEW, f"#{list_id}", text) is True


def test_a_row_in_no_part_of_a_10k_unsorted_list_is_not_found_after_one_sweep(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page, "unsorted-10k")
    code, body, _ = _until(browser, tab, "unsorted-10k", "Vendor 10000", 60_000)
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert "SCROLLER" in body["error"]["message"], body  # the next step
    # The sweep went the whole way down.
    assert browser.js(
        "const l = document.querySelector('#unsorted-10k');"
        "return l.scrollTop >= l.scrollHeight - l.clientHeight - 1"
    )


def test_a_row_in_no_part_of_a_100k_unsorted_list_is_not_found_after_one_sweep(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page, "unsorted-100k")
    code, body, _ = _until(browser, tab, "unsorted-100k", "Vendor 100000", 60_000)
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert body["error"]["share_seen"] == 1.0, body


def test_a_sweep_cut_short_by_the_budget_says_how_far_it_got_and_what_to_do(
    browser: Browser, page: Any
) -> None:
    tab = _open(browser, page, "unsorted-100k")
    code, body, _ = _until(browser, tab, "unsorted-100k", "Vendor 100000", 4_000)
    assert code == 1 and body["error"]["code"] == "timeout", body
    assert 0 < body["error"]["share_seen"] < 1, body
    assert "--timeout-ms" in body["error"]["message"], body


_IN_WINDOW = """
const row = [...document.querySelectorAll('#window-list [role=listitem]')]
  .find((r) => r.innerText.trim() === arguments[0]);
if (!row) return false;
const r = row.getBoundingClientRect();
const mid = r.top + r.height / 2;
return mid > 0 && mid < innerHeight;
"""


@pytest.mark.parametrize("index", [5000, 9990])
def test_a_row_of_a_list_that_scrolls_with_the_page_is_reached_and_in_view(
    browser: Browser, page: Any, index: int
) -> None:
    tab = str(page("app/virtual-window.html")[0])
    browser.ok("wait", "--target", "#window-list [data-index='0']", "--tab", tab)
    text = _vendor(index, 10_000)
    began = time.monotonic()
    body = browser.ok("scroll", "--until", f"text={text}", "--tab", tab, "--timeout-ms", "30000")
    print(
        f"\npage {text}: {body['wheels']} wheel turns, {body['sweep_steps']} sweep steps, "
        f"{time.monotonic() - began:.2f} s whole process"
    )
    assert body["found"] is True and body["scroller"] == "page", body
    assert browser.js(_IN_WINDOW, text) is True
