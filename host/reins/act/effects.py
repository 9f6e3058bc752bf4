"""Effects: what an action changed, read before and after it, so every answer proves itself.

Every action answers with what it observed change (value, checked, expanded, focus, URL, DOM in or
under the target, DOM elsewhere); when nothing changed it adds the warning `no_effect`. An action
that opens a JavaScript dialog answers ok with the dialog as its effect.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Never, TypeVar

from reins._errors import ActionError, ReinsError
from reins._pagetext import quote
from reins.act.answers import (
    ActionAnswer,
    Changed,
    Detached,
    DialogShown,
    Effect,
    EffectWire,
    Fields,
    Instead,
    Navigated,
    TabClosed,
    Unknown,
    changes_between,
)
from reins.act.handles import FocusFrame, ReadOptions, Resolved, StateRead, state_read
from reins.act.instead import arrival, instead_of, let_go
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, BatchStep, CdpCommand
from reins.observe.evidence import redact_url
from reins.page.call import call_function, call_params, call_value
from reins.page.dialogs import DialogOpened, DialogWatch, DialogWire, until_dialog
from reins.page.downloads import DownloadWatch, DownloadWire, downloads_since

__all__ = [
    "ASK_AFTER_MS",
    "act_by_input",
    "act_on",
    "act_reading_before",
    "before_command",
    "before_value",
    "dialog_answer",
    "effect_of",
    "input_answer",
    "read_options",
    "settled_after_command",
]


# What an action may change is read before and after it by one page call each (``readState``,
# pagescripts/src/effects.js): "before" arms the page's count of DOM changes in and outside the
# target, its watch for a navigation, and notes the hidden elements near it; "after" lets the tasks
# the action queued run and answers at once, unless a sign of pending work (a form submission the
# page handled, a request the action started that came back) lets it wait for the first change, up
# to _PENDING_WAIT_MS. An action that is input events (a click, a hover) sends the two reads and its
# events as one ordered batch: one round trip (act_by_input).

_PENDING_WAIT_MS = 500
# What a batch of input events leaves of the budget to ask the tab, when the read after them did
# not answer, what happened.
ASK_AFTER_MS = 400


async def _observe(
    ctx: CommandContext,
    el: Resolved,
    phase: str,
    *,
    field: bool = False,
) -> tuple[StateRead | None, ReinsError | None]:
    """The element's state, or why it could not be read. ``field`` (after): with the field's text
    as fill checks it (``field``; the caller takes it out, it is no part of the effect)."""
    options: ReadOptions = _after_options(ctx, field=field) if phase == "after" else {}
    try:
        value = await call_function(
            ctx,
            el.object_id,
            "readState",
            phase,
            options,
            session_id=el.session_id,
            await_promise=True,
            what="read state",
        )
    except ReinsError as exc:
        return None, exc
    return _read_of(value)


def _read_of(value: object) -> tuple[StateRead | None, ReinsError | None]:
    read = state_read(value)
    if read is None:
        return None, ReinsError("the page answered nothing", code="cdp_error")
    return read, None


def _after_options(ctx: CommandContext, *, field: bool) -> ReadOptions:
    options: ReadOptions = {**read_options(ctx), "settle": "frame"}
    if field:
        options["field"] = True
    return options


def settled_after_command(ctx: CommandContext, el: Resolved, *, field: bool) -> CdpCommand:
    """The read after an action of several steps (once the page finished the frame it started;
    ``field``: with the field's text as fill checks it), as a batch command: an action may send
    it in the round trip of its last step and hand its answer to ``act_reading_before``."""
    options = _after_options(ctx, field=field)
    return (
        "Runtime.callFunctionOn",
        call_params(el.object_id, "readState", "after", options, await_promise=True),
    )


def _after_of(answer: BatchAnswer) -> tuple[StateRead | None, ReinsError | None]:
    """``settled_after_command``'s answer as ``_observe`` reads its own."""
    if isinstance(answer, ReinsError):
        return None, answer
    try:
        value = call_value(answer, what="read state")
    except ReinsError as exc:
        return None, exc
    return _read_of(value)


def read_options(ctx: CommandContext) -> ReadOptions:
    """How long the after-read may wait on a sign of pending work: within the budget."""
    return {"waitMs": max(0, min(_PENDING_WAIT_MS, ctx.deadline.remaining_ms(headroom_ms=500)))}


def effect_of(
    before: StateRead | None,
    after: StateRead | None,
    instead: Instead | None = None,
) -> tuple[Effect, list[str]]:
    """What changed between two state reads (pure). With no ``after`` read, ``instead`` says what
    the tab did (missing: unknown)."""
    if before is None:
        return Unknown(), ["effect_unknown"]
    if after is None:
        instead = instead or Unknown("no read after the action")
        if isinstance(instead, Navigated):
            return Navigated(instead.url, before.get("url")), []
        if isinstance(instead, TabClosed):
            return instead, []
        if isinstance(instead, Detached):
            return instead, ["detached_during_action"]
        return instead, ["effect_unknown"]
    counts = after.get("counts") or {"inside": 0, "elsewhere": 0}
    effect = Changed(
        changes_between(before, after),
        target_detached=not after.get("connected", True),
        shown=tuple(after["shown"]) if after.get("shown") else (),
        navigation_started=str(after["navigating"]) if after.get("navigating") else None,
        dom_changed_in_target=int(counts["inside"]) if counts.get("inside") else 0,
        dom_changed_elsewhere=int(counts["elsewhere"]) if counts.get("elsewhere") else 0,
    )
    return effect, ["no_effect"] if effect.nothing else []


# An action's own answer fields (``PressFields``, ``FillFields`` …): what ``act_on`` and its kin
# answer is typed by what the action gives.
F = TypeVar("F", bound=Fields)
# An action ``act_on`` runs: its own answer fields (in the order it gives them), or None.
Action = Callable[[Resolved], Awaitable[F | None]]


async def act_on(ctx: CommandContext, el: Resolved, action: Action[F]) -> ActionAnswer[F]:
    """Run ``action(el)`` between two state reads and report the effect.

    If the action opens a JavaScript dialog, the page waits for it: the answer is then the dialog
    itself as the effect (answer it with `reins dialog accept|dismiss`)."""
    before, _ = await _observe(ctx, el, "before")
    try:
        return await until_dialog(_act_and_read(ctx, el, action, before), ctx.part(DialogWatch))
    except DialogOpened as opened:
        return dialog_answer(el, opened.dialog)


def before_command(el: Resolved) -> CdpCommand:
    """The "before" state read as a batch command, for an action that sends it first in its own
    first round trip (``act_reading_before``; ``before_value`` reads its answer)."""
    return (
        "Runtime.callFunctionOn",
        call_params(el.object_id, "readState", "before", {}, await_promise=True),
    )


def before_value(answer: BatchAnswer | None) -> StateRead | None:
    """The state ``before_command`` read, or None when it could not (the effect is then unknown)."""
    if answer is None or isinstance(answer, ReinsError):
        return None
    try:
        return _value(answer, "read state")
    except ReinsError:
        return None


async def act_reading_before(
    ctx: CommandContext,
    el: Resolved,
    action: Callable[[Resolved], Awaitable[tuple[StateRead | None, F, BatchAnswer | None]]],
    *,
    field: bool = False,
) -> tuple[ActionAnswer[F], str | None]:
    """``act_on`` for an action that reads the "before" state itself, in the round trip of its
    first step (``before_command`` first in its batch): ``action(el)`` answers (the state it
    read, its own answer fields, and the answer of ``settled_after_command`` when it sent that
    in the round trip of its last step, else None: the read after is then asked here).
    ``field``: the read after also reads the field's text as fill checks it. Answers the
    action's answer and that text (None when it was not read)."""

    async def run() -> tuple[ActionAnswer[F], str | None]:
        try:
            before, extra, taken = await action(el)
        except ReinsError as exc:
            if exc.code != "target_closed":
                raise
            return await _tab_closed(ctx, el), None
        if taken is not None:
            after, failure = _after_of(taken)
        else:
            after, failure = await _observe(ctx, el, "after", field=field)
        text = after.pop("field", None) if after is not None else None
        answer = await _conclude(ctx, el, before, after, failure, extra)
        return answer, text if isinstance(text, str) else None

    try:
        return await until_dialog(run(), ctx.part(DialogWatch))
    except DialogOpened as opened:
        return dialog_answer(el, opened.dialog), None


async def input_batch(
    ctx: CommandContext,
    el: Resolved,
    commands: list[CdpCommand],
    each: list[BatchStep],
) -> list[BatchAnswer] | ActionAnswer[Never]:
    """An ordered batch of input and the reads around it: its answers (a tab Chrome let go of
    meanwhile: ``[target_closed]``, for ``input_answer`` to tell), or the answer of the action
    when the input opened a JavaScript dialog."""
    try:
        return await until_dialog(
            ctx.cdp_batch(
                commands,
                sequential=True,
                each=each,
                # the read after the input may not answer (a page busy right after it): the batch
                # still answers in time to ask the tab what happened
                answer_within_ms=ctx.deadline.remaining_ms(headroom_ms=ASK_AFTER_MS),
            ),
            ctx.part(DialogWatch),
        )
    except DialogOpened as opened:
        return dialog_answer(el, opened.dialog)
    except ReinsError as exc:
        if exc.code != "target_closed":
            raise
        return [exc]


async def act_by_input(
    ctx: CommandContext,
    el: Resolved,
    events: list[CdpCommand],
    extra: F,
) -> ActionAnswer[F]:
    """``act_on`` for an action that is CDP input events (to the tab's own session), in one round
    trip: the before read, the events (each sent without waiting for the previous one's answer)
    and the after read, as one ordered batch. Chrome answers a mouse press or release once the
    page handled it, so the after read runs after the page's handlers did."""
    reads: BatchStep = {"sessionId": el.session_id} if el.session_id else {}
    commands = [
        (
            "Runtime.callFunctionOn",
            call_params(el.object_id, "readState", "before", {}, await_promise=True),
        ),
        *events,
        (
            "Runtime.callFunctionOn",
            call_params(el.object_id, "readState", "after", read_options(ctx), await_promise=True),
        ),
    ]
    each: list[BatchStep] = [
        reads,
        *(BatchStep(noWait=True) for _ in events[:-1]),
        {},
        reads,
    ]
    answers = await input_batch(ctx, el, commands, each)
    if isinstance(answers, ActionAnswer):  # a dialog the input opened
        return answers
    if not answers:
        raise ReinsError("the input events were cut short", code="cdp_error", transient=True)
    first = answers[0]
    if isinstance(first, ReinsError):  # the read before failed: no input was given
        if first.code == "target_closed":
            return await _tab_closed(ctx, el)
        raise first
    try:
        before = _value(first, "read state")
    except ReinsError:
        before = None  # the input was given all the same: its effect is unknown
    return await input_answer(ctx, el, before, answers[1:], len(events), extra)


async def input_answer(
    ctx: CommandContext,
    el: Resolved,
    before: StateRead | None,
    given: list[BatchAnswer],
    count: int,
    extra: F,
) -> ActionAnswer[F]:
    """The answer of ``count`` input events given in an ordered batch, from the state read
    before them and ``given``, the batch's answers from the first event on (the events, then the
    state read after them when it answered)."""
    for failure in given[:count]:
        if isinstance(failure, ReinsError):
            if failure.code != "target_closed":
                raise failure
            return await _tab_closed(ctx, el)
    if len(given) < count:
        raise ReinsError("the input events were cut short", code="cdp_error", transient=True)
    after: StateRead | None = None
    after_failure: ReinsError | None
    if len(given) <= count:
        after_failure = ReinsError("the page answered nothing", code="cdp_error")
    else:
        try:
            after, after_failure = _value(given[count], "read state"), None
            if after is None:
                after_failure = ReinsError("the page answered nothing", code="cdp_error")
            else:
                after.pop("receipt", None)  # judged by the press (act/pointer.py)
        except ReinsError as exc:
            after_failure = exc
    return await _conclude(ctx, el, before, after, after_failure, extra)


def dialog_answer(el: Resolved, dialog: DialogWire) -> ActionAnswer[Never]:
    """The answer of an action that opened a JavaScript dialog: the dialog is its effect (and
    the action gave none of its own fields: the answer of any action, ``Never``)."""
    return _about(el, DialogShown(dialog), "dialog_open")


def _value(answer: BatchAnswer, what: str) -> StateRead | None:
    """A state read's value from a batch answer (None when the page answered no object);
    raises what the read failed with."""
    if isinstance(answer, ReinsError):
        raise answer
    return state_read(call_value(answer, what=what))


async def _act_and_read(
    ctx: CommandContext, el: Resolved, action: Action[F], before: StateRead | None
) -> ActionAnswer[F]:
    try:
        extra = await action(el)
    except ReinsError as exc:
        if exc.code != "target_closed":
            raise
        return await _tab_closed(ctx, el)
    after, failure = await _observe(ctx, el, "after")
    return await _conclude(ctx, el, before, after, failure, extra)


async def _conclude(
    ctx: CommandContext,
    el: Resolved,
    before: StateRead | None,
    after: StateRead | None,
    failure: ReinsError | None,
    extra: F | None,
) -> ActionAnswer[F]:
    """The answer from the two reads: a navigation the page said it started is followed to the
    new document (bounded); a failed after read asks the tab what happened (never a guess)."""
    instead: Instead | None = None
    asked = after is not None and after.pop("downloading", None) is not None
    focus_frame = after.pop("focusFrame", None) if after is not None else None
    downloads = await downloads_since(ctx, ctx.part(DownloadWatch), asked=asked)
    if after is not None and downloads:
        after.pop("navigating", None)  # the navigation was the download's: no new document comes
    if after is not None and before and after.get("navigating") and before.get("top"):
        instead = await arrival(ctx, before)
        if instead is not None:
            after = None
        elif not downloads:
            # No new document: the browser may have turned the navigation into a download (a
            # server's `Content-Disposition: attachment`, a type no tab shows), said meanwhile.
            downloads = await downloads_since(ctx, ctx.part(DownloadWatch))
            if downloads:
                after.pop("navigating", None)
    elif after is None and before:
        instead = await instead_of(ctx, before, failure)
    effect, warnings = effect_of(before, after, instead)
    if downloads:
        warnings = [w for w in warnings if w != "no_effect"]
        if any(d["state"] == "refused" for d in downloads):
            warnings.append("download_refused")
        if any(d.get("refusal_failed") for d in downloads):
            warnings.append("download_not_refused")
    fields = None
    if extra is not None:
        fields = extra.copy()  # its warnings join the answer's
        if "warnings" in fields:
            given = fields["warnings"]
            warnings = [*warnings, *given]
            del fields["warnings"]
    answer = _about(el, effect, *warnings, downloads=tuple(downloads or ()), fields=fields)
    if isinstance(focus_frame, dict) and isinstance(effect, Changed):
        if any(key == "focus" for key, _ in effect.changes):
            raise _focus_in_frame(answer.acted()["effect"], focus_frame)
    return answer


def _focus_in_frame(effect: EffectWire, focus_frame: FocusFrame) -> ActionError:
    """The action moved keyboard focus into a frame the target does not contain: an error, so
    the agent does not type next into what may be another site's frame (issue 45)."""
    frame = quote(str(focus_frame.get("frame") or "a frame"), 120)
    url = redact_url(focus_frame.get("url") or "")
    return ActionError(
        f"the action was given, then the page put keyboard focus into the frame {frame}"
        f"{f' ({url})' if url else ''}, which the target does not contain",
        code="focus_in_frame",
        details={"effect": effect, "frame": str(focus_frame.get("frame") or ""), "url": url},
    )


async def _tab_closed(ctx: CommandContext, el: Resolved) -> ActionAnswer[Never]:
    """The input's batch answered ``target_closed``: the tab closed, or Chrome let go of it
    (``instead.let_go``)."""
    if isinstance(await let_go(ctx), Detached):
        return _about(el, Detached(), "detached_during_action")
    return _about(el, TabClosed(), "tab_closed_during_action")


def _about(
    el: Resolved,
    effect: Effect,
    *warnings: str,
    downloads: tuple[DownloadWire, ...] = (),
    fields: F | None = None,
) -> ActionAnswer[F]:
    """An answer about ``el``: its ref, how a stale ref was recovered, the frame --frame named."""
    return ActionAnswer(
        effect, warnings, downloads, fields, recovered=el.recovered, ref=el.ref, frame=el.frame
    )
