"""`reins choose` on real widget libraries (Radix Select, MUI Select, MUI Autocomplete) and on
fixtures/static/choose.html, in real Chromium. The page is the oracle: the value each app
committed, and the text its trigger shows."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import eventually
from .conftest import Browser


def _text(browser: Browser, css: str) -> str:
    return str(browser.js("return document.querySelector(arguments[0]).textContent.trim()", css))


@pytest.mark.parametrize(
    ("path", "trigger", "option", "committed", "value", "kind"),
    [
        ("app/radix.html", "#radix-select", "Meals", "#radix-value", "Meals", "trigger"),
        ("app/mui-select.html", "#mui-select", "banana", "#mui-select-value", "Banana", "trigger"),
        (
            "app/mui-autocomplete.html",
            "#mui-auto",
            "Brazil",
            "#mui-auto-value",
            "Brazil",
            "combobox",
        ),
    ],
)
def test_choose_commits_the_option_in_a_real_widget(
    browser: Browser,
    page: Any,
    path: str,
    trigger: str,
    option: str,
    committed: str,
    value: str,
    kind: str,
) -> None:
    tab = str(page(path)[0])
    body = browser.ok("choose", trigger, option, "--tab", tab)
    assert body["kind"] == kind and body["chose"] == value
    assert value in body["shows"]
    assert eventually(lambda: _text(browser, committed), lambda v: v == value) == value


def test_choose_on_the_expense_form_category(browser: Browser, page: Any) -> None:
    tab = str(page("app/expense.html")[0])
    body = browser.ok("choose", "#category", "Meals", "--tab", tab)
    assert body["chose"] == "Meals"
    assert "Meals" in _text(browser, "#category")


def test_choose_types_to_filter_a_combobox(browser: Browser, page: Any) -> None:
    tab = str(page("app/mui-autocomplete.html")[0])
    # "Jap" is only the start of one country: the typed filter leaves it, and it is chosen.
    body = browser.ok("choose", "#mui-auto", "Jap", "--tab", tab)
    assert body["chose"] == "Japan"
    assert eventually(lambda: _text(browser, "#mui-auto-value"), lambda v: v == "Japan") == "Japan"
    assert browser.js("return document.querySelector('#mui-auto').value") == "Japan"


def test_choose_an_option_that_is_not_there_lists_the_options(browser: Browser, page: Any) -> None:
    tab = str(page("app/radix.html")[0])
    code, body = browser.cli("choose", "#radix-select", "Dinner", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "not_found"
    assert "Travel" in body["error"]["message"] and "Meals" in body["error"]["message"]
    assert _text(browser, "#radix-value") == ""


def test_choose_answers_choose_mismatch_when_the_widget_keeps_its_text(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/choose.html")[0])
    code, body = browser.cli("choose", "#stuck", "Green", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "choose_mismatch"
    assert body["error"]["shows"] == "Pick one" and body["error"]["chose"] == "Green"
    assert _text(browser, "#stuck") == "Pick one"


def test_choose_on_a_native_select_selects(browser: Browser, page: Any) -> None:
    tab = str(page("static/choose.html")[0])
    body = browser.ok("choose", "#size", "Large", "--tab", tab)
    assert body["kind"] == "native"
    assert browser.js("return document.querySelector('#size').value") == "l"


@pytest.mark.parametrize(
    ("path", "trigger", "option", "commit"),
    [
        # Radix draws a check mark (aria-hidden) beside the chosen item: no part of its label
        ("app/radix.html", "#radix-select", "Meals", "commit:Meals"),
        # MUI's menu takes the focus to the chosen item, over a backdrop covering the page
        ("app/mui-select.html", "#mui-select", "Banana", "commit:Banana"),
    ],
)
def test_choosing_the_value_it_holds_again_presses_nothing_and_closes_the_menu(
    browser: Browser, page: Any, path: str, trigger: str, option: str, commit: str
) -> None:
    """Before: Radix answered choose_mismatch (the label read "Meals✓"), and MUI's menu was
    left open over its backdrop once choose knew the option was chosen already."""
    tab = str(page(path)[0])
    browser.ok("choose", trigger, option, "--tab", tab)
    body = browser.ok("choose", trigger, option, "--tab", tab)
    assert body["already"] is True and body["chose"] == option, body
    log = list(browser.js("return window.__events.slice()"))
    assert log.count(commit) == 1, log
    assert browser.js(f"return document.querySelector('{trigger}').ariaExpanded") == "false"
