"""Cancel on Chrome's "… started debugging this browser" bar, pressed the way a person presses it:
the mouse on the real button of a headful window. reins stops on those tabs and stays off them
until the person hands a tab back; the page is the oracle (it records no click of the agent's).
"""

from __future__ import annotations

import time

import pytest
from PIL import ImageGrab

from tests.headful.conftest import AgentTab, UserBrowser

pytestmark = [pytest.mark.browser, pytest.mark.headful]

# The bar's Cancel button: Chrome's filled blue button (default light theme), in the band below
# the toolbar of the person's window.
BUTTON_BLUE = (11, 87, 208)


def _find_cancel(display: str, window: tuple[int, int, int, int]) -> tuple[int, int] | None:
    x0, y0, width, _height = window
    shot = ImageGrab.grab(xdisplay=display).convert("RGB")
    pixels = shot.load()
    hits = [
        (x, y)
        for y in range(y0 + 70, y0 + 160)
        for x in range(x0, min(x0 + width, shot.width))
        if pixels[x, y] == BUTTON_BLUE
    ]
    if len(hits) < 200:  # a button, not a stray pixel of the tab-group chip
        return None
    xs = sorted(x for x, _ in hits)
    ys = sorted(y for _, y in hits)
    return xs[len(xs) // 2], ys[len(ys) // 2]


def _geometry(user_browser: UserBrowser) -> tuple[int, int, int, int]:
    person = user_browser.person
    out = person.desktop.xdotool("getwindowgeometry", "--shell", person.window())
    values = dict(line.split("=", 1) for line in out.split() if "=" in line)
    return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])


def test_cancel_on_the_debugging_bar_stops_reins(
    agent_tab: type[AgentTab], user_browser: UserBrowser
) -> None:
    tab = agent_tab()
    tab.act("click", "#count-btn")  # attached: Chrome shows the bar
    tab.reported("click", count=1)
    user_browser.person.activate()
    deadline = time.monotonic() + 10
    point = None
    while point is None and time.monotonic() < deadline:
        point = _find_cancel(user_browser.person.desktop.display, _geometry(user_browser))
        time.sleep(0.2)
    assert point is not None, "the debugging bar's Cancel button never showed"
    desktop = user_browser.person.desktop
    desktop.xdotool("mousemove", "--sync", str(point[0]), str(point[1]))
    desktop.xdotool("click", "1")

    # Later commands on that tab answer detached_by_user, and reins does not attach again.
    deadline = time.monotonic() + 5
    while True:
        code, body, _ = tab.reins("click", "#count-btn")
        if code != 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert code == 1 and body["error"]["code"] == "detached_by_user", body
    code, body, _ = user_browser.reins.cli("tab", "select", str(tab.tab_id))
    assert code == 1 and body["error"]["code"] == "detached_by_user", body
    code, body, _ = tab.reins("eval", "document.title")
    assert code == 1 and body["error"]["code"] == "detached_by_user", body
    time.sleep(0.5)
    assert len(tab.beacons.of(tab.tag, "click")) == 1  # nothing of the agent's reached the page
    listed = {t["id"]: t for t in user_browser.reins.ok("tabs")["tabs"]}
    assert listed[tab.tab_id]["stopped"] is True
