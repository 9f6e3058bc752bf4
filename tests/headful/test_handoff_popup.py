"""`reins handoff` in a person's own browser, through the real popup: the agent asks, Chrome shows
reins's popup with the request (the extension opens it), the person closes it, types into the
page themselves, opens the popup again from the toolbar's Extensions menu and clicks Done. The page is the oracle for what the person typed;
the trace has none of it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import ImageGrab

from tests.headful.conftest import AgentTab, UserBrowser

pytestmark = [pytest.mark.browser, pytest.mark.headful]

SECRET = "tiger-lily-7"
DONE_GREEN = (26, 127, 55)  # the popup's Done button (#1a7f37)


def _geometry(user_browser: UserBrowser) -> tuple[int, int, int]:
    person = user_browser.person
    out = person.desktop.xdotool("getwindowgeometry", "--shell", person.window())
    values = dict(line.split("=", 1) for line in out.split() if "=" in line)
    return int(values["X"]), int(values["Y"]), int(values["WIDTH"])


def _find(display: str, colour: tuple[int, int, int]) -> tuple[int, int] | None:
    """The middle of the biggest patch of ``colour`` on the screen (a button), if any."""
    shot = ImageGrab.grab(xdisplay=display).convert("RGB")
    pixels = shot.load()
    hits = [
        (x, y)
        for y in range(0, shot.height, 2)
        for x in range(0, shot.width, 2)
        if pixels[x, y] == colour
    ]
    if len(hits) < 50:
        return None
    xs, ys = sorted(x for x, _ in hits), sorted(y for _, y in hits)
    return xs[len(xs) // 2], ys[len(ys) // 2]


def _click(desktop: Any, x: int, y: int) -> None:
    desktop.xdotool("mousemove", "--sync", str(x), str(y))
    desktop.xdotool("click", "1")


def test_the_person_presses_done_in_the_real_popup(
    agent_tab: type[AgentTab], user_browser: UserBrowser, tmp_path: Path
) -> None:
    tab = agent_tab()
    tab.act("click", "#name")  # the field has the focus; the person types there
    trace = tmp_path / "trace"
    code, body, _ = user_browser.reins.cli("trace", "start", str(trace), "--screenshots")
    assert code == 0, body
    said: dict[str, Any] = {}

    def ask() -> None:
        code, body, _ = tab.reins(
            "handoff", "Type your name, then press Done", "--timeout-ms", "60000", timeout=90
        )
        said.update(code=code, body=body)

    asking = threading.Thread(target=ask)
    asking.start()
    time.sleep(2)  # the request is open: the tab in front, the badge, the popup Chrome opened
    assert _find(user_browser.person.desktop.display, DONE_GREEN), "no popup with Done opened"
    person = user_browser.person
    person.key("Escape")  # the popup Chrome opened by itself closes; the page keeps its focus
    person.type_text(SECRET)
    tab.reported("input", id="name", value=SECRET)
    # The person opens reins's popup from the toolbar's Extensions menu (reins is not pinned
    # in a new profile) and presses the green Done button.
    desktop = person.desktop
    x0, y0, width = _geometry(user_browser)
    puzzle = (x0 + width - 115, y0 + 63)
    _click(desktop, *puzzle)
    time.sleep(0.8)
    _click(desktop, puzzle[0] - 230, puzzle[1] + 158)  # "reins" in the menu
    done = None
    deadline = time.monotonic() + 10
    while done is None and time.monotonic() < deadline:
        time.sleep(0.3)
        done = _find(desktop.display, DONE_GREEN)
    assert done is not None, "the popup never showed Done"
    _click(desktop, *done)
    asking.join(30)
    assert not asking.is_alive(), "the handoff never answered"
    assert said["code"] == 0, said
    assert said["body"]["handoff"]["outcome"] == "done", said
    assert said["body"]["handoff"]["person_ms"] > 1000, said
    code, body, _ = user_browser.reins.cli("trace", "stop")
    assert code == 0, body

    text = (trace / "trace.jsonl").read_text()
    assert SECRET not in text
    steps = [x for x in map(json.loads, text.splitlines()) if x["type"] == "step"]
    (person_step,) = [s for s in steps if s["cmd"] == "handoff"]
    assert "shots" not in person_step and "network" not in person_step
