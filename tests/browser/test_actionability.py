"""Actionability like Playwright's, on fixtures/static/actionability.html in real Chromium.

Actions wait for what may change (disabled, read-only, a missing option, covered), take the point
from the element's per-line boxes, scroll to other alignments when covered, and carry the point
through transformed same-origin frames. The page is the oracle: `window.__log` records what it got.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from ._act_support import eventually, page_log, refs_by_name
from .conftest import Browser

PAGE = "static/actionability.html"


def _open(page: Any) -> str:
    return str(page(PAGE)[0])


# ---- waiting for enabled / editable / the option ---------------------------------------------


def _target(browser: Browser, tab: str, css: str, how: str) -> str:
    """The CSS target, or the ref a `state` taken now gives the element (its id's ref): a ref's
    first probe comes with its lookup (act/refs.py)."""
    if how == "css":
        return css
    ref = "@" + css.lstrip("#").replace("-", "")
    assert ref + " " in browser.ok("state", "--tab", tab)["text"]
    return ref


@pytest.mark.parametrize("how", ["css", "ref"])
def test_click_waits_for_a_button_enabled_later(browser: Browser, page: Any, how: str) -> None:
    tab = _open(page)
    target = _target(browser, tab, "#late-btn", how)
    browser.js("window.__later('enable', 500)")
    body = browser.ok("click", target, "--tab", tab)
    assert body["method"] == "cdp"
    log = page_log(browser)
    assert log.count("late-btn:click trusted=true") == 1
    assert log.index("later:enable") < log.index("late-btn:click trusted=true")


@pytest.mark.parametrize(
    ("command", "css", "value", "want"),
    [
        ("fill", "#late-field", "hello", "late-field:input hello"),
        ("type", "#late-ro", "x", "late-ro:input ro:x"),
    ],
)
def test_fill_and_type_wait_for_a_field_enabled_or_editable_later(
    browser: Browser, page: Any, command: str, css: str, value: str, want: str
) -> None:
    tab = _open(page)
    browser.js("window.__later('enable', 500)")
    browser.ok(command, css, value, "--tab", tab)
    log = page_log(browser)
    assert want in log and log.index("later:enable") < log.index(want)
    assert browser.js("return document.querySelector(arguments[0]).value", css) == (
        "hello" if command == "fill" else "ro:x"
    )


def test_check_waits_for_a_checkbox_enabled_later(browser: Browser, page: Any) -> None:
    tab = _open(page)
    browser.js("window.__later('enable', 500)")
    body = browser.ok("check", "#late-check", "--tab", tab)
    assert body["checked"] is True
    assert browser.js("return document.querySelector('#late-check').checked") is True
    assert "late-check:change true" in page_log(browser)


def test_a_button_disabled_for_good_answers_disabled_after_the_budget(
    browser: Browser, page: Any
) -> None:
    tab = _open(page)
    code, body = browser.cli("click", "#never-btn", "--tab", tab, "--timeout-ms", "900")
    assert code == 1 and body["error"]["code"] == "disabled", body
    assert "--timeout-ms" in body["error"]["message"]  # the next step
    assert "never-btn:click trusted=true" not in page_log(browser)


def test_a_field_read_only_for_good_answers_not_editable_after_the_budget(
    browser: Browser, page: Any
) -> None:
    tab = _open(page)
    code, body = browser.cli("fill", "#late-ro", "x", "--tab", tab, "--timeout-ms", "900")
    assert code == 1 and body["error"]["code"] == "not_editable", body
    assert "read-only" in body["error"]["message"]
    assert browser.js("return document.querySelector('#late-ro').value") == "ro:"


def test_select_waits_for_an_option_added_later(browser: Browser, page: Any) -> None:
    tab = _open(page)
    browser.js("window.__later('option', 500)")
    body = browser.ok("select", "#late-select", "Mango", "--tab", tab)
    assert body["selected"] == [{"value": "mango", "label": "Mango"}]
    assert browser.js("return document.querySelector('#late-select').value") == "mango"
    log = page_log(browser)
    assert log.index("later:option") < log.index("late-select:change mango")


def test_select_of_an_option_that_never_comes_lists_the_options_it_saw(
    browser: Browser, page: Any
) -> None:
    tab = _open(page)
    code, body = browser.cli("select", "#late-select", "Kiwi", "--tab", tab, "--timeout-ms", "900")
    assert code == 1 and body["error"]["code"] == "select_mismatch", body
    assert body["error"]["options"] == ["Pick one", "Apple"]
    assert "Apple" in body["error"]["message"]
    assert browser.js("return document.querySelector('#late-select').value") == ""


# ---- the point: per-line boxes, other alignments, a real cover --------------------------------


def test_a_link_wrapped_over_two_lines_is_clicked_on_its_text(browser: Browser, page: Any) -> None:
    tab = _open(page)
    # The fixture's premise: two line boxes, and the bounding box's middle is not on the link.
    premise = browser.js(
        "const a = document.querySelector('#wrapped'); const r = a.getBoundingClientRect();"
        "const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        "return [a.getClientRects().length, a.contains(hit)];"
    )
    assert premise == [2, False]
    body = browser.ok("click", "#wrapped", "--tab", tab)
    assert body["method"] == "cdp"
    assert page_log(browser).count("wrapped:click trusted=true") == 1


@pytest.mark.parametrize("how", ["css", "ref"])
def test_a_button_under_a_sticky_header_is_scrolled_out_from_under_it(
    browser: Browser, page: Any, how: str
) -> None:
    tab = _open(page)
    # In the panel's view, but under its sticky header: scrolling "if needed" moves nothing.
    covered = browser.js(
        "const p = document.querySelector('#panel'); const b = document.querySelector('#under-header');"
        "p.scrollTop = b.offsetTop - 30; const r = b.getBoundingClientRect();"
        "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).localName;"
    )
    assert covered == "header"
    # The ref is observed where the header covers it: its first look is that observation's.
    body = browser.ok("click", _target(browser, tab, "#under-header", how), "--tab", tab)
    assert body["method"] == "cdp"
    assert page_log(browser).count("under-header:click trusted=true") == 1


def test_a_button_covered_for_good_answers_obscured_naming_the_cover(
    browser: Browser, page: Any
) -> None:
    tab = _open(page)
    code, body = browser.cli("click", "#covered-btn", "--tab", tab, "--timeout-ms", "1200")
    assert code == 1 and body["error"]["code"] == "obscured", body
    assert body["error"]["covered_by"] == "span#veil"
    time.sleep(0.2)
    log = page_log(browser)
    assert "covered-btn:click trusted=true" not in log and "veil:click" not in log


def test_a_button_taking_no_pointer_events_is_not_said_to_be_covered_by_the_page(
    browser: Browser, page: Any
) -> None:
    tab = _open(page)
    assert (
        browser.js(
            "const r = document.querySelector('#no-pointer').getBoundingClientRect();"
            "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).localName;"
        )
        == "body"
    )
    code, body = browser.cli("click", "#no-pointer", "--tab", tab, "--timeout-ms", "900")
    assert code == 1 and body["error"]["code"] == "obscured", body
    assert "covered_by" not in body["error"]
    assert "pointer-events" in body["error"]["message"]
    assert "no-pointer:click trusted=true" not in page_log(browser)


# ---- transformed and nested same-origin frames ------------------------------------------------


@pytest.mark.parametrize("name", ["Scaled save", "Nested save"])
def test_a_button_in_a_transformed_iframe_is_clicked(
    browser: Browser, page: Any, name: str
) -> None:
    tab = _open(page)
    refs = refs_by_name(
        eventually(
            lambda: browser.ok("state", "--tab", tab),
            lambda s: name in refs_by_name(s),
        )
    )
    body = browser.ok("click", refs[name], "--tab", tab)
    assert body["method"] == "cdp"
    log = eventually(lambda: page_log(browser), lambda v: f"{name}:click trusted=true" in v)
    assert log.count(f"{name}:click trusted=true") == 1
    assert [line for line in log if ":click" in line] == [f"{name}:click trusted=true"]
