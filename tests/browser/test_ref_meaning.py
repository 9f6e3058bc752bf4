"""Refs keep their meaning (issue 45): a ref the agent saw on "Save" never presses another control
that a page put under the same id and test id — in a new document, or in place. The page's own
log (sessionStorage: it outlives the document) is the oracle of what was pressed."""

from __future__ import annotations

import time
from typing import Any

from .conftest import Browser


def _presses(browser: Browser) -> str:
    return str(browser.js("return window.presses ? window.presses() : null"))


def _wait_for(browser: Browser, script: str) -> None:
    deadline = time.monotonic() + 10
    while not browser.js(script):
        assert time.monotonic() < deadline, script
        time.sleep(0.05)


def _saw_save(browser: Browser, tab: int) -> str:
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    [save] = [r for r in refs if r["name"] == "Save"]
    return str(save["ref"])


def test_a_ref_is_not_carried_into_another_document_for_an_action(
    browser: Browser, page: Any
) -> None:
    tab, url = page("static/ref-swap.html", which="save")
    ref = _saw_save(browser, tab)
    # The page replaces itself: same id and test id, another control.
    browser.js("location.replace(location.href.replace('which=save', 'which=delete'))")
    _wait_for(
        browser, "return document.getElementById('save')?.textContent === 'Delete my account'"
    )
    code, body = browser.cli("click", ref, "--tab", str(tab))
    assert code == 1 and body["error"]["code"] == "ref_stale", body
    assert "Delete my account" in body["error"]["message"]  # the candidate is named
    assert _presses(browser) == ""
    # The agent looks again and sees what the ref names now: then it is the agent's choice.
    refs = browser.ok("state", "--tab", str(tab))["refs"]
    assert [r["name"] for r in refs if r["ref"] == ref] == ["Delete my account"]


def test_a_stand_in_under_the_same_id_with_another_name_is_not_pressed(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/ref-swap.html", which="save")
    ref = _saw_save(browser, tab)
    browser.js("window.swapInPlace()")
    code, body = browser.cli("click", ref, "--tab", str(tab))
    assert code == 1 and body["error"]["code"] == "ref_stale", body
    assert _presses(browser) == ""


def test_a_re_rendered_control_with_its_name_is_still_found(browser: Browser, page: Any) -> None:
    tab, _ = page("static/ref-swap.html", which="save")
    ref = _saw_save(browser, tab)
    browser.js(
        "const b = document.getElementById('save'); const c = b.cloneNode(true);"
        "c.addEventListener('click', () => sessionStorage.setItem('presses',"
        " (sessionStorage.getItem('presses') || '') + 'save;')); b.replaceWith(c);"
    )
    body = browser.ok("click", ref, "--tab", str(tab))
    assert body.get("recovered"), body  # a new node, the same control: recovered and pressed
    assert _presses(browser) == "save;"
