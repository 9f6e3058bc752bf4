"""Mantine 9's Select and MultiSelect, as a new user drives them (issue 32, class 7). The
MultiSelect's combobox is an input one pixel high that takes no pointer, inside the box it draws
with its pills (each with a remove button hidden from the accessibility tree): a press there is a
press on the field, as a person's. It stays open after a pick, so the next `choose` must not
press its trigger (that closes it); and a tag chosen already is not pressed again (that takes it
out). The page is the oracle: its onChange log and what it shows committed."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import committed_tags, open_widget, widget_committed
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/mantine-select.html"


def _open(page: Any, browser: Browser) -> str:
    ready = "!!document.getElementById('mt-tags')"
    return open_widget(page, browser, PAGE, ready, "Mantine never rendered")


def _expanded(browser: Browser, field: str) -> str:
    return str(
        browser.js(f"return document.getElementById('{field}').getAttribute('aria-expanded')")
    )


def test_choose_adds_tags_to_a_multi_select_that_stays_open(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "role=combobox[name='Tags']", "Billable", "--tab", tab)
    assert body["chose"] == "Billable" and "Billable" in body["shows"], body
    assert _expanded(browser, "mt-tags") == "true"  # Mantine keeps it open
    body = browser.ok("choose", "#mt-tags", "recurr", "--tab", tab)
    assert body["chose"] == "Recurring", body
    assert committed_tags(browser) == "Urgent,Billable,Recurring"
    events = widget_committed(browser)[1]
    assert events == ["tags:Urgent,Billable", "tags:Urgent,Billable,Recurring"], events


def test_a_tag_chosen_already_is_not_taken_out(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "#mt-tags", "Urgent", "--tab", tab)
    assert body["already"] is True and "Urgent" in body["shows"], body
    assert committed_tags(browser) == "Urgent"
    assert widget_committed(browser)[1] == []
    assert _expanded(browser, "mt-tags") == "false"  # the popup choose opened is closed again


def test_choose_on_the_select_and_again_on_its_value(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "role=combobox[name='Category']", "Meals", "--tab", tab)
    assert body["shows"] == "Meals" and "already" not in body, body
    body = browser.ok("choose", "#mt-category", "Meals", "--tab", tab)
    assert body["already"] is True, body
    assert widget_committed(browser) == ("Meals", ["category:Meals"])


def test_choose_on_the_searchable_select_and_multi_select(browser: Browser, page: Any) -> None:
    """Searchable, their inputs filter as one types: choose types part of the option first."""
    tab = _open(page, browser)
    body = browser.ok("choose", "#mt-merchant", "delta", "--tab", tab)
    assert (body["kind"], body["shows"]) == ("combobox", "Delta Air Lines"), body
    browser.ok("choose", "#mt-projects", "merc", "--tab", tab)
    body = browser.ok("choose", "#mt-projects", "Apollo", "--tab", tab)
    assert body["shows"] == "Mercury Apollo", body
    events = widget_committed(browser)[1]
    assert events == ["merchant:Delta Air Lines", "projects:Mercury", "projects:Mercury,Apollo"]
