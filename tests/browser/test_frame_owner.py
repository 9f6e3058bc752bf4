"""A frame dressed as a control (issue 43): another site's iframe with role=button and
aria-label="Save draft", painted like the page's own button, is listed as a frame and never
pressed. The framed page's own log (read by switching into the frame) is the oracle of what it
was given."""

from __future__ import annotations

import time
from typing import Any

from .conftest import Browser
from .support import run_cli


def _open(browser: Browser, page: Any) -> int:
    tab, _ = page("static/frame-dressed.html")
    deadline = time.monotonic() + 10
    while not browser.js("return document.getElementById('pay').dataset.loaded === '1'"):
        assert time.monotonic() < deadline, "the cross-origin frame did not load"
        time.sleep(0.05)
    return tab


def _frame_log(browser: Browser) -> str:
    driver = browser.driver
    driver.switch_to.default_content()
    driver.switch_to.frame(driver.find_element("css selector", "iframe#pay"))
    try:
        return str(browser.js("return document.getElementById('log').textContent"))
    finally:
        driver.switch_to.default_content()


def test_a_frame_dressed_as_a_button_is_listed_as_a_frame(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    proc = run_cli(browser.home, "state", "--tab", str(tab), as_json=False)
    assert proc.code == 0, proc.stderr
    lines = proc.stdout.splitlines()
    dressed = [line for line in lines if '"Save draft"' in line]
    assert len(dressed) == 1 and dressed[0].split(" ", 1)[1] == 'frame "Save draft"', lines
    assert not any(line.split(" ")[1:2] == ["button"] and "Save draft" in line for line in lines)
    # The page script's own record says so too (the full record `reins map` keeps).
    elements = browser.ok("map", "--tab", str(tab))["map"]["elements"].values()
    owner = [e for e in elements if e["tag"] == "iframe"]
    assert [(e["role"], e["type"], e["text"]) for e in owner] == [
        ("frame", "frame", "Save draft")
    ], owner
    # Chrome's tree calls it a button (the page's ARIA role): the AX source lists a frame too.
    ax = run_cli(browser.home, "state", "--source", "ax", "--tab", str(tab), as_json=False)
    assert ax.code == 0, ax.stderr
    assert any(line.endswith(' frame "Save draft"') for line in ax.stdout.splitlines()), ax.stdout
    assert _frame_log(browser) == ""
