"""A page the user holds paused in DevTools' debugger: every reins command there answers
`page_paused` at once (not after its budget), nothing of the agent's reaches the page while it is
paused, and commands work again once the user resumes it or closes DevTools.

DevTools is played by a second CDP client on the browser's DevTools port (tests/browser/_devtools.py).
The page (fixtures/static/paused.html) is the oracle: its log of clicks and input.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ._devtools import DevTools, wait_until
from .conftest import Browser
from .support import WaitingCommand

pytestmark = pytest.mark.browser

# Each command gets a long budget: an answer well inside it is the fast typed error, not a timeout.
BUDGET = ["--timeout-ms", "20000"]


@pytest.fixture
def devtools(browser: Browser) -> Iterator[Callable[[str], DevTools]]:
    opened: list[DevTools] = []
    address = browser.driver.capabilities["goog:chromeOptions"]["debuggerAddress"]

    def open_on(url: str) -> DevTools:
        tools = DevTools(address, url.rsplit("t=", 1)[-1])
        opened.append(tools)
        return tools

    yield open_on
    for tools in opened:
        tools.close()


def _timed(browser: Browser, *args: str) -> tuple[int, dict[str, Any], float]:
    started = time.monotonic()
    code, body = browser.cli(*args, *BUDGET)
    return code, body, time.monotonic() - started


def _page_log(browser: Browser) -> list[dict[str, Any]]:
    log: list[dict[str, Any]] = browser.js("return window.__log")
    return log


def test_commands_on_a_paused_page_answer_page_paused_at_once(
    browser: Browser, page: Any, devtools: Callable[[str], DevTools]
) -> None:
    tab_id, url = page("static/paused.html")
    tab = ["--tab", str(tab_id)]
    browser.ok("click", "#count-btn", *tab)  # the watch is armed before the pause
    tools = devtools(url)
    tools.pause()

    for command in (
        ["click", "#count-btn"],
        ["fill", "#name", "agent"],
        ["eval", "document.title"],
        ["state"],
        ["reload"],
    ):
        code, body, elapsed = _timed(browser, *command, *tab)
        assert code == 1 and body["error"]["code"] == "page_paused", (command, body)
        assert elapsed < 5, f"{command}: {elapsed:.1f} s (the budget is 20 s)"
    message = body["error"]["message"]
    assert "paused in the debugger" in message and "DevTools" in message

    tools.resume()
    browser.ok("click", "#count-btn", *tab)
    assert [entry["kind"] for entry in _page_log(browser)] == ["click", "click"]


def test_a_page_paused_before_reins_looked_is_reported(
    browser: Browser, page: Any, devtools: Callable[[str], DevTools]
) -> None:
    tab_id, url = page("static/paused.html")
    tools = devtools(url)
    tools.pause()  # before reins's first command on the tab: the watch is armed on a paused page
    code, body, elapsed = _timed(browser, "click", "#count-btn", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_paused", body
    assert elapsed < 5
    tools.resume()
    browser.ok("click", "#count-btn", "--tab", str(tab_id))
    assert [entry["kind"] for entry in _page_log(browser)] == ["click"]


def test_a_command_waiting_on_the_page_when_it_pauses_answers_at_once(
    browser: Browser, page: Any, devtools: Callable[[str], DevTools]
) -> None:
    tab_id, url = page("static/paused.html")
    browser.ok("eval", "1", "--tab", str(tab_id))
    tools = devtools(url)
    waiter = WaitingCommand(browser, tab_id)
    tools.pause()
    paused_at = time.monotonic()
    waiter.join(15)
    assert not waiter.is_alive()
    assert waiter.answer["error"]["code"] == "page_paused", waiter.answer
    assert waiter.at - paused_at < 3  # not the 20 s budget
    tools.resume()


def test_closing_devtools_resumes_the_page_reins_watched(
    browser: Browser, page: Any, devtools: Callable[[str], DevTools]
) -> None:
    """With the Debugger domain on in reins's session, V8 would keep the page paused after
    DevTools closes: the extension lets go of it as soon as the page pauses."""
    tab_id, url = page("static/paused.html")
    tab = ["--tab", str(tab_id)]
    browser.ok("eval", "1", *tab)
    tools = devtools(url)
    tools.pause()
    code, body, _ = _timed(browser, "click", "#count-btn", *tab)
    assert code == 1 and body["error"]["code"] == "page_paused", body
    tools.close()
    ticks = browser.js("return window.__ticks")
    wait_until(lambda: browser.js("return window.__ticks") > ticks + 2, what="the page's timers")
    browser.ok("click", "#count-btn", *tab)
    assert [entry["kind"] for entry in _page_log(browser)] == ["click"]


def test_a_debugger_statement_does_not_pause_the_page_reins_watches(
    browser: Browser, page: Any
) -> None:
    """reins's session has breakpoints off: a page's own `debugger;` runs through."""
    tab_id, _ = page("static/paused.html")
    tab = ["--tab", str(tab_id)]
    browser.ok("click", "#count-btn", *tab)
    browser.js(
        "document.getElementById('count-btn').addEventListener('click', () => {"
        " debugger; window.__log.push({kind: 'after-debugger'}); })"
    )
    browser.ok("click", "#count-btn", *tab)
    kinds = [entry["kind"] for entry in _page_log(browser)]
    assert kinds == ["click", "click", "after-debugger"]


# How many scripts the page compiles in `ms` milliseconds, each its own (a page building code at
# run time: templates, sandboxes, a bundler in the browser).
_COMPILE_RATE = """
const ms = arguments[0];
const end = performance.now() + ms;
let n = 0;
while (performance.now() < end) { (0, eval)("void " + n + ";//" + Math.random()); n += 1; }
return n;
"""


def test_reins_leaves_no_debugger_domain_on_the_page(browser: Browser, page: Any) -> None:
    """With the Debugger domain on in reins's session V8 reports every script the page compiles
    (to the extension, which drops it): a page that compiles in a loop ran 3-20x slower once reins
    had acted on it. The page's own counter is the oracle: the rate after reins's commands is of
    the order of the rate before (the same code, same tab; a ratio, not a time: with the domain
    on it fell to a third, measured here)."""
    tab_id, _ = page("static/paused.html")
    tab = ["--tab", str(tab_id)]
    before = max(browser.js(_COMPILE_RATE, 300) for _ in range(2))
    browser.ok("click", "#count-btn", *tab)
    browser.ok("fill", "#name", "agent", *tab)
    after = max(browser.js(_COMPILE_RATE, 300) for _ in range(2))
    assert after > before / 2, f"compiled {before} scripts in 300 ms before reins, {after} after"
    assert [entry["kind"] for entry in _page_log(browser)][:1] == ["click"]


def test_a_page_running_debugger_statements_is_not_reported_paused(
    browser: Browser, page: Any
) -> None:
    """A command that takes long looks whether the page is paused; the page's own `debugger;`
    statements (every few ms) may hit in the instant reins looks, and that is not the user's
    DevTools pause: the command answers as the page allows."""
    tab_id, _ = page("static/paused.html")
    tab = ["--tab", str(tab_id)]
    browser.js(
        "setInterval(() => { debugger; }, 2);"
        "setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Later';"
        " document.body.append(p); }, 2500);"
    )
    code, body, _ = _timed(browser, "wait", "--text", "Later", *tab)
    assert code == 0 and body.get("ok"), body
    browser.ok("click", "#count-btn", *tab)
    assert [entry["kind"] for entry in _page_log(browser)] == ["click"]


def test_a_compile_flood_on_one_tab_leaves_the_others_answering(
    browser: Browser, page: Any
) -> None:
    """Issue 46: with the Debugger domain standing, a page compiling scripts in a loop sent every
    script to the extension. Now the flood is the page's own business: the other tab, the
    flooded tab itself and `status` answer, each within its default budget (their durations are
    in `reins stats`, printed here; no time is asserted)."""
    flood_tab, _ = page("static/paused.html")
    browser.ok("click", "#count-btn", "--tab", str(flood_tab))  # reins has acted on it
    browser.js(
        "(function burst() { for (let i = 0; i < 2000; i++) (0, eval)('void ' + i + ';//' +"
        " Math.random()); setTimeout(burst, 0); })()"
    )
    other, _ = page("static/paused.html")
    for _ in range(10):
        assert browser.ok("eval", "1 + 1", "--tab", str(other))["value"] == 2
    assert browser.ok("eval", "document.title", "--tab", str(flood_tab))["value"]
    assert browser.ok("status")["connected"] is True
    print("eval under a flood:", browser.ok("stats")["stats"]["commands"].get("eval"))
