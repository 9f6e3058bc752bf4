"""TARGET engines and detection on engines.html, with the page as the oracle (its __log).

CSS, text= and role= targets reach into open shadow roots (closed ones stay closed); text targets
find what a person sees, interactive elements first; detection lists elements whose only sign of
being clickable is a click listener, and never an element hidden at that moment.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Browser


def _log(browser: Browser) -> list[str]:
    return list(browser.js("return window.__log"))


def _act(browser: Browser, tab: int, *args: str) -> tuple[int, dict[str, Any]]:
    return browser.cli(*args, "--tab", str(tab))


# ---- CSS through open shadow roots ---------------------------------------------------------------


def test_css_target_pierces_open_shadow_roots(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    code, body = _act(browser, tab, "click", "button.save")
    assert code == 0 and body["ok"], body
    # A descendant combinator crosses the boundary (host, then its shadow tree), and nested roots.
    code, body = _act(browser, tab, "click", "my-panel nested-box > button.go")
    assert code == 0 and body["ok"], body
    code, body = _act(browser, tab, "fill", "#panel input", "hello")
    assert code == 0 and body["ok"], body
    assert _log(browser) == ["shadow-save", "deep-go", "shadow-input:hello"]
    assert (
        browser.js(
            "return document.querySelector('#panel').shadowRoot.querySelector('input').value"
        )
        == "hello"
    )


def test_css_target_keeps_ambiguity_and_closed_roots(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    # Light and shadow buttons together: many matches are ambiguous, not the first one.
    code, body = _act(browser, tab, "click", "section#shadows ~ section button, my-panel button")
    assert code != 0 and body["error"]["code"] == "ambiguous", body
    # A closed root is not reached (page JS cannot reach it either).
    code, body = _act(browser, tab, "click", ".closed-button", "--timeout-ms", "3000")
    assert code != 0 and body["error"]["code"] == "not_found", body
    # A light-DOM selector keeps its meaning: `my-panel > div` is not the shadow tree's div...
    # ... except through the boundary, where the host is the parent of the root's top elements.
    code, body = _act(browser, tab, "eval", "el => el.className", "--target", "my-panel > div")
    assert code == 0 and body["ok"] and body["value"] == "inner", body
    assert _log(browser) == []


def test_role_target_pierces_open_shadow_roots(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    code, body = _act(browser, tab, "click", 'role=button[name="Deep go"]')
    assert code == 0 and body["ok"], body
    assert _log(browser) == ["deep-go"]


# ---- text targets: what a person sees ------------------------------------------------------------


def test_text_target_clicks_a_handler_only_link(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    for args in (("click", "text=Prev"), ("click", "--text", "Prev"), ("click", "text=next")):
        code, body = _act(browser, tab, *args)
        assert code == 0 and body["ok"], (args, body)
    assert _log(browser) == ["prev", "prev", "next"]
    assert browser.js("return document.querySelector('#month').textContent") == "February 2024"


def test_find_text_lists_a_visible_element_nobody_detected(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    code, body = _act(browser, tab, "find", "--text", "nobody clicks")
    assert code == 0 and body["ok"], body
    assert [(m["tag"], m["text"]) for m in body["matches"]] == [
        ("p", "Just a sentence nobody clicks.")
    ]


def test_text_rules_follow_playwright(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    # Any case, whitespace normalized, the smallest element: the <li>, not the <ul> listening.
    code, body = _act(browser, tab, "click", "text=  pear   TART ")
    assert code == 0 and body["ok"], body
    assert _log(browser) == ["fruit:pear"]
    # Quoted: the exact text, case included.
    code, body = _act(browser, tab, "click", 'text="apple pie"', "--timeout-ms", "4000")
    assert code != 0 and body["error"]["code"] == "not_found", body
    code, body = _act(browser, tab, "click", 'text="Apple pie"')
    assert code == 0 and body["ok"], body
    # Text inside nested open shadow roots, read as rendered; the smallest element wins.
    code, body = _act(browser, tab, "eval", "el => el.className", "--target", "text=deep text")
    assert code == 0 and body["value"] == "deep", body
    # Two visible elements hold "tart"/"pie"... one each; "a" is everywhere: ambiguous.
    code, body = _act(browser, tab, "click", "text=e", "--timeout-ms", "4000")
    assert code != 0 and body["error"]["code"] == "ambiguous", body
    assert _log(browser) == ["fruit:pear", "fruit:apple"]


def test_text_target_skips_what_is_hidden(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    for text in ("Hidden by visibility", "Hidden by class", "Hidden by attribute", "Zero size"):
        code, body = _act(browser, tab, "click", f"text={text}", "--timeout-ms", "4000")
        assert code != 0 and body["error"]["code"] == "not_found", (text, body)
    assert _log(browser) == []


# ---- detection ------------------------------------------------------------------------------------


def _state_names(browser: Browser, tab: int) -> list[str]:
    answer = browser.call("state", {}, tab=tab)
    assert answer.get("ok"), answer
    return [str(item.get("name")) for item in answer["refs"]]


def test_state_never_lists_what_is_hidden_at_that_moment(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    names = _state_names(browser, tab)
    hidden = [
        "Hidden by visibility", "Hidden by opacity", "Hidden by class", "Hidden by attribute",
        "Hidden by content-visibility", "Zero size", "Clipped away", "Inside a faded box",
    ]  # fmt: skip
    assert [n for n in names if n in hidden] == []
    # The transparent native checkbox under its visible label stays, and stays usable through
    # the label a person clicks.
    assert "Styled checkbox" in names
    code, body = _act(browser, tab, "click", "#pretty-label")
    assert code == 0 and body["ok"], body
    assert browser.js("return document.querySelector('#pretty').checked") is True
    # The input itself: the press lands on its label's decoration, which the browser forwards to
    # the input (it is not a cover).
    code, body = _act(browser, tab, "uncheck", "#pretty")
    assert code == 0 and body["ok"], body
    assert browser.js("return document.querySelector('#pretty').checked") is False
    # Shown again (the class toggled off): listed again.
    browser.js("document.querySelector('#cover-class').classList.remove('gone')")
    assert "Hidden by class" in _state_names(browser, tab)


def test_state_lists_elements_whose_only_sign_is_a_click_listener(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/engines.html")
    answer = browser.call("state", {}, tab=tab)
    assert answer.get("ok"), answer
    refs = {str(item.get("name")): item["ref"] for item in answer["refs"]}
    # The date picker's anchors (addEventListener, no href/role/cursor), one in a nested shadow
    # root, the inline handler attribute and the handler property are listed ...
    for name in (
        "Prev",
        "Next",
        "Today",
        "Remove tag",
        "Inline handler",
        "Property handler",
        "Deep more",
    ):
        assert name in refs, (name, sorted(refs))
    # ... the delegated list's items and the list itself are not, nor the plain sentence.
    for name in ("Apple pie", "Pear tart", "Apple pie Pear tart", "Just a sentence nobody clicks."):
        assert name not in refs, name
    code, body = _act(browser, tab, "click", refs["Next"])
    assert code == 0 and body["ok"], body
    assert _log(browser) == ["next"]
    code, body = _act(browser, tab, "click", refs["Remove tag"])
    assert code == 0 and body["ok"], body
    assert _log(browser) == ["next", "chip-x"]
    # A listener removed (the element cloned without it): no longer listed.
    browser.js("const a = document.querySelector('.picker-next'); a.replaceWith(a.cloneNode(true))")
    again = browser.call("state", {}, tab=tab)
    assert "Next" not in [str(item.get("name")) for item in again["refs"]], again["refs"]


def _refs_by_name(browser: Browser, tab: int) -> dict[str, str]:
    answer = browser.call("state", {}, tab=tab)
    assert answer.get("ok"), answer
    return {str(item.get("name")): item["ref"] for item in answer["refs"]}


def test_a_listener_bound_later_is_found_with_or_without_a_dom_change(
    browser: Browser, page: Any
) -> None:
    """The candidates are searched again only after the document changed, scrolled or resized;
    Chrome is asked about them at every observation, so a handler bound to an element already
    there (no DOM change at all) is found too — and its ref takes a click the handler sees."""
    tab, _ = page("static/engines.html")
    names = _state_names(browser, tab)
    assert "Just a sentence nobody clicks." not in names
    # No DOM change: only a listener on an existing paragraph.
    browser.js(
        "const p = [...document.querySelectorAll('p')]"
        ".find((n) => n.textContent.trim() === 'Just a sentence nobody clicks.');"
        "p.addEventListener('click', () => window.__log.push('late-p'));"
    )
    refs = _refs_by_name(browser, tab)
    assert "Just a sentence nobody clicks." in refs
    code, body = _act(browser, tab, "click", refs["Just a sentence nobody clicks."])
    assert code == 0 and body["ok"], body
    assert _log(browser)[-1:] == ["late-p"]
    # A new leaf with a listener (a DOM change): found as well.
    browser.js(
        "const s = document.createElement('span'); s.textContent = 'Late chip';"
        "s.addEventListener('click', () => window.__log.push('late-chip'));"
        "document.body.prepend(s);"
    )
    refs = _refs_by_name(browser, tab)
    code, body = _act(browser, tab, "click", refs["Late chip"])
    assert code == 0 and body["ok"], body
    assert _log(browser)[-1:] == ["late-chip"]


@pytest.mark.parametrize(
    "junk",
    ["'junk'", "{candidates: 'x', marked: 1, watched: null, dirty: false}", "null", "[]"],
)
def test_a_page_that_writes_over_the_listener_slot_only_gets_a_fresh_search(
    browser: Browser, page: Any, junk: str
) -> None:
    tab, _ = page("static/engines.html")
    assert "Prev" in _state_names(browser, tab)
    browser.js(f"window[Symbol.for('reins.listened')] = {junk}")
    names = _state_names(browser, tab)
    assert "Prev" in names and "Just a sentence nobody clicks." not in names


def test_raw_cdp_cannot_read_listeners(browser: Browser, page: Any) -> None:
    tab, _ = page("static/engines.html")
    code, body = _act(browser, tab, "cdp", "DOMDebugger.getEventListeners", '{"objectId": "1.2.3"}')
    assert code != 0 and body["error"]["code"] == "cdp_blocked", body


def test_an_ambiguous_css_target_is_refused_before_anything_scrolls(
    browser: Browser, page: Any
) -> None:
    """The lookup probes what it found in its own round trip only when one element matched:
    several far down the page are `ambiguous`, and the page has not moved."""
    tab, _ = page("static/big.html", n=400)
    assert browser.js("return window.scrollY") == 0
    code, body = _act(browser, tab, "click", "#btn-392, #btn-396")
    assert code != 0 and body["error"]["code"] == "ambiguous", body
    code, body = _act(browser, tab, "fill", "#btn-392, #btn-396", "x")
    assert code != 0 and body["error"]["code"] == "ambiguous", body
    assert browser.js("return window.scrollY") == 0
    # One of them: the lookup's probe scrolls it into view, and the click reaches it.
    code, body = _act(browser, tab, "click", "#btn-396")
    assert code == 0 and body["ok"], body
    assert browser.js("return window.scrollY") > 0
    assert browser.js("return window.__log.slice(-1)") == ["click:btn-396"]
