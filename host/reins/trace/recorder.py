"""The recorder: every command on the profile, while a trace runs, as one step of the trace.

The dispatcher hands each request to ``record`` (one line in ``_host.py``). With no trace running
and no capture asked for, it only runs the request. Otherwise, around the command:

* before an action, with pictures on: the target is resolved on its own short budget and brought
  into view, and the tab is photographed with the target's box marked;
* the command runs, timed (the recorder's own work is not in its duration or its budget);
* after it, on the tab it left: the page capture is drained (console errors, uncaught exceptions,
  failed requests since the last drain), the tab is photographed again (actions), and a document
  the trace has not seen yet is measured with both observation sources (`state
  --compare-sources`, the same figures);
* masking (``trace/masking.py``, rules from ``reins mask``): around each picture reins's own
  world finds the boxes to fill (fields masked by default, the site's rules), before the capture
  and after it, and the picture is written with both filled; if they cannot be found the picture
  is not written (a note says why). The step's text is written with the site's text patterns
  and any value it did not record replaced by ``[masked]``;
* the step is handed to the running trace (``tracer``): written on the host's I/O worker
  (pictures scaled and marked there), with the running trace's state saved under REINS_HOME, so
  a host started after a crash continues the trace and writes a ``gap``; what the disk refuses
  is counted, and ``trace stop`` answers it.

The recorder's own page work is never allowed to fail a command: it runs on budgets of its own,
skips a tab whose page is blocked (suspect) or shows a dialog, and what it could not do is written
as the step's ``notes``. Commands that run at the same time are numbered in the order they started;
evidence is drained per tab, so with two commands in flight on one tab it goes to the one that ends
first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

from reins._errors import DeadlineExceeded, ReinsError
from reins.act.locate import Resolved
from reins.bridge.command import Command
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.protocol import Request
from reins.observe.evidence import CaptureSwitch, PageEvidence, Tick, redact_url, tick
from reins.observe.state import compare_sources
from reins.observe.store import ObserveState
from reins.page.dialogs import DialogWatch
from reins.setup.config import mask_rules
from reins.trace.masking import mask_text, page_rules, site_rules
from reins.trace.pictures import action_target, capture_masked, is_masked, target_box
from reins.trace.steps import cli_line, recorded_args, stable_target, trimmed_answer
from reins.trace.tracefile import iso
from reins.trace.tracer import Shot, Tracer

__all__ = ["record"]

# Not steps: the liveness probe, and the trace's own start and stop (its first and last line).
UNRECORDED = frozenset({"ping", "trace_start", "trace_stop"})
# Commands that never touch a page: no capture, no pictures around them.
NO_PAGE = frozenset({"status", "tabs", "stats", "tab_close", "console", "network", "dialog"})
# They read the evidence themselves, and `--since last` means the command before them.
EVIDENCE_READERS = frozenset({"console", "network"})
# Steps a person does (`reins handoff`): no pictures, and what the page logged or loaded meanwhile
# is drained but not written (a sign-in's pages, a second factor's).
BY_A_PERSON = frozenset({"handoff"})


def _reads_evidence(name: str) -> bool:
    """Not a command `--since last` (and `expect no-errors`) looks back to: the evidence readers,
    and expectations, which check what the command before them did."""
    return name in EVIDENCE_READERS or name.startswith("expect_")


TICK_MS = 1500
SHOT_MS = 4000
TARGET_MS = 1200
MEASURE_MS = 20_000
# The recorder's own time per step, before and after the command together.
SPARE_MS = 4000
SPARE_UNBOUNDED_MS = 30_000
_PAGE_SCHEMES = ("http:", "https:", "file:")

Run = Callable[[Request], Awaitable[dict[str, Any]]]


# ---- the dispatcher's hook -----------------------------------------------------------------------


async def record(
    host: Host,
    request: Request,
    cmd: Command[Any] | None,
    run: Run,
) -> dict[str, Any]:
    """Run ``request`` through ``run``; while a trace runs, record it as a step."""
    tracer = host.part(Tracer)
    tracer.resume(host)
    name = request.cmd
    capturing = tracer.running or host.part(CaptureSwitch).asked
    if not capturing or name in UNRECORDED:
        return await run(request)
    tab_before = request.tab if request.tab is not None else host.current.tab
    if tab_before is not None and not _reads_evidence(name):
        host.tab(tab_before).part(PageEvidence).command_starts.append(time.time())
    touches_page = cmd is not None and name not in NO_PAGE
    # The client waits for an answer up to 5 s past the budget it gave: the recorder's own work
    # stays within that; without a budget from the client (60 s then) it may take longer.
    spare_ms = SPARE_MS if request.timeout_ms is not None else SPARE_UNBOUNDED_MS
    if not tracer.running:  # capture only: drain after each page command
        try:
            return await run(request)
        except ReinsError:
            if touches_page:
                await _after_tick(host, request, [], Deadline.after_ms(TICK_MS))
            raise
        else:
            if touches_page:
                await _after_tick(host, request, [], Deadline.after_ms(TICK_MS))
    writer = tracer.writer
    assert writer is not None
    step, started = tracer.next_step(host)
    notes: list[str] = []
    shots: dict[str, Shot] = {}
    action = cmd is not None and touches_page and not cmd.read_only
    pictures = (
        action and writer.trace.screenshots and not writer.over_cap and name not in BY_A_PERSON
    )
    target: Resolved | None = None
    rules = mask_rules(host.profile, host.home)
    masks = page_rules(rules)
    before_started = time.monotonic()
    if pictures and tab_before is not None and _page_free(host, tab_before):
        target, shot = await _before(
            host, request, cmd, tab_before, notes, masks, Deadline.after_ms(spare_ms // 3)
        )
        if shot is not None:
            shots["before"] = shot
    hidden = await _value_hidden(host, request, cmd, tab_before, target, masks, spare_ms)
    url_before = _tab_url(host, tab_before)
    target_is = _target_is(host, tab_before, request.args.get("target"))
    clock = time.monotonic()
    before_ms = int((clock - before_started) * 1000)
    answer: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    try:
        answer = await run(request)
        return answer
    except ReinsError as exc:
        error = exc.to_wire()
        raise
    except asyncio.CancelledError:
        error = {
            "code": "aborted",
            "message": "the client went away before the answer",
            "transient": True,
        }
        raise
    finally:
        duration_ms = int((time.monotonic() - clock) * 1000)
        line: dict[str, Any] = {
            "type": "step",
            "step": step,
            "time": iso(started),
            "t": started,
            "tab": request.tab if request.tab is not None else host.current.tab,
            "cmd": name,
            "cli": cli_line(cmd, name, recorded_args(name, request.args, answer)),
            "args": recorded_args(name, request.args, answer),
            "url_before": url_before,
            "ok": error is None,
            "duration_ms": duration_ms,
            "notes": notes,
        }
        if target_is is not None:
            line["target_is"] = target_is
        if answer is not None:
            line["answer"] = trimmed_answer(answer)
            line["effect"] = line["answer"].get("effect")
            line["warnings"] = list(answer.get("warnings") or [])
        if error is not None:
            line["error"] = error
        page: list[dict[str, Any]] = []
        if error is None or error.get("code") != "aborted":
            await _after(
                host,
                tracer,
                request,
                cmd,
                line,
                shots,
                target,
                pictures,
                page,
                masks,
                Deadline.after_ms(spare_ms - min(spare_ms // 3, before_ms)),
            )
        patterns = site_rules(rules, [url_before, line.get("url")]).patterns
        secrets = _unrecorded(request.args, line["args"], hidden)
        if hidden:
            line["cli"] = cli_line(cmd, name, line["args"])
        line = mask_text(line, patterns, secrets)
        label = mask_text(_label(request), patterns, secrets)
        tracer.write(host, line, shots, label=label, into=writer)
        for measured in page:
            patterns = site_rules(rules, [measured.get("url")]).patterns
            tracer.write(host, mask_text(measured, patterns, secrets), into=writer)
        tracer.in_flight.discard(step)


def _unrecorded(args: dict[str, Any], recorded: dict[str, Any], hidden: bool) -> list[str]:
    """The values the step does not write down (typed into a masked field, or one that looks
    secret): kept out of all its text, such as the value the command's answer read back."""
    value = args.get("value")
    if not isinstance(value, str):
        return []
    if hidden:
        recorded["value"] = f"[{len(value)} characters, not recorded]"
    return [value] if recorded.get("value") != value else []


# Commands whose value is kept out of the trace when their field is masked.
_VALUE_COMMANDS = frozenset({"fill", "type"})


async def _value_hidden(
    host: Host,
    request: Request,
    cmd: Command[Any] | None,
    tab_id: int | None,
    target: Resolved | None,
    masks: dict[str, Any],
    spare_ms: int,
) -> bool:
    """Is a value typed by this command going into a masked field? Asked of reins's world
    before the command; a field it cannot find now counts as not masked (the name rules of
    ``steps.recorded_args`` still apply)."""
    if (
        cmd is None
        or cmd.name not in _VALUE_COMMANDS
        or not isinstance(request.args.get("value"), str)
    ):
        return False
    if tab_id is None or not _page_free(host, tab_id):
        return False
    cap = Deadline.after_ms(spare_ms // 4)
    try:
        if target is None:
            target = await action_target(_ctx(host, request, tab_id, TARGET_MS, cap), cmd, request)
        return await is_masked(_ctx(host, request, tab_id, TICK_MS, cap), target, masks)
    except (ReinsError, ValidationError):
        return False


def _label(request: Request) -> str:
    args = request.args
    return str(args.get("target") or (f"text={args['text']}" if args.get("text") else "") or "")


def _tab_url(host: Host, tab_id: int | None) -> str | None:
    """The tab's URL as the latest capture saw it (before this step: after the one before)."""
    state = host.tabs.get(tab_id) if tab_id is not None else None
    return state.part(PageEvidence).url if state is not None else None


def _target_is(host: Host, tab_id: int | None, target: Any) -> dict[str, str] | None:
    """What an ``@ref`` target named when the command came, by the tab's registry: the element's
    role, name, test id, id and tag (``stable_target``), so a recorded run says which control
    each step meant, beyond a ref that means nothing in another session."""
    state = host.tabs.get(tab_id) if tab_id is not None else None
    if state is None or not isinstance(target, str) or not target.startswith("@"):
        return None
    registry = state.part(ObserveState).registry
    if registry is None:
        return None
    try:
        entry = registry.lookup(target)
    except ReinsError:
        return None
    return stable_target(entry.identity)


def _page_free(host: Host, tab_id: int) -> bool:
    """May the recorder run page code on this tab now? Not on a blocked page, not under a dialog,
    not while the extension is away or paused."""
    link = host.link
    if not link.connected.is_set() or link.paused:
        return False
    state = host.tabs.get(tab_id)
    if state is None:
        return True
    return not state.suspect and state.part(DialogWatch).current is None


def _ctx(
    host: Host,
    request: Request,
    tab_id: int,
    budget_ms: int,
    cap: Deadline,
) -> CommandContext:
    """A context for one piece of the recorder's own page work: its budget, within the step's
    ``cap`` (the client waits for the answer only so long beyond the command's budget)."""
    budget = min(budget_ms, cap.remaining_ms())
    if budget <= 0:
        raise DeadlineExceeded("the recorder's time for this step is used up")
    return CommandContext(host, Deadline.after_ms(budget), tab_id, request)


async def _before(
    host: Host,
    request: Request,
    cmd: Command[Any] | None,
    tab_id: int,
    notes: list[str],
    masks: dict[str, Any],
    cap: Deadline,
) -> tuple[Resolved | None, Shot | None]:
    target: Resolved | None = None
    box: list[float] | None = None
    if cmd is not None and (request.args.get("target") or request.args.get("text")):
        try:
            target = await action_target(_ctx(host, request, tab_id, TARGET_MS, cap), cmd, request)
            box, _ = await target_box(_ctx(host, request, tab_id, TICK_MS, cap), target)
        except (ReinsError, ValidationError) as exc:
            notes.append(f"target not marked: {_why(exc)}")
    shot = await _screenshot(host, request, tab_id, notes, "before", masks, cap)
    if shot is not None:
        shot.box = box
    return target, shot


async def _screenshot(
    host: Host,
    request: Request,
    tab_id: int,
    notes: list[str],
    phase: str,
    masks: dict[str, Any],
    cap: Deadline,
) -> Shot | None:
    """The tab's picture and the boxes to mask on it (``capture_masked``); no boxes, no picture."""
    try:
        png, found = await capture_masked(
            lambda ms: _ctx(host, request, tab_id, ms, cap),
            masks,
            {"format": "png"},
            mask_ms=TICK_MS,
            shot_ms=SHOT_MS,
        )
    except (ReinsError, ValueError) as exc:
        notes.append(f"no {phase} picture: {_why(exc)}")
        return None
    notes.extend(note for note in found.notes if note not in notes)
    return Shot(png, scale=found.scale, masks=found.boxes)


# Actions a traced step waits _SETTLE_S after, for the requests they started (see _after).
ACTION_SETTLE = frozenset("click dblclick press fill type select check uncheck choose".split())
_SETTLE_S = 0.15


async def _after_tick(
    host: Host,
    request: Request,
    notes: list[str],
    cap: Deadline,
) -> Tick | None:
    tab_id = request.tab if request.tab is not None else host.current.tab
    if tab_id is None or not _page_free(host, tab_id):
        return None
    try:
        got = await tick(_ctx(host, request, tab_id, TICK_MS, cap), drain=True)
    except ReinsError as exc:
        notes.append(f"console and network not read: {_why(exc)}")
        return None
    return got


async def _after(
    host: Host,
    tracer: Tracer,
    request: Request,
    cmd: Command[Any] | None,
    line: dict[str, Any],
    shots: dict[str, Shot],
    target: Resolved | None,
    pictures: bool,
    page: list[dict[str, Any]],
    masks: dict[str, Any],
    cap: Deadline,
) -> None:
    """After the command: evidence, the picture after, the figures of a new document (``page``
    gets its line)."""
    if cmd is None or cmd.name in NO_PAGE:
        return
    notes: list[str] = line["notes"]
    tab_id = request.tab if request.tab is not None else host.current.tab
    if cmd.name in ACTION_SETTLE:
        # An action may answer before a request it started came back: the step waits for it.
        await asyncio.sleep(min(_SETTLE_S, max(0.0, cap.remaining() - TICK_MS / 1000)))
    got = await _after_tick(host, request, notes, cap)
    if got is None or tab_id is None:
        return
    line["tab"] = tab_id
    line["url"] = redact_url(got.url)
    line["title"] = got.title[:300]
    if cmd.name in BY_A_PERSON:
        notes.append(
            "a person's step: no pictures; the console and network of it were not recorded"
        )
        return
    line["console"] = got.console
    line["network"] = got.network
    if got.dropped:
        line["dropped"] = got.dropped
    if pictures and _page_free(host, tab_id):
        box: list[float] | None = None
        if target is not None:
            try:
                box, _ = await target_box(_ctx(host, request, tab_id, TICK_MS, cap), target)
            except ReinsError:
                box = None  # the element is gone (a navigation): the picture without a mark
        shot = await _screenshot(host, request, tab_id, notes, "after", masks, cap)
        if shot is not None:
            shot.box = box
            shots["after"] = shot
    if tracer.measured.get(tab_id) != got.document and got.url.startswith(_PAGE_SCHEMES):
        tracer.measured[tab_id] = got.document
        measured = await _measure(host, request, tab_id, got, int(line["step"]), notes, cap)
        if measured is not None:
            page.append(measured)


async def _measure(
    host: Host, request: Request, tab_id: int, got: Tick, step: int, notes: list[str], cap: Deadline
) -> dict[str, Any] | None:
    """The compare-sources figures of a document new to the trace, as a ``page`` line."""
    try:
        figures = await compare_sources(_ctx(host, request, tab_id, MEASURE_MS, cap))
    except ReinsError as exc:
        notes.append(f"page not measured: {_why(exc)}")
        return None
    now = time.time()
    return {
        "type": "page",
        "time": iso(now),
        "t": now,
        "step": step,
        "tab": tab_id,
        "url": redact_url(got.url),
        "title": got.title[:300],
        "sources": figures.get("sources"),
        "default_source": figures.get("default_source"),
    }


def _why(exc: BaseException) -> str:
    if isinstance(exc, ReinsError):
        return f"{exc.code}: {exc.args[0] if exc.args else exc.code}"
    return type(exc).__name__
