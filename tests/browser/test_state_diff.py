"""`reins state --diff` in real Chromium: a click that adds, removes and renames elements."""

from __future__ import annotations

from typing import Any

from .conftest import Browser


def test_diff_lists_exactly_what_the_page_changed(browser: Browser, page: Any) -> None:
    tab, _ = page("static/diff.html")
    t = str(tab)
    first = browser.ok("state", "--tab", t, "--diff")
    assert first["diff"] == {"full": True, "why": "first"}
    assert first["text"].startswith("= the whole state: no earlier observation")
    assert "@keep" in first["text"], first["text"]

    unchanged = browser.ok("state", "--tab", t, "--diff")
    assert unchanged["diff"] == {"full": False, "added": [], "removed": [], "changed": []}

    browser.ok("click", "--tab", t, "@go")
    # The page is the oracle: what it holds now.
    assert browser.js("return document.getElementById('doomed')") is None
    assert browser.js("return document.getElementById('added').textContent") == "Added"
    full = browser.ok("state", "--tab", t)  # a plain state is an observation too
    assert "@added" in full["text"] and "@doomed" not in full["text"]

    browser.js(
        "document.getElementById('renamed').textContent = 'Newer name';"
        "document.getElementById('added').remove();"
        "const b = document.createElement('button'); b.id = 'late';"
        "b.textContent = 'Late'; document.body.append(b);"
    )
    body = browser.ok("state", "--tab", t, "--diff")
    assert body["diff"] == {
        "full": False,
        "added": ["@late"],
        "removed": ["@added"],
        "changed": ["@renamed"],
    }, (first["text"], full["text"], body["text"])
    assert body["text"].split("\n") == [
        '- @added button "Added"',
        '~ @renamed button "Newer name"',
        '+ @late button "Late"',
    ]
    assert {r["ref"] for r in body["refs"]} == {"@late", "@renamed"}
    assert body["approx_tokens"] * 10 < full["approx_tokens"]

    # A new document: the whole state; then the click's changes against it (refs carried over).
    browser.ok("navigate", "--tab", t, full["url"])
    after_nav = browser.ok("state", "--tab", t, "--diff")
    assert after_nav["diff"] == {"full": True, "why": "new_document"}
    browser.ok("click", "--tab", t, "@go")
    clicked = browser.ok("state", "--tab", t, "--diff")
    assert browser.js("return document.activeElement.id") == "go"  # the click focused it
    assert clicked["diff"] == {
        "full": False,
        "added": ["@added"],
        "removed": ["@doomed"],
        "changed": ["@go", "@renamed"],
    }
    assert clicked["text"].split("\n") == [
        '- @doomed button "Remove me"',
        '~ @go button "Change" [focused]',
        '~ @renamed button "New name"',
        '+ @added button "Added"',
    ]
