"""The page-call layer without a browser: what the page answers, translated into typed errors;
the one poll loop; and the page functions the host names, all present in the generated bundle."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
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
from reins.bridge.context import Host
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Request
from reins.commands.table import all_commands
from reins.page.call import (
    ScriptStopped,
    call_function,
    evaluate,
    evaluate_handle,
    page_call,
    page_constant,
    page_function,
)
from reins.page.poll import NotYet, poll_until

HOST = Path(__file__).resolve().parents[2] / "host" / "reins"
TERMINATED = {
    "exceptionDetails": {
        "text": "Uncaught",
        "lineNumber": 0,
        "columnNumber": 0,
        "exception": {"description": "Error: Execution was terminated"},
    }
}


class FakeContext:
    """Just what the page-call layer uses of a CommandContext: a deadline and CDP."""

    def __init__(
        self, *answers: dict[str, Any] | ReinsError, budget_ms: int = 5_000, delay_s: float = 0.0
    ) -> None:
        self.deadline = Deadline.after_ms(budget_ms)
        self.answers = list(answers)
        self.sent: list[tuple[str, dict[str, Any], str | None]] = []
        self.delay_s = delay_s

    async def cdp(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        self.sent.append((method, params or {}, session_id))
        await asyncio.sleep(self.delay_s)
        answer = self.answers.pop(0)
        if isinstance(answer, ReinsError):
            raise answer
        return answer


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# ---- evaluate and call ----------------------------------------------------------------------------


def test_evaluate_answers_the_value_under_v8s_timeout() -> None:
    ctx = FakeContext({"result": {"type": "number", "value": 3}}, budget_ms=2_000)
    assert run(evaluate(ctx, "1 + 2", session_id="S")) == 3  # type: ignore[arg-type]
    method, params, session = ctx.sent[0]
    assert (method, session) == ("Runtime.evaluate", "S")
    assert params["returnByValue"] is True and params["awaitPromise"] is False
    assert 1_800 < params["timeout"] <= 2_000 - 50  # the budget left minus the headroom


def test_a_handle_is_an_object_id_and_null_is_none() -> None:
    ctx = FakeContext(
        {"result": {"type": "object", "objectId": "o-1"}},
        {"result": {"type": "object", "subtype": "null", "value": None}},
        {"result": {"type": "undefined"}},
    )
    assert run(evaluate_handle(ctx, "x")) == "o-1"  # type: ignore[arg-type]
    assert run(evaluate_handle(ctx, "x")) is None  # type: ignore[arg-type]
    assert run(evaluate_handle(ctx, "x")) is None  # type: ignore[arg-type]
    assert all(params["objectGroup"] == "reins" for _, params, _ in ctx.sent)


def test_a_page_function_is_called_with_the_element_first() -> None:
    ctx = FakeContext({"result": {"type": "object", "value": {"kind": None}}})
    answer = run(call_function(ctx, "el-7", "checkedState", session_id="S"))  # type: ignore[arg-type]
    assert answer == {"kind": None}
    method, params, _ = ctx.sent[0]
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
        ctx = FakeContext(answer)
        with pytest.raises(DeadlineExceeded) as caught:
            run(evaluate(ctx, "while (1) {}", what="collect"))  # type: ignore[arg-type]
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
    ctx = FakeContext(internal, budget_ms=60 + 50, delay_s=0.07)  # V8 timeout 60 ms; answered at 70
    with pytest.raises(ScriptStopped):
        run(evaluate(ctx, "x", await_promise=True))  # type: ignore[arg-type]
    ctx = FakeContext(internal, budget_ms=5_000)  # at once: a real CDP failure
    with pytest.raises(BrowserError) as caught:
        run(evaluate(ctx, "x", await_promise=True))  # type: ignore[arg-type]
    assert caught.value.code == "cdp_error"


def test_no_answer_in_time_is_the_links_timeout_not_a_stop() -> None:
    ctx = FakeContext(DeadlineExceeded("Runtime.evaluate: no answer within the 100 ms budget"))
    with pytest.raises(DeadlineExceeded) as caught:
        run(evaluate(ctx, "x"))  # type: ignore[arg-type]
    assert not isinstance(caught.value, ScriptStopped)


def test_no_budget_left_sends_nothing() -> None:
    ctx = FakeContext(budget_ms=40)
    with pytest.raises(DeadlineExceeded, match="before the script could start"):
        run(evaluate(ctx, "x", what="find"))  # type: ignore[arg-type]
    assert ctx.sent == []


def test_a_page_script_that_threw_is_eval_exception_naming_it() -> None:
    thrown = {
        "exceptionDetails": {
            "text": "Uncaught",
            "lineNumber": 3,
            "columnNumber": 9,
            "exception": {"description": "TypeError: x is null\n    at f"},
        }
    }
    ctx = FakeContext(thrown)
    with pytest.raises(EvaluateError) as caught:
        run(call_function(ctx, "el", "probe", {}, what="actionability"))  # type: ignore[arg-type]
    assert caught.value.code == "eval_exception"
    assert str(caught.value.args[0]) == "actionability: TypeError: x is null"
    assert caught.value.details == {"line": 3, "column": 9}


async def _state_answered_by(
    result: Callable[[dict[str, Any]], Any],
) -> tuple[Host, dict[str, Any] | ReinsError]:
    """`reins state` on tab 7 through the dispatcher, every message to the extension answered ok
    with ``result(message)``: the host, and the answer or the error."""
    loop = asyncio.get_running_loop()
    link: ExtensionLink

    def send(message: dict[str, Any]) -> None:
        answer = {"id": message["id"], "ok": True, "result": result(message)}
        loop.call_soon(link.receive, answer)

    link = ExtensionLink(send)
    link.receive({"type": "hello", "version": "test"})
    host = Host(profile="test", home=Path("/nonexistent"), link=link)
    dispatcher = Dispatcher(host, all_commands())
    try:
        return host, await dispatcher.dispatch(Request(id=1, cmd="state", tab=7, timeout_ms=2_000))
    except ReinsError as exc:
        return host, exc


def test_an_internal_script_stopped_marks_the_tab_suspect() -> None:
    """End to end through the dispatcher: `state`'s collection stopped by V8 answers `timeout`
    and the tab is probed before its next command."""

    def result(message: dict[str, Any]) -> Any:
        return TERMINATED if message.get("method") == "Runtime.evaluate" else {}

    async def scenario() -> tuple[dict[str, Any] | ReinsError, bool]:
        host, answer = await _state_answered_by(result)
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

    def result(message: dict[str, Any]) -> Any:
        if message.get("method") == "Runtime.evaluate":
            return {"result": {"type": "string", "value": "<not the collection>"}}
        return [] if message.get("type") == "cdp_batch" else {}

    async def scenario() -> dict[str, Any] | ReinsError:
        return (await _state_answered_by(result))[1]

    answer = run(scenario())
    assert isinstance(answer, ReinsError), answer
    assert answer.code == "page_answer_invalid", answer
    assert "reload" in (answer.hint or ""), answer.hint
