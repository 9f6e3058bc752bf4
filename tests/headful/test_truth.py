"""What reins answers stays true when the person is at the browser too: their keystrokes landing in
the agent's field are reported (`fill_mismatch` with what the field kept), a slow handler while
they switch tabs is not a navigation, a page they hold in DevTools' debugger answers `page_paused`
at once, and with their browser closed `no_host` tells them to open it (not `reins launch`).

The fixture pages report what they committed to the test server (POST /beacon): the page is the
oracle of every answer checked here.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.headful._desktop import Desktop, browser_command, stop_browser
from tests.headful.conftest import AgentTab, UserBrowser, until

pytestmark = [pytest.mark.browser, pytest.mark.headful]

OpenTab = Callable[..., AgentTab]


def test_the_persons_keys_in_the_agents_field_are_reported_not_hidden(
    agent_tab: OpenTab, user_browser: UserBrowser
) -> None:
    """The person types in the agent's page (field #note) while the agent fills #name: the fill
    moves the focus, the person's next keys land in #name, and the fill must not answer ok with a
    value the field no longer holds."""
    tab = agent_tab()  # in front: the person looks at the agent's page
    person = user_browser.person
    tab.act("click", "#note")  # where the person's caret is when they start typing
    typed = "x" * 160  # ~4 s of typing at 25 ms a key
    answers: list[tuple[int, dict[str, Any]]] = []

    def agent() -> None:
        tab.beacons.wait(tab.tag, lambda r: r.get("id") == "note", what="the person typing")
        for n in range(6):
            code, body, _ = tab.reins("fill", "#name", f"agent {n}")
            answers.append((code, body))
            time.sleep(0.1)

    worker = threading.Thread(target=agent)
    worker.start()
    person.type_text(typed)
    worker.join(60)
    assert len(answers) == 6, answers
    time.sleep(0.5)  # beacons in flight
    name_values = {r["value"] for r in tab.beacons.of(tab.tag, "input") if r.get("id") == "name"}
    mismatches = []
    for n, (code, body) in enumerate(answers):
        if code == 0:
            assert body["effect"]["value"]["to"] == f"agent {n}", body
            assert f"agent {n}" in name_values  # the page held it
            continue
        error = body["error"]
        assert error["code"] == "fill_mismatch", body
        kept = error["kept"] if "kept" in error else error.get("details", {}).get("kept")
        assert kept is not None and kept != f"agent {n}", body
        assert kept in name_values, (kept, sorted(name_values))  # what the page really held
        assert kept.startswith(f"agent {n}") or "x" in kept, kept
        mismatches.append(kept)
    # At 25 ms a key, keys land in #name after most fills: at least one is seen and reported.
    assert mismatches, answers


def test_a_slow_handler_while_the_person_switches_tabs_is_not_a_navigation(
    agent_tab: OpenTab, user_browser: UserBrowser
) -> None:
    tab = agent_tab()
    person = user_browser.person
    result: list[tuple[int, dict[str, Any], float]] = []
    worker = threading.Thread(target=lambda: result.append(tab.reins("click", "#slow-btn")))
    worker.start()
    tab.reported("slow-start")
    person.key("ctrl+1")  # the person goes back to their own tab while the handler runs
    worker.join(30)
    tab.reported("slow-done")
    assert result, "the click never answered"
    code, body, elapsed = result[0]
    assert code == 0 and body.get("ok"), body
    assert "navigated" not in body["effect"], body
    assert body["effect"].get("dom_changed_elsewhere") or body["effect"].get("unknown"), body
    assert elapsed < 10, f"the click took {elapsed:.1f} s"  # not the whole 15 s budget


def test_a_page_the_person_holds_in_devtools_answers_page_paused_at_once(
    agent_tab: OpenTab, user_browser: UserBrowser
) -> None:
    tab = agent_tab("headful/paused.html")  # in front
    person = user_browser.person
    tab.act("click", "#count-btn")  # reins is attached and watching
    tab.reported("click", count=1)

    person.key("F12")  # DevTools opens on the tab; the page stops at its next `debugger;`

    def paused() -> dict[str, Any] | None:
        code, body, elapsed = tab.reins("eval", "1 + 1", "--timeout-ms", "20000")
        if code == 1 and body["error"]["code"] == "page_paused":
            assert elapsed < 5, f"page_paused took {elapsed:.1f} s"
            return body
        return None

    body = until(paused, "page_paused", timeout=30)
    assert "DevTools" in body["error"]["message"] or "debugger" in body["error"]["message"]
    code, body, elapsed = tab.reins("click", "#count-btn", "--timeout-ms", "20000")
    assert code == 1 and body["error"]["code"] == "page_paused", body
    assert elapsed < 5, f"page_paused took {elapsed:.1f} s"

    person.key("F12")  # the person closes DevTools: the page runs again
    until(lambda: tab.reins("click", "#count-btn")[0] == 0, "a click once the page runs")
    tab.reported("click", count=2)  # the agent's click while paused never reached the page
    assert len(tab.beacons.of(tab.tag, "click")) == 2


def test_with_their_browser_closed_no_host_tells_the_person_to_open_it(
    desktop: Desktop, user_browser: UserBrowser
) -> None:
    """A second profile of the person's (their own, not launched), opened and then closed."""
    reins = user_browser.reins
    data = reins.home / "own-profile"
    data.mkdir(exist_ok=True)
    reins.ok("install", "--user-data-dir", str(data), "--profile", "mine")
    env = desktop.env(REINS_HOME=str(reins.home), PYTHONPATH=reins.env()["PYTHONPATH"])
    proc = subprocess.Popen(
        browser_command(data, user_browser.site.url("headful/home.html", "mine")),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        until(
            lambda: reins.cli("--profile", "mine", "status", timeout=20)[0] == 0,
            "the profile's host",
            timeout=60,
        )
    finally:
        stop_browser(proc)

    def gone() -> dict[str, Any] | None:
        code, body, _ = reins.cli("--profile", "mine", "tabs", timeout=20)
        return body if code == 3 else None

    body = until(gone, "the profile's host to be gone")
    error = body["error"]
    assert error["code"] == "no_host", body
    assert "your own browser profile: open it" in error["message"], error
    assert "reins launch" not in error["message"], error
