"""Keyboard fidelity and picker inputs, in real Chromium (issue 12 §2).

The page is the oracle: keyboard-events.html logs every keydown/keypress/keyup with its key, code,
keyCode and location, and every input; keyboard-pickers.html logs input and change as they bubble
to the document, and keeps a controlled input's state the way React does.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import page_log
from .conftest import Browser


def _downs(browser: Browser) -> list[tuple[str, str, int, int, bool]]:
    return [
        (k["key"], k["code"], k["keyCode"], k["location"], k["shift"])
        for k in browser.js("return window.__keys")
        if k["type"] == "keydown"
    ]


def _value(browser: Browser, css: str) -> Any:
    return browser.js("return document.querySelector(arguments[0]).value", css)


# ---- press: the US layout ---------------------------------------------------------------------


def test_press_plus_is_shift_and_the_equal_key(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    browser.ok("press", "+", "#plain", "--tab", tab)
    assert _downs(browser) == [("Shift", "ShiftLeft", 16, 1, True), ("+", "Equal", 187, 0, True)]
    assert _value(browser, "#plain") == "+"


def test_press_shift_tilde_is_shift_and_backquote(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    browser.ok("press", "Shift+~", "#plain", "--tab", tab)
    assert _downs(browser)[-1] == ("~", "Backquote", 192, 0, True)
    assert _value(browser, "#plain") == "~"


def test_press_numpad_and_right_hand_keys_have_their_locations(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    browser.ok("press", "Numpad7", "#plain", "--tab", tab)
    browser.ok("press", "ShiftRight", "--tab", tab)
    browser.ok("press", "Shift+1", "--tab", tab)
    assert _downs(browser) == [
        ("7", "Numpad7", 103, 3, False),
        ("Shift", "ShiftRight", 16, 2, True),
        ("Shift", "ShiftLeft", 16, 1, True),
        ("!", "Digit1", 49, 0, True),
    ]
    assert _value(browser, "#plain") == "7!"


# ---- type: real key events --------------------------------------------------------------------


def test_type_sends_each_character_as_its_keys(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    body = browser.ok("type", "#plain", "Hi, 2+2!", "--tab", tab)
    assert body["value"] == "Hi, 2+2!" == _value(browser, "#plain")
    typed = [d for d in _downs(browser) if d[0] != "Shift"]
    assert typed == [
        ("H", "KeyH", 72, 0, True),
        ("i", "KeyI", 73, 0, False),
        (",", "Comma", 188, 0, False),
        (" ", "Space", 32, 0, False),
        ("2", "Digit2", 50, 0, False),
        ("+", "Equal", 187, 0, True),
        ("2", "Digit2", 50, 0, False),
        ("!", "Digit1", 49, 0, True),
    ]
    log = page_log(browser)
    assert log.count("keypress:i:KeyI:105:0") == 1  # a character key also gives keypress
    assert "input:plain:insertText:Hi, 2+2!" in log


def test_type_into_a_field_that_cancels_keydown_inserts_nothing(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    body = browser.ok("type", "#blocked", "abc", "--tab", tab)  # issue 32 item 8: as Playwright
    assert body["value"] == "" == _value(browser, "#blocked"), body
    assert body["expected"] == "abc" and "not_all_kept" in body["warnings"], body
    log = page_log(browser)
    assert log.count("blocked:prevented") == 3
    assert not [line for line in log if line.startswith("input:")]


def test_type_keeps_only_what_the_page_lets_through(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    body = browser.ok("type", "#digits", "a1b2", "--tab", tab)
    assert body["value"] == "12" == _value(browser, "#digits"), body
    assert body["effect"]["value"] == {"from": "", "to": "12"}
    assert body["warnings"] == ["not_all_kept"], body
    assert [x for x in page_log(browser) if x.startswith("digits:")] == [
        "digits:refused:a",
        "digits:refused:b",
    ]


def test_type_inserts_characters_no_key_types_as_text(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    body = browser.ok("type", "#plain", "café 😀 中文", "--tab", tab)
    assert body["value"] == "café 😀 中文" == _value(browser, "#plain")
    keyed = [d[0] for d in _downs(browser)]
    assert keyed == ["c", "a", "f", " ", " "]


def test_type_a_newline_presses_enter_in_a_textarea(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-events.html")[0])
    body = browser.ok("type", "#notes", "one\ntwo", "--tab", tab)
    assert body["value"] == "one\ntwo" == _value(browser, "#notes")
    assert ("Enter", "Enter", 13, 0, False) in _downs(browser)
    assert "input:notes:insertLineBreak:one\n" in page_log(browser)


def test_type_and_press_on_a_hidden_tab(browser: Browser, page: Any, site: Any) -> None:
    first, url = page("static/keyboard-events.html")
    browser.ok("tab", "new", site.url("static/index.html"))  # now in front; the first is hidden
    tab = str(first)
    browser.ok("type", "#plain", "Hidden+1", "--tab", tab, "--timeout-ms", "5000")
    browser.ok("press", "~", "#plain", "--tab", tab, "--timeout-ms", "5000")
    body = browser.ok("type", "#blocked", "x", "--tab", tab, "--timeout-ms", "5000")
    assert body["value"] == "" and "not_all_kept" in body["warnings"], body
    browser.switch_to(url.rsplit("t=", 1)[-1])
    assert _value(browser, "#plain") == "Hidden+1~"
    assert _value(browser, "#blocked") == ""
    assert ("~", "Backquote", 192, 0, True) in _downs(browser)
    assert "blocked:prevented" in page_log(browser)
    browser.cli("tab", "close")  # the index tab opened above (the current one)


# ---- fill: picker inputs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("css", "value", "kept"),
    [
        ("#date", "2020-03-02", "2020-03-02"),
        ("#month", " 2020-03 ", "2020-03"),  # trimmed, as a picker never adds spaces
        ("#time", "13:45", "13:45"),
        ("#datetime", "2020-03-02T13:45", "2020-03-02T13:45"),
        ("#month", "2020-03", "2020-03"),
        ("#week", "2020-W10", "2020-W10"),
        ("#color", "#FF8800", "#ff8800"),  # the browser's form: lower case
        ("#range", "30", "30"),
    ],
)
def test_fill_sets_a_picker_input_as_its_picker_would(
    browser: Browser, page: Any, css: str, value: str, kept: str
) -> None:
    tab = str(page("static/keyboard-pickers.html")[0])
    body = browser.ok("fill", css, value, "--tab", tab)
    assert body["value"] == kept == _value(browser, css)
    assert body["effect"]["value"]["to"] == kept
    log = page_log(browser)
    name = css[1:]
    assert log == [f"input:{name}:{kept}", f"change:{name}:{kept}"]  # both, bubbling


@pytest.mark.parametrize(
    ("css", "value", "form"),
    [
        ("#date", "2020-13-45", "YYYY-MM-DD"),
        ("#date", "03/02/2020", "YYYY-MM-DD"),
        ("#week", "2020-10", "YYYY-Www"),
        ("#color", "#12345g", "#rrggbb"),
        ("#range", "55", "a number from 0 to 100 in steps of 10"),
        ("#range", "lots", "a number from 0 to 100 in steps of 10"),
    ],
)
def test_fill_refuses_a_value_the_input_does_not_take(
    browser: Browser, page: Any, css: str, value: str, form: str
) -> None:
    tab = str(page("static/keyboard-pickers.html")[0])
    before = _value(browser, css)
    code, body = browser.cli("fill", css, value, "--tab", tab)
    assert code == 2 and body["error"]["code"] == "bad_request", body
    assert body["error"]["expected_format"] == form
    assert form in body["error"]["message"]
    assert _value(browser, css) == before
    assert page_log(browser) == []


def test_type_into_a_picker_input_points_to_fill(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-pickers.html")[0])
    code, body = browser.cli("type", "#date", "2020-03-02", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "not_editable"
    assert "use fill" in body["error"]["message"]
    assert _value(browser, "#date") == "2019-01-01"


def test_fill_commits_a_controlled_date_input(browser: Browser, page: Any) -> None:
    tab = str(page("static/keyboard-pickers.html")[0])
    body = browser.ok("fill", "#react-date", "2020-03-02", "--tab", tab)
    assert body["value"] == "2020-03-02"
    assert browser.js("return window.__state.due") == "2020-03-02"
    assert "onChange:react-date:2020-03-02" in page_log(browser)
    assert '"due":"2020-03-02"' in browser.js("return document.querySelector('#state').textContent")


def test_fill_a_controlled_input_that_refuses_answers_fill_mismatch(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/keyboard-pickers.html")[0])
    code, body = browser.cli("fill", "#react-2021", "2020-03-02", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "fill_mismatch", body
    assert body["error"]["kept"] == "" == _value(browser, "#react-2021")
    assert browser.js("return window.__state.start") == ""
    browser.ok("fill", "#react-2021", "2021-06-01", "--tab", tab)
    assert browser.js("return window.__state.start") == "2021-06-01"
