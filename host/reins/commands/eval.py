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
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from reins._errors import BrowserError, DeadlineExceeded, EvaluateError, ReinsError, UsageError
from reins.act.locate import resolve_target
from reins.bridge.command import Args, Command, cli_hints, command
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS, Deadline
from reins.setup.config import evaluate_enabled

__all__ = [
    "COMMANDS",
    "MAX_RESULT_BYTES",
    "SCRIPT_HEADROOM_MS",
    "describe_remote",
    "exception_error",
    "from_serialized",
    "script_timeout_ms",
    "was_terminated",
]

# Results larger than this (UTF-8 bytes of their JSON text) are cut, with a marker.
MAX_RESULT_BYTES = 256 * 1024
# Kept back from the script's V8 timeout: V8 stops the script this long before the deadline, so
# the answer that says it was stopped arrives while the command still waits for it (and the caller
# can be told "stopped, the tab is usable" rather than only "no answer").
SCRIPT_HEADROOM_MS = 4 * HEADROOM_MS  # 150 ms of slack for that answer on a busy machine
# Named in stack traces and exception locations of the user's script.
SOURCE_URL = "reins-eval"
# One slot on each page's global object, `Symbol.for("reins.eval")`: a Map keyed by a per-call
# nonce, so concurrent evaluations on one tab never take each other's element.

# JSON-safe values pass through `JSON.stringify`; everything else is described instead.
_SERIALIZED_SUBTYPES = frozenset({None, "array"})

# Runs no user code: puts the element where the page-level evaluate can find it. It climbs to the
# highest same-origin ancestor window, the frame a Runtime.evaluate in this session runs in.
_PARK = """function (nonce) {
  let w = globalThis;
  try { while (w.parent !== w && w.parent.document) w = w.parent; } catch (e) {}
  const s = Symbol.for("reins.eval");
  (w[s] || (w[s] = new Map())).set(nonce, this);
  return true;
}"""

_UNREACHABLE = "reins: the element is not reachable from its frame's main document"

# The user's function starts on line _CALL_PREFIX_LINES (0-based) of this script, at column 0.
_CALL = """(() => {
  const slots = globalThis[Symbol.for("reins.eval")], nonce = %(nonce)s;
  const el = slots && slots.get(nonce);
  if (slots) slots.delete(nonce);
  if (el === undefined) throw new Error(%(unreachable)s);
  const fn = (
%(source)s
);
  if (typeof fn !== "function") throw new TypeError("--target expects a function, such as el => el.textContent");
  return fn(el);
})()
//# sourceURL=%(url)s"""
_CALL_PREFIX_LINES = 6

# REPL mode hands back a promise the script ends with instead of awaiting it; this awaits it, still
# under the timeout, so `fetch(url).then(r => r.status)` answers the status.
_SETTLE = """(() => {
  const slots = globalThis[Symbol.for("reins.eval")], nonce = %(nonce)s;
  const value = slots && slots.get(nonce);
  if (slots) slots.delete(nonce);
  return value;
})()
//# sourceURL=%(url)s"""

_SERIALIZE = """(() => {
  const slots = globalThis[Symbol.for("reins.eval")], nonce = %(nonce)s;
  const value = slots && slots.get(nonce);
  if (slots) slots.delete(nonce);
  let text;
  try { text = JSON.stringify(value); }
  catch (e) { return {ok: false, reason: String((e && e.message) || e).split("\\n")[0]}; }
  if (typeof text !== "string") return {ok: false, reason: "JSON.stringify gave no text"};
  const bytes = new TextEncoder().encode(text), limit = %(limit)d;
  if (bytes.length <= limit) return {ok: true, text, size: bytes.length};
  const cut = new TextDecoder().decode(bytes.subarray(0, limit)).replace(/\\uFFFD$/, "");
  return {ok: true, text: cut, size: bytes.length, truncated: true};
})()"""


# ---- pure: budget, results, exceptions ----------------------------------------------------------


def script_timeout_ms(deadline: Deadline, *, now: float | None = None) -> int:
    """The V8 timeout a script may be given: what is left of the budget minus the headroom."""
    return deadline.remaining_ms(headroom_ms=SCRIPT_HEADROOM_MS, now=now)


def was_terminated(error: ReinsError, *, elapsed_ms: float, timeout_ms: int) -> bool:
    """Did V8 stop the script at its timeout? Chromium answers "Execution was terminated", or,
    when the evaluate awaits a promise, a bare CDP "Internal error" at about the timeout."""
    text = str(error.args[0] if error.args else "").lower()
    if "execution was terminated" in text or "ran past its budget" in text:
        return True
    return "internal error" in text and elapsed_ms >= timeout_ms - HEADROOM_MS


def _cut_text(text: str, limit: int) -> tuple[str, int, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, len(data), False
    return data[:limit].decode("utf-8", "ignore"), len(data), True


def _described(remote: dict[str, Any], limit: int, description: str | None = None) -> dict[str, Any]:
    kind = str(remote.get("type") or "object")
    text = description if description is not None else remote.get("description")
    if text is None:
        text = str(remote.get("unserializableValue") or kind)
    cut, size, truncated = _cut_text(str(text), limit)
    out: dict[str, Any] = {"type": kind, "description": cut}
    if remote.get("subtype") and remote.get("subtype") != "null":
        out["subtype"] = remote["subtype"]
    if remote.get("className"):
        out["class_name"] = remote["className"]
    if truncated:
        out.update(truncated=True, size=size)
    return out


def describe_remote(remote: dict[str, Any], *, limit: int = MAX_RESULT_BYTES) -> dict[str, Any] | None:
    """The answer for a CDP RemoteObject, or None when the page must serialize it first (a plain
    object or an array, which has an ``objectId`` to serialize)."""
    kind = remote.get("type")
    subtype = remote.get("subtype")
    if "unserializableValue" in remote:  # NaN, Infinity, -Infinity, -0, BigInt
        return _described(remote, limit)
    if kind == "undefined":
        return _described(remote, limit, "undefined")
    if kind == "string":
        text, size, truncated = _cut_text(str(remote.get("value", "")), limit)
        return {"value": text, "truncated": True, "size": size} if truncated else {"value": text}
    if kind in ("number", "boolean"):
        return {"value": remote.get("value")}
    if kind == "object" and subtype == "null":
        return {"value": None}
    if kind == "object" and subtype in _SERIALIZED_SUBTYPES and remote.get("objectId"):
        return None
    if kind == "object" and subtype in _SERIALIZED_SUBTYPES and "value" in remote:
        return {"value": remote["value"]}  # already by value
    return _described(remote, limit)


def from_serialized(payload: dict[str, Any], remote: dict[str, Any], *,
                    limit: int = MAX_RESULT_BYTES) -> dict[str, Any]:
    """The answer for an object the page ran through ``JSON.stringify`` (see ``_SERIALIZE``)."""
    if not payload.get("ok"):
        out = _described(remote, limit)
        out["reason"] = str(payload.get("reason") or "not representable as JSON")
        return out
    text = str(payload.get("text", ""))
    if payload.get("truncated"):
        return {"value": text, "truncated": True, "size": int(payload.get("size") or 0)}
    return {"value": json.loads(text)}


_FRAME = re.compile(r"^\s*at (?:.*? \()?(?P<url>[^\s()]+?):(?P<line>\d+):(?P<column>\d+)\)?\s*$")


def _stack_frames(stack: str) -> list[tuple[str, int, int]]:
    frames = []
    for text in stack.splitlines()[1:]:
        match = _FRAME.match(text)
        if match:
            frames.append((match["url"], int(match["line"]), int(match["column"])))
    return frames


def exception_error(details: dict[str, Any], *, line_offset: int = 0,
                    source_lines: int | None = None) -> EvaluateError:
    """``eval_exception`` from CDP exceptionDetails.

    The location comes from the stack: the innermost frame in the user's script (named
    ``SOURCE_URL``), its line moved back by ``line_offset`` so it counts in the script as given, and
    dropped when it falls outside it. (In REPL mode CDP's own lineNumber/columnNumber are always 0.)
    ``url``/``url_line`` name where it was thrown when that was page code, not the user's script."""
    exc = details.get("exception") or {}
    stack = str(exc.get("description") or "")
    if "value" in exc and not stack:
        first = exc["value"] if isinstance(exc["value"], str) \
            else json.dumps(exc["value"], ensure_ascii=False)
    elif stack:
        first = stack.split("\n", 1)[0]
    else:
        first = str(exc.get("unserializableValue") or details.get("text") or "exception")
    info: dict[str, Any] = {"exception": first}
    if stack and stack != first:
        info["stack"] = stack
    frames = _stack_frames(stack)
    for url, line, column in frames:
        user_line = line - line_offset
        if url == SOURCE_URL and user_line >= 1 and (source_lines is None or user_line <= source_lines):
            info["line"], info["column"] = user_line, column
            break
    if frames and frames[0][0] != SOURCE_URL and "://" in frames[0][0]:
        info["url"], info["url_line"] = frames[0][0], frames[0][1]
    elif details.get("url"):
        info["url"] = details["url"]
    where = f" at line {info['line']}, column {info['column']}" if "line" in info else ""
    return EvaluateError(f"the script threw {first}{where}", code="eval_exception", details=info)


# ---- the command ----------------------------------------------------------------------------------


class EvalArgs(Args):
    expression: str = Field(min_length=1, description="The JavaScript (`-`: read it from stdin).")
    target: str | None = Field(
        default=None, min_length=1,
        description="Run on one element (@ref, CSS, //xpath, role=..., text=...); EXPRESSION is "
                    "then a function that receives it, e.g. 'el => el.textContent'.",
        json_schema_extra=cli_hints(metavar="TARGET"))
    frame: str | None = Field(default=None, min_length=1,
                              description="Look for --target inside this iframe.",
                              json_schema_extra=cli_hints(metavar="CSS"))


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
        return Deadline(at=outer.at - HEADROOM_MS / 1000, budget_ms=outer.budget_ms,
                        started=outer.started)

    async def evaluate(self, expression: str, *, by_value: bool, repl: bool) -> dict[str, Any]:
        """Runtime.evaluate under V8's timeout; a stopped script raises ``timeout``."""
        ctx = self.ctx
        timeout_ms = script_timeout_ms(ctx.deadline)
        if timeout_ms <= 0:
            raise DeadlineExceeded(f"eval: the {ctx.deadline.budget_ms} ms budget ran out "
                                   "before the script could start")
        params: dict[str, Any] = {
            "expression": expression, "awaitPromise": True, "returnByValue": by_value,
            "timeout": timeout_ms, "userGesture": True, "objectGroup": self.group,
        }
        if repl:
            params["replMode"] = True
        sent = time.monotonic()
        try:
            return await ctx.cdp("Runtime.evaluate", params, session_id=self.session_id,
                                 deadline=self.answer_by)
        except DeadlineExceeded as exc:
            elapsed = (time.monotonic() - sent) * 1000
            if was_terminated(exc, elapsed_ms=elapsed, timeout_ms=timeout_ms):
                raise _stopped(ctx) from None
            raise _unsettled(ctx) from None
        except BrowserError as exc:
            elapsed = (time.monotonic() - sent) * 1000
            if was_terminated(exc, elapsed_ms=elapsed, timeout_ms=timeout_ms):
                raise _stopped(ctx) from None
            raise

    async def park(self, object_id: str, nonce: str) -> None:
        try:
            await self.ctx.cdp("Runtime.callFunctionOn", {
                "objectId": object_id, "functionDeclaration": _PARK,
                "arguments": [{"value": nonce}], "returnByValue": True, "silent": True,
            }, session_id=self.session_id, deadline=self.answer_by)
        except DeadlineExceeded:
            raise _unsettled(self.ctx) from None  # the page's main thread is busy

    async def shape(self, remote: dict[str, Any]) -> dict[str, Any]:
        shaped = describe_remote(remote)
        if shaped is not None:
            return shaped
        nonce = uuid.uuid4().hex
        await self.park(str(remote["objectId"]), nonce)
        script = _SERIALIZE % {"nonce": json.dumps(nonce),
                               "limit": MAX_RESULT_BYTES}
        answer = await self.evaluate(script, by_value=True, repl=False)
        payload = (answer.get("result") or {}).get("value")
        if "exceptionDetails" in answer or not isinstance(payload, dict):
            payload = {"ok": False, "reason": "the page could not serialize the value"}
        return from_serialized(payload, remote)

    async def release(self) -> None:
        """Drop what the evaluation left in the page's object table; never delays the answer."""
        if self.ctx.deadline.remaining_ms() > HEADROOM_MS:
            try:
                await self.ctx.cdp("Runtime.releaseObjectGroup", {"objectGroup": self.group},
                                   session_id=self.session_id,
                                   deadline=self.ctx.deadline.child(HEADROOM_MS))
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


def _element_script(source: str, nonce: str) -> str:
    return _CALL % {"nonce": json.dumps(nonce),
                    "unreachable": json.dumps(_UNREACHABLE), "source": source, "url": SOURCE_URL}


async def _run(ctx: CommandContext, args: EvalArgs, call: _Call) -> dict[str, Any]:
    line_offset, source_lines = 0, None
    if args.target is None:
        if args.frame is not None:
            raise UsageError("--frame scopes a --target; give one")
        answer = await call.evaluate(_page_script(args.expression), by_value=False, repl=True)
        promise = answer.get("result") or {}
        if "exceptionDetails" not in answer and promise.get("subtype") == "promise":
            nonce = uuid.uuid4().hex
            await call.park(str(promise["objectId"]), nonce)
            answer = await call.evaluate(_SETTLE % {"nonce": json.dumps(nonce), "url": SOURCE_URL},
                                         by_value=False, repl=False)
    else:
        resolved = await resolve_target(ctx, args.target, frame=args.frame)
        call.session_id = resolved.session_id
        nonce = uuid.uuid4().hex
        await call.park(resolved.object_id, nonce)
        answer = await call.evaluate(_element_script(args.expression, nonce), by_value=False,
                                     repl=False)
        line_offset, source_lines = _CALL_PREFIX_LINES, args.expression.count("\n") + 1
    details = answer.get("exceptionDetails")
    if isinstance(details, dict):
        stack = str((details.get("exception") or {}).get("description") or "")
        if _UNREACHABLE in stack:
            raise BrowserError(f"eval: {args.target} is in a frame this tab's evaluate cannot "
                               "reach", code="frame_unreachable")
        raise exception_error(details, line_offset=line_offset, source_lines=source_lines)
    shaped = await call.shape(answer.get("result") or {"type": "undefined"})
    if shaped.get("truncated"):
        ctx.note("eval_truncated")
    return shaped


@command("eval", EvalArgs, timeout_ms=10_000, cli_args=("expression",))
async def eval_cmd(ctx: CommandContext, args: EvalArgs) -> dict[str, Any]:
    """Run JavaScript in the page (EXPRESSION, `-` reads stdin) and print its result.

    Promises are awaited, top-level await works, and V8 stops the script when the budget
    (--timeout-ms, default 10 s) runs out. Values that are not JSON print as a description;
    results over 256 KiB are cut and marked truncated.
    """
    host = ctx.host
    if not evaluate_enabled(host.profile, host.home):
        raise EvaluateError(f"evaluate is switched off for profile {host.profile}",
                            code="evaluate_disabled")
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
    await call.release()
    return result


COMMANDS: tuple[Command[Any], ...] = (eval_cmd,)
