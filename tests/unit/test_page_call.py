"""The page-call layer without a browser: what the page answers, translated into typed errors;
the one poll loop; and the page functions the host names, all present in the generated bundle."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from reins._errors import (
    BrowserError,
    DeadlineExceeded,
    EvaluateError,
    ReinsError,
    ResolutionError,
    from_cdp_error,
)
from reins._host import Dispatcher
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.protocol import Request
from reins.commands.table import all_commands
from reins.page.call import (
    ScriptStopped,
    _bundle,
    call_function,
    evaluate,
    evaluate_handle,
    page_call,
    page_constant,
    page_function,
)
from reins.page.poll import NotYet, poll_until

from tests.unit.fakes import FakeChrome, make_context, make_host

HOST = Path(__file__).resolve().parents[2] / "host" / "reins"
TERMINATED = {
    "exceptionDetails": {
        "text": "Uncaught",
        "lineNumber": 0,
        "columnNumber": 0,
        "exception": {"description": "Error: Execution was terminated"},
    }
}


def _ctx(
    *answers: dict[str, Any] | ReinsError, budget_ms: int = 5_000, delay_s: float = 0.0
) -> tuple[CommandContext, FakeChrome]:
    """A command context whose CDP calls get ``answers`` in order, each ``delay_s`` late, and
    the fake Chrome that gives them (its ``sent``: what the context sent)."""
    chrome = FakeChrome(replies=list(answers), delay_s=delay_s)
    return make_context(chrome, budget_ms=budget_ms), chrome


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# ---- evaluate and call ----------------------------------------------------------------------------


def test_evaluate_answers_the_value_under_v8s_timeout() -> None:
    ctx, chrome = _ctx({"result": {"type": "number", "value": 3}}, budget_ms=2_000)
    assert run(evaluate(ctx, "1 + 2", session_id="S")) == 3
    method, params, session = chrome.sent[0]
    assert (method, session) == ("Runtime.evaluate", "S")
    assert params["returnByValue"] is True and params["awaitPromise"] is False
    assert 1_800 < params["timeout"] <= 2_000 - 50  # the budget left minus the headroom


def test_a_handle_is_an_object_id_and_null_is_none() -> None:
    ctx, chrome = _ctx(
        {"result": {"type": "object", "objectId": "o-1"}},
        {"result": {"type": "object", "subtype": "null", "value": None}},
        {"result": {"type": "undefined"}},
    )
    assert run(evaluate_handle(ctx, "x")) == "o-1"
    assert run(evaluate_handle(ctx, "x")) is None
    assert run(evaluate_handle(ctx, "x")) is None
    assert all(params["objectGroup"] == "reins" for _, params, _ in chrome.sent)


def test_a_page_function_is_called_with_the_element_first() -> None:
    ctx, chrome = _ctx({"result": {"type": "object", "value": {"kind": None}}})
    answer = run(call_function(ctx, "el-7", "checkedState", session_id="S"))
    assert answer == {"kind": None}
    method, params, _ = chrome.sent[0]
    assert method == "Runtime.callFunctionOn"
    assert params["objectId"] == "el-7"
    assert params["arguments"] == [{"objectId": "el-7"}]
    assert params["functionDeclaration"] == page_function("checkedState")


def test_a_page_call_is_an_expression_with_json_arguments() -> None:
    expression = page_call("findMatches", {"kind": "css", "value": "a[title='x']"})
    assert expression.startswith("(function () {")
    assert expression.endswith(')({"kind": "css", "value": "a[title=\'x\']"})')
    with pytest.raises(ReinsError, match="no page function"):
        page_call("noSuchFunction")


# ---- translation ----------------------------------------------------------------------------------


def test_a_script_v8_stopped_is_a_deadline_exceeded() -> None:
    """The old frames layer answered ReinsError(code="timeout"), which the dispatcher did not take
    for a timeout: the tab was not marked suspect."""
    for answer in (
        TERMINATED,
        # What the extension answers for Chrome's "Execution was terminated" (extension/errors.js).
        from_cdp_error(
            "Runtime.evaluate",
            {
                "code": "timeout",
                "message": "Execution was terminated",
                "transient": True,
                "chrome": "script_terminated",
            },
        ),
    ):
        ctx, chrome = _ctx(answer)
        with pytest.raises(DeadlineExceeded) as caught:
            run(evaluate(ctx, "while (1) {}", what="collect"))
        assert isinstance(caught.value, ScriptStopped)
        assert caught.value.code == "timeout" and caught.value.transient


def test_an_internal_error_is_a_stop_only_at_about_the_timeout() -> None:
    internal = from_cdp_error(
        "Runtime.evaluate",
        {
            "code": "cdp_error",
            "message": '{"code":-32603,"message":"Internal error"}',
            "chrome": "internal_error",
        },
    )
    ctx, chrome = _ctx(
        internal, budget_ms=60 + 50, delay_s=0.07
    )  # V8 timeout 60 ms; answered at 70
    with pytest.raises(ScriptStopped):
        run(evaluate(ctx, "x", await_promise=True))
    ctx, chrome = _ctx(internal, budget_ms=5_000)  # at once: a real CDP failure
    with pytest.raises(BrowserError) as caught:
        run(evaluate(ctx, "x", await_promise=True))
    assert caught.value.code == "cdp_error"


def test_no_answer_in_time_is_the_links_timeout_not_a_stop() -> None:
    ctx, chrome = _ctx(DeadlineExceeded("Runtime.evaluate: no answer within the 100 ms budget"))
    with pytest.raises(DeadlineExceeded) as caught:
        run(evaluate(ctx, "x"))
    assert not isinstance(caught.value, ScriptStopped)


def test_no_budget_left_sends_nothing() -> None:
    ctx, chrome = _ctx(budget_ms=40)
    with pytest.raises(DeadlineExceeded, match="before the script could start"):
        run(evaluate(ctx, "x", what="find"))
    assert chrome.sent == []


def test_a_page_script_that_threw_is_eval_exception_naming_it() -> None:
    thrown = {
        "exceptionDetails": {
            "text": "Uncaught",
            "lineNumber": 3,
            "columnNumber": 9,
            "exception": {"description": "TypeError: x is null\n    at f"},
        }
    }
    ctx, chrome = _ctx(thrown)
    with pytest.raises(EvaluateError) as caught:
        run(call_function(ctx, "el", "probe", {}, what="actionability"))
    assert caught.value.code == "eval_exception"
    assert str(caught.value.args[0]) == "actionability: TypeError: x is null"
    assert caught.value.details == {"line": 3, "column": 9}


async def _state_answered(evaluated: dict[str, Any]) -> tuple[Host, dict[str, Any] | ReinsError]:
    """`reins state` on tab 7 through the dispatcher, every script answered ``evaluated``,
    everything else answered ok: the host, and the answer or the error."""
    every_function = dict.fromkeys(_bundle()["functions"], evaluated)
    chrome = FakeChrome(cdp={"Runtime.evaluate": evaluated}, functions=every_function)
    host = make_host(chrome)
    dispatcher = Dispatcher(host, all_commands())
    try:
        return host, await dispatcher.dispatch(Request(id=1, cmd="state", tab=7, timeout_ms=2_000))
    except ReinsError as exc:
        return host, exc


def test_an_internal_script_stopped_marks_the_tab_suspect() -> None:
    """End to end through the dispatcher: `state`'s collection stopped by V8 answers `timeout`
    and the tab is probed before its next command."""

    async def scenario() -> tuple[dict[str, Any] | ReinsError, bool]:
        host, answer = await _state_answered(TERMINATED)
        return answer, host.tab(7).suspect

    answer, suspect = run(scenario())
    assert isinstance(answer, DeadlineExceeded), answer
    assert suspect


# ---- poll_until -----------------------------------------------------------------------------------


def test_poll_retries_what_is_not_yet_and_answers_when_it_holds() -> None:
    seen: list[int] = []

    async def probe() -> str:
        seen.append(len(seen))
        if len(seen) < 3:
            raise NotYet("not yet")
        return "done"

    assert run(poll_until(Deadline.after_ms(2_000), probe, interval=0.001)) == "done"
    assert len(seen) == 3


def test_poll_gives_up_with_the_last_reason() -> None:
    async def probe() -> str:
        raise ResolutionError("still covered", code="obscured", transient=True)

    with pytest.raises(ResolutionError, match="still covered"):
        run(poll_until(Deadline.after_ms(50), probe, interval=0.01))

    def worded(last: ReinsError) -> ReinsError:
        return DeadlineExceeded(f"gave up: {last.message}")

    tries: list[int] = []

    async def counted() -> str:
        tries.append(1)
        raise NotYet("no")

    with pytest.raises(DeadlineExceeded, match="gave up: no"):
        run(
            poll_until(
                Deadline.after_ms(5_000), counted, interval=0.001, attempts=4, gave_up=worded
            )
        )
    assert len(tries) == 4


def test_poll_stops_at_once_on_what_it_does_not_retry() -> None:
    tries: list[int] = []

    async def probe() -> str:
        tries.append(1)
        raise ResolutionError("the element is disabled", code="disabled")

    with pytest.raises(ResolutionError, match="disabled"):
        run(poll_until(Deadline.after_ms(2_000), probe, interval=0.001))
    assert len(tries) == 1


def test_poll_explains_a_timeout_mid_try_by_what_it_waited_for() -> None:
    answers: list[ReinsError] = [
        ResolutionError("covered", code="obscured", transient=True),
        DeadlineExceeded("no answer"),
    ]

    async def probe() -> str:
        raise answers.pop(0)

    with pytest.raises(ResolutionError, match="covered"):
        run(
            poll_until(
                Deadline.after_ms(2_000),
                probe,
                interval=0.001,
                retry=lambda exc: exc.code == "obscured",
                explain_timeout=True,
            )
        )


# ---- the page functions the host names --------------------------------------------------------


_NAMED = [
    re.compile(r'page_call\(\s*"(\w+)"'),
    re.compile(r"page_function\(\s*['\"](\w+)"),
    re.compile(r'call_function\(\s*[^,()]+,\s*[^,()]+,\s*"(\w+)"'),
]


def test_every_page_function_the_host_names_is_in_the_bundle() -> None:
    named: set[str] = set()
    for path in HOST.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern in _NAMED:
            named.update(pattern.findall(text))
    assert len(named) >= 20
    for name in sorted(named):
        assert page_function(name).startswith("function () {"), name
    assert page_constant("UNREACHABLE").startswith("reins:")


def test_a_collection_answered_in_an_unreadable_form_is_page_answer_invalid() -> None:
    """`state` whose collection answers something that is not its JSON: a typed error with a
    next step (page_answer_invalid), never `internal` or a traceback."""

    async def scenario() -> dict[str, Any] | ReinsError:
        unreadable = {"result": {"type": "string", "value": "<not the collection>"}}
        return (await _state_answered(unreadable))[1]

    answer = run(scenario())
    assert isinstance(answer, ReinsError), answer
    assert answer.code == "page_answer_invalid", answer
    assert "reload" in (answer.hint or ""), answer.hint
