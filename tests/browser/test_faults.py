"""Faults injected into a real browser, each ending in a typed answer at once and a recovery.

A renderer crashed with `Page.crash` (chromedriver's own CDP connection, on the tab's window), the
host killed mid-command, a tab that closes itself under reins, the last tab closed, a frozen
browser and a hung host (SIGSTOP), `reins launch` while the profile's browser runs without its
host. The session browser (chromedriver) takes the tab-level faults; the process-level ones get
a browser of their own. Each test stays well under a minute (its own time limit below).
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser, Site, browser_of_its_own
from .support import WaitingCommand, close_every_page, run_cli, start_cli

pytestmark = pytest.mark.timeout(50)

NEVER = json.dumps({"expression": "new Promise(() => {})", "awaitPromise": True})
ONE = json.dumps({"expression": "1 + 1", "returnByValue": True})
TITLE = json.dumps({"expression": "document.title", "returnByValue": True})


def crash(browser: Browser, marker: str) -> None:
    """Kill the renderer of the tab whose URL has ``marker``, as a crash or the OOM killer would."""
    from selenium.common.exceptions import WebDriverException

    _switch(browser, lambda url: marker in url)
    try:
        browser.driver.execute_cdp_cmd("Page.crash", {})
    except WebDriverException:
        pass  # chromedriver reports its own tab as crashed: that is the point
    _leave(browser, marker)


def _switch(browser: Browser, wanted: Any) -> None:
    """Point selenium at a window whose URL satisfies ``wanted``. Skips windows chromedriver saw
    crash: it keeps answering "tab crashed" for them, even after the page came back."""
    from selenium.common.exceptions import WebDriverException

    for handle in browser.driver.window_handles:
        try:
            browser.driver.switch_to.window(handle)
            if wanted(browser.driver.current_url):
                return
        except WebDriverException:
            continue
    raise AssertionError("no such window")


def _leave(browser: Browser, marker: str) -> None:
    """Point selenium at another window, so the session's later tests do not start on this one."""
    _switch(browser, lambda url: marker not in url)


def _marker(url: str) -> str:
    return url.rsplit("t=", 1)[-1]


# ---- a crashed renderer ------------------------------------------------------------------------


def test_a_crashed_tab_answers_at_once_and_reload_brings_it_back(
    browser: Browser, page: Any
) -> None:
    _, reader = page("static/bridge.html")  # a window of the same origin, for reading its storage
    tab_id, url = page("static/crash.html")
    tab = str(tab_id)
    browser.ok("cdp", "Runtime.evaluate", ONE, "--tab", tab)
    crash(browser, _marker(url))

    started = time.monotonic()
    code, body = browser.cli("cdp", "Runtime.evaluate", ONE, "--tab", tab)
    assert code == 1 and body["error"]["code"] == "tab_crashed", body
    assert "reins reload" in body["error"]["message"]
    assert time.monotonic() - started < 3.0  # a CLI process and one round trip, not 15 s
    assert browser.ok("status", "--tab", tab)["tab"]["crashed"] is True
    assert [t.get("crashed") for t in browser.ok("tabs")["tabs"] if t["id"] == tab_id] == [True]

    started = time.monotonic()
    body = browser.ok("reload", "--tab", tab)
    assert body["title"] == "Crash fixture"
    assert time.monotonic() - started < 10.0  # was: 30 s and a timeout
    # The page ran again (its second load counted itself, read from another tab of the origin),
    # and reins reaches it.
    _switch(browser, lambda u: _marker(reader) in u)
    assert browser.js("return localStorage.getItem(arguments[0])", f"loads:{_marker(url)}") == "2"
    assert (
        browser.ok("cdp", "Runtime.evaluate", TITLE, "--tab", tab)["result"]["result"]["value"]
        == "Crash fixture"
    )


def test_a_tab_that_crashed_before_reins_touched_it_is_reported(
    browser: Browser, page: Any
) -> None:
    tab_id, url = page("static/bridge.html")  # opened, but no page command has run there yet
    crash(browser, _marker(url))
    started = time.monotonic()
    code, body = browser.cli("state", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "tab_crashed", body
    assert time.monotonic() - started < 3.0
    assert browser.ok("navigate", url, "--tab", str(tab_id))["title"] == "Bridge fixture"


def test_a_command_waiting_on_the_page_when_it_crashes_answers_at_once(
    browser: Browser, page: Any
) -> None:
    tab_id, url = page("static/bridge.html")
    waiter = WaitingCommand(browser, tab_id)
    crashed_at = time.monotonic()
    crash(browser, _marker(url))
    waiter.join(10)
    assert not waiter.is_alive()
    assert waiter.answer["error"]["code"] == "tab_crashed", waiter.answer
    assert waiter.at - crashed_at < 2.0  # not the 20 s budget
    browser.ok("reload", "--tab", str(tab_id))


# ---- the host killed mid-command ---------------------------------------------------------------


def test_killing_the_host_mid_command_gives_one_typed_answer_and_a_new_host(
    browser: Browser, page: Any
) -> None:
    tab_id, _ = page("static/bridge.html")
    old_pid = browser.ok("status")["host"]["pid"]
    proc = start_cli(
        browser.home,
        "cdp",
        "Runtime.evaluate",
        NEVER,
        "--tab",
        str(tab_id),
        "--timeout-ms",
        "20000",
    )
    time.sleep(0.7)  # the command is in flight, waiting on the page
    os.kill(old_pid, signal.SIGKILL)
    killed = time.monotonic()
    out, _ = proc.communicate(timeout=10)
    assert time.monotonic() - killed < 3.0
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(answers) == 1, out  # exactly one answer
    assert answers[0]["ok"] is False
    assert answers[0]["error"]["code"] in ("no_host", "not_connected")
    assert proc.returncode == 3

    deadline = time.monotonic() + 10
    while True:  # the extension reconnects; a new host answers
        code, body = browser.cli("status", timeout=10)
        if code == 0 and body["connected"] and body["host"]["pid"] != old_pid:
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert (
        browser.ok("cdp", "Runtime.evaluate", ONE, "--tab", str(tab_id))["result"]["result"][
            "value"
        ]
        == 2
    )


# ---- a tab that closes itself ------------------------------------------------------------------


def test_a_current_tab_closed_by_its_page_is_never_replaced_by_another(
    browser: Browser, page: Any
) -> None:
    other, _ = page("static/bridge.html", who="other")
    tab_id, url = page("static/bridge.html", who="closer")  # the current tab now
    browser.js(
        "document.body.insertAdjacentHTML('beforeend',"
        " '<button id=closer onclick=\"window.close()\">close</button>')"
    )
    code, body = browser.cli("click", "#closer")
    assert set(body) & {"ok", "error"}, body  # a typed answer, whatever act/ makes of it
    deadline = time.monotonic() + 5
    while tab_id in [t["id"] for t in browser.ok("tabs")["tabs"]]:
        assert time.monotonic() < deadline, "window.close() did not close the tab"
        time.sleep(0.1)
    _leave(browser, _marker(url))

    code, body = browser.cli("cdp", "Runtime.evaluate", TITLE)  # no --tab: the current one
    assert code == 1 and body["error"]["code"] == "tab_closed", body
    assert f"tab {tab_id}" in body["error"]["message"]
    code, body = browser.cli("cdp", "Runtime.evaluate", TITLE, "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "target_closed", body
    # The agent chooses again, and reins follows.
    browser.ok("tab", "select", str(other))
    value = browser.ok(
        "cdp",
        "Runtime.evaluate",
        json.dumps(
            {"expression": "new URLSearchParams(location.search).get('who')", "returnByValue": True}
        ),
    )
    assert value["result"]["result"]["value"] == "other"


# ---- browsers of their own: the last tab, a frozen browser, a hung host, a relaunch ------------


def _wait_host(
    home: Path, profile: str, *, not_pid: int | None = None, timeout: float = 20
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = run_cli(home, "status", profile=profile, timeout=10)
        body = run.json()
        if run.code == 0 and body.get("connected") and body["host"]["pid"] != not_pid:
            return body
        time.sleep(0.2)
    raise AssertionError(f"no host for {profile}: {body}")


@pytest.fixture
def windowless() -> Iterator[Browser]:
    """A browser of its own that keeps running with no window open (chromedriver keeps it up, as
    Chrome on macOS or with background apps stays up)."""
    with browser_of_its_own("rw-") as b:
        yield b


def test_after_the_last_tab_is_closed_tabs_lists_nothing_and_tab_new_works(
    windowless: Browser, site: Site
) -> None:
    b = windowless
    # Closed as the user or a page would (`reins tab close` puts a blank tab in the last one's
    # place in a browser reins launched: tests/browser/test_launch.py).
    close_every_page(b.driver)
    deadline = time.monotonic() + 5
    while True:  # closing is asynchronous in the browser
        body = b.ok("tabs")
        if body["tabs"] == []:
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.1)
    assert body["current"] is None
    status = b.ok("status")
    assert status["connected"] is True and status["tab"] is None, status

    url = site.url("static/bridge.html")
    body = b.ok("tab", "new", url)  # the extension opens a window for it
    assert body["title"] == "Bridge fixture"
    assert b.ok("cdp", "Runtime.evaluate", TITLE)["result"]["result"]["value"] == "Bridge fixture"
    body = b.ok("tabs")
    assert [t["id"] for t in body["tabs"]] == [body["current"]]
    b.switch_to(_marker(url))
    assert b.driver.title == "Bridge fixture"


@pytest.fixture(scope="module")
def launched() -> Iterator[tuple[Path, str, int]]:
    """A browser started by `reins launch` (headless), with its home, profile and pid."""
    home = Path(tempfile.mkdtemp(prefix="rl-", dir="/tmp"))
    profile = "faults"
    run = run_cli(home, "launch", "--headless", profile=profile, timeout=60)
    assert run.code == 0, run
    try:
        yield home, profile, int(run.json()["pid"])
    finally:
        run_cli(home, "shutdown", profile=profile, timeout=30)


def test_status_tells_a_frozen_browser_within_its_budget(launched: tuple[Path, str, int]) -> None:
    home, profile, browser_pid = launched
    host_pid = _wait_host(home, profile)["host"]["pid"]
    os.kill(browser_pid, signal.SIGSTOP)  # the browser process only: its host runs on
    try:
        started = time.monotonic()
        run = run_cli(home, "status", profile=profile, timeout=30)
        elapsed = time.monotonic() - started
    finally:
        os.kill(browser_pid, signal.SIGCONT)
    body = run.json()
    assert run.code == 1 and body["error"]["code"] == "browser_unresponsive", body
    assert body["error"]["extension"] == "not answering"
    assert body["error"]["host"]["pid"] == host_pid
    assert elapsed < 3.5, elapsed  # the status budget is 3 s; the extension gets 1.5 s of it
    assert _wait_host(home, profile)["host"]["pid"] == host_pid  # and it answers once it thaws


def test_status_tells_a_hung_host_within_its_budget(launched: tuple[Path, str, int]) -> None:
    home, profile, _ = launched
    host_pid = _wait_host(home, profile)["host"]["pid"]
    os.kill(host_pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        run = run_cli(home, "status", profile=profile, timeout=30)
        elapsed = time.monotonic() - started
    finally:
        os.kill(host_pid, signal.SIGCONT)
    body = run.json()
    assert run.code == 3 and body["error"]["code"] == "host_unresponsive", body
    assert body["error"]["host_pid"] == host_pid
    assert f"kill {host_pid}" in body["error"]["message"]
    assert elapsed < 8.0, elapsed  # was 65 s
    assert _wait_host(home, profile)["host"]["pid"] == host_pid


def test_launch_while_the_browser_runs_without_its_host_reuses_it(
    launched: tuple[Path, str, int],
) -> None:
    home, profile, browser_pid = launched
    host_pid = _wait_host(home, profile)["host"]["pid"]
    # Keep the host away for a while, as after the extension's worker restarted: the extension
    # cannot start one while its manifest is gone, and retries with backoff.
    manifests = home / "profiles" / profile / "user-data" / "NativeMessagingHosts"
    manifests.rename(manifests.with_name("hidden"))
    os.kill(host_pid, signal.SIGKILL)
    time.sleep(1.0)
    run = run_cli(
        home, "launch", "--headless", "--timeout-ms", "20000", profile=profile, timeout=40
    )
    body = run.json()
    # `reins launch` writes the manifest again; the running browser's host comes back.
    assert run.code == 0 and body["already_running"] is True and body["pid"] == browser_pid, body
    assert (home / "profiles" / profile / "browser.pid").read_text() == str(browser_pid)
    os.kill(browser_pid, 0)  # the same browser, still running, still ours to shut down
    assert _wait_host(home, profile, not_pid=host_pid)["connected"] is True
