"""MUI X's DatePicker field, as a new user drives it (issue 32, item 5): the field is a group of
Month/Day/Year sections (`role=spinbutton`, contenteditable), drawn at opacity 0 under the field's
label while empty, and it moves focus from one section to the next as digits are typed. The
sections are listed; `click` a section then `type` the digits, or `fill` the field (or a section)
with an ISO date put in the field's order. The page is the oracle: what it committed (its
onChange log and the date it shows)."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import page_log
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/mui-x.html"


def _committed(browser: Browser) -> tuple[str, str]:
    events = [e for e in page_log(browser, "__events") if e.startswith("date:")]
    shown = str(browser.js("return document.getElementById('date-value').textContent"))
    return (events[-1] if events else ""), shown


def _open(browser: Browser, page: Any) -> str:
    tab = str(page(PAGE)[0])
    browser.ok("wait", "--target", "#grid", "--tab", tab)
    return tab


def test_the_empty_field_s_sections_are_listed(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    refs = browser.ok("state", "--tab", tab)["refs"]
    named = [(r["role"], r["name"]) for r in refs]
    for section in ("Month", "Day", "Year"):
        assert ("spinbutton", section) in named, named


def test_click_a_section_then_type_the_digits(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    browser.ok("click", "role=spinbutton[name='Month']", "--tab", tab)
    body = browser.ok("type", "role=spinbutton[name='Month']", "03152026", "--tab", tab)
    assert body["value"] == "03/15/2026", body
    assert _committed(browser) == ("date:2026-03-15", "2026-03-15")


def test_fill_the_field_with_an_iso_date(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    body = browser.ok("fill", "role=group[name='Due date']", "2026-04-20", "--tab", tab)
    assert body["value"] == "04/20/2026", body
    assert _committed(browser) == ("date:2026-04-20", "2026-04-20")
    # Again, over the date it holds, through one of its sections.
    body = browser.ok("fill", "role=spinbutton[name='Day']", "2025-12-31", "--tab", tab)
    assert body["value"] == "12/31/2025", body
    assert _committed(browser) == ("date:2025-12-31", "2025-12-31")


def test_a_date_the_field_cannot_take_is_a_mismatch_not_ok(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    code, body = browser.cli("fill", "role=group[name='Due date']", "2026-13-45", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "fill_mismatch", body
    assert _committed(browser)[1] != "2026-13-45"
