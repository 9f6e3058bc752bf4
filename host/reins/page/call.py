"""One way to talk to the page: evaluate, call a page function, translate what the page threw.

Page-side code lives in ``pagescripts/src``; the functions the host calls are exported by name from
``src/host.js`` and bundled into ``_generated/functions.json``, each a self-contained function declaration.
``call_function`` sends one with ``Runtime.callFunctionOn`` (the element as its first argument),
``page_call`` makes an expression that calls one from ``Runtime.evaluate``. Declarations travel
with every call (a few KiB at most), so a call costs one round trip whatever document the tab
shows: nothing has to be installed in the page first, and there is nothing there for the page to
replace. (The one exception is ``describe``, which needs the collection's whole walk: it is left on
the page by the collection, see ``act/locate.py``.)

Budgets: a ``Runtime.evaluate`` carries V8's own ``timeout``, what is left of the command's budget
minus a headroom, so a runaway script is stopped and the answer saying so still arrives in time.
(``Runtime.callFunctionOn`` has no timeout; its wait for an answer is bounded by the deadline.)

Errors, translated here once:

* the script threw or its promise rejected: ``eval_exception`` (``exception_error``);
* V8 stopped it at its timeout ("Execution was terminated", or with ``awaitPromise`` a bare CDP
  "Internal error" at about the timeout): ``ScriptStopped``, a ``DeadlineExceeded``, so the
  dispatcher marks the tab suspect like any timeout;
* no answer by the deadline: the link's ``DeadlineExceeded``.
"""

from __future__ import annotations

import functools
import json
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from reins._errors import BrowserError, DeadlineExceeded, EvaluateError, ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.deadline import HEADROOM_MS, Deadline

__all__ = [
    "FUNCTION_GROUP",
    "OWN_WORLD",
    "SOURCE_URL",
    "HeldFunctions",
    "ScriptStopped",
    "UserScript",
    "call_function",
    "call_params",
    "call_value",
    "define_params",
    "evaluate",
    "evaluate_handle",
    "evaluate_params",
    "exception_error",
    "held_call_params",
    "page_call",
    "page_constant",
    "page_function",
    "was_terminated",
]

# Named in stack traces and exception locations of the user's scripts (`reins eval`).
SOURCE_URL = "reins-eval"

# `contextId` of a Runtime.evaluate that runs in reins's own world of the session's top frame: the
# extension puts in the world's number, found or made then (extension/sessions.js). reins's page
# scripts run there; only the user's `reins eval` and what only the page's world can tell
# (framework handler hints) run in the page's world (``main_world``).
OWN_WORLD = "reins"


class ScriptStopped(DeadlineExceeded):
    """V8 stopped a script at its timeout: the page's thread is free again (``timeout``)."""


# ---- the page functions -------------------------------------------------------------------------


@functools.cache
def _bundle() -> dict[str, Any]:
    text = (resources.files("reins") / "_generated" / "functions.json").read_text(encoding="utf-8")
    bundle: dict[str, Any] = json.loads(text)
    return bundle


def page_function(name: str) -> str:
    """The declaration of page function ``name`` (an export of pagescripts/src/host.js)."""
    try:
        return str(_bundle()["functions"][name])
    except KeyError:
        raise ReinsError(f"no page function {name!r}: rebuild pagescripts") from None


# ---- page functions held by handle ----------------------------------------------------------------
#
# Each Runtime.evaluate of a declaration several KiB long is a new script for the page (≈ 2–3 ms
# more than a call by handle, measured host-side: docs/benchmarks.md). Where one document gets the
# same call many times (a click by
# ref, in `batch`), the function is compiled once in the document's main context and held by its
# handle (a RemoteObject in FUNCTION_GROUP, which nothing releases: it goes with the context). The
# page cannot reach the function through any of its objects; a call by handle sends a few hundred
# bytes. Unlike Runtime.evaluate, Runtime.callFunctionOn has no V8 timeout: the callers bound their
# wait for the answer (a batch's answerWithinMs).

FUNCTION_GROUP = "reins-functions"
_BY_HANDLE = "function () { return this.apply(null, arguments); }"


@dataclass
class HeldFunctions(TabPart):
    """Handles to page functions compiled in one document's main context (``define_params``)."""

    document_id: str | None = None
    handles: dict[str, str] = field(default_factory=dict)

    def held(self, document_id: str, *names: str) -> bool:
        return self.document_id == document_id and all(n in self.handles for n in names)

    def keep(self, document_id: str, handles: dict[str, str]) -> None:
        if self.document_id != document_id:
            self.document_id, self.handles = document_id, {}
        self.handles.update(handles)

    def forget(self) -> None:
        self.document_id, self.handles = None, {}

    def on_detach(self) -> None:
        self.forget()


def define_params(name: str) -> dict[str, Any]:
    """The ``Runtime.evaluate`` parameters that compile page function ``name`` and answer its
    handle (read it with ``call_value(..., by_value=False)``)."""
    return {
        "expression": f"({page_function(name)})",
        "returnByValue": False,
        "objectGroup": FUNCTION_GROUP,
        "contextId": OWN_WORLD,
    }


def held_call_params(handle: str, *args: Any, await_promise: bool = False) -> dict[str, Any]:
    """The ``Runtime.callFunctionOn`` parameters that call a held page function with JSON
    ``args`` (for a batch; ``call_value`` reads its answer)."""
    return {
        "objectId": handle,
        "functionDeclaration": _BY_HANDLE,
        "arguments": [{"value": arg} for arg in args],
        "returnByValue": True,
        "awaitPromise": await_promise,
    }


def page_constant(name: str) -> str:
    """A string constant of pagescripts/src/symbols.js (a message the host recognizes)."""
    return str(_bundle()["constants"][name])


def page_call(name: str, *args: Any) -> str:
    """An expression that calls page function ``name`` with JSON arguments."""
    return f"({page_function(name)})({', '.join(json.dumps(arg) for arg in args)})"


# ---- translation ----------------------------------------------------------------------------------


def was_terminated(error: ReinsError, *, elapsed_ms: float, timeout_ms: int) -> bool:
    """Did V8 stop the script at its timeout? Chromium answers "Execution was terminated", or,
    when the evaluate awaits a promise, a bare CDP "Internal error" at about the timeout (what
    Chrome said, as the extension names it: ``error.chrome``)."""
    if error.chrome == "script_terminated":
        return True
    return error.chrome == "internal_error" and elapsed_ms >= timeout_ms - HEADROOM_MS


_FRAME = re.compile(r"^\s*at (?:.*? \()?(?P<url>[^\s()]+?):(?P<line>\d+):(?P<column>\d+)\)?\s*$")


def _stack_frames(stack: str) -> list[tuple[str, int, int]]:
    frames = []
    for text in stack.splitlines()[1:]:
        match = _FRAME.match(text)
        if match:
            frames.append((match["url"], int(match["line"]), int(match["column"])))
    return frames


def _thrown(details: dict[str, Any]) -> tuple[str, str]:
    """(What was thrown: the stack's first line, else the value or CDP's text; the stack or "")."""
    exc = details.get("exception") or {}
    stack = str(exc.get("description") or "")
    if "value" in exc and not stack:
        value = exc["value"]
        return (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)), ""
    if stack:
        return stack.split("\n", 1)[0], stack
    return str(exc.get("unserializableValue") or details.get("text") or "exception"), ""


def exception_error(
    details: dict[str, Any],
    *,
    what: str | None = None,
    line_offset: int = 0,
    source_lines: int | None = None,
) -> ReinsError:
    """The typed error for CDP exceptionDetails: ``eval_exception``, or ``ScriptStopped``.

    ``what`` names a reins page script; without it the script is the user's (``reins eval``) and
    the location comes from the stack: the innermost frame in the user's script (named
    ``SOURCE_URL``), its line moved back by ``line_offset`` so it counts in the script as given, and
    dropped when it falls outside it. (In REPL mode CDP's own lineNumber/columnNumber are always 0.)
    ``url``/``url_line`` name where it was thrown when that was page code, not the user's script."""
    first, stack = _thrown(details)
    if "execution was terminated" in first.lower():
        return ScriptStopped(f"{what or 'eval'}: stopped at the end of its budget")
    if what is not None:
        return EvaluateError(
            f"{what}: {(first.splitlines() or [first])[0]}",
            code="eval_exception",
            details={"line": details.get("lineNumber"), "column": details.get("columnNumber")},
        )
    info: dict[str, Any] = {"exception": first}
    if stack and stack != first:
        info["stack"] = stack
    frames = _stack_frames(stack)
    for url, line, column in frames:
        user_line = line - line_offset
        if (
            url == SOURCE_URL
            and user_line >= 1
            and (source_lines is None or user_line <= source_lines)
        ):
            info["line"], info["column"] = user_line, column
            break
    if frames and frames[0][0] != SOURCE_URL and "://" in frames[0][0]:
        info["url"], info["url_line"] = frames[0][0], frames[0][1]
    elif details.get("url"):
        info["url"] = details["url"]
    where = f" at line {info['line']}, column {info['column']}" if "line" in info else ""
    return EvaluateError(f"the script threw {first}{where}", code="eval_exception", details=info)


@dataclass(frozen=True)
class UserScript:
    """Where the user's own source sits in a script `reins eval` sends: its exceptions are told
    with the stack and located in the user's lines (``exception_error`` without ``what``)."""

    line_offset: int = 0
    lines: int | None = None


def _answer(
    answer: dict[str, Any], *, by_value: bool, what: str, user: UserScript | None = None
) -> Any:
    details = answer.get("exceptionDetails")
    if details:
        if user is not None:
            raise exception_error(details, line_offset=user.line_offset, source_lines=user.lines)
        raise exception_error(details, what=what)
    remote = answer.get("result") or {}
    return remote.get("value") if by_value else remote


# ---- calls ----------------------------------------------------------------------------------------


async def evaluate(
    ctx: CommandContext,
    expression: str,
    *,
    session_id: str | None = None,
    await_promise: bool = False,
    by_value: bool = True,
    repl: bool = False,
    user_gesture: bool = False,
    object_group: str | None = None,
    headroom_ms: int = HEADROOM_MS,
    answer_by: Deadline | None = None,
    user: UserScript | None = None,
    what: str = "page script",
    context_id: int | str = OWN_WORLD,
    main_world: bool = False,
) -> Any:
    """``Runtime.evaluate`` under V8's timeout (the budget left minus ``headroom_ms``), in reins's
    own world (``context_id``: of the session's top frame, or one ``page/world.own_world`` gave),
    or with ``main_world`` in the page's.

    Answers the value (``by_value``) or the CDP RemoteObject. ``answer_by`` is when to stop waiting
    for the answer (default: the command's deadline)."""
    timeout_ms = ctx.deadline.remaining_ms(headroom_ms=headroom_ms)
    if timeout_ms <= 0:
        raise DeadlineExceeded(
            f"{what}: the {ctx.deadline.budget_ms} ms budget ran out before the script could start"
        )
    params = evaluate_params(
        expression,
        timeout_ms,
        by_value=by_value,
        await_promise=await_promise,
        object_group=object_group,
        context_id=None if main_world else context_id,
    )
    if repl:
        params["replMode"] = True
    if user_gesture:
        params["userGesture"] = True
    sent = time.monotonic()
    try:
        answer = await ctx.cdp(
            "Runtime.evaluate", params, session_id=session_id, deadline=answer_by
        )
    except (DeadlineExceeded, BrowserError) as exc:
        if was_terminated(exc, elapsed_ms=(time.monotonic() - sent) * 1000, timeout_ms=timeout_ms):
            raise ScriptStopped(f"{what}: stopped at the end of its budget") from exc
        raise
    return _answer(answer, by_value=by_value, what=what, user=user)


def evaluate_params(
    expression: str,
    timeout_ms: int,
    *,
    by_value: bool = True,
    await_promise: bool = False,
    object_group: str | None = None,
    context_id: int | str | None = OWN_WORLD,
) -> dict[str, Any]:
    """The ``Runtime.evaluate`` parameters ``evaluate`` sends (for a batch; ``call_value`` reads
    its answer): in reins's own world unless ``context_id`` is None (the page's world)."""
    params: dict[str, Any] = {
        "expression": expression,
        "returnByValue": by_value,
        "awaitPromise": await_promise,
        "timeout": timeout_ms,
    }
    if object_group is not None:
        params["objectGroup"] = object_group
    if context_id is not None:
        params["contextId"] = context_id
    return params


async def evaluate_handle(
    ctx: CommandContext,
    expression: str,
    *,
    session_id: str | None = None,
    what: str = "page script",
) -> str | None:
    """Evaluate in reins's world and answer an object id for the result (None for null or
    undefined)."""
    remote = await evaluate(
        ctx, expression, session_id=session_id, by_value=False, object_group="reins", what=what
    )
    object_id = remote.get("objectId")
    return str(object_id) if object_id and remote.get("subtype") != "null" else None


def call_params(
    object_id: str,
    name: str,
    *args: Any,
    await_promise: bool = False,
    by_value: bool = True,
    silent: bool = False,
) -> dict[str, Any]:
    """The ``Runtime.callFunctionOn`` parameters that call page function ``name`` on the object
    (its first argument), then JSON ``args`` (for a batch; ``call_value`` reads its answer)."""
    params: dict[str, Any] = {
        "objectId": object_id,
        "functionDeclaration": page_function(name),
        "arguments": [{"objectId": object_id}, *({"value": arg} for arg in args)],
        "returnByValue": by_value,
        "awaitPromise": await_promise,
    }
    if silent:
        params["silent"] = True
    return params


def call_value(answer: dict[str, Any], *, what: str, by_value: bool = True) -> Any:
    """What a ``Runtime.callFunctionOn`` answered: the value (or the RemoteObject), or the typed
    error for what the page threw."""
    return _answer(answer, by_value=by_value, what=what)


async def call_function(
    ctx: CommandContext,
    object_id: str,
    name: str,
    *args: Any,
    session_id: str | None = None,
    await_promise: bool = False,
    by_value: bool = True,
    silent: bool = False,
    answer_by: Deadline | None = None,
    what: str | None = None,
) -> Any:
    """Call page function ``name`` on the object (its first argument), then JSON ``args``.

    The call runs in the object's world: a handle from ``page/world.in_own_world`` runs it in
    reins's own. Answers the value (``by_value``) or the CDP RemoteObject."""
    params = call_params(
        object_id, name, *args, await_promise=await_promise, by_value=by_value, silent=silent
    )
    answer = await ctx.cdp(
        "Runtime.callFunctionOn", params, session_id=session_id, deadline=answer_by
    )
    return _answer(answer, by_value=by_value, what=what or name)
