"""`reins eval`: JavaScript in the page or on one element, always under V8's own timeout.

Page level, ``reins eval EXPR``: the expression runs through ``Runtime.evaluate`` in REPL mode
(statements, top-level ``await``, a ``let`` may be declared again by a later call), promises are
awaited, and its completion value is the answer.

Element level, ``reins eval FUNCTION --target TARGET``: FUNCTION is the source of a function that
receives the element, such as ``el => el.textContent`` or ``async (el) => { ... }``. The element is
resolved like any TARGET (``@ref``, CSS, XPath, ``role=``, ``text=``), parked for an instant in a
Symbol-keyed slot by a ``Runtime.callFunctionOn`` that runs no user code, and the function is then
called on it from a ``Runtime.evaluate``, so the user's code runs under the same timeout as at page
level. (``Runtime.terminateExecution`` is refused to extensions: ``Runtime.evaluate``'s ``timeout``
is the one thing that stops a runaway script.)

Timeouts. The script gets the command's remaining budget minus ``SCRIPT_HEADROOM_MS`` as its V8
timeout; a synchronous loop is stopped there and the tab stays usable. Work that runs after an
``await`` or in a promise continuation is not covered by V8's timeout: the command still answers
``timeout`` at its deadline, and if the page's main thread stays busy the host answers
``tab_unresponsive`` for that tab until it is closed (a reload queues behind the script). A client
that disconnects aborts the command at once; a script already running in the page ends at its V8
timeout at the latest.

Answers (``--json``):

* a JSON value: ``{"ok": true, "value": V}``. Objects and arrays go through the page's
  ``JSON.stringify`` (``toJSON`` honoured; nested functions and ``undefined`` dropped as it does);
* larger than ``MAX_RESULT_BYTES`` (256 KiB of UTF-8): ``value`` is a string holding the first
  256 KiB of the value's JSON text (of the string itself, for a string), with ``"truncated": true``
  and ``"size"``, the whole value's length in bytes;
* not representable as JSON (undefined, NaN, Infinity, -0, BigInt, symbols, functions, DOM nodes,
  Map/Set/Date/RegExp/Error/Promise…, cyclic objects): no ``value``; ``type``, ``subtype`` when
  there is one, ``class_name`` and ``description`` (CDP's description, e.g. ``"12n"``,
  ``"div#main.card"``), plus ``reason`` when ``JSON.stringify`` refused the object.

Errors: a thrown exception or rejected promise is ``eval_exception`` with ``exception`` (the first
line), ``stack``, and ``line``/``column`` (1-based, in the script as given) and ``url`` when known.
With evaluate switched off for the profile (``reins config evaluate off``) the answer is
``evaluate_disabled`` and nothing reaches the page.

Here too ``reins cdp``: one allowlisted DevTools command, raw (not an MCP tool; see its
declaration for what it refuses).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from reins._errors import BrowserError, DeadlineExceeded, EvaluateError, ReinsError, UsageError
from reins.act.locate import resolve_target
from reins.bridge.command import Args, Command, cli_hints, command
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS, Deadline
from reins.commands import answers
from reins.page.call import (
    SOURCE_URL,
    ScriptStopped,
    UserScript,
    call_function,
    evaluate,
    page_call,
    page_constant,
    page_function,
)
from reins.page.remote import MAX_RESULT_BYTES, describe_remote, from_serialized
from reins.page.world import in_page_world, note_raw_answer, reaches_own_world
from reins.setup.config import evaluate_enabled

__all__ = ["COMMANDS", "SCRIPT_HEADROOM_MS", "script_timeout_ms"]

# Kept back from the script's V8 timeout: V8 stops the script this long before the deadline, so
# the answer that says it was stopped arrives while the command still waits for it (and the caller
# can be told "stopped, the tab is usable" rather than only "no answer").
SCRIPT_HEADROOM_MS = 4 * HEADROOM_MS  # 150 ms of slack for that answer on a busy machine
# One slot on each page's global object, `Symbol.for("reins.eval")`: a Map keyed by a per-call
# nonce, so concurrent evaluations on one tab never take each other's element
# (pagescripts/src/evaluate.js: park, takeParked, serializeParked, runOnParked).


def script_timeout_ms(deadline: Deadline, *, now: float | None = None) -> int:
    """The V8 timeout a script may be given: what is left of the budget minus the headroom."""
    return deadline.remaining_ms(headroom_ms=SCRIPT_HEADROOM_MS, now=now)


class EvalArgs(Args):
    expression: str = Field(min_length=1, description="The JavaScript (`-`: read it from stdin).")
    target: str | None = Field(
        default=None,
        min_length=1,
        description="Run on one element (@ref, CSS, //xpath, role=..., text=...); EXPRESSION is "
        "then a function that receives it, e.g. 'el => el.textContent'.",
        json_schema_extra=cli_hints(metavar="TARGET"),
    )
    frame: str | None = Field(
        default=None,
        min_length=1,
        description="Look for --target inside this iframe.",
        json_schema_extra=cli_hints(metavar="CSS"),
    )


@dataclass
class _Call:
    """One evaluation in the page: where it runs and the names of what it leaves there."""

    ctx: CommandContext
    session_id: str | None
    group: str

    @property
    def answer_by(self) -> Deadline:
        """When to stop waiting on the page: HEADROOM_MS before the deadline, so `timeout` is
        serialized and sent in time; V8 stops the script SCRIPT_HEADROOM_MS before it, earlier
        still, so the answer saying so is in by then."""
        outer = self.ctx.deadline
        return Deadline(
            at=outer.at - HEADROOM_MS / 1000, budget_ms=outer.budget_ms, started=outer.started
        )

    async def evaluate(
        self, expression: str, *, by_value: bool, repl: bool = False, user: UserScript | None = None
    ) -> Any:
        """A Runtime.evaluate under V8's timeout, awaiting promises, as a user gesture."""
        ctx = self.ctx
        if script_timeout_ms(ctx.deadline) <= 0:
            raise DeadlineExceeded(
                f"eval: the {ctx.deadline.budget_ms} ms budget ran out "
                "before the script could start"
            )
        try:
            return await evaluate(
                ctx,
                expression,
                session_id=self.session_id,
                await_promise=True,
                by_value=by_value,
                repl=repl,
                user_gesture=True,
                object_group=self.group,
                headroom_ms=SCRIPT_HEADROOM_MS,
                answer_by=self.answer_by,
                user=user,
                what="eval",
                main_world=True,
            )
        except ScriptStopped:
            raise _stopped(ctx) from None
        except DeadlineExceeded:
            raise _unsettled(ctx) from None

    async def park(self, object_id: str, nonce: str) -> None:
        """Runs no user code: puts the object where a page-level evaluate can take it."""
        try:
            await call_function(
                self.ctx,
                object_id,
                "park",
                nonce,
                session_id=self.session_id,
                silent=True,
                answer_by=self.answer_by,
                what="eval",
            )
        except DeadlineExceeded:
            raise _unsettled(self.ctx) from None  # the page's main thread is busy

    async def shape(self, remote: dict[str, Any]) -> answers.Evaluated:
        shaped = describe_remote(remote)
        if shaped is not None:
            return shaped
        nonce = uuid.uuid4().hex
        await self.park(str(remote["objectId"]), nonce)
        try:
            payload = await self.evaluate(
                page_call("serializeParked", nonce, MAX_RESULT_BYTES), by_value=True
            )
        except EvaluateError:
            payload = None
        if not isinstance(payload, dict):
            payload = {"ok": False, "reason": "the page could not serialize the value"}
        return from_serialized(payload, remote)

    async def release(self) -> None:
        """Drop what the evaluation left in the page's object table (after the answer is out:
        ``_release_soon``)."""
        if self.ctx.deadline.remaining_ms() > HEADROOM_MS:
            try:
                await self.ctx.cdp(
                    "Runtime.releaseObjectGroup",
                    {"objectGroup": self.group},
                    session_id=self.session_id,
                    deadline=self.ctx.deadline.child(HEADROOM_MS),
                )
            except ReinsError:
                pass


def _stopped(ctx: CommandContext) -> DeadlineExceeded:
    ctx.note("eval_terminated")
    return DeadlineExceeded(
        f"eval: the script ran past the {ctx.deadline.budget_ms} ms budget and was stopped; "
        "the tab is usable"
    )


def _unsettled(ctx: CommandContext) -> DeadlineExceeded:
    return DeadlineExceeded(
        f"eval: no result within the {ctx.deadline.budget_ms} ms budget (a promise that never "
        "settled, or work after an await, which V8's timeout does not stop)"
    )


def _page_script(expression: str) -> str:
    # A newline first, so a trailing line comment in the user's script cannot swallow the name.
    return f"{expression}\n//# sourceURL={SOURCE_URL}"


def _element_script(source: str, nonce: str) -> tuple[str, UserScript]:
    """The user's function called on the parked element, and where its lines are.

    The one page-side template left in Python: the user's source has to be spliced into the
    script (as a thunk, so runOnParked takes the element before any user code runs), and in the
    same script as the call, so V8's timeout covers it and its stack names SOURCE_URL."""
    prefix = f"({page_function('runOnParked')})({json.dumps(nonce)}, () => (\n"
    script = f"{prefix}{source}\n))\n//# sourceURL={SOURCE_URL}"
    return script, UserScript(line_offset=prefix.count("\n"), lines=source.count("\n") + 1)


def _unreachable(exc: EvaluateError) -> bool:
    message = page_constant("UNREACHABLE")
    return any(message in str(exc.details.get(key) or "") for key in ("exception", "stack"))


async def _run(ctx: CommandContext, args: EvalArgs, call: _Call) -> answers.Evaluated:
    if args.target is None:
        if args.frame is not None:
            raise UsageError("--frame scopes a --target; give one")
        remote = await call.evaluate(
            _page_script(args.expression), by_value=False, repl=True, user=UserScript()
        )
        if remote.get("subtype") == "promise":
            # REPL mode hands back a promise the script ends with instead of awaiting it; this
            # awaits it, still under the timeout, so `fetch(url).then(r => r.status)` answers.
            nonce = uuid.uuid4().hex
            await call.park(str(remote["objectId"]), nonce)
            remote = await call.evaluate(
                _page_script(page_call("takeParked", nonce)), by_value=False, user=UserScript()
            )
    else:
        resolved = await resolve_target(ctx, args.target, frame=args.frame)
        call.session_id = resolved.session_id
        nonce = uuid.uuid4().hex
        # reins found the element in its own world; the user's script runs in the page's.
        await call.park(
            await in_page_world(ctx, resolved.object_id, session_id=resolved.session_id), nonce
        )
        script, user = _element_script(args.expression, nonce)
        try:
            remote = await call.evaluate(script, by_value=False, user=user)
        except EvaluateError as exc:
            if _unreachable(exc):
                raise BrowserError(
                    f"eval: {args.target} is in a frame this tab's evaluate cannot reach",
                    code="frame_unreachable",
                ) from None
            raise
    shaped = await call.shape(remote or {"type": "undefined"})
    if shaped.get("truncated"):
        ctx.note("eval_truncated")
    return shaped


@command("eval", EvalArgs, answers.Evaluated, timeout_ms=10_000, cli_args=("expression",))
async def eval_cmd(ctx: CommandContext, args: EvalArgs) -> answers.Evaluated:
    """Run JavaScript in the page (EXPRESSION, `-` reads stdin) and print its result.

    Promises are awaited, top-level await works, and V8 stops the script when the budget
    (--timeout-ms, default 10 s) runs out. Values that are not JSON print as a description;
    results over 256 KiB are cut and marked truncated.
    """
    host = ctx.host
    if not evaluate_enabled(host.profile, host.home):
        raise EvaluateError(
            f"evaluate is switched off for profile {host.profile}", code="evaluate_disabled"
        )
    call = _Call(ctx, None, f"reins-eval-{uuid.uuid4().hex[:12]}")
    try:
        result = await _run(ctx, args, call)
    except DeadlineExceeded:
        host.stats.note("eval_timeout")
        raise
    except asyncio.CancelledError:
        # Cancelled by the dispatcher's own deadline, or by a client that went away.
        host.stats.note("eval_timeout" if ctx.deadline.expired() else "eval_aborted")
        raise
    # The object group is let go once the answer is out: a round trip the answer does not wait
    # for (its name is this call's alone, so nothing after it can depend on it).
    ctx.after_answer(("eval-release", call.group), _release_soon, call, on_loop=True)
    return result


_RELEASING: set[asyncio.Task[None]] = set()


def _release_soon(call: _Call) -> None:
    """On the host's loop, after the answer was written: release what the call left."""
    task = asyncio.get_running_loop().create_task(call.release())
    _RELEASING.add(task)
    task.add_done_callback(_RELEASING.discard)


class CdpArgs(Args):
    method: str = Field(
        min_length=3,
        max_length=128,
        description="An allowlisted DevTools method, e.g. Runtime.evaluate.",
    )
    params: dict[str, Any] = Field(default_factory=dict, description="Its parameters.")
    session_id: str | None = Field(
        default=None,
        description="A child session (an iframe's).",
        json_schema_extra=cli_hints(hidden=True),
    )


# Not an MCP tool. Raw CDP would let a tool call run page JavaScript past the profile's evaluate
# switch (`Runtime.evaluate` is allowlisted for reins's own page scripts; `reins config evaluate off`
# gates only `eval`), its answers are raw protocol objects of any size, and it reports no effect.
# Hosts approve MCP tools by name, often once for good; every typed command is there instead.
# Allowlisted for a command that checks more than the extension can: raw, they would skip that
# check (DOM.setFileInputFiles: `reins upload` keeps files to the directories the user allows).
# DOMDebugger.getEventListeners: detection asks it about candidates it names itself; raw, it
# answers handles of any element's listener functions.
_COMMAND_ONLY = {
    "DOM.setFileInputFiles": "reins upload",
    "DOMDebugger.getEventListeners": "reins state",
}
# An explicit execution context, raw, is refused whatever its id: the extension lets through only
# reins's own world, and that world is reins's vantage point over the page — code an agent put
# there (its own JSON.stringify, getters) would be what every later read sees (docs/security.md).
_CONTEXT_PARAMS = frozenset({"contextId", "uniqueContextId", "executionContextId"})


@command("cdp", CdpArgs, answers.CdpResult, cli_args=("method", "params"), on_mcp=False)
async def cdp(ctx: CommandContext, args: CdpArgs) -> answers.CdpResult:
    """Run one allowlisted DevTools command: reins cdp Runtime.evaluate '{"expression":"1"}'."""
    owner = _COMMAND_ONLY.get(args.method)
    if owner is not None:
        raise BrowserError(
            f"{args.method} runs only through `{owner}`", code="cdp_blocked", hint=f"use `{owner}`"
        )
    named = sorted(_CONTEXT_PARAMS & args.params.keys())
    if named:
        raise BrowserError(
            f"{args.method} with {named[0]} is refused: raw CDP runs only in the page's own world",
            code="cdp_blocked",
            hint=f"leave {named[0]} out",
        )
    if reaches_own_world(ctx, args.params, args.session_id):
        raise BrowserError(
            f"{args.method}: that object is reins's own (its isolated world), not the page's",
            code="cdp_blocked",
            hint="use a handle raw CDP was given in this tab (the page's own world)",
        )
    answer = await ctx.cdp(args.method, args.params, session_id=args.session_id)
    note_raw_answer(ctx, answer, args.session_id)
    return {"result": answer}


COMMANDS: tuple[Command[Any], ...] = (eval_cmd, cdp)
