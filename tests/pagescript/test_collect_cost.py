"""What the collection leaves out for `state` (the compact record) and still does for `map` (the
full one), counted by the page: its hit tests, the computed styles of <option> elements, the text
indexes of byText selectors, link URLs read and label scans. Run here, in the page's world, where
the page's counting built-ins are what the collection calls (reins runs the same code in its own
world, where a page's built-ins never are: tests/browser/test_hostile_world.py)."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

from .conftest import Collect

# `state`'s options and the interaction map's (observe/collect.py snapshot_page).
STATE = {"maxElements": 50_000, "withSelectors": True, "compact": True, "scrollRegions": 6}
MAP = {**STATE, "compact": False}

COUNT_HIT_TESTS = (
    "const real = Document.prototype.elementFromPoint; window.__hits = 0;"
    "Document.prototype.elementFromPoint = function (...args) {"
    " window.__hits += 1; return real.apply(this, args); };"
)

COUNT_OPTION_STYLES_AND_TEXT_INDEXES = (
    "const style = window.getComputedStyle; window.__optionStyles = {};"
    "window.getComputedStyle = function (el, ...rest) {"
    " if (el instanceof HTMLOptionElement) { const id = el.parentElement.id;"
    "  window.__optionStyles[id] = (window.__optionStyles[id] || 0) + 1; }"
    " return style.call(this, el, ...rest); };"
    "const byTag = Document.prototype.getElementsByTagName; window.__textIndexes = 0;"
    "Document.prototype.getElementsByTagName = function (...args) {"
    " window.__textIndexes += 1; return byTag.apply(this, args); };"
)

SELECTS = (
    "document.body.insertAdjacentHTML('beforeend',"
    " '<select id=dropdown><option>alpha</option><option>beta</option><option>gamma</option>"
    "</select><select id=listbox size=3><option>one</option><option>two</option></select>"
    "<select id=multi multiple><option>red</option><option>green</option></select>');"
)

COUNT_HREFS_AND_LABEL_SCANS = (
    "const href = Object.getOwnPropertyDescriptor(HTMLAnchorElement.prototype, 'href');"
    "window.__hrefs = 0;"
    "Object.defineProperty(HTMLAnchorElement.prototype, 'href', { configurable: true,"
    " get() { window.__hrefs += 1; return href.get.call(this); },"
    " set(v) { href.set.call(this, v); } });"
    "const query = Element.prototype.querySelectorAll; window.__labelScans = 0;"
    "Element.prototype.querySelectorAll = function (...args) {"
    " if (this instanceof HTMLLabelElement) window.__labelScans += 1;"
    " return query.apply(this, args); };"
    "document.body.insertAdjacentHTML('beforeend',"
    " '<label>Quantity <input id=qty value=3></label>"
    "<label for=pick>Pick <select><option>x</option></select></label><button id=pick>Go</button>');"
)


def _open(driver: webdriver.Chrome, servers: dict[str, Any], path: str, *scripts: str) -> None:
    driver.get(f"{servers['base']}/static/{path}")
    for script in scripts:
        driver.execute_script(script)


def _by_id(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for record in result["elements"]:
        best = record.get("best")
        sel = (record.get("selectors") or {}).get(best) if best else None
        if sel and str(sel.get("sel", "")).startswith("#"):
            out[str(sel["sel"])[1:]] = record
    return out


def test_state_does_no_hit_test_and_the_map_does(
    driver: webdriver.Chrome, servers: dict[str, Any], collect: Collect
) -> None:
    _open(driver, servers, "actions.html?overlay=1", COUNT_HIT_TESTS)
    collect(**STATE)
    assert driver.execute_script("return window.__hits") == 0
    collect(**MAP)
    assert driver.execute_script("return window.__hits") > 0


def test_state_leaves_a_drop_down_selects_options_unvisited_and_a_list_boxs_visited(
    driver: webdriver.Chrome, servers: dict[str, Any], collect: Collect
) -> None:
    _open(driver, servers, "big.html?n=8", SELECTS, COUNT_OPTION_STYLES_AND_TEXT_INDEXES)
    collect(**STATE)
    counts = driver.execute_script("return window.__optionStyles")
    # A drop-down's options are never page content (no box): the walk does not go in.
    assert "dropdown" not in counts and "select-3" not in counts, counts
    # A list box renders its options: they are walked as before.
    assert counts.get("listbox", 0) >= 2 and counts.get("multi", 0) >= 2, counts


def test_state_tries_selector_kinds_only_until_one_is_unique_and_the_map_tries_all(
    driver: webdriver.Chrome, servers: dict[str, Any], collect: Collect
) -> None:
    # Every control of big.html has a unique id: `state`, which sends only the best selector,
    # stops there; the map, which lists every kind, also builds the text indexes of byText.
    _open(driver, servers, "big.html?n=40", COUNT_OPTION_STYLES_AND_TEXT_INDEXES)
    state = collect(**STATE)
    assert len(state["elements"]) == 40
    assert driver.execute_script("return window.__textIndexes") == 0
    full = collect(**MAP)
    assert driver.execute_script("return window.__textIndexes") > 0
    button = _by_id(full)["btn-4"]
    assert button["selectors"]["byText"] is not None


def test_state_reads_no_link_url_nor_scans_a_label_of_text_and_the_map_reads_them(
    driver: webdriver.Chrome, servers: dict[str, Any], collect: Collect
) -> None:
    # big.html?n=8: two links, four text-only labels (for an input and a select each).
    _open(driver, servers, "big.html?n=8", COUNT_HREFS_AND_LABEL_SCANS)
    collect(**STATE)
    # The compact record has no href: `state` never resolves a link's URL.
    assert driver.execute_script("return window.__hrefs") == 0
    # Text-only labels name their controls without a scan; the two with an element inside are.
    assert driver.execute_script("return window.__labelScans") == 2
    collect(**MAP)
    assert driver.execute_script("return window.__hrefs") >= 2


def test_a_records_strings_do_not_grow_with_the_page_s(
    driver: webdriver.Chrome, servers: dict[str, Any], collect: Collect
) -> None:
    # Two buttons whose label, id, test id, title and value are megabytes long.
    _open(
        driver,
        servers,
        "big.html?n=2",
        "const big = (c) => c.repeat(2_000_000);"
        "for (const [id, c] of [['huge-1', 'a'], ['huge-2', 'b']]) {"
        " const b = document.createElement('button'); b.id = id + big(c);"
        " b.setAttribute('aria-label', big(c)); b.dataset.testid = big(c); b.title = big(c);"
        " b.textContent = big(c); document.body.append(b); }"
        "const i = document.createElement('input'); i.value = big('v'); i.id = 'long-value';"
        "document.body.append(i);",
    )
    for options in (STATE, MAP):
        result = collect(**options)
        records = [r for r in result["elements"] if str(r.get("aria_label") or "")[:1] in "ab"]
        records = [r for r in records if r.get("aria_label")]
        assert len(records) == 2
        for record in records:
            for key in ("name", "id", "testid", "aria_label"):
                assert 0 < len(record[key]) <= 1000, key
            best = record["selectors"][record["best"]]["sel"]
            assert len(best) <= 2100, best[:80]  # no selector built of a megabyte value
            for value in (record.get("attributes") or {}).values():
                assert not isinstance(value, str) or len(value) <= 1000
        [field] = [r for r in result["elements"] if r.get("id") == "long-value"]
        assert len(field["value"]) == 1000
