"""A click by ref after `state`, in a tab the person is not showing: the ref is given in the same
round trip that looks it up (act/refs.py, ``Press``), and that path must hold where only a desktop
shows the difference — a background tab, a minimized window, a window under another application's.

The page is the oracle (each commit arrives as a beacon, with the visibility it happened in); the
host's counters say the one-round-trip path was the one taken, not the usual path after a refusal;
the person's tab and window stay as the person left them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.headful.conftest import HIDDEN_MODES, AgentTab, UserBrowser

pytestmark = [pytest.mark.browser, pytest.mark.headful]

OpenTab = Callable[..., AgentTab]


def _presses(browser: UserBrowser) -> tuple[int, int]:
    events = browser.reins.ok("stats")["stats"]["events"]
    return events.get("press_with_lookup", 0), events.get("press_with_lookup_refused", 0)


def _ref_of(text: str, shown: str) -> str:
    """The ref on the line of `state` that shows ``text``."""
    line = next((line for line in shown.splitlines() if text in line), None)
    assert line is not None, f"{text!r} is not in the state:\n{shown}"
    ref = next((word for word in line.split() if word.startswith("@")), "")
    assert ref, line
    return ref


@pytest.mark.parametrize("mode", HIDDEN_MODES)
def test_a_click_by_ref_in_a_hidden_tab_is_given_with_its_lookup(
    agent_tab: OpenTab, user_browser: UserBrowser, mode: str
) -> None:
    tab = agent_tab()
    tab.hide(mode)
    # The agent looks at the page while it is hidden, as an agent does between its actions.
    shown = tab.act("state", "--max-tokens", "0")["text"]
    count, raf, dbl = (_ref_of(text, shown) for text in ("Count", "Commit in a frame", "Double"))
    given, refused = _presses(user_browser)

    for n in (1, 2):
        body = tab.act("click", count)
        assert body["ref"] == count and body["method"] == "cdp", body
        click = tab.reported("click", id="count-btn", count=n)
        assert click["trusted"] is True and click["visibility"] == "visible", click
    tab.act("click", raf)
    tab.reported("raf-click", count=1)  # committed in an animation frame: the page rendered
    tab.act("dblclick", dbl)
    tab.reported("dblclick", id="dbl-target")

    # Exactly one commit per command, and every one of them given with its lookup.
    assert len(tab.beacons.of(tab.tag, "click")) == 2
    assert len(tab.beacons.of(tab.tag, "raf-click")) == 1
    assert len(tab.beacons.of(tab.tag, "dblclick")) == 1
    assert _presses(user_browser) == (given + 4, refused), (
        "a click by ref in a hidden tab went the usual way (or was refused)"
    )

    tab.assert_still_hidden()  # the person's view is theirs still
