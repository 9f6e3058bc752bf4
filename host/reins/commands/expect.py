"""Expect commands: assertions about the page, each waiting within its budget as `wait` does.

`reins expect value|text|checked|unchecked|count|visible|hidden|url|title|no-errors|request`:
each answers what it saw when the expectation holds, and otherwise keeps looking until the
budget (5 s unless --timeout-ms) is spent, then fails with `expectation_failed` naming what was
expected and what was seen. Reads of elements go through ``act/expect.read_element``; text by the
one text rule (``act/targets.text_matches``); requests and errors from the tab's console and
network evidence (``observe/evidence``), as `reins console` and `reins network` read it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from pydantic import Field

from reins._errors import ReinsError, UsageError
from reins.act.confirm import TEXT_FIELD_ROLES, confirm_checked, confirm_shown, confirm_text
from reins.act.expect import (
    ElementReading,
    Unmet,
    matching_requests,
    read_element,
    status_matches,
    url_matches,
    value_matches,
)
from reins.act.handles import Resolved
from reins.act.locate import count_matches, resolve_target
from reins.act.targets import text_matches, text_query
from reins.bridge.command import Args, Command, command
from reins.bridge.context import CommandContext
from reins.commands import answers
from reins.commands.trace import read_evidence, with_steps
from reins.observe.evidence import PageEvidence, redact_url, select
from reins.page.call import evaluate, page_call
from reins.page.poll import poll_until

__all__ = ["COMMANDS"]

# Playwright's expect waits 5 s by default; an expectation is a claim about now, not a long wait.
EXPECT_TIMEOUT_MS = 5_000
# What a look at the page may meet while the page is still getting there: tried again.
_NOT_YET = frozenset({"expectation_failed", "not_found", "ref_stale"})

_TARGET = "@ref, CSS, //xpath, role=…, text=…."
_FRAME = "CSS of an iframe to scope a CSS/XPath target."
_TEXT_RULE = 'Whitespace-normalized, any case, a part of it; "quoted": the whole text, exact.'


def _final(last: ReinsError) -> ReinsError:
    """The budget is spent: the last look's answer, no longer transient."""
    last.transient = False
    return last


async def _expect(
    ctx: CommandContext, look: Callable[[], Awaitable[answers.Expectation]]
) -> answers.Expectation:
    return await poll_until(
        ctx.deadline,
        look,
        interval=0.1,
        reserve_s=0.15,
        retry=lambda exc: exc.code in _NOT_YET and exc.transient,
        gave_up=_final,
        explain_timeout=True,
    )


async def _element(
    ctx: CommandContext, what: str, target: str, frame: str | None, expected: Any
) -> ElementReading:
    """TARGET's reading; a target not (yet) there is an unmet expectation."""
    return (await _element_read(ctx, what, target, frame, expected))[1]


async def _element_read(
    ctx: CommandContext, what: str, target: str, frame: str | None, expected: Any
) -> tuple[Resolved, ElementReading]:
    try:
        el = await resolve_target(ctx, target, frame=frame, settle=False)
    except ReinsError as exc:
        if exc.code in ("not_found", "ref_stale"):
            raise Unmet(what, expected, None, message=f"{target} is not on the page") from exc
        raise
    return el, await read_element(ctx, el)


# ---- element forms ---------------------------------------------------------------------------


class ExpectTextArgs(Args):
    target: str = Field(description="The element: " + _TARGET)
    expected: str = Field(description="The text. " + _TEXT_RULE)
    frame: str | None = Field(default=None, description=_FRAME)


class ExpectValueArgs(Args):
    target: str = Field(
        description="The field (input, textarea, select, contenteditable): " + _TARGET
    )
    expected: str = Field(description="The whole value the field keeps (as fill verifies it).")
    frame: str | None = Field(default=None, description=_FRAME)


@command(
    "expect_value",
    ExpectValueArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target", "expected"),
)
async def expect_value(ctx: CommandContext, args: ExpectValueArgs) -> answers.Expectation:
    """Expect TARGET (a field) to hold VALUE, whole, as fill verifies what a field kept."""

    async def look() -> answers.Expectation:
        el, reading = await _element_read(ctx, "value", args.target, args.frame, args.expected)
        seen = reading.value
        if seen is None:
            raise UsageError(
                f"{args.target} is no field: it has no value",
                code="not_editable",
                hint="expect the text of an element with `reins expect text`",
            )
        if not value_matches(seen, args.expected):
            raise Unmet("value", args.expected, seen, message=f"the field holds {seen!r}")
        # A pass is the browser's word too (a select's tree value is its label: not compared).
        await confirm_text(ctx, el, seen, roles=TEXT_FIELD_ROLES)
        return {"expectation": "value", "expected": args.expected, "seen": seen}

    return await _expect(ctx, look)


@command(
    "expect_text",
    ExpectTextArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target", "expected"),
)
async def expect_text(ctx: CommandContext, args: ExpectTextArgs) -> answers.Expectation:
    """Expect TARGET's text to match TEXT (any case, a part of it; "quoted": whole and exact)."""

    async def look() -> answers.Expectation:
        el, reading = await _element_read(ctx, "text", args.target, args.frame, args.expected)
        seen = reading.text
        if not text_matches(seen, args.expected):
            raise Unmet("text", args.expected, seen[:300], message=f"the text is {seen[:300]!r}")
        # A pass is the browser's word too: the text nodes its tree shows under the element.
        await confirm_shown(ctx, el, text_query(args.expected)[0])
        return {"expectation": "text", "expected": args.expected, "seen": seen[:300]}

    return await _expect(ctx, look)


class ExpectTargetArgs(Args):
    target: str = Field(description="The element: " + _TARGET)
    frame: str | None = Field(default=None, description=_FRAME)


async def _checked(
    ctx: CommandContext, args: ExpectTargetArgs, wanted: bool
) -> answers.Expectation:
    what = "checked" if wanted else "unchecked"

    async def look() -> answers.Expectation:
        el, reading = await _element_read(ctx, what, args.target, args.frame, wanted)
        seen = reading.checked
        if seen is None:
            raise UsageError(
                f"{args.target} is not a checkbox, radio or switch", code="not_editable"
            )
        if seen != wanted:
            state = "checked" if seen else "unchecked"
            raise Unmet(what, wanted, seen, message=f"{args.target} is {state}")
        await confirm_checked(ctx, el, wanted)
        return {"expectation": what, "expected": wanted, "seen": seen}

    return await _expect(ctx, look)


@command(
    "expect_checked",
    ExpectTargetArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target",),
)
async def expect_checked(ctx: CommandContext, args: ExpectTargetArgs) -> answers.Expectation:
    """Expect TARGET (a checkbox, radio or switch) to be checked, as check verifies it."""
    return await _checked(ctx, args, True)


@command(
    "expect_unchecked",
    ExpectTargetArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target",),
)
async def expect_unchecked(ctx: CommandContext, args: ExpectTargetArgs) -> answers.Expectation:
    """Expect TARGET (a checkbox or switch) to be unchecked."""
    return await _checked(ctx, args, False)


@command(
    "expect_visible",
    ExpectTargetArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target",),
)
async def expect_visible(ctx: CommandContext, args: ExpectTargetArgs) -> answers.Expectation:
    """Expect TARGET to be on the page and visible (a box, not visibility: hidden)."""

    async def look() -> answers.Expectation:
        if not (await _element(ctx, "visible", args.target, args.frame, True)).visible:
            raise Unmet("visible", True, False, message=f"{args.target} is there but hidden")
        return {"expectation": "visible", "expected": True, "seen": True}

    return await _expect(ctx, look)


@command(
    "expect_hidden",
    ExpectTargetArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target",),
)
async def expect_hidden(ctx: CommandContext, args: ExpectTargetArgs) -> answers.Expectation:
    """Expect TARGET to be hidden: not on the page, or without a box, or visibility: hidden."""

    async def look() -> answers.Expectation:
        try:
            el = await resolve_target(ctx, args.target, frame=args.frame, settle=False)
        except ReinsError as exc:
            if exc.code in ("not_found", "ref_stale"):
                return {"expectation": "hidden", "expected": True, "seen": "not on the page"}
            raise
        if (await read_element(ctx, el)).visible:
            raise Unmet("hidden", True, "visible", message=f"{args.target} is visible")
        return {"expectation": "hidden", "expected": True, "seen": "hidden"}

    return await _expect(ctx, look)


class ExpectCountArgs(Args):
    target: str = Field(description="What to count: CSS, //xpath, role=…, text=….")
    count: int = Field(ge=0, description="How many elements it names.")
    frame: str | None = Field(default=None, description=_FRAME)


@command(
    "expect_count",
    ExpectCountArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("target", "count"),
)
async def expect_count(ctx: CommandContext, args: ExpectCountArgs) -> answers.Expectation:
    """Expect TARGET to name N elements (CSS/XPath: every match; role=: the listed elements;
    text=: the visible elements holding the text)."""

    async def look() -> answers.Expectation:
        seen = await count_matches(ctx, args.target, frame=args.frame)
        if seen != args.count:
            raise Unmet("count", args.count, seen, message=f"{args.target} names {seen}")
        return {"expectation": "count", "expected": args.count, "seen": seen}

    return await _expect(ctx, look)


# ---- the document ------------------------------------------------------------------------------


class ExpectUrlArgs(Args):
    pattern: str = Field(
        min_length=1, description="A glob (*/done, https://app.example.com/*) or the whole URL."
    )


@command(
    "expect_url",
    ExpectUrlArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("pattern",),
)
async def expect_url(ctx: CommandContext, args: ExpectUrlArgs) -> answers.Expectation:
    """Expect the tab's URL to match PATTERN (a glob or the whole URL, as `wait --url`)."""

    async def look() -> answers.Expectation:
        href = str(await evaluate(ctx, page_call("documentUrl"), what="url"))
        seen = redact_url(href)
        if not url_matches(href, args.pattern):
            raise Unmet("url", args.pattern, seen, message=f"the URL is {seen}")
        return {"expectation": "url", "expected": args.pattern, "seen": seen}

    return await _expect(ctx, look)


class ExpectTitleArgs(Args):
    expected: str = Field(description="The title. " + _TEXT_RULE)


@command(
    "expect_title",
    ExpectTitleArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("expected",),
)
async def expect_title(ctx: CommandContext, args: ExpectTitleArgs) -> answers.Expectation:
    """Expect the page's title to match TEXT (any case, a part of it; "quoted": whole, exact)."""

    async def look() -> answers.Expectation:
        info = await evaluate(ctx, page_call("documentInfo"), what="title")
        seen = str(info.get("title") or "") if isinstance(info, dict) else ""
        if not text_matches(seen, args.expected):
            raise Unmet("title", args.expected, seen[:300], message=f"the title is {seen[:300]!r}")
        return {"expectation": "title", "expected": args.expected, "seen": seen[:300]}

    return await _expect(ctx, look)


# ---- the evidence -----------------------------------------------------------------------------

_SINCE = "From trace step N, `last` (the command before), a duration (90s, 5m) or a time (14:02)."


def _shown(entries: list[dict[str, Any]], key: str) -> str:
    first = entries[0] if entries else {}
    return repr(str(first.get(key) or "")[:200])


class ExpectNoErrorsArgs(Args):
    since: str | None = Field(default=None, description=_SINCE + " Default: last.")


@command(
    "expect_no_errors",
    ExpectNoErrorsArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli="expect no-errors",
)
async def expect_no_errors(ctx: CommandContext, args: ExpectNoErrorsArgs) -> answers.Expectation:
    """Expect no console error, uncaught exception or failed request since the command before
    (or --since STEP|last|90s|14:02), from the tab's console and network evidence."""
    since = args.since or ("last" if ctx.part(PageEvidence).command_starts else None)
    evidence, when, installed = await read_evidence(ctx, since)
    errors = select(evidence.console, since=when, only="errors")
    failed = select(evidence.network, since=when, only="failed")
    seen = {"console_errors": len(errors), "failed_requests": len(failed)}
    since_text = f"since {since}" if since else "since the capture started"
    if errors or failed:
        found = []
        if errors:
            found.append(f"{len(errors)} console error(s), first {_shown(errors, 'text')}")
        if failed:
            found.append(f"{len(failed)} failed request(s), first {_shown(failed, 'url')}")
        # What happened stays so: nothing to wait for.
        raise Unmet(
            "no-errors",
            {"console_errors": 0, "failed_requests": 0},
            seen,
            message=f"{'; '.join(found)} ({since_text})",
            transient=False,
            evidence={
                "console": with_steps(ctx, errors[-10:]),
                "network": with_steps(ctx, failed[-10:]),
            },
        )
    answer: answers.Expectation = {
        "expectation": "no-errors",
        "expected": {"console_errors": 0, "failed_requests": 0},
        "seen": seen,
        "since": since,
    }
    if installed:  # the capture began with this command (earlier entries are Chrome's replay)
        answer["warnings"] = ["capture_started_now"]
    return answer


class ExpectRequestArgs(Args):
    pattern: str = Field(
        min_length=1,
        description="A part of the request's URL (/api/save) or a glob with * "
        "(query values are hidden in the evidence).",
    )
    status: str = Field(default="2xx", description="A class (2xx, 4xx) or a status (201).")
    since: str | None = Field(default=None, description=_SINCE + " Default: all captured.")


@command(
    "expect_request",
    ExpectRequestArgs,
    answers.Expectation,
    timeout_ms=EXPECT_TIMEOUT_MS,
    read_only=True,
    cli_args=("pattern",),
)
async def expect_request(ctx: CommandContext, args: ExpectRequestArgs) -> answers.Expectation:
    """Expect a request whose URL matches PATTERN to have answered --status (default 2xx), from
    the tab's network evidence; waits for it within the budget."""
    status_matches(0, args.status)  # a malformed --status is a usage error before any wait

    async def look() -> answers.Expectation:
        evidence, when, installed = await read_evidence(ctx, args.since)
        matches = matching_requests(select(evidence.network, since=when), args.pattern)
        good = [m for m in matches if status_matches(m.get("status"), args.status)]
        seen = [{"url": m.get("url"), "status": m.get("status")} for m in matches[-5:]]
        if not good:
            statuses = ", ".join(str(m.get("status")) for m in matches[-5:])
            raise Unmet(
                "request",
                {"pattern": args.pattern, "status": args.status},
                seen,
                message=f"requests matching it answered {statuses}"
                if matches
                else "no request matching it was seen",
            )
        last = good[-1]
        answer: answers.Expectation = {
            "expectation": "request",
            "expected": {"pattern": args.pattern, "status": args.status},
            "seen": {"url": last.get("url"), "status": last.get("status")},
            # The page's entries, as observe/evidence.py reads them: RequestEntry's fields.
            "requests": cast(list[answers.RequestEntry], with_steps(ctx, good[-5:])),
        }
        if installed:
            answer["warnings"] = ["capture_started_now"]
        return answer

    return await _expect(ctx, look)


COMMANDS: tuple[Command[Any], ...] = (
    expect_value,
    expect_text,
    expect_checked,
    expect_unchecked,
    expect_visible,
    expect_hidden,
    expect_count,
    expect_url,
    expect_title,
    expect_no_errors,
    expect_request,
)
