"""`reins scroll` and scrolling actionability on fixtures/static/scroll.html, in real Chromium.

The page is the oracle: the scrollers' own scrollTop, the rows the virtualized list rendered,
the posts the feed appended, and `window.__clicked`.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Browser


def _top(browser: Browser, css: str) -> int:
    return int(browser.js("return Math.round(document.querySelector(arguments[0]).scrollTop)", css))


def test_click_below_the_fold_of_a_short_list_scrolls_the_list(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    assert _top(browser, "#box") == 0
    # Inside the window's viewport, but below the list's own fold.
    assert browser.js(
        "return document.querySelector('#item-9').getBoundingClientRect().bottom < innerHeight"
    )
    body = browser.ok("click", "#item-9", "--tab", tab)
    assert body["method"] == "cdp"
    assert browser.js("return window.__clicked") == ["item-9"]
    assert _top(browser, "#box") > 0


def test_scroll_by_and_to_move_the_target_scroller(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    body = browser.ok("scroll", "#item-2", "--by", "100", "--tab", tab)
    assert body["before"] == 0 and body["after"] == 100 == _top(browser, "#box")
    assert "div#box" in body["scroller"] and body["at_end"] is False
    body = browser.ok("scroll", "#box", "--to", "bottom", "--tab", tab)
    assert body["at_end"] is True and body["after"] == body["max"] == _top(browser, "#box")
    body = browser.ok("scroll", "#box", "--to", "top", "--tab", tab)
    assert body["after"] == 0 == _top(browser, "#box") and body["at_top"] is True


def test_scroll_without_target_scrolls_the_page(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    body = browser.ok("scroll", "--by", "300", "--tab", tab)
    assert body["scroller"] == "page" and body["after"] == 300
    assert browser.js("return Math.round(window.scrollY)") == 300
    body = browser.ok("scroll", "--to", "bottom", "--tab", tab)
    assert body["at_end"] is True
    assert browser.js(
        "return window.scrollY + innerHeight >= document.documentElement.scrollHeight - 1"
    )


def test_scroll_until_renders_a_row_of_a_virtualized_list(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    assert browser.js("return document.querySelector('#vlist [data-index=\"150\"]')") is None
    body = browser.ok(
        "scroll",
        "#vlist",
        "--until",
        '#vlist [data-index="150"]',
        "--tab",
        tab,
        "--timeout-ms",
        "20000",
    )
    assert body["found"] is True and body["wheels"] + body["sweep_steps"] > 0
    assert body["after"] == _top(browser, "#vlist") > body["before"] == 0
    shown = browser.js("""
        const row = document.querySelector('#vlist [data-index="150"]');
        const r = row.getBoundingClientRect(), l = row.parentElement.getBoundingClientRect();
        return r.top >= l.top - 1 && r.bottom <= l.bottom + 1;""")
    assert shown


def test_scroll_until_loads_an_infinite_feed(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    assert browser.js("return document.querySelectorAll('#feed .post').length") == 20
    body = browser.ok(
        "scroll", "#feed", "--until", "#post-55", "--tab", tab, "--timeout-ms", "20000"
    )
    assert body["found"] is True
    assert browser.js("return document.querySelectorAll('#feed .post').length") >= 60


def test_scroll_until_gives_up_with_what_it_saw(browser: Browser, page: Any) -> None:
    """The budget ends while the end of the list, seen whole, is waited on (a feed may grow
    there for 2 s): a timeout that says where the list was, at its end."""
    tab = str(page("static/scroll.html")[0])
    code, body = browser.cli(
        "scroll", "#box", "--until", "//*[@id='no-such-row']", "--tab", tab, "--timeout-ms", "1200"
    )
    assert code != 0 and body["error"]["code"] == "timeout"
    assert "at the end" in body["error"]["message"]
    assert _top(browser, "#box") > 0


@pytest.mark.parametrize("target", ["#no-such-row", "//*[@id='no-such-row']"])
def test_scroll_until_a_css_or_xpath_row_in_no_part_of_the_list_is_not_found(
    browser: Browser, page: Any, target: str
) -> None:
    """A CSS or XPath TARGET is looked for page-side at every look, so the list is known to be
    seen whole."""
    tab = str(page("static/scroll.html")[0])
    code, body = browser.cli(
        "scroll", "#box", "--until", target, "--tab", tab, "--timeout-ms", "8000"
    )
    assert code != 0 and body["error"]["code"] == "not_found", body
    assert body["error"]["share_seen"] == 1.0
    assert browser.js("return document.querySelector('#no-such-row')") is None
    assert _top(browser, "#box") > 0


def test_scroll_needs_one_way(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    code, body = browser.cli("scroll", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "bad_request"


def test_state_marks_what_scrolls_and_how_far_is_left(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    body = browser.ok("state", "--tab", tab)
    regions = {r["target"]: r for r in body["scrollable"]}
    page_left = browser.js(
        "return document.scrollingElement.scrollHeight - document.scrollingElement.clientHeight"
    )
    vlist_left = browser.js(
        "const l = document.querySelector('#vlist'); return l.scrollHeight - l.clientHeight"
    )
    assert regions["page"]["below"] == page_left and regions["page"]["above"] == 0
    assert regions["#vlist"]["below"] == vlist_left > 10_000
    assert {"#box", "#feed"} <= set(regions)
    line = next(x for x in body["text"].splitlines() if x.startswith("↕ scrollable:"))
    assert f"#vlist {vlist_left:,} px below" in line and f"page {page_left:,} px below" in line

    browser.ok("scroll", "#vlist", "--by", "500", "--tab", tab)
    moved = {r["target"]: r for r in browser.ok("state", "--tab", tab)["scrollable"]}
    assert moved["#vlist"]["above"] == _top(browser, "#vlist") == 500
    assert moved["#vlist"]["below"] == vlist_left - 500


def test_state_keeps_its_budget_with_the_scroll_line(browser: Browser, page: Any) -> None:
    tab = str(page("static/scroll.html")[0])
    body = browser.ok("state", "--max-tokens", "120", "--tab", tab)
    assert body["approx_tokens"] <= 120 and "↕ scrollable:" in body["text"]
    assert body["text"].splitlines()[-1].startswith("…")  # the left-out line stays last
