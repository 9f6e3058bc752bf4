"""react-select 5 (the select most React SaaS forms are built with), as a new user drives it:
`choose` on its combobox (a small input that filters as one types; the value is drawn beside
it), one pick at a time on the multi one (each pick a chip beside the input, which empties
again), and the agent loop (click the combobox, `state`, click the option). The page is the
oracle: its onChange log and the value it shows committed."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import committed_tags, open_widget, pick_by_the_agent_loop, widget_committed
from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/react-select.html"


def _open(page: Any, browser: Browser) -> str:
    ready = "!!document.getElementById('rs-tags')"
    return open_widget(page, browser, PAGE, ready, "react-select never rendered")


def test_choose_on_the_single_select_by_its_label_and_by_css(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "role=combobox[name='Category']", "Meals", "--tab", tab)
    assert (body["kind"], body["shows"]) == ("combobox", "Meals"), body
    body = browser.ok("choose", "#rs-category", "office", "--tab", tab)
    assert body["chose"] == "Office Supplies" and body["shows"] == "Office Supplies", body
    assert widget_committed(browser) == (
        "office supplies",
        ["category:meals", "category:office supplies"],
    )


def test_choose_adds_one_chip_at_a_time_to_the_multi_select(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    browser.ok("choose", "#rs-tags", "Billable", "--tab", tab)
    body = browser.ok("choose", "role=combobox[name='Tags']", "recurr", "--tab", tab)
    assert body["chose"] == "Recurring" and "Recurring" in body["shows"], body
    assert committed_tags(browser) == "urgent,billable,recurring"
    events = widget_committed(browser)[1]
    assert events == ["tags:urgent,billable", "tags:urgent,billable,recurring"], events


def test_choosing_the_value_it_holds_again_commits_nothing_new(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    browser.ok("choose", "#rs-category", "Meals", "--tab", tab)
    body = browser.ok("choose", "#rs-category", "Meals", "--tab", tab)
    assert body["shows"] == "Meals" and body.get("already") is True, body
    assert widget_committed(browser) == ("meals", ["category:meals"])


def test_the_agent_loop_on_react_select(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    pick_by_the_agent_loop(browser, tab, "Category", "Hardware")
    assert widget_committed(browser) == ("hardware", ["category:hardware"])


def test_a_tag_chosen_already_is_named_in_the_not_found_and_never_pressed(
    browser: Browser, page: Any
) -> None:
    """react-select hides chosen options from its list, which then shows "No options": that
    is no option to press (a chip beside the field once was), and the answer says what the
    widget shows, the chip among it."""
    tab = _open(page, browser)
    code, body = browser.cli("choose", "#rs-tags", "Urgent", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "not_found", body
    assert body["error"]["shows"] == "Urgent", body
    assert committed_tags(browser) == "urgent"
    assert widget_committed(browser)[1] == []


def test_choose_on_an_async_select_waits_for_the_options_it_loads(
    browser: Browser, page: Any
) -> None:
    """The options come 300 ms after the typing, as from a server ("Loading..." meanwhile)."""
    tab = _open(page, browser)
    body = browser.ok("choose", "#rs-vendor", "fig", "--tab", tab)
    assert (body["chose"], body["shows"]) == ("Figma", "Figma"), body
    assert widget_committed(browser)[1] == ["vendor:Figma"]


def test_choose_creates_a_label_through_the_option_that_offers_it(
    browser: Browser, page: Any
) -> None:
    """A label the list lacks is offered as `Create "Design"`; pressed, the widget shows
    `Design`: that is the check (before, the label pressed was looked for, and the created
    label answered choose_mismatch though the page had committed it)."""
    tab = _open(page, browser)
    browser.ok("choose", "#rs-labels", "Billable", "--tab", tab)
    body = browser.ok("choose", "#rs-labels", "Design", "--tab", tab)
    assert body["chose"] == 'Create "Design"' and body["shows"] == "Billable Design", body
    assert widget_committed(browser)[1] == ["labels:billable", "labels:billable,Design"]
