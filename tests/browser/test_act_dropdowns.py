"""Custom dropdowns in real Chromium: the failure reins exists for, with the page as the oracle.

Baseline (the seed's gate): DOM `el.click()` (REINS_CLICK=js) fails at least one custom widget,
while real CDP mouse input commits the right value in every one of them (N of N). Then the agent
loop on portal-rendered menus (state -> click @trigger -> state -> click @option) and the
Mercury-style expense form end to end.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._act_support import eventually, refs_by_name
from .conftest import Browser

# name, page, trigger, option, where the page shows the committed value, the value
WIDGETS = [
    ("events.html dropdown", "static/events.html", "#dropdown", "#opt-green", "#value", "Green"),
    (
        "Radix Select",
        "app/radix.html",
        "#radix-select",
        "[data-testid=option-meals]",
        "#radix-value",
        "Meals",
    ),
    (
        "MUI Select",
        "app/mui-select.html",
        "#mui-select",
        "[data-testid=option-banana]",
        "#mui-select-value",
        "Banana",
    ),
    (
        "MUI Autocomplete",
        "app/mui-autocomplete.html",
        "#mui-auto",
        "//*[@id='mui-auto-listbox']//*[@role='option'][normalize-space()='Brazil']",
        "#mui-auto-value",
        "Brazil",
    ),
]


def _committed(browser: Browser, where: str) -> str:
    return str(browser.js("return document.querySelector(arguments[0]).textContent.trim()", where))


def _choose(
    browser: Browser,
    page: Any,
    widget: tuple[str, ...],
    env: dict[str, str],
) -> tuple[bool, str, str]:
    """Open the widget and pick the option through the CLI; (committed, page value, how it went)."""
    _, path, trigger, option, where, wanted = widget
    tab, _ = page(path)
    steps = []
    for target in (trigger, option):
        code, body = browser.cli("click", target, "--tab", str(tab), env=env)
        steps.append("ok" if code == 0 else body.get("error", {}).get("code", f"exit {code}"))
        if code != 0:
            break
    value = eventually(lambda: _committed(browser, where), lambda v: v == wanted, timeout=1.5)
    return value == wanted, value, "/".join(steps)


def test_baseline_js_click_fails_a_custom_widget_and_cdp_commits_every_one(
    browser: Browser, page: Any
) -> None:
    rows = []
    for widget in WIDGETS:
        js = _choose(browser, page, widget, {"REINS_CLICK": "js"})
        cdp = _choose(browser, page, widget, {})
        rows.append((widget[0], js, cdp))

    print("\nwidget                 | el.click() (REINS_CLICK=js)          | CDP mouse")
    print("-----------------------+--------------------------------------+----------------------")
    for name, js, cdp in rows:
        cell = lambda r: f"{'PASS' if r[0] else 'FAIL'} value={r[1]!r} steps={r[2]}"  # noqa: E731
        print(f"{name:<22} | {cell(js):<36} | {cell(cdp)}")
    js_passed = sum(1 for _, js, _ in rows if js[0])
    cdp_passed = sum(1 for _, _, cdp in rows if cdp[0])
    print(
        f"total                  | {js_passed}/{len(rows)}"
        f"                                  | {cdp_passed}/{len(rows)}"
    )

    failed_js = {name for name, js, _ in rows if not js[0]}
    assert {"events.html dropdown", "MUI Select"} <= failed_js, rows
    assert cdp_passed == len(rows), rows


def test_cdp_click_sends_the_real_mouse_sequence(browser: Browser, page: Any) -> None:
    tab, _ = page("static/events.html")
    browser.ok("click", "#dropdown", "--tab", str(tab))
    browser.ok("click", "#opt-blue", "--tab", str(tab))
    log = eventually(
        lambda: list(browser.js("return window.__log.slice()")), lambda v: "commit:Blue" in v
    )
    option = [e for e in log if e.startswith("option[Blue]:")]
    assert [e.split(":")[1].split(" ")[0] for e in option] == [
        "pointerdown",
        "mousedown",
        "pointerup",
        "mouseup",
        "click",
    ]
    assert all("trusted=true" in e for e in option)
    assert "pointerType=mouse" in option[0]
    assert browser.js("return document.querySelector('#value').textContent") == "Blue"


def test_radix_commits_through_pointer_events_not_the_touch_fallback(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("app/radix.html")
    browser.ok("click", "#radix-select", "--tab", str(tab))
    browser.ok("click", "[data-testid=option-software]", "--tab", str(tab))
    events = eventually(
        lambda: list(browser.js("return window.__events.slice()")), lambda v: "close" in v
    )
    assert events[:3] == ["trigger:pointerdown", "open", "option:pointerup"]
    assert "commit:Software" in events
    assert _committed(browser, "#radix-value") == "Software"


def test_click_that_opens_the_radix_menu_reports_expanded(browser: Browser, page: Any) -> None:
    tab, _ = page("app/radix.html")
    body = browser.ok("click", "#radix-select", "--tab", str(tab))
    assert body["effect"]["expanded"] == {"from": False, "to": True}
    assert "no_effect" not in body["warnings"]
    assert body["method"] == "cdp"
    assert (
        browser.js("return document.querySelector('#radix-select').getAttribute('aria-expanded')")
        == "true"
    )


PORTALS = [
    ("Radix Select", "app/radix.html", "Category", "Office Supplies", "#radix-value"),
    ("MUI Select", "app/mui-select.html", "Fruit", "Cherry", "#mui-select-value"),
    ("MUI Autocomplete", "app/mui-autocomplete.html", "Country", "Japan", "#mui-auto-value"),
]


@pytest.mark.parametrize(
    ("name", "path", "label", "choice", "where"), PORTALS, ids=[p[0] for p in PORTALS]
)
def test_portal_option_with_the_plain_state_click_loop(
    browser: Browser, page: Any, name: str, path: str, label: str, choice: str, where: str
) -> None:
    tab = str(page(path)[0])
    before = browser.ok("state", "--tab", tab)
    trigger = refs_by_name(before)[label]
    assert not [r for r in before["refs"] if r["role"] == "option"]  # the menu is not there yet
    browser.ok("click", trigger, "--tab", tab)
    after = browser.ok("state", "--tab", tab)
    options = {r["name"]: r["ref"] for r in after["refs"] if r["role"] == "option"}
    assert choice in options, after["text"]
    body = browser.ok("click", options[choice], "--tab", tab)
    assert body["method"] == "cdp"
    assert eventually(lambda: _committed(browser, where), lambda v: v == choice) == choice
    assert f"commit:{choice}" in browser.js("return window.__events")


def test_expense_form_end_to_end(browser: Browser, page: Any) -> None:
    tab = str(page("app/expense.html")[0])
    refs = refs_by_name(browser.ok("state", "--tab", tab))
    filled = browser.ok("fill", refs["Merchant"], "Blue Bottle Coffee", "--tab", tab)
    assert filled["value"] == "Blue Bottle Coffee"
    browser.ok("fill", refs["Amount"], "42.50", "--tab", tab)
    opened = browser.ok("click", refs["Category"], "--tab", tab)
    assert opened["effect"]["expanded"]["to"] is True
    menu = browser.ok("state", "--tab", tab)
    option = next(r["ref"] for r in menu["refs"] if r["role"] == "option" and r["name"] == "Meals")
    browser.ok("click", option, "--tab", tab)
    after = refs_by_name(browser.ok("state", "--tab", tab))
    browser.ok("click", after["Save"], "--tab", tab)
    saved = eventually(
        lambda: browser.js("return document.querySelector('#saved').textContent"), lambda v: bool(v)
    )
    assert saved == "Saved: Blue Bottle Coffee \u00b7 42.50 \u00b7 Meals"
    assert browser.js("return window.__saved") == [
        {"merchant": "Blue Bottle Coffee", "amount": "42.50", "category": "Meals"}
    ]
    assert browser.js("return document.querySelector('#error').textContent") == ""
