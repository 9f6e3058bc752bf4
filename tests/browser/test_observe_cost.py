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
