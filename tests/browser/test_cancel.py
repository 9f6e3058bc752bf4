"""Cancel on the debugging bar means stop: reins stays off the tab until the user hands it back.

Headless Chromium has no infobar to press, so the test plays Chrome's side of the Cancel in the
extension's worker (tests/browser/_worker.py): the debugger session ends first — a command in
flight is answered "Detached while handling command." — and onDetach follows with reason
`canceled_by_user`, in that order, as measured on a desktop (docs/PLATFORM facts). What only a
headful run can show: that Chrome's real Cancel button produces exactly this, for every tab.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from reins._paths import EXTENSION_ID

from ._worker import Worker
from .conftest import Browser
from .support import WaitingCommand


@pytest.fixture
def worker(browser: Browser) -> Iterator[Worker]:
    w = Worker(browser.driver)
    yield w
    w.close()


def _eval(browser: Browser, tab_id: int, expression: str) -> tuple[int, dict[str, Any]]:
    return browser.cli(
        "cdp",
        "Runtime.evaluate",
        json.dumps({"expression": expression, "returnByValue": True}),
        "--tab",
        str(tab_id),
    )


def _hand_back_in_the_popup(browser: Browser, tab_id: int) -> None:
    driver = browser.driver
    before = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(f"chrome-extension://{EXTENSION_ID}/popup.html?tab={tab_id}")
        deadline = time.monotonic() + 5
        while not driver.find_element("id", "hand-over").is_displayed():
            assert time.monotonic() < deadline, driver.find_element("id", "this-tab").text
            time.sleep(0.05)
        assert "Cancel" in driver.find_element("id", "this-tab").text
        driver.find_element("id", "hand-over").click()
        time.sleep(0.3)
    finally:
        driver.close()
        driver.switch_to.window(before)


def test_cancel_stops_reins_on_the_tab_until_the_user_hands_it_back(
    browser: Browser, page: Any, worker: Worker
) -> None:
    tab_id, _ = page("static/bridge.html")
    assert _eval(browser, tab_id, "1")[0] == 0  # attached
    waiting = WaitingCommand(browser, tab_id)
    worker.cancel_like_the_infobar(tab_id)
    waiting.join(10)
    assert not waiting.is_alive()
    # Not "the tab is gone": the user stopped reins.
    assert waiting.answer["error"]["code"] == "detached_by_user", waiting.answer

    # Later commands do not attach again, and the agent cannot override the user.
    code, body = _eval(browser, tab_id, "document.title")
    assert code == 1 and body["error"]["code"] == "detached_by_user"
    assert "popup" in body["error"]["message"]
    code, body = browser.cli("tab", "select", str(tab_id))
    assert code == 1 and body["error"]["code"] == "detached_by_user"
    listed = {t["id"]: t for t in browser.ok("tabs")["tabs"]}
    assert listed[tab_id]["stopped"] is True and listed[tab_id]["reins"] is False
    assert tab_id not in browser.ok("status")["attached_tabs"]

    _hand_back_in_the_popup(browser, tab_id)
    code, body = _eval(browser, tab_id, "document.title")
    assert code == 0 and body["result"]["result"]["value"] == "Bridge fixture"
    assert {t["id"]: t for t in browser.ok("tabs")["tabs"]}[tab_id]["stopped"] is False


def test_a_tab_closed_under_a_command_is_still_target_closed(
    browser: Browser, page: Any, worker: Worker
) -> None:
    """The wait for onDetach's reason does not turn a closed tab into a Cancel."""
    tab_id, _ = page("static/bridge.html")
    waiting = WaitingCommand(browser, tab_id)
    worker.run(f"chrome.tabs.remove({tab_id})")
    waiting.join(10)
    assert waiting.answer["error"]["code"] == "target_closed"
