"""Forms: fill and type (verified against what the field keeps), select, check and uncheck.

fill replaces a text field's text with `Input.insertText`; type appends real key events
(act/keyboard.py), so a page that cancels a keydown gets nothing; an input a picker sets (date,
time, datetime-local, month, week, color, range) is given its value as the picker would. The
page side is in pagescripts/src/inputs.js (enterField) and actions.js (fieldValue, selectOptions,
checkedState)."""

from __future__ import annotations

import re
from typing import Any, TypedDict, cast

from reins._errors import ActionError, ReinsError, ResolutionError, UsageError
from reins.act.actionability import actionable_point
from reins.act.answers import ActionAnswer, Changed, Fields
from reins.act.confirm import (
    ax_node_command,
    ax_node_of,
    confirm_checked,
    confirm_selected,
    confirm_text,
    text_agrees,
)
from reins.act.effects import (
    ASK_AFTER_MS,
    act_on,
    act_reading_before,
    before_command,
    before_value,
    settled_after_command,
)
from reins.act.guarded import PressFields
from reins.act.handles import StateRead
from reins.act.keyboard import KeysFor, chord_events, parse_keys, send_keys, typing_events
from reins.act.locate import Resolved
from reins.act.pointer import click_element
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, CdpCommand
from reins.page.call import call_function, call_params, call_value
from reins.page.poll import poll_until

__all__ = [
    "PICKER_FORMATS",
    "CheckFields",
    "FillFields",
    "SelectFields",
    "fill_element",
    "picker_refusal",
    "select_options",
    "set_checked",
]

# What each picker input takes, and an example (what the message of a bad value says).
PICKER_FORMATS: dict[str, tuple[str, str]] = {
    "date": ("YYYY-MM-DD", "2020-03-02"),
    "time": ("HH:MM or HH:MM:SS, 24-hour", "13:45"),
    "datetime-local": ("YYYY-MM-DDTHH:MM", "2020-03-02T13:45"),
    "month": ("YYYY-MM", "2020-03"),
    "week": ("YYYY-Www", "2020-W10"),
    "color": ("#rrggbb", "#ff8800"),
    "range": ("a number", "50"),
}


class FieldEntry(TypedDict, total=False):
    """What ``enterField`` answers (pagescripts/src/inputs.js): whether the field takes the
    text (``ok``; else ``why``), its text before; a picker input's (``picker``: its ``type`` and
    ``bounds``, the value it ``kept`` of the one parsed, ``invalid`` when the browser's parser
    refused it); a segmented field's (``segmented``: the ``labels`` of its parts)."""

    ok: bool
    why: str
    original: str
    picker: bool
    type: str
    bounds: dict[str, str]
    invalid: bool
    before: str
    value: str
    kept: str
    segmented: bool
    labels: list[str]


class Option(TypedDict):
    """An option of a native select, as the page reads it."""

    value: str
    label: str


class FillFields(Fields, total=False):
    """fill's and type's own answer fields: the text the field kept, what was meant when it kept
    less (type), and warnings (``not_all_kept``)."""

    value: Any  # the page's word for what the field kept (a string, or what a picker answered)
    expected: str


class SelectFields(Fields, total=False):
    """select's own answer field: the options chosen, read back."""

    selected: list[Option]


class CheckFields(PressFields, total=False):
    """check's and uncheck's own answer fields: the click's, and the state the control has now."""

    checked: bool


def picker_refusal(kind: str, value: str, bounds: dict[str, str]) -> UsageError:
    """The error for a value an input of type ``kind`` does not take, with the format it does
    (pure)."""
    form, example = PICKER_FORMATS.get(kind, ("its own format", ""))
    if kind == "range":
        low, high = bounds.get("min", "0"), bounds.get("max", "100")
        form = f"a number from {low} to {high} in steps of {bounds.get('step', '1')}"
        example = low
    shown = f"; e.g. {example}" if example else ""
    return UsageError(
        f"{value!r} is not a value a {kind} input takes: it takes {form}{shown}",
        code="bad_request",
        hint="fill it again with a value in that format",
        details={"input_type": kind, "expected_format": form},
    )


async def fill_element(
    ctx: CommandContext,
    el: Resolved,
    text: str,
    *,
    append: bool = False,
) -> ActionAnswer[FillFields]:
    """fill (``append`` False) or type (True) ``text`` into a field, verified against what it
    keeps. Round trips after the lookup: the probe; the "before" read, CDP's focus and the page
    script's in one; the keys with the field's value read after the last; the read after the
    action, which also reads the field's text once the page has settled."""

    # Chrome's accessibility tree's node of the field, asked in the keys' round trip, after the
    # read after (act/confirm.py); None: not asked there.
    node: BatchAnswer | None = None

    async def do(target: Resolved) -> tuple[StateRead | None, FillFields, BatchAnswer | None]:
        nonlocal node
        await actionable_point(
            ctx, target, need_editable=True, first_probe=target.probed, need_stable=False
        )
        before, ready = await _enter(ctx, target, "end" if append else "all", text)
        if ready is None or not ready.get("ok"):
            why = ready.get("why") if ready is not None else "unknown"
            raise ResolutionError(f"cannot type into this element: {why}", code="not_editable")
        if ready.get("picker"):
            return before, _picked(ready, text), None
        if ready.get("segmented"):
            return before, await _type_segments(ctx, target, text, ready, whole=not append), None
        original = str(ready.get("original") or "")
        events: list[CdpCommand] = []
        if append:
            events = typing_events(text)
        elif text:
            # The field's whole text is selected (enterField): the text inserted replaces it, as
            # a paste over a selection does (one input event, no deletion before it).
            events = [("Input.insertText", {"text": text})]
        elif original:
            events = chord_events(parse_keys("Delete"))  # clearing: the selection deleted
        # What the field kept, read in the round trip of the last key, then the read after (once
        # the page settled) and the browser's word on the field (act/confirm.py).
        session = target.session_id
        after = settled_after_command(ctx, target, field=True)
        tail = await send_keys(
            ctx,
            events,
            keys_for=KeysFor(target.object_id, session),
            then=[
                ("Runtime.callFunctionOn", call_params(target.object_id, "fieldValue"), session),
                (*after, session),
                (*ax_node_command(target), session),
            ],
            answer_within_ms=ctx.deadline.remaining_ms(headroom_ms=ASK_AFTER_MS),
        )
        first = tail[0] if tail else _cut_short()
        if isinstance(first, ReinsError):
            raise first
        kept = call_value(first, what="field value")
        taken = tail[1] if len(tail) > 1 else None
        node = tail[2] if len(tail) > 2 else None
        expected = (original + text) if append else text
        if kept != expected and append and isinstance(kept, str):
            # Typing is keys, as a person gives them: every key was pressed, and the page let
            # through what it wanted (a digits-only field refusing letters). Reported, as
            # Playwright's typing does; `fill`, which replaces the text, stays a mismatch.
            warned: FillFields = {
                "value": kept,
                "expected": expected,
                "warnings": ["not_all_kept"],
            }
            return before, warned, taken
        if kept != expected:
            raise ActionError(
                f"the field kept {kept!r}, not {expected!r} (the page reformatted or refused it)",
                code="fill_mismatch",
                details={"kept": kept, "expected": expected},
            )
        return before, {"value": kept}, taken

    result, settled = await act_reading_before(ctx, el, do, field=True)
    if result.fields and "value" in result.fields:
        kept = result.fields["value"]
        if settled is None:  # the read after did not answer it: ask the field itself
            settled = await _field_now(ctx, el)
        if settled is not None and settled != str(kept):
            # Once the page has settled (the read after waited for its frame): a page script, or
            # the user typing into the tab, changed it since.
            raise ActionError(
                f"the field holds {settled!r} now, not {kept!r}: it changed after the "
                "fill (the page or someone typing in this tab)",
                code="fill_mismatch",
                details={"kept": settled, "expected": kept},
            )
        shown = settled if settled is not None else str(kept)
        if node is not None:  # asked in the keys' round trip
            text_agrees(ax_node_of(node), shown)
        else:
            await confirm_text(ctx, el, shown)
    return result


# The parts of a segmented date or time field by their labels, and what each takes of an ISO
# date or time (2026-03-15, 14:05, 2026-03-15T14:05): the year, month, day, hours, minutes, seconds.
_ISO = re.compile(
    r"^(?:(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2}))?(?:[T ]?(?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2}))?)?$"
)
_PART_WORDS = ("year", "month", "day", "hour", "minute", "second")


def segment_keys(text: str, labels: list[str]) -> str:
    """What to type into a segmented field, from its first part on (pure): an ISO date or time
    put in the field's own order of parts (their labels: "Month", "Day", "Year" …); any other
    text as written. Only letters and digits: the field moves from part to part by itself."""
    match = _ISO.match(text.strip())
    if match is not None and any(match.groupdict().values()):
        values = match.groupdict()
        order: list[str] = []
        for label in labels:
            word = next((w for w in _PART_WORDS if w in label.lower()), None)
            if word is None or values.get(word) is None:
                order = []
                break
            order.append(str(values[word]))
        if order:
            return "".join(order)
    return "".join(c for c in text if c.isalnum())


def _alnum(text: str) -> str:
    return "".join(c for c in text if c.isalnum()).lower()


async def _type_segments(
    ctx: CommandContext, target: Resolved, text: str, ready: FieldEntry, *, whole: bool
) -> FillFields:
    """A segmented date or time field (MUI X, React Aria): typed key by key from the part
    enterField focused, the field moving focus to its next part by itself (the focus check lets
    the keys follow it within the field, nowhere else). `fill` types the whole value from the
    first part (an ISO date in the field's order); `type` what it is given. The value is the
    whole field's text: fill must show every character typed, type the ones it typed."""
    labels = [str(label) for label in ready.get("labels") or []]
    keys = segment_keys(text, labels) if whole else "".join(c for c in text if c.isalnum())
    read = ("Runtime.callFunctionOn", call_params(target.object_id, "fieldValue"))
    tail = await send_keys(
        ctx,
        typing_events(keys),
        keys_for=KeysFor(target.object_id, target.session_id),
        then=[(*read, target.session_id)],
    )
    first = tail[0] if tail else _cut_short()
    if isinstance(first, ReinsError):
        raise first
    kept = str(call_value(first, what="field value") or "")
    if (_alnum(kept) == _alnum(keys)) if whole else (_alnum(keys) in _alnum(kept)):
        return {"value": kept}
    if not whole:
        return {"value": kept, "expected": keys, "warnings": ["not_all_kept"]}
    raise ActionError(
        f"the field shows {kept!r} after {keys!r} was typed into its parts ({', '.join(labels)})",
        code="fill_mismatch",
        details={"kept": kept, "expected": keys},
    )


async def _enter(
    ctx: CommandContext, target: Resolved, mode: str, text: str
) -> tuple[StateRead | None, FieldEntry | None]:
    """The "before" read, CDP's focus and the page script's (enterField) in one round trip: the
    state before and enterField's answer. A focus CDP refuses ends the batch there, and focus()
    in the page script covers such elements; a "before" read that fails ends it too (the effect
    is then unknown) and the focus goes on without it."""
    focus = ("DOM.focus", {"objectId": target.object_id})
    enter = ("Runtime.callFunctionOn", call_params(target.object_id, "enterField", mode, text))
    answers = await ctx.cdp_batch(
        [before_command(target), focus, enter], session_id=target.session_id, sequential=True
    )
    before = before_value(answers[0] if answers else None)
    if before is None and len(answers) < 2:  # the read stopped the batch: focus without it
        answers = [answers[0] if answers else {}] + await ctx.cdp_batch(
            [focus, enter], session_id=target.session_id, sequential=True
        )
    if len(answers) == 3 and not isinstance(answers[2], ReinsError):
        return before, _entry(call_value(answers[2], what="prepare field"))
    ready = await call_function(
        ctx,
        target.object_id,
        "enterField",
        mode,
        text,
        session_id=target.session_id,
        what="prepare field",
    )
    return before, _entry(ready)


def _cut_short() -> ReinsError:
    return ReinsError("the key events were cut short", code="cdp_error", transient=True)


def _entry(value: object) -> FieldEntry | None:
    """``enterField``'s answer as the page gave it, or None when it is no object."""
    return cast(FieldEntry, value) if isinstance(value, dict) else None


def _picked(answer: FieldEntry, text: str) -> FillFields:
    """A picker input's answer: refused, kept as given (in the browser's form of it: a color in
    lower case), or changed back by the page."""
    kind = str(answer.get("type"))
    if answer.get("invalid"):
        raise picker_refusal(kind, text, dict(answer.get("bounds") or {}))
    kept, expected = answer.get("kept"), answer.get("value")
    if kept != expected:
        raise ActionError(
            f"the {kind} input kept {kept!r}, not {expected!r} (the page changed it back or "
            "refused it)",
            code="fill_mismatch",
            details={"kept": kept, "expected": expected},
        )
    return {"value": kept}


async def _field_now(ctx: CommandContext, el: Resolved) -> str | None:
    """The field's text now (fieldValue), or None when the field left the page (a navigation the
    effect reports)."""
    try:
        value = await call_function(
            ctx, el.object_id, "fieldValue", session_id=el.session_id, what="field value"
        )
    except ReinsError:
        return None
    return value if isinstance(value, str) else None


async def select_options(
    ctx: CommandContext, el: Resolved, values: list[str]
) -> ActionAnswer[SelectFields]:
    """Choose a native select's options; an option the select does not offer yet is waited for
    within the budget (a list filled in by the page later), then `select_mismatch` lists the
    options it last had."""

    async def choose(target: Resolved) -> SelectFields:
        await actionable_point(ctx, target, need_stable=False)
        answer = await call_function(
            ctx,
            target.object_id,
            "selectOptions",
            values,
            session_id=target.session_id,
            what="select",
        )
        if not isinstance(answer, dict):
            raise ActionError("the select did not answer", code="select_mismatch")
        if "error" in answer:
            code = str(answer["error"])
            if code != "select_mismatch":
                raise ResolutionError(str(answer.get("message")), code=code)
            details = {k: answer[k] for k in ("options", "selected") if k in answer}
            raise ActionError(
                str(answer.get("message")),
                code=code,
                transient="missing" in answer,
                details=details,
            )
        return {"selected": answer["selected"]}

    async def do(target: Resolved) -> SelectFields:
        return await poll_until(
            ctx.deadline,
            lambda: choose(target),
            interval=0.1,
            reserve_s=0.15,
            retry=lambda exc: exc.code == "select_mismatch" and exc.transient,
            explain_timeout=True,
        )

    result = await act_on(ctx, el, do)
    selected = (result.fields or {}).get("selected")
    if isinstance(selected, list):
        labels = [str(o.get("label") if isinstance(o, dict) else o) for o in selected]
        await confirm_selected(ctx, el, labels)
    return result


async def set_checked(ctx: CommandContext, el: Resolved, wanted: bool) -> ActionAnswer[CheckFields]:
    state = await call_function(ctx, el.object_id, "checkedState", session_id=el.session_id)
    if not isinstance(state, dict) or state.get("kind") is None:
        raise ResolutionError("not a checkbox, radio or switch", code="not_editable")
    if state.get("checked") == wanted:
        already = "already_" + ("checked" if wanted else "unchecked")
        return ActionAnswer(Changed(), (already,), fields=CheckFields(checked=wanted))
    if not wanted and state.get("kind") == "radio":
        raise UsageError(
            "a radio button cannot be unchecked; check another one", code="bad_request"
        )
    result = await click_element(ctx, el)
    after = await call_function(ctx, el.object_id, "checkedState", session_id=el.session_id)
    if not isinstance(after, dict) or after.get("checked") != wanted:
        raise ActionError(
            f"the control is still {'un' if wanted else ''}checked after the click",
            code="check_failed",
        )
    await confirm_checked(ctx, el, wanted)
    pressed: PressFields = result.fields or {}
    return result.with_fields(CheckFields(**pressed, checked=wanted))
