"""Trace commands: trace start/stop (record every command of the profile into a directory),
console/network (what the page logged, which requests failed), and handoff (a step a person does
in the run, recorded as theirs)."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any, cast

from pydantic import Field

from reins._errors import ActionError, BrowserError, DeadlineExceeded, UsageError
from reins.bridge.command import Args, Command, NoArgs, command
from reins.bridge.context import CommandContext
from reins.bridge.protocol import HANDOFF
from reins.commands import answers
from reins.observe.evidence import CaptureSwitch, PageEvidence, select, since_ms, tick
from reins.page.dialogs import DialogWatch
from reins.trace.tracefile import TRACE_FILE, iso
from reins.trace.tracer import Tracer

__all__ = ["COMMANDS", "read_evidence", "with_steps"]


class TraceStartArgs(Args):
    dir: str = Field(
        min_length=1,
        description="A new (or empty) directory for the trace; on the "
        "CLI by default ./reins-trace-DATE-TIME.",
    )
    name: str | None = Field(
        default=None, max_length=200, description="What the run is called in the report."
    )
    screenshots: bool = Field(
        default=False, description="A picture before and after each action, its target marked."
    )
    max_mb: int = Field(
        default=100,
        ge=1,
        le=10_000,
        description="Size cap; past it no more pictures and shorter steps.",
    )


@command(
    "trace_start",
    TraceStartArgs,
    answers.TraceStarted,
    needs_tab=False,
    watch_dialogs=False,
    dialog_free=True,
    probe=False,
    cli="trace start",
    cli_args=("dir",),
)
async def trace_start(ctx: CommandContext, args: TraceStartArgs) -> answers.TraceStarted:
    """Record every command of this profile into DIR until `reins trace stop` (`reins report DIR`
    makes the report)."""
    directory = Path(args.dir)
    if not directory.is_absolute():
        raise UsageError(
            f"{args.dir}: the host needs an absolute directory",
            hint="give an absolute path (the CLI makes a relative one absolute)",
        )
    trace = ctx.host.part(Tracer).start(
        ctx.host,
        directory,
        name=args.name or directory.name,
        screenshots=args.screenshots,
        max_bytes=args.max_mb * 1_048_576,
    )
    return {
        "dir": trace.dir,
        "name": trace.name,
        "screenshots": trace.screenshots,
        "max_mb": args.max_mb,
        "file": str(directory / TRACE_FILE),
    }


@command(
    "trace_stop",
    NoArgs,
    answers.TraceStopped,
    needs_tab=False,
    watch_dialogs=False,
    dialog_free=True,
    probe=False,
    cli="trace stop",
)
async def trace_stop(ctx: CommandContext, _: NoArgs) -> answers.TraceStopped:
    """Stop the running trace; answers its directory, how many steps ran and how many are on
    disk, and warns `trace_incomplete` (with what was lost) when any write failed."""
    return (await ctx.host.part(Tracer).stop(ctx.host)).to_wire()


class EvidenceArgs(Args):
    since: str | None = Field(
        default=None,
        description="From trace step N, `last` (the previous command), a duration (90s, 5m) or "
        "a time (14:02).",
    )
    limit: int = Field(default=100, ge=1, le=500, description="At most this many, newest kept.")


class ConsoleArgs(EvidenceArgs):
    errors: bool = Field(
        default=False, description="Only errors: console.error, uncaught exceptions, rejections."
    )


class NetworkArgs(EvidenceArgs):
    failed: bool = Field(default=False, description="Only failed requests (>= 400 or no answer).")


async def read_evidence(
    ctx: CommandContext, since: str | None
) -> tuple[PageEvidence, int | None, bool]:
    """Switch the capture on, drain the page (unless a dialog holds it), and resolve --since."""
    ctx.host.part(CaptureSwitch).asked = True
    evidence = ctx.part(PageEvidence)
    installed = False
    if ctx.part(DialogWatch).current is None:
        installed = (await tick(ctx, drain=True)).installed
    tracer = ctx.host.part(Tracer)
    starts = evidence.command_starts
    when = (
        None
        if since is None
        else since_ms(since, steps=tracer.step_starts, last=starts[-1] if starts else None)
    )
    return evidence, when, installed


def with_steps(ctx: CommandContext, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each entry with when it happened, and, while a trace runs, during which step."""
    starts = sorted(ctx.host.part(Tracer).step_starts.items(), key=lambda kv: kv[1])
    moments = [t * 1000 for _, t in starts]
    out = []
    for entry in entries:
        item = {**entry, "at": iso(entry["time"] / 1000) if entry.get("time") else None}
        at = bisect.bisect_right(moments, entry.get("time", 0)) - 1
        if starts and at >= 0:
            item["step"] = starts[at][0]
        out.append(item)
    return out


def _capture_note(evidence: PageEvidence, installed: bool) -> answers.Capture:
    return {
        "capturing_since": iso(evidence.capturing_since / 1000)
        if evidence.capturing_since
        else None,
        "started_now": installed,
        "dropped": evidence.dropped,
        "document": evidence.url,
    }


@command("console", ConsoleArgs, answers.Console, read_only=True, dialog_free=True)
async def console(ctx: CommandContext, args: ConsoleArgs) -> answers.Console:
    """What the page logged: console errors and warnings, uncaught exceptions, unhandled
    rejections (captured page-side from the first reins command on a document)."""
    evidence, since, installed = await read_evidence(ctx, args.since)
    entries = select(evidence.console, since=since, only="errors" if args.errors else None)
    # The page's entries, as observe/evidence.py reads them: ConsoleEntry's fields.
    return {
        "entries": cast(list[answers.ConsoleEntry], with_steps(ctx, entries[-args.limit :])),
        **_capture_note(evidence, installed),
    }


@command("network", NetworkArgs, answers.Network, read_only=True, dialog_free=True)
async def network(ctx: CommandContext, args: NetworkArgs) -> answers.Network:
    """The page's requests from resource timing: URL (query values hidden), status, type,
    duration; --failed for >= 400 and network errors. Never headers, bodies or cookies."""
    evidence, since, installed = await read_evidence(ctx, args.since)
    entries = select(evidence.network, since=since, only="failed" if args.failed else None)
    return {
        "requests": cast(list[answers.RequestEntry], with_steps(ctx, entries[-args.limit :])),
        **_capture_note(evidence, installed),
    }


class HandoffArgs(Args):
    text: str = Field(
        min_length=1,
        max_length=300,
        description="What the person is asked to do, shown in the reins popup (e.g. "
        "'Sign in with SSO, then press Done').",
    )


# How long the extension keeps a request open: the command's budget less this, so that its own
# "timeout" answer, which takes the badge and the popup's request away, arrives within it.
_HANDOFF_MARGIN_MS = 1500


@command(
    "handoff",
    HandoffArgs,
    answers.HandedOff,
    timeout_ms=300_000,
    watch_dialogs=False,
    dialog_free=True,
    probe=False,
    cli_args=("text",),
)
async def handoff(ctx: CommandContext, args: HandoffArgs) -> answers.HandedOff:
    """Hand the tab to the person for a step only a person can do (sign in, a second factor, an
    approval): the tab comes to the front, the reins button's badge says "?" and its popup
    opens with TEXT, Done and Cancel. Answers when the person presses Done (how
    long they took); Cancel, a closed tab or the budget (default 5 min) is an error. What the
    person types or sees is not recorded."""
    if not ctx.host.link.has(HANDOFF):
        raise UsageError(
            "this reins extension is older than the host: it has no handoff",
            hint="reload the reins extension (chrome://extensions), or `reins install` first",
        )
    wait_ms = max(1000, ctx.deadline.remaining_ms() - _HANDOFF_MARGIN_MS)
    said = await ctx.host.link.request(
        "handoff", ctx.deadline, tab_id=ctx.tab, text=args.text, timeoutMs=wait_ms
    )
    outcome = said.get("outcome") if isinstance(said, dict) else None
    ms = int(said.get("ms") or 0) if isinstance(said, dict) else 0
    if outcome == "done":
        return {"handoff": {"text": args.text, "outcome": "done", "person_ms": ms}}
    if outcome == "timeout":
        raise DeadlineExceeded(
            f"the person did not press Done within {wait_ms // 1000} s",
            hint="ask again with a longer budget: `reins handoff TEXT --timeout-ms 600000`",
            details={"person_ms": ms},
        )
    if outcome == "tab_closed":
        raise BrowserError("the tab closed while the person had it", code="tab_closed")
    raise ActionError(
        "the person pressed Cancel" if outcome == "cancelled" else f"the handoff ended: {outcome}",
        code="handoff_cancelled",
        hint="the person declined this step: ask them what to do instead, or stop the run",
        details={"outcome": str(outcome), "person_ms": ms},
    )


COMMANDS: tuple[Command[Any], ...] = (trace_start, trace_stop, console, network, handoff)
