"""Keyboard input: key chords (`Control+A`, `+`, `Shift+~`) and typed text, as the CDP key events a
US keyboard gives (act/keymap.py), sent as one ordered batch.

A character that needs Shift on that keyboard (`A`, `+`, `~`) is pressed with Shift held, as a
person does; with Control, Alt or Meta held a letter names its key whatever its case (`Control+A`
is Control and the A key, no Shift), and the key types nothing (it is a shortcut). Characters no
key types (é, emoji, CJK) are inserted as text (`Input.insertText`), as an input method does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reins._errors import EvaluateError, ReinsError, ResolutionError, UsageError
from reins._pagetext import quote
from reins.act.answers import Fields
from reins.act.keymap import CHARACTERS, LOCATION_NUMPAD, MODIFIER_KEYS, Key, key_named
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, BatchStep, CdpCommand, CdpParams, CdpResult
from reins.bridge.protocol import STOP_IF_THROWN
from reins.page.call import call_params, call_value, page_constant

__all__ = [
    "KeyChord",
    "KeysFields",
    "KeysFor",
    "chord_events",
    "parse_keys",
    "press_keys",
    "send_keys",
    "typing_events",
]

_SHIFT, _SHORTCUT_BITS = 8, 1 | 2 | 4
_MODIFIER_BITS = {"alt": 1, "control": 2, "ctrl": 2, "meta": 4, "cmd": 4, "command": 4, "shift": 8}
_MODIFIER_BIT_OF_KEY = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
# Editing shortcuts run as editor commands, as they do in a real browser window.
_EDITING_COMMANDS = {
    "a": "selectAll",
    "c": "copy",
    "v": "paste",
    "x": "cut",
    "y": "redo",
    "z": "undo",
}
# Events per batch message (~20 ms each in Chrome): a long text goes in several, so a command
# whose budget runs out leaves at most one batch (about two seconds of keys) still arriving.
_BATCH = 100

Event = CdpCommand


class KeysFields(Fields, total=False):
    """press's own answer field: the keys pressed, as given."""

    keys: str


@dataclass(frozen=True)
class KeyChord:
    key: str
    code: str
    key_code: int
    text: str
    modifiers: int
    location: int = 0


def _chord(key: Key, modifiers: int) -> KeyChord:
    shifted = bool(modifiers & _SHIFT)
    value = key.shifted if shifted and key.shifted else key.key
    text = "" if modifiers & _SHORTCUT_BITS else (key.shifted_text if shifted else key.text)
    return KeyChord(value, key.code, key.key_code, text, modifiers, key.location)


def parse_keys(spec: str) -> KeyChord:
    """`Control+A`, `Shift+Tab`, `Enter`, `a`, `+`, `Shift+~`, `NumpadAdd` -> one chord (pure)."""
    parts = spec.split("+") if spec != "+" else ["+"]
    if any(p == "" for p in parts):
        raise UsageError(
            f"{spec!r}: keys look like Enter, Control+A, Shift+Tab", code="bad_request"
        )
    modifiers = 0
    for part in parts[:-1]:
        bit = _MODIFIER_BITS.get(part.lower())
        if bit is None:
            raise UsageError(
                f"{part!r} is not a modifier (Control, Shift, Alt, Meta)", code="bad_request"
            )
        modifiers |= bit
    name = parts[-1]
    if len(name) == 1:
        found = CHARACTERS.get(name)
        if found is None:  # no key types it on a US keyboard: sent as the character itself
            text = "" if modifiers & _SHORTCUT_BITS else name
            return KeyChord(name, "", 0, text, modifiers)
        key, needs_shift = found
        if needs_shift and not (name.isalpha() and modifiers & _SHORTCUT_BITS):
            modifiers |= _SHIFT
        return _chord(key, modifiers)
    named = key_named(name)
    if named is None:
        raise UsageError(
            f"unknown key {name!r} (a character, a key name like Enter or ArrowUp, or a code "
            "like Equal, Numpad1, ShiftRight)",
            code="bad_request",
        )
    return _chord(named, modifiers)


def _key_event(kind: str, chord: KeyChord, modifiers: int) -> Event:
    params: CdpParams = {
        "type": kind,
        "key": chord.key,
        "code": chord.code,
        "windowsVirtualKeyCode": chord.key_code,
        "modifiers": modifiers,
    }
    if chord.location:
        params["location"] = chord.location
    if chord.location == LOCATION_NUMPAD:
        params["isKeypad"] = True
    return "Input.dispatchKeyEvent", params


def chord_events(chord: KeyChord) -> list[Event]:
    """The CDP key events of one chord: its modifiers pressed in turn, the key down and up, the
    modifiers released in reverse (pure). A modifier key pressed on its own carries its own bit
    while it is down, as Chrome reports a real one."""
    events: list[Event] = []
    held = 0
    for bit, key in MODIFIER_KEYS.items():
        if chord.modifiers & bit and key.key != chord.key:
            held |= bit
            events.append(_key_event("rawKeyDown", _chord(key, 0), held))
    own = _MODIFIER_BIT_OF_KEY.get(chord.key, 0)
    down_kind = "keyDown" if chord.text else "rawKeyDown"
    kind, down = _key_event(down_kind, chord, held | own)
    if chord.text:
        down["text"] = chord.text
        down["unmodifiedText"] = chord.text
    if chord.modifiers & 2 and chord.key.lower() in _EDITING_COMMANDS:
        down["commands"] = [_EDITING_COMMANDS[chord.key.lower()]]
    events.append((kind, down))
    events.append(_key_event("keyUp", chord, held))
    for bit, key in reversed(list(MODIFIER_KEYS.items())):
        if held & bit:
            held &= ~bit
            events.append(_key_event("keyUp", _chord(key, 0), held))
    return events


def typing_events(text: str) -> list[Event]:
    """What typing ``text`` on a US keyboard sends (pure): each character's key down and up, Shift
    held down over a run of shifted characters (as a typist holds it for `HELLO`), a newline as
    Enter, and a run of characters no key types as one ``Input.insertText``."""
    events: list[Event] = []
    untyped: list[str] = []
    shift_key = _chord(MODIFIER_KEYS[_SHIFT], 0)
    held = 0
    for ch in text:
        found = CHARACTERS.get(ch)
        wants = _SHIFT if found is not None and found[1] else 0
        if held and not wants:
            events.append(_key_event("keyUp", shift_key, 0))
            held = 0
        if found is None:
            untyped.append(ch)
            continue
        if untyped:
            events.append(("Input.insertText", {"text": "".join(untyped)}))
            untyped = []
        if wants and not held:
            events.append(_key_event("rawKeyDown", shift_key, _SHIFT))
            held = _SHIFT
        chord = _chord(found[0], held)
        kind, down = _key_event("keyDown", chord, held)
        down["text"] = down["unmodifiedText"] = chord.text
        events += [(kind, down), _key_event("keyUp", chord, held)]
    if untyped:
        events.append(("Input.insertText", {"text": "".join(untyped)}))
    if held:
        events.append(_key_event("keyUp", shift_key, 0))
    return events


def _first_failure(answers: list[BatchAnswer]) -> ReinsError:
    return next(a for a in answers if isinstance(a, ReinsError))


# Key events that put something into the focused element (a modifier held on its own does not).
_TYPING = frozenset({"keyDown", "rawKeyDown", "char"})


@dataclass(frozen=True)
class KeysFor:
    """The element the keys are for (its handle in reins's world, and its session): before each
    key that types or acts, the page's focus is checked to be on it or inside it (``keysGoTo``),
    in the batch with the keys, which stops there when it is not."""

    object_id: str
    session_id: str | None = None


def _guarded(
    part: list[Event], guard: KeysFor | None
) -> tuple[list[Event], list[BatchStep], list[bool]]:
    """The batch for ``part`` with a focus check before each key that types (pure), the
    per-command fields, and which commands are checks."""
    batch: list[Event] = []
    each: list[BatchStep] = []
    checks: list[bool] = []
    for method, params in part:
        key = method == "Input.insertText" or (
            method == "Input.dispatchKeyEvent" and params.get("type") in _TYPING
        )
        if guard is not None and key:
            batch.append(("Runtime.callFunctionOn", call_params(guard.object_id, "keysGoTo")))
            extra: BatchStep = {"stopIfThrown": True}
            if guard.session_id:
                extra["sessionId"] = guard.session_id
            each.append(extra)
            checks.append(True)
        batch.append((method, params))
        each.append({})
        checks.append(False)
    return batch, each, checks


def _focus_moved(answer: CdpResult) -> ResolutionError:
    try:
        call_value(answer, what="focus check")
    except EvaluateError as exc:
        text = str(exc)
        marker = page_constant("FOCUS_ELSEWHERE")
        where = text.split(marker, 1)[1].strip() if marker in text else "another element"
        return ResolutionError(
            f"keyboard focus is on {quote(where, 160)}, not on the target: no key was sent from"
            " there on",
            code="focus_elsewhere",
            transient=False,
            details={"focused": where},
        )
    except ReinsError as exc:
        return ResolutionError(f"the focus check failed: {exc}", code="focus_elsewhere")
    return ResolutionError("the focus check stopped the keys", code="focus_elsewhere")


async def send_keys(
    ctx: CommandContext,
    events: list[Event],
    *,
    then: Sequence[tuple[str, CdpParams, str | None]] = (),
    keys_for: KeysFor | None = None,
    answer_within_ms: int | None = None,
) -> list[BatchAnswer]:
    """Send key events in order, each after the page handled the previous one, a few hundred per
    round trip; the first failure among them is raised. ``then`` (method, params, session each):
    more commands in the last round trip, once the page handled the last key; their answers are
    returned (a failure among them ends them there, answered, not raised; ``answer_within_ms``:
    past it the last round trip answers what it has). ``keys_for``: the element the keys are
    for; a key is sent only while focus is on it or inside it (an extension without
    ``stopIfThrown`` gets no checks)."""
    guard = keys_for if keys_for is not None and ctx.host.link.has(STOP_IF_THROWN) else None
    parts = [events[start : start + _BATCH] for start in range(0, len(events), _BATCH)] or [[]]
    out: list[BatchAnswer] = []
    for n, part in enumerate(parts):
        batch, each, checks = _guarded(list(part), guard)
        keys = len(batch)
        last = n == len(parts) - 1
        if last:
            for method, params, session in then:
                batch.append((method, params))
                each.append({"sessionId": session} if session else {})
        if not batch:
            continue
        within = answer_within_ms if last and then else None
        answers = await ctx.cdp_batch(batch, sequential=True, each=each, answer_within_ms=within)
        head = answers[:keys]
        if any(isinstance(a, ReinsError) for a in head):
            raise _first_failure(head)
        keys_cut = len(head) < keys
        if keys_cut and head and checks[len(head) - 1]:
            stopped = head[-1]
            if isinstance(stopped, dict) and stopped.get("exceptionDetails"):
                raise _focus_moved(stopped)
        # The commands after the keys were sent, yet the batch ended without a word on any of
        # them (a failure or a timeout among them is answered, so this is a batch cut short).
        then_unanswered = len(batch) > keys and len(answers) == keys
        if keys_cut or then_unanswered:
            raise ReinsError("the key events were cut short", code="cdp_error", transient=True)
        if last:
            out = answers[keys:]
    return out


async def press_keys(ctx: CommandContext, chord: KeyChord, keys_for: KeysFor | None = None) -> None:
    await send_keys(ctx, chord_events(chord), keys_for=keys_for)
