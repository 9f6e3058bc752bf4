"""`reins drag` on fixtures/static/drag.html (a pointer-sensor board that starts a drag only after
5 px with the button held), in real Chromium. The page is the oracle: where the card is in the
DOM, and the drops it recorded."""

from __future__ import annotations

from typing import Any

from .conftest import Browser


def test_drag_moves_a_card_to_another_column(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    body = browser.ok("drag", "#card-1", "#done", "--tab", tab)
    assert browser.js("return window.__drops") == ["card-1->done"]
    assert browser.js("return document.querySelector('#card-1').parentElement.id") == "done"
    boxes = body["drag"]["source_box"]
    assert boxes["after"][0] > boxes["before"][0]  # the card now sits in the right-hand column


def test_drag_drops_at_a_position_inside_the_destination(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    browser.ok("drag", "#card-2", "#pad", "--position", "40,30", "--tab", tab)
    assert browser.js("return window.__drops") == ["card-2->pad@40,30"]


def test_drag_with_a_bad_position_is_a_usage_error(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    code, body = browser.cli("drag", "#card-1", "#done", "--position", "middle", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "bad_request"
    assert browser.js("return window.__drops") == []
