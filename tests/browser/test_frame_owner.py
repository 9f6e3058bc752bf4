"""A frame dressed as a control (issue 43): another site's iframe with role=button and
aria-label="Save draft", painted like the page's own button, is listed as a frame and never
pressed. The framed page's own log (read by switching into the frame) is the oracle of what it
was given."""

from __future__ import annotations

import time
from typing import Any

from .conftest import Browser
from .support import run_cli


def _open(browser: Browser, page: Any, **query: Any) -> int:
    tab, _ = page("static/frame-dressed.html", **query)
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


def _refused(browser: Browser, *args: str) -> dict[str, Any]:
    code, body = browser.cli(*args)
    error = body.get("error") or {}
    assert code != 0 and error.get("code") == "target_is_frame", f"{args} -> {code} {body}"
    assert "--frame" in error["message"], error  # the next step: an element inside the frame
    return error  # type: ignore[no-any-return]


def test_no_action_presses_a_frame_dressed_as_a_button(browser: Browser, page: Any) -> None:
    tab = _open(browser, page)
    on = ("--tab", str(tab))
    proc = run_cli(browser.home, "state", *on, as_json=False)
    ref = next(line for line in proc.stdout.splitlines() if '"Save draft"' in line).split()[0]
    assert _refused(browser, "click", ref, *on).get("ref") == ref
    _refused(browser, "click", 'role=button[name="Save draft"]', *on)
    _refused(browser, "click", 'role=frame[name="Save draft"]', *on)
    _refused(browser, "click", "iframe", *on)
    _refused(browser, "click", 'text="Save draft"', *on)
    _refused(browser, "click", "--text", "Save draft", *on)
    _refused(browser, "dblclick", ref, *on)
    _refused(browser, "fill", ref, "secret", *on)
    _refused(browser, "type", "iframe#pay", "secret", *on)
    _refused(browser, "press", "Enter", ref, *on)
    _refused(browser, "check", ref, *on)
    _refused(browser, "select", ref, "x", *on)
    _refused(browser, "choose", ref, "x", *on)
    _refused(browser, "drag", "#discard", ref, *on)
    _refused(browser, "drag", ref, "#discard", *on)
    assert _frame_log(browser) == ""  # the framed page was given nothing
    # The page's own button beside it is pressed as ever.
    browser.ok("click", "#discard", *on)
    assert browser.js("return document.getElementById('log').textContent") == "discard;"
    assert _frame_log(browser) == ""


def test_a_frame_the_page_calls_a_button_in_its_own_world_is_not_pressed(
    browser: Browser, page: Any
) -> None:
    """The page answers "button" for its iframe's tag names: the page script may list it as a
    control, but what is pressed is decided by what the browser says the node is."""
    tab = _open(browser, page, lie=1)
    on = ("--tab", str(tab))
    refs = browser.ok("state", *on)["refs"]
    [pay] = [r for r in refs if r["name"] == "Save draft"]
    for action in (("click", pay["ref"]), ("dblclick", pay["ref"]), ("click", "#pay")):
        _refused(browser, *action, *on)
    assert _frame_log(browser) == ""
