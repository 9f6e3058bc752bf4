"""`reins eval` end to end: one deadline, V8 stops runaway scripts, a blocked tab fails fast.

The page is the oracle: its own click log and marker say what happened in it. A tab that a test
leaves with a blocked main thread is closed by that test, and the other tab it talks to is on a
different site (`site.cross_url`, localhost instead of 127.0.0.1), so it cannot share the blocked
renderer process.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Browser, Site
from .support import PROFILE, start_cli

LATE_S = 0.25  # the bound: the answer comes no later than this after the deadline


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    result = fn()
    return result, time.monotonic() - started


def _eval(browser: Browser, tab: int, *args: str, timeout_ms: int | None = None) -> tuple[int, Any]:
    extra = ["--timeout-ms", str(timeout_ms)] if timeout_ms is not None else []
    return browser.cli("eval", *args, "--tab", str(tab), *extra)


def _via(
    browser: Browser, how: str, tab: int, args: dict[str, Any], timeout_ms: int
) -> dict[str, Any]:
    """One eval through the CLI process or through a direct socket client; the answer body."""
    if how == "cli":
        cli_args = [args["expression"]]
        if "target" in args:
            cli_args += ["--target", args["target"]]
        _, body = _eval(browser, tab, *cli_args, timeout_ms=timeout_ms)
        return body  # type: ignore[no-any-return]
    return browser.call("eval", args, tab=tab, timeout_ms=timeout_ms)


def _click(browser: Browser, tab: int) -> None:
    """`reins click` on the fixture's button: real mouse events, after actionability checks."""
    browser.ok("click", "#press", "--tab", str(tab), "--timeout-ms", "5000")


def _stats(browser: Browser) -> dict[str, Any]:
    return browser.ok("stats")["stats"]  # type: ignore[no-any-return]


@pytest.fixture
def eval_page(page: Any) -> Callable[[], int]:
    def open_eval() -> int:
        tab_id, _ = page("static/eval.html")
        return int(tab_id)

    return open_eval


# ---- timeouts -----------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["cli", "socket"])
def test_endless_loop_is_stopped_at_the_deadline_and_the_tab_still_clicks(
    browser: Browser, eval_page: Callable[[], int], how: str
) -> None:
    tab = eval_page()
    before = _stats(browser)["events"].get("eval_terminated", 0)
    body, took = _timed(lambda: _via(browser, how, tab, {"expression": "while (true) {}"}, 1000))
    assert body["ok"] is False and body["error"]["code"] == "timeout", body
    assert took < 1.0 + LATE_S, took
    assert _stats(browser)["events"].get("eval_terminated", 0) == before + 1

    _click(browser, tab)
    clicks = browser.js("return window.__clicks")
    assert len(clicks) == 1 and clicks[0]["trusted"] is True and clicks[0]["detail"] == 1
    assert browser.js("return document.querySelectorAll('#log li').length") == 1


@pytest.mark.parametrize("how", ["cli", "socket"])
def test_a_promise_that_never_settles_times_out_and_leaves_nothing_pending(
    browser: Browser, eval_page: Callable[[], int], how: str
) -> None:
    tab = eval_page()
    before = _stats(browser)["events"].get("eval_timeout", 0)
    body, took = _timed(
        lambda: _via(browser, how, tab, {"expression": "new Promise(() => {})"}, 800)
    )
    assert body["ok"] is False and body["error"]["code"] == "timeout", body
    assert took < 0.8 + LATE_S, took
    stats = _stats(browser)
    assert stats["pending_requests"] == 0
    assert stats["events"].get("eval_timeout", 0) == before + 1
    assert stats["commands"]["eval"]["failures"].get("timeout", 0) >= 1
    # The tab answers at once: the unsettled promise holds nothing in the host or the page.
    code, answer = _eval(browser, tab, "document.title")
    assert code == 0 and answer["value"] == "Eval fixture"


@pytest.mark.parametrize("how", ["cli", "socket"])
def test_element_level_endless_loop_is_stopped_the_same_way(
    browser: Browser, eval_page: Callable[[], int], how: str
) -> None:
    tab = eval_page()
    args = {
        "expression": "el => { el.dataset.entered = 'yes'; while (true) {} }",
        "target": "#press",
    }
    body, took = _timed(lambda: _via(browser, how, tab, args, 1000))
    assert body["ok"] is False and body["error"]["code"] == "timeout", body
    assert took < 1.0 + LATE_S, took
    # The user's function did run (on the element) and the tab is usable right after.
    assert browser.js("return document.getElementById('press').dataset.entered") == "yes"
    _click(browser, tab)
    assert len(browser.js("return window.__clicks")) == 1


def test_a_loop_in_a_promise_continuation_makes_the_tab_fail_fast_and_spares_other_tabs(
    browser: Browser, eval_page: Callable[[], int], site: Site
) -> None:
    blocked = eval_page()
    other = int(browser.ok("tab", "new", site.cross_url("static/eval.html"))["id"])
    try:
        code, body = _eval(browser, blocked, "window.__marker = 'b'; 'ready'")
        assert code == 0 and body["value"] == "ready"
        script = "new Promise(r => setTimeout(r, 10)).then(() => { while (true) {} })"
        (code, body), took = _timed(lambda: _eval(browser, blocked, script, timeout_ms=1000))
        assert code == 1 and body["error"]["code"] == "timeout", body
        assert took < 1.0 + LATE_S, took

        (code, body), took = _timed(lambda: _eval(browser, blocked, "1 + 1", timeout_ms=10_000))
        assert code == 1 and body["error"]["code"] == "tab_unresponsive", body
        assert f"reins tab close {blocked}" in body["error"]["message"]
        assert took < 1.0, took  # fails fast, far inside its 10 s budget

        (code, body), took = _timed(
            lambda: _eval(browser, other, "document.title + ' ' + location.host")
        )
        assert code == 0 and body["value"] == f"Eval fixture localhost:{site.xport}", body
        assert took < 1.0, took
        assert _stats(browser)["events"].get("tab_unresponsive", 0) >= 1
    finally:
        browser.cli("tab", "close", str(blocked))
        browser.cli("tab", "close", str(other))
    # Closing was the way out: a fresh tab on the same site works.
    fresh = eval_page()
    code, body = _eval(browser, fresh, "window.__marker")
    assert code == 0 and body["value"] == "untouched"


def test_a_killed_client_aborts_its_evaluate_and_the_host_answers_on(
    browser: Browser, eval_page: Callable[[], int]
) -> None:
    tab = eval_page()
    before = _stats(browser)["events"].get("eval_aborted", 0)
    proc = start_cli(
        browser.home, "eval", "while (true) {}", "--tab", str(tab), "--timeout-ms", "2000"
    )
    started = time.monotonic()
    time.sleep(0.3)
    assert proc.poll() is None  # still waiting on the loop
    proc.send_signal(signal.SIGKILL)
    proc.wait(5)

    (answer), took = _timed(lambda: browser.call("ping", timeout_ms=2000))
    assert answer["ok"] is True and took < 0.5
    deadline = time.monotonic() + 2
    while True:
        stats = _stats(browser)
        aborted = stats["events"].get("eval_aborted", 0) == before + 1
        if (aborted and stats["pending_requests"] == 0) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert aborted and stats["pending_requests"] == 0, stats
    assert stats["commands"]["eval"]["failures"].get("aborted", 0) >= 1

    # The script was sent with its own V8 timeout: once that has passed the tab answers normally.
    time.sleep(max(0.0, started + 2.2 - time.monotonic()))
    code, body = _eval(browser, tab, "document.title")
    assert code == 0 and body["value"] == "Eval fixture", body


# ---- results, targets, exceptions -----------------------------------------------------------------


def test_element_evaluate_through_a_ref_and_through_css(
    browser: Browser, eval_page: Callable[[], int]
) -> None:
    tab = eval_page()
    state = browser.ok("state", "--tab", str(tab))
    ref = next(r["ref"] for r in state["refs"] if r.get("name") == "Press me")
    assert ref.startswith("@")
    code, body = _eval(
        browser, tab, "el => { el.dataset.viaRef = 'yes'; return el.textContent }", "--target", ref
    )
    assert code == 0 and body["value"] == "Press me", body
    assert browser.js("return document.getElementById('press').dataset.viaRef") == "yes"

    code, body = _eval(
        browser,
        tab,
        "async (el) => { await null; el.dataset.viaCss = 'yes';"
        " return el.dataset.testid + ':' + el.textContent }",
        "--target",
        "#greeting",
    )
    assert code == 0 and body["value"] == "greeting:Hello from the page", body
    assert browser.js("return document.getElementById('greeting').dataset.viaCss") == "yes"

    code, body = _eval(
        browser, tab, "el => el.textContent", "--target", "#nothing-here", timeout_ms=4000
    )
    assert code == 1 and body["error"]["code"] == "not_found", body


def test_an_exception_is_reported_with_its_message_and_location(
    browser: Browser, eval_page: Callable[[], int]
) -> None:
    tab = eval_page()
    code, body = _eval(browser, tab, "const a = 1;\nthrow new Error('boom ' + a)")
    assert code == 1
    error = body["error"]
    assert error["code"] == "eval_exception" and "boom 1" in error["message"]
    assert error["exception"] == "Error: boom 1" and error["line"] == 2

    code, body = _eval(
        browser, tab, "el => {\n  throw new TypeError('nope ' + el.id)\n}", "--target", "#press"
    )
    assert code == 1
    error = body["error"]
    assert error["code"] == "eval_exception" and error["exception"] == "TypeError: nope press"
    assert error["line"] == 2 and error["column"] == 9  # where the error was created

    code, body = _eval(browser, tab, "Promise.reject(new RangeError('late'))")
    assert code == 1 and body["error"]["exception"] == "RangeError: late"

    code, body = _eval(browser, tab, "'not a function'", "--target", "#press")
    assert code == 1 and "expects a function" in body["error"]["message"]


def test_values_descriptions_and_the_size_cap(
    browser: Browser, eval_page: Callable[[], int]
) -> None:
    tab = eval_page()

    def value_of(expr: str) -> dict[str, Any]:
        code, body = browser.cli("eval", "--tab", str(tab), "--", expr)  # `--`: "-0" is no option
        assert code == 0, body
        body.pop("ok")
        return body

    assert value_of("({a: [1, 'x', null], b: {c: true}})") == {
        "value": {"a": [1, "x", None], "b": {"c": True}}
    }
    assert value_of("let n = 2; await new Promise(r => setTimeout(() => r(n * 21), 10))") == {
        "value": 42
    }
    assert value_of("undefined") == {"type": "undefined", "description": "undefined"}
    assert value_of("NaN") == {"type": "number", "description": "NaN"}
    assert value_of("-0") == {"type": "number", "description": "-0"}
    assert value_of("2n ** 70n") == {"type": "bigint", "description": "1180591620717411303424n"}
    assert value_of("Symbol('s')") == {"type": "symbol", "description": "Symbol(s)"}
    fn = value_of("(el) => el.id")
    assert fn["type"] == "function" and fn["description"] == "(el) => el.id"
    node = value_of("document.getElementById('press')")
    assert node["subtype"] == "node" and node["class_name"] == "HTMLButtonElement"
    assert node["description"].startswith("button#press")
    cyclic = value_of("const o = {name: 'o'}; o.self = o; o")
    assert cyclic["type"] == "object" and "circular" in cyclic["reason"]

    big = value_of("'é'.repeat(200000)")  # 400,000 bytes of UTF-8
    assert big["truncated"] is True and big["size"] == 400_000
    assert len(big["value"].encode()) == 256 * 1024
    rows = value_of("Array.from({length: 50000}, (_, i) => ({i, s: 'row'}))")
    assert rows["truncated"] is True and rows["size"] > 256 * 1024
    assert rows["value"].startswith('[{"i":0,"s":"row"}')
    assert len(rows["value"].encode()) == 256 * 1024


# ---- the gate -------------------------------------------------------------------------------------


def test_evaluate_disabled_refuses_and_nothing_runs_in_the_page(
    browser: Browser, eval_page: Callable[[], int]
) -> None:
    tab = eval_page()
    off = browser.ok("config", "evaluate", "off", "--profile", PROFILE)
    assert off["evaluate"] is False
    try:
        code, body = _eval(browser, tab, "window.__marker = 'ran'; 1")
        assert code == 1 and body["error"]["code"] == "evaluate_disabled", body
        code, body = _eval(browser, tab, "el => { window.__marker = 'ran' }", "--target", "#press")
        assert code == 1 and body["error"]["code"] == "evaluate_disabled", body
        body = browser.call("eval", {"expression": "window.__marker = 'ran'"}, tab=tab)
        assert body["error"]["code"] == "evaluate_disabled"
        assert browser.js("return window.__marker") == "untouched"
    finally:
        on = browser.ok("config", "evaluate", "on", "--profile", PROFILE)
    assert on["evaluate"] is True
    code, body = _eval(browser, tab, "window.__marker = 'ran'; 1")
    assert code == 0 and browser.js("return window.__marker") == "ran"
