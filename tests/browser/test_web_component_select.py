"""Shoelace's `<sl-select>` (web components: the combobox, the value shown and the listbox live in
the element's shadow root; the `<sl-option>`s are slotted into it), as a new user drives it (issue
47): by the combobox `state` lists, by the custom element itself, and through the agent loop.
`choose` on the element verifies by what its shadow tree shows (before, it read only the light
DOM and answered `choose_mismatch` though the page had committed). The page is the oracle: its
sl-change log and the value it shows committed."""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import open_widget, pick_by_the_agent_loop, widget_committed
from .conftest import Browser
from .support import run_cli

pytestmark = pytest.mark.browser

PAGE = "app/shoelace-select.html"


def _open(page: Any, browser: Browser) -> str:
    ready = "!!customElements.get('sl-select')"
    return open_widget(page, browser, PAGE, ready, "Shoelace never defined sl-select")


def test_choose_by_the_combobox_and_by_the_element(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    body = browser.ok("choose", "role=combobox[name='Category']", "Software", "--tab", tab)
    assert body["shows"] == "Software", body
    body = browser.ok("choose", "#category", "Meals", "--tab", tab)
    assert body["shows"] == "Meals", body
    assert widget_committed(browser) == ("meals", ["category:software", "category:meals"])


def test_the_agent_loop_on_a_web_component_select(browser: Browser, page: Any) -> None:
    tab = _open(page, browser)
    pick_by_the_agent_loop(browser, tab, "Category", "Hardware")
    assert widget_committed(browser) == ("hardware", ["category:hardware"])


def test_a_choose_right_after_a_choose_waits_for_the_popup_to_close(
    browser: Browser, page: Any
) -> None:
    """Back to back over one connection, each `choose` presses the trigger while the last one's
    popup still plays its closing animation. Shoelace, pressed then, is left open with its listbox
    hidden, and the option was never shown again (`not_visible`, 3 runs of 3 before the press
    waited for the widget to come to rest)."""
    tab = _open(page, browser)
    lines = "".join(f"choose #category {o} --tab {tab}\n" for o in ("Meals", "Travel", "Software"))
    answers = run_cli(browser.home, "batch", stdin=lines).json_lines()
    assert [(a["ok"], a.get("shows")) for a in answers] == [
        (True, "Meals"),
        (True, "Travel"),
        (True, "Software"),
    ], answers
    assert widget_committed(browser) == (
        "software",
        ["category:meals", "category:travel", "category:software"],
    )
