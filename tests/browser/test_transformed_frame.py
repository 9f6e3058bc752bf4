"""A button inside a CSS-transformed iframe (scaled, turned, moved) with nothing over it is
pressed where it is shown (issue 45 item 7, issue 32 item 8): the press point comes from the
browser's content quads, which carry the frame's transform, not from the page script's
frame offsets, which do not. The frame's own log is the oracle."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ._act_support import frame_loaded, frame_log
from .conftest import Browser


@pytest.mark.parametrize("frame", ["t", "x"])
def test_a_button_in_a_transformed_frame_is_pressed_where_it_shows(
    browser: Browser, page: Any, frame: str
) -> None:
    tab = str(page("static/transformed-frame.html")[0])
    frame_loaded(browser, frame)  # both frames load; this one is checked
    body = browser.ok("click", "#b", "--frame", f"iframe#{frame}", "--tab", tab)
    assert body["method"] == "cdp", body
    time.sleep(0.2)
    assert frame_log(browser, frame) == ["inside:click trusted=true"]
