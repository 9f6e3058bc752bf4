"""A native control laid, transparent, over the styled twin it draws (MUI's Checkbox and Switch:
an `<input>` at opacity 0 named by its aria-label, no `<label>`) is what a person's click reaches:
`state` lists it by its role and name, and role targets, `check` and `uncheck` reach it (issue 32
item 4, issue 47 class 1). The page is the oracle: its event log and what it shows committed."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Browser

pytestmark = pytest.mark.browser

PAGE = "app/mui-checkbox.html"


def _committed(browser: Browser) -> str:
    return str(browser.js("return document.getElementById('mui-checkbox-value').textContent"))


def test_a_transparent_checkbox_over_its_icon_is_listed_and_checked(
    browser: Browser, page: Any
) -> None:
    tab = str(page(PAGE)[0])
    refs = browser.ok("state", "--tab", tab)["refs"]
    named = {(r["role"], r["name"]): r for r in refs}
    assert ("checkbox", "Select all") in named, [(r["role"], r["name"]) for r in refs]
    assert ("switch", "Dark mode") in named, refs
    assert named[("checkbox", "Select all")]["checked"] is False

    browser.ok("check", 'role=checkbox[name="Select all"]', "--tab", tab)
    browser.ok("click", named[("checkbox", "Select all")]["ref"], "--tab", tab)
    browser.ok("check", "role=checkbox[name='Select all']", "--tab", tab)
    browser.ok("check", "role=checkbox[name='Remember me']", "--tab", tab)
    browser.ok("check", "role=switch[name='Dark mode']", "--tab", tab)
    browser.ok("uncheck", named[("switch", "Dark mode")]["ref"], "--tab", tab)
    assert _committed(browser) == "all=true dark=false remember=true"
    events = list(browser.js("return window.__events.slice()"))
    assert events == [
        "select-all:true",
        "select-all:false",
        "select-all:true",
        "remember:true",
        "dark-mode:true",
        "dark-mode:false",
    ], events
    after = browser.ok("state", "--tab", tab)["refs"]
    states = {r["name"]: r["checked"] for r in after if r["role"] in ("checkbox", "switch")}
    assert states == {"Select all": True, "Dark mode": False, "Remember me": True}, after
