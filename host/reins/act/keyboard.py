"""Keyboard input: key chords parsed from `Control+A`-style specs and sent as CDP key events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reins._errors import UsageError
from reins.bridge.context import CommandContext

__all__ = ["KeyChord", "parse_keys", "press_keys"]


_MODIFIER_BITS = {"alt": 1, "control": 2, "ctrl": 2, "meta": 4, "cmd": 4, "command": 4, "shift": 8}
_MODIFIER_KEYS = {
    1: ("Alt", "AltLeft", 18),
    2: ("Control", "ControlLeft", 17),
    4: ("Meta", "MetaLeft", 91),
    8: ("Shift", "ShiftLeft", 16),
}
# key -> (code, windowsVirtualKeyCode, text)
_NAMED_KEYS: dict[str, tuple[str, int, str]] = {
    "Enter": ("Enter", 13, "\r"),
    "Tab": ("Tab", 9, ""),
    "Escape": ("Escape", 27, ""),
    "Backspace": ("Backspace", 8, ""),
    "Delete": ("Delete", 46, ""),
    "Space": ("Space", 32, " "),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""),
    "End": ("End", 35, ""),
    "PageUp": ("PageUp", 33, ""),
    "PageDown": ("PageDown", 34, ""),
    "Insert": ("Insert", 45, ""),
    **{f"F{n}": (f"F{n}", 111 + n, "") for n in range(1, 13)},
}
_ALIASES = {
    "esc": "Escape",
    "return": "Enter",
    "del": "Delete",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    " ": "Space",
    "space": "Space",
    "pgup": "PageUp",
    "pgdn": "PageDown",
}


@dataclass(frozen=True)
class KeyChord:
    key: str
    code: str
    key_code: int
    text: str
    modifiers: int


def parse_keys(spec: str) -> KeyChord:
    """`Control+A`, `Shift+Tab`, `Enter`, `a` -> one chord (pure)."""
    parts = [p for p in spec.split("+")] if spec != "+" else ["+"]
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
    name = _ALIASES.get(name.lower(), name)
    canonical = next((k for k in _NAMED_KEYS if k.lower() == name.lower()), None)
    if canonical is not None:
        code, vk, text = _NAMED_KEYS[canonical]
        key = " " if canonical == "Space" else canonical
        return KeyChord(key, code, vk, text if modifiers & ~8 == 0 else "", modifiers)
    if len(name) != 1:
        raise UsageError(f"unknown key {name!r}", code="bad_request")
    ch = name
    if ch.isalpha():
        upper = ch.upper()
        key = upper if modifiers & 8 else ch.lower() if len(ch) == 1 else ch
        code, vk = f"Key{upper}", ord(upper)
    elif ch.isdigit():
        key, code, vk = ch, f"Digit{ch}", ord(ch)
    else:
        key, code, vk = ch, "", 0
    # With Control/Alt/Meta held a key types nothing (it is a shortcut).
    text = key if modifiers & ~8 == 0 else ""
    return KeyChord(key, code, vk, text, modifiers)


async def press_keys(
    ctx: CommandContext, chord: KeyChord, *, session_id: str | None = None
) -> None:
    held = 0
    for bit, (key, code, vk) in _MODIFIER_KEYS.items():
        if chord.modifiers & bit:
            held |= bit
            await ctx.cdp(
                "Input.dispatchKeyEvent",
                {
                    "type": "rawKeyDown",
                    "key": key,
                    "code": code,
                    "windowsVirtualKeyCode": vk,
                    "modifiers": held,
                },
            )
    down: dict[str, Any] = {
        "type": "keyDown" if chord.text else "rawKeyDown",
        "key": chord.key,
        "code": chord.code,
        "windowsVirtualKeyCode": chord.key_code,
        "modifiers": chord.modifiers,
    }
    if chord.text:
        down["text"] = chord.text
        down["unmodifiedText"] = chord.text
    if chord.modifiers & 2 and len(chord.key) == 1 and chord.key.lower() in "acvxyz":
        # Editing shortcuts run as editor commands, as they do in a real browser window.
        down["commands"] = [
            {"a": "selectAll", "c": "copy", "v": "paste", "x": "cut", "y": "redo", "z": "undo"}[
                chord.key.lower()
            ]
        ]
    await ctx.cdp("Input.dispatchKeyEvent", down)
    await ctx.cdp(
        "Input.dispatchKeyEvent",
        {
            "type": "keyUp",
            "key": chord.key,
            "code": chord.code,
            "windowsVirtualKeyCode": chord.key_code,
            "modifiers": chord.modifiers,
        },
    )
    for bit, (key, code, vk) in reversed(list(_MODIFIER_KEYS.items())):
        if chord.modifiers & bit:
            held &= ~bit
            await ctx.cdp(
                "Input.dispatchKeyEvent",
                {
                    "type": "keyUp",
                    "key": key,
                    "code": code,
                    "windowsVirtualKeyCode": vk,
                    "modifiers": held,
                },
            )
