"""Choose: one command for a custom dropdown or combobox, as a person works it.

Once the widget is at rest (a popup still closing from the last pick has gone: pressed during
its close, some widgets stay open with nothing shown), open it with a real click (unless it is
open already), type to filter when it is a combobox (a text field with role=combobox or
aria-autocomplete), find the option by its text among the visible options (the popup the
trigger controls, else any on the page: they usually render in a portal), click it (unless the
widget marks it chosen and showed it already), then verify the trigger shows the choice
(``choose_mismatch`` with what it shows otherwise) and, for a combobox, that Chrome's
accessibility tree shows it too (``unverified`` otherwise). A native ``<select>`` goes through
``select``. Page side: pagescripts/src/choose.js.
"""

from __future__ import annotations

from typing import Any

from reins._errors import ActionError, ReinsError, ResolutionError
from reins.act.answers import ActionAnswer, Fields
from reins.act.confirm import confirm_chosen
from reins.act.effects import act_on
from reins.act.forms import SelectFields, select_options
from reins.act.keyboard import KeysFor, parse_keys, press_keys, send_keys
from reins.act.locate import Resolved
from reins.act.pointer import press_element
from reins.bridge.context import CommandContext
from reins.page.call import call_function
from reins.page.poll import NotYet, poll_until

__all__ = ["ChooseFields", "Chosen", "NativeChoice", "choose_option"]

# How long the options may take to render, and the trigger to show the choice (tries x 0.1 s).
_OPTION_TRIES = 30
# An option found in a panel on its way out: how many times it is looked for again.
_PRESS_TRIES = 3
_REOPEN_WAIT_MS = 300
# How long the trigger's press waits for the widget to come to rest (a popup still closing).
_REST_MS = 500
_SHOW_TRIES = 15


class NativeChoice(SelectFields, total=False):
    """choose's own answer fields for a native select: select's, with its kind (native)."""

    kind: str


class Chosen(Fields, total=False):
    """choose's own answer fields for a custom widget: its kind (trigger or combobox), the
    option's label chosen and what the widget shows now; ``already``: the option was chosen and
    shown before, so it was not pressed (in a multi-select a press takes it out)."""

    kind: str
    chose: str
    shows: str
    already: bool


ChooseFields = NativeChoice | Chosen


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


async def choose_option(
    ctx: CommandContext, el: Resolved, option: str
) -> ActionAnswer[ChooseFields]:
    """Choose ``option``: the answer's fields say the widget's kind, the option's label chosen and
    what the trigger shows (a native select answers as `select` does, with its kind)."""
    kind = await call_function(
        ctx, el.object_id, "chooseKind", session_id=el.session_id, what="choose"
    )
    if kind == "replaced":  # a <select> hidden under a widget a script drew for it (select2)
        remote = await call_function(
            ctx, el.object_id, "replacedBy", session_id=el.session_id, by_value=False, what="choose"
        )
        if remote.get("objectId"):
            ctx.note("choose_replaced_select")
            el = Resolved(str(remote["objectId"]), session_id=el.session_id, via="choose")
        else:
            kind = "native"
    if kind == "native":
        answer = await select_options(ctx, el, [option])
        selected: SelectFields = answer.fields or {}
        native: ChooseFields = {**selected, "kind": "native"}
        return answer.with_fields(native)

    async def do(trigger: Resolved) -> Chosen:
        # The press goes where the agent pointed (a placeholder, as a person clicks it); the
        # options, the typing and the check go to the control it belongs to.
        control = await _control(ctx, trigger)
        kind = await call_function(
            ctx, control.object_id, "chooseKind", session_id=control.session_id, what="choose"
        )
        watched = await call_function(
            ctx,
            control.object_id,
            "watchPopup",
            _REST_MS,
            session_id=control.session_id,
            await_promise=True,
            what="choose",
        )
        seen: dict[str, Any] = watched if isinstance(watched, dict) else {}
        if seen.get("waited"):
            ctx.note("choose_waited_for_rest")
        opened = not seen.get("open")
        if opened:
            await press_element(ctx, trigger)
        else:
            ctx.note("choose_already_open")  # a press on its trigger would close it
        if kind == "combobox":
            await _type_filter(ctx, control, option)
        before = str(seen.get("shows") or "")  # what it showed before any press or typing
        picked = await _press_option(ctx, trigger, control, option, shown_before=before)
        if picked.already and opened:
            await _close(ctx, control, picked.element)
        shows, held = await _shows(ctx, control, _held_texts(picked.label, option, before))
        await confirm_chosen(ctx, control, held)
        chosen: Chosen = {"kind": kind, "chose": picked.label, "shows": shows}
        return {**chosen, "already": True} if picked.already else chosen

    return await act_on(ctx, el, do)


async def _control(ctx: CommandContext, el: Resolved) -> Resolved:
    remote = await call_function(
        ctx, el.object_id, "chooseControl", session_id=el.session_id, by_value=False, what="choose"
    )
    if not remote.get("objectId"):
        return el
    return Resolved(str(remote["objectId"]), session_id=el.session_id, via="choose")


async def _type_filter(ctx: CommandContext, field: Resolved, text: str) -> None:
    ready = await call_function(
        ctx,
        field.object_id,
        "prepareField",
        "all",
        session_id=field.session_id,
        what="prepare field",
    )
    if not isinstance(ready, dict) or not ready.get("ok"):
        raise ResolutionError(f"cannot type into the combobox: {ready}", code="not_editable")
    # The field's text is selected (prepareField "all"): the filter is typed over it, as a
    # person types over a selection, never emptied first (a combobox commits an emptied field:
    # Headless UI's sets its value to null).
    keys_for = KeysFor(field.object_id, field.session_id)
    await send_keys(ctx, [("Input.insertText", {"text": text})], keys_for=keys_for)


class _Picked:
    def __init__(self, element: Resolved, label: str, *, selected: bool = False) -> None:
        self.element = element
        self.label = label
        self.selected = selected  # the page marks it chosen (aria-selected or aria-checked)
        self.already = False  # chosen and shown before: not pressed


async def _find_option(ctx: CommandContext, control: Resolved, option: str) -> Any:
    """``findOption``'s answer: the open option's ``index`` and ``label``, or the ``options``
    open now."""
    return await call_function(
        ctx, control.object_id, "findOption", option, session_id=control.session_id, what="choose"
    )


async def _open_option(ctx: CommandContext, trigger: Resolved, option: str) -> _Picked:
    async def found() -> _Picked:
        match = await _find_option(ctx, trigger, option)
        if "index" not in match:
            seen = match.get("options") or []
            raise NotYet(
                f"no open option {option!r}; "
                + (f"options: {', '.join(seen[:20])}" if seen else "no options are open")
            )
        remote = await call_function(
            ctx,
            trigger.object_id,
            "optionAt",
            match["index"],
            match["label"],
            session_id=trigger.session_id,
            by_value=False,
            what="choose",
        )
        if not remote.get("objectId"):
            raise NotYet("the options changed while reading them")
        return _Picked(
            Resolved(str(remote["objectId"]), session_id=trigger.session_id, via="choose"),
            str(match["label"]),
            selected=match.get("selected") is True,
        )

    def gave_up(last: ReinsError) -> ReinsError:
        return ResolutionError(
            f"choose: {last.message}",
            code="not_found",
            hint="`reins state` shows the options the widget has open; give one of them",
        )

    try:
        return await poll_until(
            ctx.deadline,
            found,
            interval=0.1,
            attempts=_OPTION_TRIES,
            reserve_s=0.3,
            gave_up=gave_up,
            retry=lambda exc: isinstance(exc, NotYet),
        )
    except ResolutionError as exc:
        if exc.code != "not_found":
            raise
        # What the widget shows says whether the option is chosen already (a multi-select that
        # hides its chosen options from the list: react-select's).
        shows = await _trigger_shows(ctx, trigger)
        raise ResolutionError(
            f"{exc}; the widget shows {shows!r}",
            code="not_found",
            hint=exc.hint,
            details={"shows": shows},
        ) from exc


async def _press_option(
    ctx: CommandContext, pressed: Resolved, control: Resolved, option: str, *, shown_before: str
) -> _Picked:
    """The open option found and pressed (an option the widget marks chosen and showed before
    anything was pressed, ``shown_before``, is not: ``already``). An option that left the page
    before its press was in a panel on its way out (Angular Material's, when the trigger is
    pressed again right after Escape: the closing panel still shows its options, and the press
    opened nothing; a close the rest wait did not see, as one with no animation): its press was
    never given (the probe found it gone, before any input), so it is looked for again, and when
    no option shows up within a moment, the trigger (``pressed``) is pressed once more; a few
    times within the budget."""
    tries = 0
    while True:
        tries += 1
        picked = await _open_option(ctx, control, option)
        # What it showed before choose typed its filter: a combobox's text is then the typing.
        if picked.selected and _norm(picked.label) in _norm(shown_before):
            ctx.note("choose_already_chosen")
            picked.already = True
            return picked
        try:
            await press_element(ctx, picked.element)
        except ResolutionError as exc:
            if exc.code != "ref_stale" or tries >= _PRESS_TRIES:
                raise
            ctx.note("choose_option_gone")
            if not await _options_show(ctx, control, option):
                await press_element(ctx, pressed)
            continue
        return picked


async def _options_show(ctx: CommandContext, control: Resolved, option: str) -> bool:
    """Do any options show within a moment (``_REOPEN_WAIT_MS``)?"""

    async def open_now() -> bool:
        match = await _find_option(ctx, control, option)
        if "index" in match or match.get("options"):
            return True
        raise NotYet("no options are open")

    try:
        return await poll_until(
            ctx.deadline.child(_REOPEN_WAIT_MS),
            open_now,
            interval=0.05,
            retry=lambda exc: isinstance(exc, NotYet),
        )
    except ReinsError:
        return False


async def _close(ctx: CommandContext, control: Resolved, option: Resolved) -> None:
    """Close the popup choose opened and pressed nothing in: Escape, sent only while the focus is
    in the control, or on the option (a menu that takes the focus to its chosen item: MUI's
    Select, Radix's); a popup with the focus elsewhere stays open."""
    for where in (control, option):
        try:
            await press_keys(
                ctx, parse_keys("Escape"), keys_for=KeysFor(where.object_id, where.session_id)
            )
            return
        except ReinsError as exc:
            if exc.code != "focus_elsewhere":
                raise


async def _trigger_shows(ctx: CommandContext, trigger: Resolved) -> str:
    return str(
        await call_function(
            ctx, trigger.object_id, "triggerShows", session_id=trigger.session_id, what="choose"
        )
        or ""
    )


def _held_texts(label: str, asked: str, before: str) -> list[str]:
    """What the widget may show once ``label`` is pressed: the label, and the text asked for
    when the label holds it and the widget did not show it before (an option that creates what
    was typed, `Create "Design"`, leaves the widget showing `Design`)."""
    texts = [label]
    if _norm(asked) != _norm(label) and _norm(asked) in _norm(label):
        if _norm(asked) not in _norm(before):
            texts.append(asked)
    return texts


async def _shows(ctx: CommandContext, trigger: Resolved, texts: list[str]) -> tuple[str, str]:
    """What the widget shows, once it shows one of ``texts`` (the first of them is the label
    pressed), with the one it shows."""
    label = texts[0]
    seen: dict[str, str] = {}

    async def showing() -> tuple[str, str]:
        shows = await _trigger_shows(ctx, trigger)
        seen["shows"] = shows
        for text in texts:
            if _norm(text) in _norm(shows):
                return shows, text
        raise NotYet(f"the widget shows {shows!r}")

    def gave_up(last: ReinsError) -> ReinsError:
        return ActionError(
            f"chose {label!r} but the widget shows {seen.get('shows', '')!r}",
            code="choose_mismatch",
            details={"shows": seen.get("shows", ""), "chose": label},
        )

    return await poll_until(
        ctx.deadline,
        showing,
        interval=0.1,
        attempts=_SHOW_TRIES,
        reserve_s=0.2,
        gave_up=gave_up,
        retry=lambda exc: isinstance(exc, NotYet),
    )
