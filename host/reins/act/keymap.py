"""The US keyboard layout as data: every key's code, key, virtual key code, location and what it
types, plain and with Shift. `press` and `type` both read it (act/keyboard.py).

Facts follow the UI Events KeyboardEvent code/key tables and Windows virtual key codes, as Chrome
reports them for a US layout: `+` is Shift+Equal (code `Equal`, key code 187), `~` is
Shift+Backquote, the left and right modifier keys have locations 1 and 2 (key code 16 for both
Shift keys, as Chrome gives `keyCode`), numpad keys location 3 (NumLock on).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CHARACTERS",
    "KEYS",
    "LOCATION_LEFT",
    "LOCATION_NUMPAD",
    "LOCATION_RIGHT",
    "LOCATION_STANDARD",
    "MODIFIER_KEYS",
    "Key",
    "key_named",
]

LOCATION_STANDARD, LOCATION_LEFT, LOCATION_RIGHT, LOCATION_NUMPAD = 0, 1, 2, 3


@dataclass(frozen=True)
class Key:
    """One physical key: ``key`` is KeyboardEvent.key without Shift, ``shifted`` with it (empty
    when Shift does not change it); ``text`` what it types (empty for keys that type nothing)."""

    code: str
    key: str
    key_code: int
    location: int = LOCATION_STANDARD
    shifted: str = ""
    text: str = ""

    @property
    def shifted_text(self) -> str:
        return self.shifted if self.shifted else self.text


def _typing(code: str, key: str, key_code: int, shifted: str = "") -> Key:
    return Key(code, key, key_code, shifted=shifted, text=key)


def _named(code: str, key_code: int, key: str | None = None, text: str = "") -> Key:
    return Key(code, key if key is not None else code, key_code, text=text)


def _numpad(code: str, key: str, key_code: int) -> Key:
    return Key(code, key, key_code, location=LOCATION_NUMPAD, text=key if len(key) == 1 else "")


KEYS: tuple[Key, ...] = (
    # function row
    _named("Escape", 27),
    *(_named(f"F{n}", 111 + n) for n in range(1, 13)),
    # number row
    _typing("Backquote", "`", 192, "~"),
    *(_typing(f"Digit{d}", d, ord(d), s) for d, s in zip("1234567890", "!@#$%^&*()", strict=True)),
    _typing("Minus", "-", 189, "_"),
    _typing("Equal", "=", 187, "+"),
    _named("Backspace", 8),
    # letter rows
    _named("Tab", 9),
    *(_typing(f"Key{c}", c.lower(), ord(c), c) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    _typing("BracketLeft", "[", 219, "{"),
    _typing("BracketRight", "]", 221, "}"),
    _typing("Backslash", "\\", 220, "|"),
    _named("CapsLock", 20),
    _typing("Semicolon", ";", 186, ":"),
    _typing("Quote", "'", 222, '"'),
    _named("Enter", 13, text="\r"),
    _typing("Comma", ",", 188, "<"),
    _typing("Period", ".", 190, ">"),
    _typing("Slash", "/", 191, "?"),
    _typing("Space", " ", 32),
    # modifiers
    Key("ShiftLeft", "Shift", 16, LOCATION_LEFT),
    Key("ShiftRight", "Shift", 16, LOCATION_RIGHT),
    Key("ControlLeft", "Control", 17, LOCATION_LEFT),
    Key("ControlRight", "Control", 17, LOCATION_RIGHT),
    Key("AltLeft", "Alt", 18, LOCATION_LEFT),
    Key("AltRight", "Alt", 18, LOCATION_RIGHT),
    Key("MetaLeft", "Meta", 91, LOCATION_LEFT),
    Key("MetaRight", "Meta", 92, LOCATION_RIGHT),
    _named("ContextMenu", 93),
    # navigation block
    _named("PrintScreen", 44),
    _named("ScrollLock", 145),
    _named("Pause", 19),
    _named("Insert", 45),
    _named("Delete", 46),
    _named("Home", 36),
    _named("End", 35),
    _named("PageUp", 33),
    _named("PageDown", 34),
    _named("ArrowUp", 38),
    _named("ArrowDown", 40),
    _named("ArrowLeft", 37),
    _named("ArrowRight", 39),
    # numpad, NumLock on
    _named("NumLock", 144),
    _numpad("NumpadDivide", "/", 111),
    _numpad("NumpadMultiply", "*", 106),
    _numpad("NumpadSubtract", "-", 109),
    _numpad("NumpadAdd", "+", 107),
    Key("NumpadEnter", "Enter", 13, LOCATION_NUMPAD, text="\r"),
    _numpad("NumpadDecimal", ".", 110),
    *(_numpad(f"Numpad{d}", d, 96 + int(d)) for d in "0123456789"),
)

_BY_CODE: dict[str, Key] = {k.code.lower(): k for k in KEYS}

# Names a person writes for a key that are not its code: the key value, and short forms.
_ALIASES: dict[str, str] = {
    "shift": "ShiftLeft",
    "control": "ControlLeft",
    "ctrl": "ControlLeft",
    "alt": "AltLeft",
    "option": "AltLeft",
    "meta": "MetaLeft",
    "cmd": "MetaLeft",
    "command": "MetaLeft",
    "esc": "Escape",
    "return": "Enter",
    "del": "Delete",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "pgup": "PageUp",
    "pgdn": "PageDown",
    "ins": "Insert",
}

# The modifier bit CDP's Input.dispatchKeyEvent uses for each modifier key, and the key it
# presses (the left one).
MODIFIER_KEYS: dict[int, Key] = {
    1: _BY_CODE["altleft"],
    2: _BY_CODE["controlleft"],
    4: _BY_CODE["metaleft"],
    8: _BY_CODE["shiftleft"],
}


def _characters() -> dict[str, tuple[Key, bool]]:
    """Character -> (the key that types it, whether Shift is held): the main block only, as a
    typist reaches for it (never the numpad)."""
    out: dict[str, tuple[Key, bool]] = {}
    for key in KEYS:
        if key.location != LOCATION_STANDARD:
            continue
        if len(key.text) == 1 and key.text != "\r":
            out.setdefault(key.text, (key, False))
        if key.shifted:
            out.setdefault(key.shifted, (key, True))
    enter = _BY_CODE["enter"]
    out["\n"] = out["\r"] = (enter, False)
    return out


# Every character a US keyboard types with one key (and Shift): what `type` sends as key events.
CHARACTERS: dict[str, tuple[Key, bool]] = _characters()


def key_named(name: str) -> Key | None:
    """A key by its code (`Equal`, `ShiftRight`, `Numpad1`), its name (`Enter`, `Shift`,
    `Control`) or a short form (`esc`, `pgdn`), any case; None when it has no such name. Single
    characters are looked up in ``CHARACTERS`` instead."""
    lowered = name.lower()
    return _BY_CODE.get(_ALIASES.get(lowered, lowered).lower())
