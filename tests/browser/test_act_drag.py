"""`reins drag` on fixtures/static/drag.html (a pointer-sensor board that starts a drag only after
5 px with the button held), in real Chromium. The page is the oracle: where the card is in the
DOM, and the drops it recorded."""

from __future__ import annotations

from typing import Any

from ._act_support import eventually
from .conftest import Browser


def test_drag_moves_a_card_to_another_column(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    body = browser.ok("drag", "#card-1", "#done", "--tab", tab)
    assert browser.js("return window.__drops") == ["card-1->done"]
    assert browser.js("return document.querySelector('#card-1').parentElement.id") == "done"
    moved = body["drag"]["moved"]  # what the page shows moved: the card, into the Done column
    assert moved["from"]["parent"].startswith("#todo") and moved["to"]["parent"].startswith("#done")
    assert body["drag"]["native"] is False


def test_drag_drops_at_a_position_inside_the_destination(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    browser.ok("drag", "#card-2", "#pad", "--position", "40,30", "--tab", tab)
    assert browser.js("return window.__drops") == ["card-2->pad@40,30"]


def test_drag_with_a_bad_position_is_a_usage_error(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    code, body = browser.cli("drag", "#card-1", "#done", "--position", "middle", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "bad_request"
    assert browser.js("return window.__drops") == []


def test_mouse_move_down_up_drags_by_hand(browser: Browser, page: Any) -> None:
    tab = str(page("static/drag.html")[0])
    x, y = browser.js(
        "const r = document.querySelector('#card-1').getBoundingClientRect();"
        "return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]"
    )
    dx, dy = browser.js(
        "const r = document.querySelector('#done').getBoundingClientRect();"
        "return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]"
    )
    browser.ok("mouse", "move", str(x), str(y), "--tab", tab)
    assert browser.ok("mouse", "down", "--tab", tab)["buttons"] == 1
    browser.ok("mouse", "move", str(dx), str(dy), "--steps", "8", "--tab", tab)
    assert browser.ok("mouse", "up", "--tab", tab)["buttons"] == 0
    assert browser.js("return window.__drops") == ["card-1->done"]


def test_mouse_wheel_scrolls_what_is_under_the_mouse(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    x, y = browser.js(
        "const r = document.querySelector('#box').getBoundingClientRect();"
        "return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]"
    )
    browser.ok("mouse", "move", str(x), str(y), "--tab", tab)
    browser.ok("mouse", "wheel", "0", "120", "--tab", tab)
    top = _eventually_top(browser, lambda v: v > 0)
    assert top > 0 and browser.js("return window.scrollY") == 0
    browser.ok("mouse", "wheel", "--tab", tab, "--", "0", "-120")
    assert _eventually_top(browser, lambda v: v < top) < top


def _eventually_top(browser: Browser, ok: Any) -> int:
    return int(
        eventually(
            lambda: browser.js("return document.querySelector('#box').scrollTop"), ok, timeout=2
        )
    )
