"""What the page script leaves out for `state`: the compact record is built without the fields
only the interaction map reads (the hit test for `obscured`, the attributes), while `map` still
has them. The page is the oracle: it counts its own hit tests."""

from __future__ import annotations

from typing import Any

from .conftest import Browser

COUNT_HIT_TESTS = (
    "const real = Document.prototype.elementFromPoint; window.__hits = 0;"
    "Document.prototype.elementFromPoint = function (...args) {"
    " window.__hits += 1; return real.apply(this, args); };"
    "return true"
)


def test_state_does_no_hit_test_and_the_map_still_says_what_is_covered(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/actions.html?overlay=1")
    assert browser.js(COUNT_HIT_TESTS)
    body = browser.ok("state", "--tab", str(tab))
    assert any(r["name"] == "Covered button" for r in body["refs"])
    assert browser.js("return window.__hits") == 0
    imap = browser.ok("map", "--tab", str(tab))["map"]
    assert browser.js("return window.__hits") > 0
    covered = next(e for e in imap["elements"].values() if e["attributes"].get("id") == "covered")
    assert covered["visibility"]["obscured"] is True
    assert covered["attributes"]["type"] == "button"


# The page counts the computed styles read of <option> elements (the walk reads one per element
# it visits) and the text indexes built for byText selectors (one getElementsByTagName per tag).
COUNT_OPTION_STYLES_AND_TEXT_INDEXES = (
    "const style = window.getComputedStyle; window.__optionStyles = {};"
    "window.getComputedStyle = function (el, ...rest) {"
    " if (el instanceof HTMLOptionElement) { const id = el.parentElement.id;"
    "  window.__optionStyles[id] = (window.__optionStyles[id] || 0) + 1; }"
    " return style.call(this, el, ...rest); };"
    "const byTag = Document.prototype.getElementsByTagName; window.__textIndexes = 0;"
    "Document.prototype.getElementsByTagName = function (...args) {"
    " window.__textIndexes += 1; return byTag.apply(this, args); };"
    "return true"
)

SELECTS = (
    "document.body.insertAdjacentHTML('beforeend',"
    " '<select id=dropdown><option>alpha</option><option>beta</option><option>gamma</option>"
    "</select><select id=listbox size=3><option>one</option><option>two</option></select>"
    "<select id=multi multiple><option>red</option><option>green</option></select>');"
    "return true"
)


def test_state_leaves_a_drop_down_selects_options_unvisited_and_a_list_boxs_visited(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/big.html?n=8")
    assert browser.js(SELECTS) and browser.js(COUNT_OPTION_STYLES_AND_TEXT_INDEXES)
    refs = {r["ref"]: r for r in browser.ok("state", "--tab", str(tab))["refs"]}
    # A drop-down's options are never page content (no box): the walk does not go in.
    counts = browser.js("return window.__optionStyles")
    assert "dropdown" not in counts and "select-3" not in counts, counts
    # A list box renders its options: they are walked as before.
    assert counts.get("listbox", 0) >= 2 and counts.get("multi", 0) >= 2, counts
    # The selects themselves are listed with what they show.
    assert refs["@dropdown"]["value"] == "alpha" and refs["@dropdown"]["role"] == "combobox"
    assert refs["@listbox"]["role"] == "listbox" and refs["@multi"]["role"] == "listbox"
    # And still chosen by their ref: the page commits the option.
    browser.ok("select", "@dropdown", "gamma", "--tab", str(tab))
    assert browser.js("return document.getElementById('dropdown').value") == "gamma"


def test_state_tries_selector_kinds_only_until_one_is_unique_and_the_map_tries_all(
    browser: Browser, page: Any
) -> None:
    # Every control of big.html has a unique id: `state`, which sends only the best selector,
    # stops there; the map, which lists every kind, also builds the text indexes of byText.
    tab, _ = page("static/big.html?n=40")
    assert browser.js(COUNT_OPTION_STYLES_AND_TEXT_INDEXES)
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    assert len(refs) == 40
    assert browser.js("return window.__textIndexes") == 0
    imap = browser.ok("map", "--tab", str(tab))["map"]
    assert browser.js("return window.__textIndexes") > 0
    button = next(e for e in imap["elements"].values() if e["attributes"].get("id") == "btn-4")
    assert button["selectors"]["best"] == "#btn-4"
    assert button["selectors"]["byText"] is not None  # the map still has the other kinds
    # A ref resolved by the best selector state chose (the page's own log).
    browser.ok("click", "@btn4", "--tab", str(tab))
    assert browser.js("return window.__log") == ["click:btn-4"]


# The page counts the link URLs read (a link's `href` property resolves it) and the label scans
# for embedded controls (querySelectorAll called on a <label>).
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
    "return true"
)


def test_state_reads_no_link_url_nor_scans_a_label_of_text_and_the_map_reads_them(
    browser: Browser, page: Any
) -> None:
    # big.html?n=8: two links, four text-only labels (for an input and a select each).
    tab, _ = page("static/big.html?n=8")
    assert browser.js(COUNT_HREFS_AND_LABEL_SCANS)
    refs = {r["ref"]: r for r in browser.ok("state", "--tab", str(tab))["refs"]}
    # The compact record has no href: `state` never resolves a link's URL.
    assert browser.js("return window.__hrefs") == 0
    # Text-only labels name their controls without a scan; the two with an element inside are
    # scanned, and each control keeps the name the full algorithm gives it.
    assert browser.js("return window.__labelScans") == 2
    assert refs["@input2"]["name"] == "Field 2" and refs["@select3"]["name"] == "Choice 3"
    assert refs["@qty"]["name"] == "Quantity"  # its own value is not part of its name
    assert refs["@pick"]["name"].startswith("Pick")
    imap = browser.ok("map", "--tab", str(tab))["map"]
    assert browser.js("return window.__hrefs") >= 2
    links = [e for e in imap["elements"].values() if e["attributes"].get("id") == "link-1"]
    assert links and links[0]["attributes"]["href"] == "#item-1"
