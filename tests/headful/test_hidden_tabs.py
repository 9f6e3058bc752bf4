"""Actions on a tab the person is not showing: in the background, in a minimized window, in a
window covered by another application. The page must commit each one, and the answer must come
within 3 s (a hang would take the whole 15 s budget); the person's tabs and windows stay as the
person left them.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.headful.conftest import HIDDEN_MODES, AgentTab, UserBrowser

pytestmark = [pytest.mark.browser, pytest.mark.headful]

OpenTab = Callable[..., AgentTab]


@pytest.mark.parametrize("mode", ("shown", *HIDDEN_MODES))
def test_click_is_counted_by_the_page(agent_tab: OpenTab, mode: str) -> None:
    tab = agent_tab()
    if mode != "shown":
        tab.hide(mode)
    tab.act("click", "#count-btn")
    click = tab.reported("click", id="count-btn")
    assert click["count"] == 1 and click["trusted"] is True
    # The page saw itself visible while the agent worked in it (focus emulation), so a widget
    # that commits in the next animation frame commits too.
    assert click["visibility"] == "visible"
    tab.act("click", "#raf-btn")
    tab.reported("raf-click", count=1)
    assert len(tab.beacons.of(tab.tag, "click")) == 1


@pytest.mark.parametrize("mode", HIDDEN_MODES)
def test_fill_is_committed_by_the_page(agent_tab: OpenTab, mode: str) -> None:
    tab = agent_tab()
    tab.hide(mode)
    body = tab.act("fill", "#name", "hello from the agent")
    tab.reported("input", id="name", value="hello from the agent")
    assert body["effect"]["value"]["to"] == "hello from the agent"


@pytest.mark.parametrize("mode", HIDDEN_MODES)
def test_every_action_works_on_a_hidden_tab(agent_tab: OpenTab, mode: str, tmp_path: Path) -> None:
    tab = agent_tab()
    tab.hide(mode)
    tab.act("dblclick", "#dbl-target")
    tab.reported("dblclick", id="dbl-target")
    tab.act("hover", "#hover-target")
    tab.reported("hover", id="hover-target")
    tab.act("type", "#name", "abc")
    tab.reported("input", id="name", value="abc")
    tab.act("press", "Enter", "#name")
    tab.reported("submit", value="abc")
    tab.act("select", "#size", "Medium")
    tab.reported("change", id="size", value="m")
    tab.act("check", "#agree")
    tab.reported("change", id="agree", value=True)
    tab.act("uncheck", "#agree")
    tab.reported("change", id="agree", value=False)
    assert tab.act("wait", "--target", "#count-btn")["waited_for"] == "target"
    shot = tmp_path / "shot.png"
    tab.act("screenshot", "-o", str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 1000


@pytest.mark.parametrize("mode", HIDDEN_MODES)
def test_an_animated_menu_opens_and_an_option_is_chosen(agent_tab: OpenTab, mode: str) -> None:
    """The menu grows open over animation frames and shows its items only when fully open."""
    tab = agent_tab()
    tab.hide(mode)
    tab.act("click", "#menu-btn")
    tab.act("click", "#item-rename")
    tab.reported("menu-open")
    tab.reported("choose", id="item-rename", value="Rename")
    assert tab.beacons.of(tab.tag, "menu-early") == []


@pytest.mark.parametrize("mode", HIDDEN_MODES)
def test_the_person_keeps_their_tab_and_window(agent_tab: OpenTab, mode: str) -> None:
    tab = agent_tab()
    tab.hide(mode)
    tab.act("click", "#count-btn")
    tab.act("dblclick", "#dbl-target")
    tab.act("check", "#agree")
    tab.act("fill", "#name", "x")
    tab.assert_still_hidden()
    # Still hidden from the person: since it was hidden, the page saw one change only (focus
    # emulation), none from the window.
    states = [r["state"] for r in tab.beacons.of(tab.tag, "visibility")]
    assert states[states.index("hidden") :] == ["hidden", "visible"], states


def test_the_person_keeps_typing_in_their_own_tab(
    agent_tab: OpenTab, user_browser: UserBrowser
) -> None:
    """While the agent clicks and fills in its background tab, the person types in theirs: every
    key lands in the person's page, the agent's page gets the agent's input."""
    person = user_browser.person
    site = user_browser.site
    tab = agent_tab()
    person.key("ctrl+1")  # back to the person's own page, the first tab
    tab.beacons.wait(tab.tag, lambda r: r.get("state") == "hidden", what="that it is hidden")
    tab.mode = "background"
    typed = "the person types this while the agent works"
    failures: list[BaseException] = []

    def agent() -> None:
        try:
            for n in range(3):
                tab.act("fill", "#name", f"agent {n}")
                tab.act("click", "#count-btn")
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)

    worker = threading.Thread(target=agent)
    worker.start()
    person.type_text(typed)
    worker.join(60)
    assert not failures, failures
    last: dict[str, Any] = site.beacons.wait(
        "home",
        lambda r: r.get("kind") == "input" and r.get("value", "").endswith(typed[-6:]),
        what="the person's text",
    )
    assert last["value"].endswith(typed), last["value"]
    tab.reported("input", id="name", value="agent 2")
    tab.reported("click", count=3)
    assert all(
        t["active"] is (t["id"] == user_browser.home_tab)
        for t in user_browser.reins.ok("tabs")["tabs"]
    )


@pytest.mark.parametrize("mode", HIDDEN_MODES)
def test_tab_show_puts_the_tab_in_front_of_the_person(
    agent_tab: OpenTab, user_browser: UserBrowser, mode: str
) -> None:
    """What the `tab_hidden` answer points to: the one command that does change what the person
    sees, on purpose."""
    person = user_browser.person
    tab = agent_tab()
    tab.hide(mode)
    cover = person.cover_window()
    assert tab.act("tab", "show")["tab"]["id"] == tab.tab_id
    tabs = {t["id"]: t for t in user_browser.reins.ok("tabs")["tabs"]}
    assert tabs[tab.tab_id]["active"] is True
    assert not person.is_minimized()
    assert person.stacking()[-1] != cover


def test_tab_new_opens_behind_the_person(user_browser: UserBrowser) -> None:
    """In the person's own browser the agent's new tab loads in the background, in reins's group:
    the person's page stays in front."""
    reins = user_browser.reins
    tag = uuid.uuid4().hex[:8]
    body = reins.ok("tab", "new", user_browser.site.url("headful/widgets.html", tag))
    try:
        load = user_browser.site.beacons.wait(tag, lambda r: r.get("kind") == "load", what="load")
        assert load["visibility"] == "hidden"
        tabs = {t["id"]: t for t in reins.ok("tabs")["tabs"]}
        assert tabs[user_browser.home_tab]["active"] is True
        assert tabs[body["id"]]["active"] is False and tabs[body["id"]]["reins"] is True
        assert tabs[user_browser.home_tab]["reins"] is False
    finally:
        reins.cli("tab", "close", str(body["id"]))
