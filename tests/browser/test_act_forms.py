"""Act commands on the actions playground and the frames page, in real Chromium.

The page is the oracle: `window.__log`, `window.__keys`, `window.__deleted` and the elements'
own value / checked state say what the page received; reins' answer is checked against them.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from ._act_support import eventually, page_log, refs_by_name
from .conftest import Browser


def _value(browser: Browser, css: str, prop: str = "value") -> Any:
    return browser.js(f"return document.querySelector(arguments[0]).{prop}", css)


# ---- actionability ----------------------------------------------------------------------------


def test_covered_button_answers_obscured_and_is_not_clicked(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.js("window.__showOverlay()")
    before = page_log(browser)
    code, body = browser.cli("click", "#covered", "--tab", tab, "--timeout-ms", "1500")
    assert code == 1
    assert body["error"]["code"] == "obscured"
    assert body["error"]["transient"] is True
    assert "overlay" in body["error"]["message"]
    assert "div#overlay" in body["error"]["covered_by"]
    time.sleep(0.2)
    assert page_log(browser) == before  # neither the button nor the overlay got a click


def test_disabled_button_answers_disabled(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    code, body = browser.cli("click", "#disabled-btn", "--tab", tab, "--timeout-ms", "800")
    assert code == 1 and body["error"]["code"] == "disabled"
    assert "disabled-btn:click" not in page_log(browser)


def test_offscreen_button_is_scrolled_to_and_clicked(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    assert browser.js("return window.scrollY") == 0
    body = browser.ok("click", "#far", "--tab", tab)
    assert body["method"] == "cdp"
    assert page_log(browser).count("far:click") == 1
    assert browser.js("return window.scrollY") > 2000


def test_click_on_plain_text_warns_no_effect(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    body = browser.ok("click", "h1", "--tab", tab)
    assert body["effect"] == {}
    assert body["warnings"] == ["no_effect"]


def test_hover_and_dblclick_are_real_mouse_input(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("hover", "#mouse-target", "--tab", tab)
    assert "mouse-target:mouseenter" in page_log(browser)
    browser.ok("dblclick", "#mouse-target", "--tab", tab)
    log = page_log(browser)
    assert log.count("mouse-target:click") == 2 and log.count("mouse-target:dblclick") == 1


@pytest.mark.parametrize("budget_ms", ["1200", "1500", "2500"])
def test_hidden_target_answers_not_visible_and_is_not_clicked(
    browser: Browser, page: Any, budget_ms: str
) -> None:
    """A button under a display:none ancestor (a closed menu) is not clickable: no el.click()
    fallback, and the budget running out mid-check still answers why it was waiting."""
    tab = str(page("static/act-edge.html")[0])
    code, body = browser.cli("click", "#hidden-btn", "--tab", tab, "--timeout-ms", budget_ms)
    assert code == 1 and body["error"]["code"] == "not_visible", body
    assert body["error"]["transient"] is True
    assert "hidden:click" not in page_log(browser)


def test_option_of_a_closed_dropdown_is_not_visible(browser: Browser, page: Any) -> None:
    tab = str(page("static/events.html")[0])
    code, body = browser.cli("click", "#opt-red", "--tab", tab, "--timeout-ms", "1500")
    assert code == 1 and body["error"]["code"] == "not_visible"
    assert page_log(browser) == []
    assert _value(browser, "#value", "textContent") == ""


def test_boxless_target_falls_back_to_el_click_and_says_so(browser: Browser, page: Any) -> None:
    tab = str(page("static/act-edge.html")[0])
    body = browser.ok("click", "#contents-btn", "--tab", tab)
    assert body["method"] == "js_fallback" and "js_click_fallback" in body["warnings"]
    assert page_log(browser) == ["contents:click trusted=false"]


def test_forced_js_click_says_so(browser: Browser, page: Any) -> None:
    tab = str(page("static/events.html")[0])
    code, body = browser.cli("click", "#plain-btn", "--tab", tab, env={"REINS_CLICK": "js"})
    assert code == 0 and body["method"] == "js" and "js_click_forced" in body["warnings"]
    assert page_log(browser)[-1] == "button:click detail=0 trusted=false pointerType="


def test_target_that_appears_late_is_waited_for(browser: Browser, page: Any) -> None:
    tab = str(page("static/act-edge.html")[0])
    browser.js("window.__arm(700)")
    body = browser.ok("click", "#late-btn", "--tab", tab)
    assert body["method"] == "cdp"
    assert page_log(browser) == ["late:shown", "late:click"]


_DRIFTING = """
const style = document.createElement('style');
style.textContent = '@keyframes drift { from { transform: translateX(0) } to { transform: translateX(120px) } }'
  + ' #drifting, #drifting-plan { animation: drift 1000ms linear infinite; }';
document.head.append(style);
const field = document.createElement('input');
field.id = 'drifting';
const plan = document.createElement('select');
plan.id = 'drifting-plan';
plan.innerHTML = '<option>Basic</option><option>Enterprise</option>';
document.body.append(field, plan);
"""


def test_fill_and_select_ask_no_stillness_of_a_field_that_keeps_moving(
    browser: Browser, page: Any
) -> None:
    """fill, type and select press no point, so they check no stability (as Playwright's
    rules for them): a field that never stops drifting is filled, where a click would wait.
    The drift never turns back (2 px a frame, then a jump to its start): an alternating one
    stands still for a frame where it turns, and two looks there agree."""
    tab = str(page("static/act-edge.html")[0])
    browser.js(_DRIFTING)
    body = browser.ok("fill", "#drifting", "Meals", "--timeout-ms", "4000", "--tab", tab)
    assert body["value"] == "Meals", body
    assert browser.js("return document.getElementById('drifting').value") == "Meals"
    browser.ok("select", "#drifting-plan", "Enterprise", "--timeout-ms", "4000", "--tab", tab)
    assert browser.js("return document.getElementById('drifting-plan').value") == "Enterprise"
    code, moved = browser.cli("click", "#drifting", "--timeout-ms", "1500", "--tab", tab)
    assert code != 0 and moved["error"]["code"] == "not_stable", moved


@pytest.mark.parametrize("how", ["__move", "__jsmove"])
def test_moving_target_is_clicked_once_it_is_still(browser: Browser, page: Any, how: str) -> None:
    """A selector's probe leaves its second look of "stable" to the press's batch (taken after
    the mouse move, a frame later): an element moved by a CSS transition or by script every frame
    (which no animation list shows) is still pressed only once it stands still."""
    tab = str(page("static/act-edge.html")[0])
    browser.js(f"window.{how}()")
    body = browser.ok("click", "#moving", "--tab", tab)
    assert body["method"] == "cdp"
    log = page_log(browser)
    end = "moving:end" if how == "__move" else "jsmove:end"
    assert log.count("moving:click") == 1, log
    assert log.index(end) < log.index("moving:click"), log


@pytest.mark.parametrize("how", ["__move", "__jsmove"])
def test_a_ref_that_starts_moving_after_the_state_is_clicked_once_it_is_still(
    browser: Browser, page: Any, how: str
) -> None:
    """The stability check may take the latest observation as its first look (actionability.py):
    an element that moved since, or is moving now (a CSS transition, or script moving it every
    frame), is still waited for."""
    tab = str(page("static/act-edge.html")[0])
    state = browser.ok("state", "--tab", tab)
    assert "@moving " in state["text"], state["text"]
    browser.js(f"window.{how}()")
    body = browser.ok("click", "@moving", "--tab", tab)
    assert body["method"] == "cdp"
    log = page_log(browser)
    end = "moving:end" if how == "__move" else "jsmove:end"
    assert log.count("moving:click") == 1, log
    assert log.index(end) < log.index("moving:click"), log


# ---- typed errors -----------------------------------------------------------------------------


def test_invalid_selector_is_a_usage_error(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    code, body = browser.cli("click", "button[", "--tab", tab)
    assert code == 2 and body["error"]["code"] == "invalid_selector"
    code, body = browser.cli("click", "//button[", "--tab", tab)
    assert code == 2 and body["error"]["code"] == "invalid_selector"


def test_unknown_ref_is_not_found(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("state", "--tab", tab)
    code, body = browser.cli("click", "@nosuchref", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "not_found"


def test_missing_css_target_is_not_found_after_the_settle_window(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/actions.html")[0])
    started = time.monotonic()
    code, body = browser.cli("click", "#does-not-exist", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "not_found"
    assert body["error"]["transient"] is False
    assert time.monotonic() - started < 10


# ---- fill / type ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("css", "prop"), [("#name", "value"), ("#bio", "value"), ("#editor", "textContent")]
)
def test_fill_replaces_and_the_page_has_the_value(
    browser: Browser, page: Any, css: str, prop: str
) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("fill", css, "first draft", "--tab", tab)
    body = browser.ok("fill", css, "Ada Lovelace", "--tab", tab)
    assert body["value"] == "Ada Lovelace"
    assert _value(browser, css, prop) == "Ada Lovelace"
    assert body["effect"]["value"]["to"] == "Ada Lovelace"
    if css != "#editor":  # the page's own input log saw the final value
        assert f"{css[1:]}:input:Ada Lovelace" in page_log(browser)
    else:
        assert page_log(browser)[-1] == "editor:input:Ada Lovelace"


def test_fill_on_a_reformatting_field_answers_fill_mismatch(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    code, body = browser.cli("fill", "#upper", "hello", "--tab", tab)
    assert code == 1
    assert body["error"]["code"] == "fill_mismatch"
    assert body["error"]["kept"] == "HELLO" == _value(browser, "#upper")
    assert body["error"]["expected"] == "hello"


def test_type_appends(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("fill", "#name", "Ada", "--tab", tab)
    body = browser.ok("type", "#name", " Lovelace", "--tab", tab)
    assert body["value"] == "Ada Lovelace" == _value(browser, "#name")
    browser.ok("type", "#editor", "abc", "--tab", tab)
    browser.ok("type", "#editor", "def", "--tab", tab)
    assert _value(browser, "#editor", "textContent") == "abcdef"


# ---- keys -------------------------------------------------------------------------------------


def _keys(browser: Browser) -> list[tuple[str, str, bool, bool, str]]:
    return [
        (k["key"], k["code"], k["ctrl"], k["shift"], k["target"])
        for k in browser.js("return window.__keys")
    ]


def test_press_control_a_selects_all(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("fill", "#name", "hello world", "--tab", tab)
    browser.js("window.__keys.length = 0")
    browser.ok("press", "Control+A", "#name", "--tab", tab)
    assert _keys(browser) == [
        ("Control", "ControlLeft", True, False, "name"),
        ("a", "KeyA", True, False, "name"),
    ]
    assert browser.js(
        "const e = document.querySelector('#name');return [e.selectionStart, e.selectionEnd]"
    ) == [0, 11]


def test_press_shift_tab_moves_focus_back(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("press", "Shift+Tab", "#bio", "--tab", tab)
    assert _keys(browser) == [
        ("Shift", "ShiftLeft", False, True, "bio"),
        ("Tab", "Tab", False, True, "bio"),
    ]
    assert browser.js("return document.activeElement.id") == "name"


def test_press_enter_submits_the_form(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("fill", "#username", "ada", "--tab", tab)
    browser.ok("press", "Enter", "#username", "--tab", tab)
    assert _keys(browser)[-1] == ("Enter", "Enter", False, False, "username")
    assert "submitted" in page_log(browser)
    assert _value(browser, "#login-status", "textContent") == "Submitted as ada"


def test_press_sequence_arrives_in_order(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("fill", "#name", "", "--tab", tab)
    for key in ("x", "Shift+Y", "z", "Backspace"):
        browser.ok("press", key, "--tab", tab)
    assert [k[0] for k in _keys(browser) if k[0] != "Shift"] == ["x", "Y", "z", "Backspace"]
    assert _value(browser, "#name") == "xY"


# ---- select / check ---------------------------------------------------------------------------


def test_select_single_by_value_and_by_label(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    body = browser.ok("select", "#single", "m", "--tab", tab)
    assert body["selected"] == [{"value": "m", "label": "Medium"}]
    assert _value(browser, "#single") == "m"
    browser.ok("select", "#single", "Large", "--tab", tab)
    assert _value(browser, "#single") == "l"
    assert page_log(browser)[-4:] == [
        "single:input:m",
        "single:change:m",
        "single:input:l",
        "single:change:l",
    ]


def test_select_multiple(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("select", "#multi", "cheese", "Olives", "--tab", tab)
    assert browser.js(
        "return [...document.querySelector('#multi').selectedOptions].map(o => o.value)"
    ) == ["cheese", "olives"]
    assert page_log(browser)[-2:] == ["multi:input:cheese,olives", "multi:change:cheese,olives"]
    code, body = browser.cli("select", "#single", "s", "m", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "select_mismatch"
    code, body = browser.cli("select", "#single", "XXL", "--tab", tab, "--timeout-ms", "800")
    assert code == 1 and body["error"]["code"] == "select_mismatch"
    assert _value(browser, "#single") == ""


@pytest.mark.parametrize(
    ("css", "read"),
    [
        ("#agree", "el.checked"),
        ("#aria-check", "el.getAttribute('aria-checked') === 'true'"),
        ("#aria-switch", "el.getAttribute('aria-checked') === 'true'"),
    ],
)
def test_check_and_uncheck(browser: Browser, page: Any, css: str, read: str) -> None:
    tab = str(page("static/actions.html")[0])
    state = f"const el = document.querySelector(arguments[0]); return {read};"
    body = browser.ok("check", css, "--tab", tab)
    assert body["checked"] is True and browser.js(state, css) is True
    again = browser.ok("check", css, "--tab", tab)
    assert again["warnings"] == ["already_checked"] and browser.js(state, css) is True
    browser.ok("uncheck", css, "--tab", tab)
    assert browser.js(state, css) is False


def test_check_radio(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("check", "#plan-pro", "--tab", tab)
    assert browser.js("return document.querySelector('input[name=plan]:checked').id") == "plan-pro"
    assert page_log(browser)[-1] == "plan:change:pro"
    code, body = browser.cli("uncheck", "#plan-pro", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "bad_request"
    assert browser.js("return document.querySelector('#plan-pro').checked") is True


# ---- smart mode -------------------------------------------------------------------------------


def test_click_text_delete_index_2_clicks_the_second_delete(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("click", "--text", "Delete", "--index", "2", "--tab", tab)
    assert browser.js("return window.__deleted") == ["2"]
    code, body = browser.cli("click", "--text", "Delete", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "ambiguous"
    assert browser.js("return window.__deleted") == ["2"]


def test_smart_click_after_the_page_changed_and_state_ran(browser: Browser, page: Any) -> None:
    """The interaction map is cached; a later `state` renumbers elements. --index still means
    the second Delete on the page, not whatever sits at the cached position now."""
    tab = str(page("static/actions.html")[0])
    browser.ok("find", "--text", "Delete", "--tab", tab)
    browser.js(
        "const b = document.createElement('button'); b.textContent = 'Inserted';"
        "b.onclick = () => window.__log.push('inserted:click'); document.body.prepend(b)"
    )
    browser.ok("state", "--tab", tab)
    browser.ok("click", "--text", "Delete", "--index", "2", "--tab", tab)
    assert browser.js("return window.__deleted") == ["2"]
    assert "inserted:click" not in page_log(browser)


def test_smart_mode_cli_examples(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("fill", "--text", "Username", "-v", "testuser", "--tab", tab)
    browser.ok(
        "fill", "--text", "Password", "-v", "secret", "--type", "input-password", "--tab", tab
    )
    browser.ok("fill", "--text", "Name", "Ada", "--tab", tab)
    assert _value(browser, "#username") == "testuser"
    assert _value(browser, "#password") == "secret"
    assert _value(browser, "#name") == "Ada"
    browser.ok("click", "--text", "Log in", "--type", "button", "--tab", tab)
    assert _value(browser, "#login-status", "textContent") == "Submitted as testuser"
    browser.ok("click", "--text", "Load", "--viewport-only", "--tab", tab)
    assert "load:start" in page_log(browser)


# ---- frames -----------------------------------------------------------------------------------


def _frame_refs(browser: Browser, tab: str) -> tuple[str, str]:
    state = browser.ok("state", "--tab", tab)
    saves = [r for r in state["refs"] if r["name"] == "Inner Save"]
    by_frame = {("cross" if "localhost" in r["frame"]["url"] else "same"): r["ref"] for r in saves}
    return by_frame["same"], by_frame["cross"]


def _child_count(browser: Browser, frame_css: str) -> str:
    driver = browser.driver
    driver.switch_to.frame(driver.find_element("css selector", frame_css))
    try:
        return str(driver.find_element("css selector", "#count").text)
    finally:
        driver.switch_to.default_content()


def test_click_by_ref_inside_same_and_cross_origin_iframes(browser: Browser, page: Any) -> None:
    tab = str(page("static/frames.html")[0])
    same, cross = _frame_refs(browser, tab)
    body = browser.ok("click", same, "--tab", tab)
    assert body["method"] == "cdp"
    assert _child_count(browser, "iframe#same") == "1"
    body = browser.ok("click", cross, "--tab", tab)
    assert body["method"] == "cdp"
    log = eventually(lambda: page_log(browser), lambda v: "frame:cross:click count=1" in v)
    assert "frame:same:click count=1" in log and "frame:cross:click count=1" in log
    assert _child_count(browser, "iframe#cross") == "1"
    assert "outer-save:click" not in log


def test_iframes_below_the_fold_are_scrolled_to_and_clicked(browser: Browser, page: Any) -> None:
    """Coordinates of an out-of-process frame are translated after the main page scrolled."""
    tab = str(page("static/frames.html")[0])
    browser.js(
        "const top = document.createElement('div'); top.style.height = '2000px';"
        "document.body.prepend(top); const end = document.createElement('div');"
        "end.style.height = '3000px'; document.body.append(end);"
    )
    same, cross = _frame_refs(browser, tab)
    browser.ok("click", same, "--tab", tab)
    browser.ok("click", cross, "--tab", tab)
    log = eventually(lambda: page_log(browser), lambda v: "frame:cross:click count=1" in v)
    assert log == ["frame:same:click count=1", "frame:cross:click count=1"]
    assert browser.js("return window.scrollY") > 1000


def test_frame_option_scopes_css(browser: Browser, page: Any) -> None:
    tab = str(page("static/frames.html")[0])
    browser.ok("click", "#inner-save", "--frame", "iframe#same", "--tab", tab)
    browser.ok("click", "#inner-save", "--frame", "iframe#cross", "--tab", tab)
    log = eventually(lambda: page_log(browser), lambda v: "frame:cross:click count=1" in v)
    assert "frame:same:click count=1" in log and "frame:cross:click count=1" in log
    code, body = browser.cli("click", "#inner-save", "--tab", tab)  # not in the top document
    assert code == 1 and body["error"]["code"] == "not_found"


def test_fill_inside_the_cross_origin_iframe(browser: Browser, page: Any) -> None:
    tab = str(page("static/frames.html")[0])
    body = browser.ok("fill", "#inner-name", "Grace", "--frame", "iframe#cross", "--tab", tab)
    assert body["value"] == "Grace"
    log = eventually(lambda: page_log(browser), lambda v: "frame:cross:input:Grace" in v)
    assert "frame:cross:input:Grace" in log


# ---- wait -------------------------------------------------------------------------------------


def test_wait_text_returns_once_the_text_appears(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("click", "#load-btn", "--tab", tab)
    assert browser.js("return document.querySelector('#loaded')") is None
    body = browser.ok("wait", "--text", "Loaded!", "--tab", tab, "--timeout-ms", "5000")
    assert body["waited_for"] == "text"
    assert _value(browser, "#loaded", "textContent") == "Loaded!"
    assert "load:done" in page_log(browser)


def test_wait_text_that_never_comes_times_out_saying_what_it_saw(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/actions.html")[0])
    started = time.monotonic()
    code, body = browser.cli("wait", "--text", "never", "--tab", tab, "--timeout-ms", "800")
    elapsed = time.monotonic() - started
    assert code == 1 and body["error"]["code"] == "timeout"
    assert body["error"]["last_seen"]
    assert elapsed < 5


def test_wait_target_and_gone(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    browser.ok("click", "#load-btn", "--tab", tab)
    browser.ok("wait", "--target", "#loaded", "--tab", tab, "--timeout-ms", "5000")
    assert browser.js("return !!document.querySelector('#loaded')") is True
    browser.js("setTimeout(() => document.querySelector('#loaded').remove(), 300)")
    browser.ok("wait", "--gone", "#loaded", "--tab", tab, "--timeout-ms", "5000")
    assert browser.js("return !!document.querySelector('#loaded')") is False


def test_smart_refs_match_state(browser: Browser, page: Any) -> None:
    tab = str(page("static/actions.html")[0])
    refs = refs_by_name(browser.ok("state", "--tab", tab))
    browser.ok("click", refs["Covered button"], "--tab", tab)
    assert page_log(browser)[-1] == "covered:click"


def test_fill_checks_what_the_field_keeps_once_the_page_settled(
    browser: Browser, page: Any
) -> None:
    tab = str(page("static/actions.html")[0])
    code, body = browser.cli("fill", "#late", "hello", "--tab", tab)
    assert code == 1, body
    assert body["error"]["code"] == "fill_mismatch"
    assert body["error"]["kept"] == "hello!" == _value(browser, "#late")
    assert body["error"]["expected"] == "hello"


def test_an_after_read_that_times_out_is_unknown_not_a_navigation(
    browser: Browser, page: Any
) -> None:
    tab, url = page("static/actions.html")
    code, body = browser.cli("click", "#busy-after", "--tab", str(tab), "--timeout-ms", "2500")
    assert code == 0, body
    assert body["effect"].get("unknown") is True and "navigated" not in body["effect"]
    assert "effect_unknown" in body["warnings"]
    time.sleep(2.5)  # the page's busy loop ends; then the page is read as it is
    assert page_log(browser)[-1] == "busy-after:click"
    assert browser.driver.current_url == url  # nothing navigated


def test_a_click_that_closes_the_tab_says_so(browser: Browser, page: Any) -> None:
    tab = page("static/actions.html")[0]
    body = browser.ok("click", "#closer", "--tab", str(tab))
    assert body["effect"] == {"tab_closed": True}
    assert body["warnings"] in ([], ["tab_closed_during_action"])
    listed = browser.ok("tabs")["tabs"]
    assert tab not in [t["id"] for t in listed]


def test_wait_text_follows_the_text_rule_not_the_css_rendering(browser: Browser, page: Any) -> None:
    """Issue 32: a heading written "March 2026" and shown uppercase; hidden text never counts."""
    tab = str(page("static/wait-text.html")[0])
    assert browser.js("return document.getElementById('month').innerText") == "MARCH 2026"
    fast = ("--tab", tab, "--timeout-ms", "1500")
    for text in ("March 2026", "march", "MARCH 2026", '"March 2026"'):
        assert browser.ok("wait", "--text", text, *fast)["waited_for"] == "text", text
    for text in ('"MARCH 2026"', '"March"', "Ghost"):  # exact is the DOM text; hidden is not seen
        code, body = browser.cli("wait", "--text", text, *fast)
        assert code == 1 and body["error"]["code"] == "timeout", (text, body)
    browser.ok("click", "#later", "--tab", tab)
    assert browser.ok("wait", "--text", "payment received", "--tab", tab)["waited_for"] == "text"
