"""A click by ref given in the round trip that looks the ref up (act/refs.py, ``Press``): only when
the page finds the very node the latest `state` showed, with the identity the host checked, ready
and hit at the middle of the box it was seen at; otherwise the batch stops before any input and
the click goes the usual way. Either way the page receives exactly one click per command.

The page is the oracle: its log of clicks, its text, the dialog it opened."""

from __future__ import annotations

from typing import Any

from ._act_support import page_log
from .conftest import Browser


def _count(events: dict[str, int], name: str) -> int:
    return events.get(name, 0)


def _ref_of(browser: Browser, tab: str, text: str) -> str:
    """`state` of the tab, and the ref on the line that shows ``text``."""
    shown = browser.ok("state", "--tab", tab, "--max-tokens", "0")["text"]
    ref = next(w for line in shown.splitlines() if text in line for w in line.split())
    assert ref.startswith("@"), shown
    return str(ref)


def test_a_click_by_ref_after_state_is_given_with_the_lookup(browser: Browser, page: Any) -> None:
    tab = str(page("static/effects.html")[0])
    shown = browser.ok("state", "--tab", tab, "--max-tokens", "0")
    assert "@changes " in shown["text"], shown["text"]
    before = browser.events()
    for n in (1, 2, 3):
        body = browser.ok("click", "@changes", "--tab", tab)
        assert body["method"] == "cdp" and body["ref"] == "@changes", body
        assert body["effect"].get("dom_changed_elsewhere", 0) >= 1, body
        assert browser.js("return document.querySelector('#out').textContent") == f"changed {n}"
    after = browser.events()
    assert _count(after, "press_with_lookup") == _count(before, "press_with_lookup") + 3, after
    assert page_log(browser) == ["changes:click"] * 3
    # A click whose handler changes nothing answers so, from the same single round trip.
    body = browser.ok("click", "@quiet", "--tab", tab)
    body = browser.ok("click", "@quiet", "--tab", tab)
    assert body["effect"] == {} and body["warnings"] == ["no_effect"], body
    assert page_log(browser)[-2:] == ["quiet:click", "quiet:click"]


def test_a_moved_or_covered_or_renamed_element_stops_the_batch_before_the_input(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/effects.html")[0])
    browser.ok("state", "--tab", tab, "--max-tokens", "0")

    def refused_then_clicked_once(change: str, expect_log: list[str]) -> dict[str, Any]:
        before = browser.events()
        browser.js(change)
        code, body = browser.cli("click", "@changes", "--tab", tab, "--timeout-ms", "3000")
        after = browser.events()
        assert _count(after, "press_with_lookup_refused") == (
            _count(before, "press_with_lookup_refused") + 1
        ), (change, after)
        assert _count(after, "press_with_lookup") == _count(before, "press_with_lookup")
        assert page_log(browser) == expect_log, (change, body)
        return {"code": code, **body}

    # Moved down the page: the middle of where it was seen is not on it any more.
    moved = refused_then_clicked_once(
        "document.querySelector('section').style.marginTop = '160px'", ["changes:click"]
    )
    assert moved["code"] == 0 and moved["method"] == "cdp", moved
    browser.js("window.__log.length = 0; document.querySelector('section').style.marginTop = ''")
    browser.ok("state", "--tab", tab, "--max-tokens", "0")

    # Covered where it was seen: nothing reaches the page; the usual path says what covers it.
    covered = refused_then_clicked_once(
        "const c = document.createElement('div'); c.id = 'veil';"
        "c.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,.2)';"
        "document.body.append(c)",
        [],
    )
    assert covered["code"] == 1 and covered["error"]["code"] == "obscured", covered
    browser.js("document.getElementById('veil').remove()")
    browser.ok("state", "--tab", tab, "--max-tokens", "0")

    # The same node now shows another name: the page's check refuses; the host's own identity
    # check decides, and the click is given once at most.
    renamed = refused_then_clicked_once(
        "document.querySelector('#changes').textContent = 'Changes something else'",
        ["changes:click"],
    )
    assert renamed["code"] == 0, renamed


def test_a_click_given_with_the_lookup_that_opens_a_dialog_answers_the_dialog(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/dialogs.html")[0])
    ref = _ref_of(browser, tab, "Delete expense")
    before = browser.events()
    body = browser.ok("click", ref, "--tab", tab)
    assert body["effect"]["dialog"]["type"] == "confirm", body
    assert "dialog_open" in body["warnings"]
    assert _count(browser.events(), "press_with_lookup") == _count(before, "press_with_lookup") + 1
    browser.ok("dialog", "dismiss", "--tab", tab)
    assert page_log(browser) == ["confirm:false"]


def test_hover_dblclick_and_right_click_by_ref_are_given_with_the_lookup(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/actions.html")[0])
    ref = _ref_of(browser, tab, "Mouse target")
    start = _count(browser.events(), "press_with_lookup")
    browser.ok("hover", ref, "--tab", tab)
    assert page_log(browser) == ["mouse-target:mouseenter"]
    browser.ok("dblclick", ref, "--tab", tab)
    assert page_log(browser)[1:] == [
        "mouse-target:click",
        "mouse-target:click",
        "mouse-target:dblclick",
    ]
    browser.ok("click", ref, "--tab", tab, "--button", "right")
    assert page_log(browser)[-1] == "mouse-target:contextmenu"
    assert _count(browser.events(), "press_with_lookup") == start + 3


def test_the_functions_held_for_one_document_are_not_used_in_the_next(
    browser: Browser, page: Any
) -> None:
    """Clicks by ref with the functions a document's first press compiled there (what that batch
    sends is checked in tests/unit/test_press.py; the host counts the presses that used them):
    within the document, after a reload, and after going to another page and back, each click
    still lands once."""
    tab, url = page("static/effects.html")
    t = str(tab)
    start = _count(browser.events(), "press_with_lookup")
    for _ in range(2):
        browser.ok("state", "--tab", t, "--max-tokens", "0")
        held = _count(browser.events(), "press_by_held_functions")
        for _ in range(3):
            browser.ok("click", "@quiet", "--tab", t)
        assert page_log(browser) == ["quiet:click"] * 3
        # The document's first press compiles the functions; the next two call them by handle.
        assert _count(browser.events(), "press_by_held_functions") == held + 2
        browser.ok("reload", "--tab", t)
    browser.ok("state", "--tab", t, "--max-tokens", "0")
    browser.ok("click", "@quiet", "--tab", t)
    browser.ok("click", "@away", "--tab", t)  # a link: another document
    browser.ok("back", "--tab", t)
    code, body = browser.cli("click", "@quiet", "--tab", t)
    assert code == 0 and body["ref"] == "@quiet", body
    assert page_log(browser)[-1] == "quiet:click"
    assert _count(browser.events(), "press_with_lookup") >= start + 8


def test_a_click_by_ref_after_a_host_restart_is_given_with_the_lookup(
    browser: Browser, page: Any
) -> None:
    """The new host has none of the records the page sent the old one; the ref's identity in the
    saved registry is what the page must still show, so the click rides the lookup all the same,
    and a ref whose element changed since is refused before any input, as before."""
    tab = str(page("static/effects.html")[0])
    browser.ok("state", "--tab", tab, "--max-tokens", "0")
    browser.restart_host()
    body = browser.ok("click", "@changes", "--tab", tab)
    assert body["ref"] == "@changes" and body["effect"].get("dom_changed_elsewhere", 0) >= 1, body
    assert _count(browser.events(), "press_with_lookup") == 1  # the new host's counters
    assert page_log(browser) == ["changes:click"]
    assert browser.js("return document.querySelector('#out').textContent") == "changed 1"
    # Renamed after that state: the page's word differs from the saved identity, no input given
    # in the lookup's batch; the click then goes the usual way, once.
    browser.restart_host()
    browser.js("document.querySelector('#changes').textContent = 'Change it'")
    code, _ = browser.cli("click", "@changes", "--tab", tab, "--timeout-ms", "3000")
    events = browser.events()
    assert _count(events, "press_with_lookup") == 0, events
    assert _count(events, "press_with_lookup_refused") == 1, events
    assert page_log(browser).count("changes:click") == 1 + (1 if code == 0 else 0)
