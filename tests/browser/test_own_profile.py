"""reins in the user's own browser: it drives only its own tabs and leaves the user's view alone.

These tests start a second headless Chromium registered as a user's own profile would be
(`reins install --user-data-dir X`: no name, not launched), beside the session's launched test
browser. The user's tab is the one the browser opened with; the test plays the user through
selenium (their page, their key presses) and through the extension's worker (closing a tab).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reins._paths import EXTENSION_ID

from ._worker import Worker
from .conftest import Site
from .support import run_cli


class OwnBrowser:
    """A browser set up as the user's own profile, and the reins CLI pointed at it."""

    def __init__(self, home: Path, user_data: Path) -> None:
        from reins.bridge.client import live_profiles
        from reins.setup.install import install
        from reins.setup.launch import browser_flags
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        self.home = home
        user_data.mkdir(parents=True, exist_ok=True)
        install(user_data_dir=str(user_data))  # the user's own: no name, not launched
        options = Options()
        options.binary_location = os.environ.get("REINS_TEST_BROWSER", "/usr/bin/chromium")
        for flag in browser_flags(user_data, headless=True):
            options.add_argument(flag)
        options.add_experimental_option("excludeSwitches", ["disable-extensions"])
        service = Service(os.environ.get("REINS_TEST_DRIVER", "/usr/bin/chromedriver"))
        before = set(live_profiles(home))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_script_timeout(30)
        self.user_handle = self.driver.current_window_handle
        deadline = time.monotonic() + 30
        while not (new := set(live_profiles(home)) - before):  # its host's socket
            assert time.monotonic() < deadline, "the own profile's host never connected"
            time.sleep(0.1)
        (self.profile,) = new

    def cli(self, *args: str, timeout: float = 60) -> tuple[int, dict[str, Any]]:
        run = run_cli(self.home, *args, profile=self.profile, timeout=timeout)
        return run.code, run.json()

    def ok(self, *args: str) -> dict[str, Any]:
        code, body = self.cli(*args)
        assert code == 0 and body.get("ok"), f"reins {' '.join(args)} -> {code} {body}"
        return body

    def user_opens(self, url: str) -> int:
        """The user's own tab shows url; its id."""
        self.driver.switch_to.window(self.user_handle)
        self.driver.get(url)
        self.driver.execute_script(
            "window.__keys = []; addEventListener('keydown', (e) => window.__keys.push(e.key));"
            "window.__mark = 'user';"
        )
        marker = url.rsplit("t=", 1)[-1]
        return next(t["id"] for t in self.ok("tabs")["tabs"] if marker in t["url"])

    def user_page(self, script: str) -> Any:
        self.driver.switch_to.window(self.user_handle)
        return self.driver.execute_script(script)

    def quit(self) -> None:
        self.driver.quit()


@pytest.fixture(scope="module")
def own(reins_home: Path, site: Site) -> Iterator[OwnBrowser]:
    browser = OwnBrowser(reins_home, reins_home / "own-profile")
    yield browser
    browser.quit()


@pytest.fixture
def worker(own: OwnBrowser) -> Iterator[Worker]:
    w = Worker(own.driver)
    yield w
    w.close()


def test_the_users_own_browser_is_not_counted_as_launched(own: OwnBrowser) -> None:
    status = own.ok("status")
    assert status["launched"] is False
    assert status["host"]["profile"] == own.profile


def test_tab_new_opens_in_the_background_in_the_reins_group(
    own: OwnBrowser, site: Site, worker: Worker
) -> None:
    user_tab = own.user_opens(site.url("static/bridge.html", who="user"))
    opened = own.ok("tab", "new", site.url("static/bridge.html", who="agent"))["id"]
    try:
        listed = {t["id"]: t for t in own.ok("tabs")["tabs"]}
        assert listed[user_tab]["active"] is True, "the user's view is theirs"
        assert listed[opened]["active"] is False
        assert (listed[opened]["reins"], listed[user_tab]["reins"]) == (True, False)
        assert worker.group_title(opened) == "reins"
        assert worker.group_title(user_tab) is None
        assert worker.tab(opened)["windowId"] == worker.tab(user_tab)["windowId"]
        assert own.user_page("return document.visibilityState") == "visible"
        # The background tab is reins's to use.
        code, body = own.cli("eval", "new URLSearchParams(location.search).get('who')")
        assert code == 0 and body["value"] == "agent"
    finally:
        own.cli("tab", "close", str(opened))


def test_commands_never_reach_the_users_tab(own: OwnBrowser, site: Site, worker: Worker) -> None:
    user_tab = own.user_opens(site.url("static/bridge.html", who="user"))
    code, body = own.cli("eval", "window.__mark = 'agent'", "--tab", str(user_tab))
    assert code == 1 and body["error"]["code"] == "tab_not_reins"
    assert f"tab {user_tab} is the user's" in body["error"]["message"]
    assert "reins tab select ID" in body["error"]["message"]

    opened = own.ok("tab", "new", site.url("static/bridge.html", who="agent"))["id"]
    worker.run(f"chrome.tabs.remove({opened})")  # the user closes the agent's tab
    time.sleep(0.3)
    code, body = own.cli("press", "q")
    assert code == 1 and body["error"]["code"] == "tab_closed", body
    # …and after a host restart, the first command does not land in the user's tab either.
    old_pid = own.ok("status")["host"]["pid"]
    os.kill(old_pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while True:
        code, status = own.cli("status", timeout=5)
        if code == 0 and status["host"]["pid"] != old_pid:
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["host"]["profile"] == own.profile
    code, body = own.cli("press", "q")
    assert code == 1 and body["error"]["code"] == "tab_closed", body
    code, body = own.cli("eval", "window.__mark = 'agent'")
    assert code == 1 and body["error"]["code"] == "tab_closed", body
    assert own.user_page("return [window.__mark, window.__keys]") == ["user", []]


def test_tab_select_hands_a_tab_over_and_the_popup_takes_it_back(
    own: OwnBrowser, site: Site, worker: Worker
) -> None:
    user_tab = own.user_opens(site.url("static/bridge.html", who="user"))
    picked = own.ok("tab", "select", str(user_tab))["tab"]
    assert picked["reins"] is True
    assert worker.group_title(user_tab) == "reins"
    code, body = own.cli("eval", "window.__mark")
    assert code == 0 and body["value"] == "user"

    driver = own.driver
    driver.switch_to.new_window("tab")
    try:
        driver.get(f"chrome-extension://{EXTENSION_ID}/popup.html?tab={user_tab}")
        time.sleep(0.3)
        assert "reins's" in driver.find_element("id", "this-tab").text
        driver.find_element("id", "take-back").click()
        time.sleep(0.3)
        assert "yours" in driver.find_element("id", "this-tab").text
    finally:
        driver.close()
        driver.switch_to.window(own.user_handle)
    code, body = own.cli("eval", "window.__mark = 'agent'")
    assert code == 1 and body["error"]["code"] == "tab_not_reins"
    assert worker.group_title(user_tab) is None
    assert own.user_page("return window.__mark") == "user"


def test_profile_names_stay_with_their_profiles_whatever_the_start_order(
    own: OwnBrowser, reins_home: Path
) -> None:
    first = OwnBrowser(reins_home, reins_home / "names-a")
    second = OwnBrowser(reins_home, reins_home / "names-b")
    names = (first.profile, second.profile)
    first.quit()
    second.quit()
    assert len(set(names) | {own.profile}) == 3
    second = OwnBrowser(reins_home, reins_home / "names-b")  # the other one first, this time
    first = OwnBrowser(reins_home, reins_home / "names-a")
    try:
        assert (first.profile, second.profile) == names
        assert second.ok("status")["host"]["profile"] == names[1]
    finally:
        first.quit()
        second.quit()


def test_a_tab_a_page_opens_is_reins_only_once_handed_over(own: OwnBrowser, site: Site) -> None:
    """Chrome's openerTabId names the tab that was active, not the page that opened the new one,
    so the extension cannot tell an agent's link from the user's: the agent takes it explicitly."""
    own.user_opens(site.url("static/bridge.html", who="user"))
    opened = own.ok("tab", "new", site.url("static/bridge.html", who="agent"))["id"]
    child_url = site.url("static/bridge.html", who="child")
    code, _ = own.cli(
        "cdp",
        "Runtime.evaluate",
        json.dumps(
            {"expression": f"window.open({json.dumps(child_url)}) !== null", "userGesture": True}
        ),
    )
    assert code == 0
    marker = child_url.rsplit("t=", 1)[-1]
    deadline = time.monotonic() + 5
    while not (child := [t for t in own.ok("tabs")["tabs"] if marker in t["url"]]):
        assert time.monotonic() < deadline, "the page opened no tab"
        time.sleep(0.1)
    child_id = str(child[0]["id"])
    try:
        assert child[0]["reins"] is False
        code, body = own.cli("eval", "1", "--tab", child_id)
        assert code == 1 and body["error"]["code"] == "tab_not_reins"
        own.ok("tab", "select", child_id)
        code, body = own.cli("eval", "new URLSearchParams(location.search).get('who')")
        assert code == 0 and body["value"] == "child"
    finally:
        own.cli("tab", "close", child_id)
        own.cli("tab", "close", str(opened))
