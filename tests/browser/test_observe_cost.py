"""What `state` and `map` answer on the pages whose collection work tests/pagescript/
test_collect_cost.py counts (the compact record is built without the fields only the interaction
map reads; the counting is done there, in the page's world, since reins's own world is out of the
page's reach): what is left out for `state` does not change what it names, and `map` still has
it."""

from __future__ import annotations

from typing import Any

from .conftest import Browser


def test_state_does_no_hit_test_and_the_map_still_says_what_is_covered(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/actions.html?overlay=1")
    body = browser.ok("state", "--tab", str(tab))
    assert any(r["name"] == "Covered button" for r in body["refs"])
    imap = browser.ok("map", "--tab", str(tab))["map"]
    covered = next(e for e in imap["elements"].values() if e["attributes"].get("id") == "covered")
    assert covered["visibility"]["obscured"] is True
    assert covered["attributes"]["type"] == "button"


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
    assert browser.js(SELECTS)
    refs = {r["ref"]: r for r in browser.ok("state", "--tab", str(tab))["refs"]}
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
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    assert len(refs) == 40
    imap = browser.ok("map", "--tab", str(tab))["map"]
    button = next(e for e in imap["elements"].values() if e["attributes"].get("id") == "btn-4")
    assert button["selectors"]["best"] == "#btn-4"
    assert button["selectors"]["byText"] is not None  # the map still has the other kinds
    # A ref resolved by the best selector state chose (the page's own log).
    browser.ok("click", "@btn4", "--tab", str(tab))
    assert browser.js("return window.__log") == ["click:btn-4"]


LABELS = (
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
    assert browser.js(LABELS)
    refs = {r["ref"]: r for r in browser.ok("state", "--tab", str(tab))["refs"]}
    # Each control keeps the name the full algorithm gives it.
    assert refs["@input2"]["name"] == "Field 2" and refs["@select3"]["name"] == "Choice 3"
    assert refs["@qty"]["name"] == "Quantity"  # its own value is not part of its name
    assert refs["@pick"]["name"].startswith("Pick")
    imap = browser.ok("map", "--tab", str(tab))["map"]
    links = [e for e in imap["elements"].values() if e["attributes"].get("id") == "link-1"]
    assert links and links[0]["attributes"]["href"] == "#item-1"
