"""A tab that is not the active one in headless Chromium is hidden too (no animation frames): the
agent's actions there work all the same (docs/hidden-tabs.md). The page is the oracle, read after
the actions through selenium (switching to it shows it, so only afterwards)."""

from __future__ import annotations

from typing import Any

from ._act_support import page_log
from .conftest import Browser


def test_actions_on_a_background_tab_are_committed(browser: Browser, page: Any, site: Any) -> None:
    first, url = page("static/actions.html")
    browser.ok("tab", "new", site.url("static/index.html"))  # now in front; the first is hidden
    tab = str(first)
    assert browser.ok("eval", "document.visibilityState", "--tab", tab)["value"] == "visible"
    browser.ok("click", "#mouse-target", "--tab", tab, "--timeout-ms", "5000")
    browser.ok("fill", "#name", "from behind", "--tab", tab, "--timeout-ms", "5000")
    browser.ok("check", "#agree", "--tab", tab, "--timeout-ms", "5000")
    browser.switch_to(url.rsplit("t=", 1)[-1])
    log = page_log(browser)
    assert "mouse-target:click" in log
    assert "name:input:from behind" in log
    assert "agree:change:true" in log
    browser.cli("tab", "close")  # the index tab opened above (the current one)
