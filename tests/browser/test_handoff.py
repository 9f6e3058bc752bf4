"""`reins handoff TEXT`: a step handed to the person. The run waits until the person presses Done
in the reins popup (here opened as a page, `popup.html?tab=ID`; the headful tier opens the real
one with its shortcut), and the trace says a person did it and how long it took, with nothing of
what they typed: no pictures of the step, and the console and network of it left out — the page
here logs every key it is given. Cancel and the budget end it with typed errors."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from reins._paths import EXTENSION_ID

from .conftest import Browser

pytestmark = pytest.mark.browser

SECRET = "hunter2-correct-horse"
ASKED = "Type your password, then press Done"


class Asking:
    """A handoff in a thread, as an agent waits on it."""

    def __init__(self, browser: Browser, tab: int, text: str, timeout_ms: int = 60_000) -> None:
        self.answer: dict[str, Any] = {}
        args = {"text": text}

        def run() -> None:
            self.answer = browser.call("handoff", args, tab=tab, timeout_ms=timeout_ms)

        self.thread = threading.Thread(target=run)
        self.thread.start()

    def join(self) -> dict[str, Any]:
        self.thread.join(70)
        assert not self.thread.is_alive()
        return self.answer


def _popup(browser: Browser, tab: int, press: str | None) -> str | None:
    """Open the popup for ``tab``; press ``press`` (a button id) on the handoff it shows, if it
    shows one: its text, or None when it shows none."""
    driver = browser.driver
    before = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(f"chrome-extension://{EXTENSION_ID}/popup.html?tab={tab}")
        time.sleep(0.5)  # the popup asked the worker for its status
        box = driver.find_element("id", "handoff")
        if not box.is_displayed():
            return None
        text = str(driver.find_element("id", "handoff-text").text)
        if press is not None:
            driver.find_element("id", press).click()
            time.sleep(0.2)
        return text
    finally:
        driver.close()
        driver.switch_to.window(before)


def _wait_for_request(browser: Browser, tab: int) -> str:
    deadline = time.monotonic() + 10
    while (text := _popup(browser, tab, None)) is None:
        assert time.monotonic() < deadline, "the popup never showed the request"
    return text


def test_the_person_does_the_step_and_the_trace_keeps_none_of_it(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    tab, url = page("static/release.html")
    browser.ok("tab", "select", str(tab))
    # A page that logs what it is given (an SSO page's analytics could).
    browser.js(
        "document.getElementById('merchant').addEventListener('input', "
        "(e) => console.error('typed ' + e.target.value))"
    )
    trace = tmp_path / "trace"
    browser.ok("trace", "start", str(trace), "--screenshots")
    asking = Asking(browser, tab, ASKED)
    assert _wait_for_request(browser, tab) == ASKED
    # The person types into the page, then presses Done.
    browser.driver.find_element("id", "merchant").send_keys(SECRET)
    assert _popup(browser, tab, "handoff-done") == ASKED
    answer = asking.join()
    assert answer["ok"], answer
    assert answer["handoff"]["outcome"] == "done" and answer["handoff"]["person_ms"] > 500
    assert browser.js("return document.getElementById('merchant').value") == SECRET
    assert _popup(browser, tab, None) is None, "the request is gone once answered"
    browser.ok("click", "role=button[name='Save']")
    browser.ok("trace", "stop")

    text = (trace / "trace.jsonl").read_text()
    assert SECRET not in text
    steps = [x for x in map(json.loads, text.splitlines()) if x["type"] == "step"]
    person = next(s for s in steps if s["cmd"] == "handoff")
    assert person["ok"] and person["answer"]["handoff"]["person_ms"] > 500
    assert "console" not in person and "network" not in person and "shots" not in person
    assert any("a person's step" in n for n in person["notes"]), person["notes"]
    saved = next(s for s in steps if s["cmd"] == "click")
    assert "shots" in saved, "the steps after it are pictured as before"
    assert not any(SECRET in c.get("text", "") for c in saved.get("console", []))
    assert list(browser.js("return window.__saved")) == [{"merchant": SECRET, "receipt": False}]


def test_cancel_and_time_up_are_typed_errors_and_leave_no_request(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/release.html")
    browser.ok("tab", "select", str(tab))
    asking = Asking(browser, tab, "Approve the payment")
    assert _wait_for_request(browser, tab) == "Approve the payment"
    _popup(browser, tab, "handoff-cancel")
    answer = asking.join()
    assert not answer["ok"] and answer["error"]["code"] == "handoff_cancelled", answer

    asking = Asking(browser, tab, "Nobody will press anything", timeout_ms=4000)
    answer = asking.join()
    assert not answer["ok"] and answer["error"]["code"] == "timeout", answer
    assert "did not press Done" in answer["error"]["message"]
    assert _popup(browser, tab, None) is None
