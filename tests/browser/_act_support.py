"""Small helpers shared by the act browser tests (test_act_*.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .conftest import Browser


def eventually(
    read: Callable[[], Any], want: Callable[[Any], bool], *, timeout: float = 3.0
) -> Any:
    """Poll the page until `want(read())` holds; returns the last value read either way."""
    deadline = time.monotonic() + timeout
    value = read()
    while not want(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = read()
    return value


def refs_by_name(state: dict[str, Any]) -> dict[str, str]:
    """name -> ref for the refs a `state --json` answer lists (first ref wins for a name)."""
    out: dict[str, str] = {}
    for item in state["refs"]:
        out.setdefault(item["name"], item["ref"])
    return out


def pick_by_the_agent_loop(browser: Browser, tab: str, trigger: str, option: str) -> None:
    """The agent loop on a dropdown: `state`, click the trigger named ``trigger``, `state`
    again, click the option named ``option``."""
    browser.ok("click", refs_by_name(browser.ok("state", "--tab", tab))[trigger], "--tab", tab)
    browser.ok("click", refs_by_name(browser.ok("state", "--tab", tab))[option], "--tab", tab)


def page_log(browser: Browser, name: str = "__log") -> list[str]:
    return list(browser.js(f"return window.{name}.slice()"))


def frame_log(browser: Browser, frame_id: str, name: str = "__log") -> list[str]:
    """``window.<name>`` of the document the iframe ``#frame_id`` shows (another site's too)."""
    from selenium.webdriver.common.by import By

    driver = browser.driver
    driver.switch_to.frame(driver.find_element(By.ID, frame_id))
    try:
        return list(browser.js(f"return window.{name}.slice()"))
    finally:
        driver.switch_to.default_content()


def frame_loaded(browser: Browser, frame_id: str, within: float = 5) -> None:
    """Wait until the iframe ``#frame_id``'s document has its (empty) log."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if frame_log(browser, frame_id) == []:
                return
        except Exception:  # noqa: BLE001 - the frame is still loading
            pass
        time.sleep(0.1)
    raise AssertionError(f"the frame #{frame_id} did not load")


def open_widget(page: Any, browser: Browser, path: str, ready: str, what: str) -> str:
    """A fresh tab on a widget page, once ``ready`` (a JS expression) holds: its id, as text."""
    tab = str(page(path)[0])
    until = time.monotonic() + 10
    while not browser.js(f"return {ready}"):
        assert time.monotonic() < until, what
        time.sleep(0.05)
    return tab


def committed_tags(browser: Browser) -> str:
    """What a multi-select page committed: its `#committed-tags` text."""
    return str(browser.js("return document.getElementById('committed-tags').textContent"))


def widget_committed(browser: Browser) -> tuple[str, list[str]]:
    """What a widget page committed: its `#committed` text and its `window.__events` log."""
    return (
        str(browser.js("return document.getElementById('committed').textContent")),
        list(browser.js("return window.__events.slice()")),
    )


def scroll_until(
    browser: Browser, tab: str, scroller: str, target: str, budget_ms: int
) -> tuple[int, dict[str, Any], float]:
    """`reins scroll SCROLLER --until TARGET` within ``budget_ms``: its exit code, its answer and
    the seconds it took whole process (printed with its wheel turns and sweep steps)."""
    began = time.monotonic()
    code, body = browser.cli(
        "scroll",
        scroller,
        "--until",
        target,
        "--tab",
        tab,
        "--timeout-ms",
        str(budget_ms),
        timeout=budget_ms / 1000 + 30,
    )
    took = time.monotonic() - began
    said = body if code == 0 else body.get("error", {})
    print(
        f"\n{scroller} {target}: exit {code}, {said.get('wheels')} wheel turns, "
        f"{said.get('sweep_steps')} sweep steps, {took:.2f} s whole process"
    )
    return code, body, took
