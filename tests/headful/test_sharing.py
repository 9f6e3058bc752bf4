"""The person and the agent in one browser: a page reins does not drive, opened by the person in the
agent's tab, stops reins at once, and `navigate` leads the tab out."""

from __future__ import annotations

import time

import pytest

from tests.headful.conftest import AgentTab, UserBrowser

pytestmark = [pytest.mark.browser, pytest.mark.headful]


def test_the_person_opens_a_chrome_page_in_the_agents_tab(
    agent_tab: type[AgentTab], user_browser: UserBrowser
) -> None:
    tab = agent_tab()
    person = user_browser.person
    person.key("ctrl+l")
    person.type_text("chrome://version\n")
    deadline = time.monotonic() + 10
    while True:
        code, body, elapsed = tab.reins("eval", "document.title")
        if code == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert code == 1 and body["error"]["code"] == "page_refused", body
    assert elapsed < 3
    # The way out: navigate takes the tab back to a page reins drives.
    body = tab.act("navigate", user_browser.site.url("headful/widgets.html", tab.tag), within=15)
    assert "/headful/widgets.html" in body["url"]
    tab.act("click", "#count-btn")
    tab.reported("click", id="count-btn")
