"""`reins drag` on drag and drop built the ways SaaS apps build it, in real Chromium:

- dnd-kit (fixtures/app/dnd.html): PointerSensor with a 5 px activation distance, a kanban board
  (cards between columns, `pointerWithin`) and a sortable list (`closestCenter`, arrayMove);
- the browser's own HTML5 drag and drop (fixtures/static/native-drag.html): `draggable=true`,
  dataTransfer set on dragstart and read on drop.

The page is the oracle: the order it committed (`__board`, `__order`, its drop handler's log)."""

from __future__ import annotations

from typing import Any

from ._act_support import eventually, page_log
from .conftest import Browser


def _dnd(browser: Browser, page: Any) -> str:
    tab = str(page("app/dnd.html")[0])
    eventually(lambda: browser.js("return !!window.__order && !!window.__board"), bool)
    return tab


def test_dnd_kit_card_moves_to_another_column(browser: Browser, page: Any) -> None:
    tab = _dnd(browser, page)
    body = browser.ok("drag", "[data-testid=card-2]", "[data-testid=col-done]", "--tab", tab)
    board = eventually(lambda: browser.js("return window.__board"), lambda b: b["done"])
    assert board == {"todo": ["card-1", "card-3"], "doing": [], "done": ["card-2"]}
    assert browser.js("return window.__events") == ["move:card-2:todo->done"]
    moved = body["drag"]["moved"]
    assert moved["from"]["parent"] != moved["to"]["parent"], moved
    assert moved["to"]["parent"] == 'section[data-testid="col-done"] "Done"', moved


def test_dnd_kit_card_dropped_at_a_position_lands_in_that_column(
    browser: Browser, page: Any
) -> None:
    tab = _dnd(browser, page)
    # The board's middle column, near its top-left corner: pointerWithin picks it by the pointer.
    browser.ok(
        "drag", "text=Write report", "[data-testid=col-doing]", "--position", "12,12", "--tab", tab
    )
    board = eventually(lambda: browser.js("return window.__board"), lambda b: b["doing"])
    assert board["doing"] == ["card-1"] and board["todo"] == ["card-2", "card-3"]


def test_dnd_kit_sortable_item_moves_down_the_list(browser: Browser, page: Any) -> None:
    tab = _dnd(browser, page)
    body = browser.ok("drag", "[data-testid=item-alpha]", "[data-testid=item-delta]", "--tab", tab)
    order = eventually(lambda: browser.js("return window.__order"), lambda o: o[0] != "Alpha")
    assert order == ["Bravo", "Charlie", "Delta", "Alpha", "Echo"]
    assert browser.js("return document.querySelector('#list-order').textContent") == (
        "Bravo,Charlie,Delta,Alpha,Echo"
    )
    moved = body["drag"]["moved"]
    assert (moved["from"]["index"], moved["to"]["index"]) == (0, 3), moved


def test_dnd_kit_sortable_item_moves_up_the_list(browser: Browser, page: Any) -> None:
    tab = _dnd(browser, page)
    browser.ok("drag", "text=Echo", "text=Bravo", "--tab", tab)
    order = eventually(lambda: browser.js("return window.__order"), lambda o: o[-1] != "Echo")
    assert order == ["Alpha", "Echo", "Bravo", "Charlie", "Delta"]


def test_native_drag_and_drop_reaches_the_drop_handler(browser: Browser, page: Any) -> None:
    tab = str(page("static/native-drag.html")[0])
    body = browser.ok("drag", "#item-1", "#archive", "--tab", tab)
    assert browser.js("return window.__drops") == ["item-1->archive"]
    assert browser.js("return document.querySelector('#item-1').parentElement.id") == "archive"
    log = page_log(browser)
    assert log[0] == "dragstart:item-1" and "drop:item-1:archive:files=0" in log, log
    assert eventually(lambda: page_log(browser)[-1], lambda v: v.startswith("dragend"))
    assert page_log(browser)[-1] == "dragend:item-1:move"
    assert body["drag"]["native"] is True
    assert body["drag"]["moved"]["to"]["parent"].startswith("#archive")


def test_native_drop_at_a_position_inside_the_destination(browser: Browser, page: Any) -> None:
    tab = str(page("static/native-drag.html")[0])
    browser.ok("drag", "#item-2", "#pad", "--position", "40,30", "--tab", tab)
    assert browser.js("return window.__drops") == ["item-2->pad@40,30"]


def test_native_drag_then_a_click_still_works(browser: Browser, page: Any) -> None:
    """After an intercepted drag the page's mouse is released: the next drag starts afresh."""
    tab = str(page("static/native-drag.html")[0])
    browser.ok("drag", "#item-1", "#archive", "--tab", tab)
    browser.ok("drag", "#item-2", "#archive", "--tab", tab)
    assert browser.js("return window.__drops") == ["item-1->archive", "item-2->archive"]


def test_interception_is_off_after_a_drag(browser: Browser, page: Any) -> None:
    """A native drag by hand after `reins drag` runs as the browser's own: had reins left Chrome
    intercepting drags, it would stop after dragstart and never drop."""
    tab = str(page("static/native-drag.html")[0])
    browser.ok("drag", "#item-1", "#archive", "--tab", tab)
    x, y, dx, dy = browser.js(
        "const a = document.querySelector('#item-2').getBoundingClientRect();"
        "const b = document.querySelector('#archive').getBoundingClientRect();"
        "return [a.x + a.width / 2, a.y + a.height / 2, b.x + b.width / 2, b.y + b.height / 2]"
        ".map(Math.round)"
    )
    browser.ok("mouse", "move", str(x), str(y), "--tab", tab)
    browser.ok("mouse", "down", "--tab", tab)
    browser.ok("mouse", "move", str(dx), str(dy), "--steps", "8", "--tab", tab)
    browser.ok("mouse", "up", "--tab", tab)
    drops = eventually(lambda: browser.js("return window.__drops"), lambda d: len(d) == 2)
    assert drops == ["item-1->archive", "item-2->archive"]
