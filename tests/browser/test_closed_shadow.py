"""A control inside a closed shadow root is never pressed as its host (issue 45): a host titled
"Save draft" whose closed shadow root holds a full-size "Delete my account" button. Chrome's hit
test answers the button inside; reins sees it inside a closed root under a control of that tree
and refuses (`ambiguous`, naming the inner control). The page is the oracle: its log of presses."""

from __future__ import annotations

import time
from typing import Any

from ._act_support import page_log, refs_by_name
from .conftest import Browser

PAGE = "static/closed-shadow.html"


def test_a_host_is_not_pressed_as_the_control_its_closed_root_holds(
    browser: Browser, page: Any
) -> None:
    tab = str(page(PAGE)[0])
    refs = refs_by_name(browser.ok("state", "--tab", tab))
    targets = ["#draft", refs["Save draft"]]
    for target in targets:
        code, body = browser.cli("click", target, "--tab", tab, "--timeout-ms", "2000")
        assert code == 1 and body["error"]["code"] == "ambiguous", body
        assert "Delete my account" in body["error"]["inner_control"], body
    time.sleep(0.2)
    assert page_log(browser) == []
    browser.ok("click", "#plain", "--tab", tab)
    assert page_log(browser) == ["plain:click"]


def test_state_lists_what_a_closed_root_holds_from_the_browser(browser: Browser, page: Any) -> None:
    """Page scripts (reins's world too) see the host alone; Chrome's tree has the button."""
    tab = str(page(PAGE)[0])
    body = browser.ok("state", "--tab", tab)
    draft = next(r for r in body["refs"] if r["name"] == "Save draft")
    assert draft["holds"] == [{"role": "button", "name": "Delete my account"}], body
    assert all(r["holds"] == [] for r in body["refs"] if r["name"] != "Save draft"), body
    line = next(ln for ln in body["text"].splitlines() if '"Save draft"' in ln)
    assert line.endswith('[holds button "Delete my account"]'), body["text"]
