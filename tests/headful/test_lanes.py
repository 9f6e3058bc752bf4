"""reins stays in its lane in the person's browser: when the person closes the agent's tab, or the
host restarts, no command lands in the person's own tab; a profile named at install keeps its
name across browser restarts.

The person's own page (fixtures/headful/home.html) is the oracle: it reports every key, click and
input it gets, and none may come from the agent.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.headful._desktop import Desktop, browser_command, stop_browser
from tests.headful.conftest import AgentTab, UserBrowser, until

pytestmark = [pytest.mark.browser, pytest.mark.headful]

HOME_KINDS = ("key", "click", "input")


def _home_log(user_browser: UserBrowser) -> list[dict[str, Any]]:
    beacons = user_browser.site.beacons
    return [r for kind in HOME_KINDS for r in beacons.of("home", kind)]


def _restart_host(user_browser: UserBrowser) -> None:
    """Kill the host the browser started (as a crash would); the extension starts a new one."""
    reins = user_browser.reins
    old = reins.ok("status")["host"]["pid"]
    os.kill(int(old), signal.SIGKILL)

    def new_host() -> bool:
        code, body, _ = reins.cli("status", timeout=20)
        return code == 0 and bool(body.get("connected")) and body["host"]["pid"] != old

    until(new_host, "a new host")


def test_after_the_person_closes_the_agents_tab_no_command_reaches_theirs(
    agent_tab: Callable[..., AgentTab], user_browser: UserBrowser
) -> None:
    tab = agent_tab()
    tab.act("click", "#count-btn")  # the agent's current tab, attached
    tab.reported("click", count=1)
    reins, person = user_browser.reins, user_browser.person
    before = len(_home_log(user_browser))

    # The person closes the agent's tab with the keyboard. It is the last tab of the "reins" group,
    # so Chrome asks "Close tab and delete group?" first (saved tab groups): the tab stays open
    # until the person confirms with Enter (the default button, "Delete group"). This dialog is
    # why a bare ctrl+w looked as if it did not close the tab.
    person.close_tab()
    time.sleep(0.5)
    assert tab.tab_id in {t["id"] for t in reins.ok("tabs")["tabs"]}, "no dialog: closed at once"
    person.key("Return")
    until(lambda: tab.tab_id not in {t["id"] for t in reins.ok("tabs")["tabs"]}, "the tab closed")
    listed = {t["id"]: t for t in reins.ok("tabs")["tabs"]}
    assert listed[user_browser.home_tab]["active"] is True  # the person's page is in front now

    for command in (["press", "q"], ["click", "#notes"], ["eval", "document.title"]):
        code, body, _ = reins.cli(*command)  # no --tab: the current tab
        assert code == 1 and body["error"]["code"] == "tab_closed", (command, body)

    # The same after a host restart: the new host remembers the closed pick, not the front tab.
    _restart_host(user_browser)
    code, body, _ = reins.cli("press", "q")
    assert code == 1 and body["error"]["code"] == "tab_closed", body

    time.sleep(0.5)  # beacons in flight
    assert _home_log(user_browser)[before:] == []


def test_after_a_host_restart_commands_go_to_the_agents_tab_not_the_front_one(
    agent_tab: Callable[..., AgentTab], user_browser: UserBrowser
) -> None:
    tab = agent_tab()
    tab.act("click", "#count-btn")  # the agent's current tab
    tab.reported("click", count=1)
    person = user_browser.person
    person.key("ctrl+1")  # the person goes back to their own page: it is in front, the agent's not
    front = lambda: {t["id"]: t for t in user_browser.reins.ok("tabs")["tabs"]}  # noqa: E731
    until(lambda: front()[user_browser.home_tab]["active"], "the person's tab in front")
    before = len(_home_log(user_browser))

    _restart_host(user_browser)
    code, body, _ = user_browser.reins.cli("click", "#count-btn")  # no --tab
    assert code == 0 and body.get("ok"), body
    tab.reported("click", count=2)  # the agent's page counted it, in the background

    time.sleep(0.5)
    assert _home_log(user_browser)[before:] == []
    assert front()[user_browser.home_tab]["active"] is True


def test_a_profile_named_at_install_keeps_its_name_across_browser_restarts(
    desktop: Desktop, user_browser: UserBrowser
) -> None:
    """A second profile of the person's, registered with `reins install --profile work`, started
    twice: it is `work` both times, the first browser keeps its own name, and with `work` closed a
    command for it answers `no_host` (never the other browser)."""
    reins = user_browser.reins
    own = reins.ok("status")["host"]["profile"]
    assert own != "work"
    data = reins.home / "work-profile"
    data.mkdir(exist_ok=True)
    reins.ok("install", "--user-data-dir", str(data), "--profile", "work")
    env = desktop.env(REINS_HOME=str(reins.home), PYTHONPATH=reins.env()["PYTHONPATH"])
    url = user_browser.site.url("headful/widgets.html", "work")
    for _ in range(2):
        proc = subprocess.Popen(
            browser_command(data, url),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:

            def work_connected() -> bool:
                code, body, _ = reins.cli("--profile", "work", "status", timeout=20)
                return code == 0 and bool(body.get("connected"))

            until(work_connected, "the work profile's host", timeout=60)
            assert reins.ok("--profile", "work", "status")["host"]["profile"] == "work"
            assert reins.ok("--profile", own, "status")["host"]["profile"] == own
            code, body, _ = reins.cli("status")  # two connected, none chosen
            assert code != 0 and body["error"]["code"] == "ambiguous_profile", body
            assert "work" in body["error"]["message"] and own in body["error"]["message"]
        finally:
            stop_browser(proc)

        def work_gone() -> bool:
            code, body, _ = reins.cli("--profile", "work", "status", timeout=20)
            return code == 3 and body["error"]["code"] == "no_host"

        until(work_gone, "the work profile's host to be gone")
    assert reins.ok("status")["host"]["profile"] == own  # one connected again: no need to choose
