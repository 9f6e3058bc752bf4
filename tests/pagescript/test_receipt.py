"""The receipt guard of a press (pagescripts/src/effects.js armReceipt/takeReceipt) with trusted
input: Chrome's own mouse events through chromedriver's CDP session. The press's first event
decides, as Playwright's hit-target check does: on the element (or inside it), the press was
received and its release goes where the page's reaction sends it; elsewhere, that event and the
rest of the press are stopped at the window — the page's own listeners are the oracle."""

from __future__ import annotations

import json
from typing import Any

from selenium import webdriver

from .conftest import FUNCTIONS

PAGE = """
<style>button { position: absolute; left: 20px; width: 200px; height: 50px; }</style>
<button id=save style="top: 20px">Save</button>
<button id=del style="top: 120px">Delete my account</button>
<script>
  window.__log = [];
  for (const id of ['save', 'del']) {
    for (const type of ['pointerdown', 'mousedown', 'mouseup', 'click']) {
      document.getElementById(id).addEventListener(type, () => window.__log.push(id + ':' + type));
    }
  }
</script>
"""


def _call(driver: webdriver.Chrome, name: str, element_id: str) -> Any:
    declaration = json.loads(FUNCTIONS.read_text(encoding="utf-8"))["functions"][name]
    return driver.execute_script(
        f"return ({declaration})(document.getElementById(arguments[0]));", element_id
    )


def _press(driver: webdriver.Chrome, x: int, y: int) -> None:
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        params = {
            "type": kind,
            "x": x,
            "y": y,
            "button": "none" if kind == "mouseMoved" else "left",
        }
        if kind != "mouseMoved":
            params["clickCount"] = 1
        driver.execute_cdp_cmd("Input.dispatchMouseEvent", params)


def _open(driver: webdriver.Chrome, servers: dict[str, Any]) -> None:
    driver.get(f"{servers['base']}/static/big.html?n=0")
    driver.execute_script("document.body.innerHTML = arguments[0];", PAGE)
    driver.execute_script(
        "for (const s of document.body.querySelectorAll('script')) eval(s.textContent);"
    )


def test_a_press_that_lands_elsewhere_is_stopped_and_named(
    driver: webdriver.Chrome, servers: dict[str, Any]
) -> None:
    _open(driver, servers)
    assert _call(driver, "armReceipt", "save") is True
    _press(driver, 120, 145)  # on "Delete my account"
    receipt = _call(driver, "takeReceipt", "save")
    assert receipt["seen"] == len(receipt["elsewhere"]) >= 2, receipt
    # The first event names where the press went; its default prevented, Chrome sends no
    # compatibility mousedown/mouseup, and the click is stopped too.
    assert receipt["elsewhere"][0] == 'pointerdown on button#del "Delete my account"', receipt
    assert 'click on button#del "Delete my account"' in receipt["elsewhere"], receipt
    assert driver.execute_script("return window.__log") == []  # nothing reached Delete
    # Taken down: the next press is the page's alone again.
    assert _call(driver, "takeReceipt", "save") is None
    _press(driver, 120, 145)
    assert "del:click" in driver.execute_script("return window.__log")


def test_a_press_received_by_the_target_passes_whole(
    driver: webdriver.Chrome, servers: dict[str, Any]
) -> None:
    _open(driver, servers)
    # The page reacts to the press by putting Delete under the pointer (as a menu that opens on
    # pointerdown does): the first event was the target's, so the release goes where it goes.
    driver.execute_script(
        "document.getElementById('save').addEventListener('pointerdown', () => {"
        " const d = document.getElementById('del'); d.style.top = '20px'; d.style.zIndex = 9; },"
        " { once: true });"
    )
    _call(driver, "armReceipt", "save")
    _press(driver, 120, 45)
    receipt = _call(driver, "takeReceipt", "save")
    assert receipt["elsewhere"] == [] and receipt["seen"] >= 3, receipt
    assert driver.execute_script("return window.__log")[:2] == [
        "save:pointerdown",
        "save:mousedown",
    ]
