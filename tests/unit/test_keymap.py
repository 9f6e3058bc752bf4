"""The US key table (reins.act.keymap) and the key events built from it (reins.act.keyboard):
codes, key codes, locations and Shift as a US keyboard gives them to Chrome."""

from __future__ import annotations

from typing import Any

import pytest
from reins.act.keyboard import chord_events, parse_keys, typing_events
from reins.act.keymap import CHARACTERS, KEYS, MODIFIER_KEYS, key_named

ALT, CONTROL, META, SHIFT = 1, 2, 4, 8


def test_codes_are_unique_and_every_shifted_character_has_one_key() -> None:
    codes = [k.code for k in KEYS]
    assert len(codes) == len(set(codes))
    shifted = [k.shifted for k in KEYS if k.shifted]
    assert len(shifted) == len(set(shifted))


@pytest.mark.parametrize(
    ("char", "code", "key_code", "shift"),
    [
        ("a", "KeyA", 65, False),
        ("A", "KeyA", 65, True),
        ("1", "Digit1", 49, False),
        ("!", "Digit1", 49, True),
        ("@", "Digit2", 50, True),
        (")", "Digit0", 48, True),
        ("=", "Equal", 187, False),
        ("+", "Equal", 187, True),
        ("-", "Minus", 189, False),
        ("_", "Minus", 189, True),
        ("`", "Backquote", 192, False),
        ("~", "Backquote", 192, True),
        ("[", "BracketLeft", 219, False),
        ("}", "BracketRight", 221, True),
        ("\\", "Backslash", 220, False),
        ("|", "Backslash", 220, True),
        (";", "Semicolon", 186, False),
        (":", "Semicolon", 186, True),
        ("'", "Quote", 222, False),
        ('"', "Quote", 222, True),
        (",", "Comma", 188, False),
        ("<", "Comma", 188, True),
        (".", "Period", 190, False),
        (">", "Period", 190, True),
        ("/", "Slash", 191, False),
        ("?", "Slash", 191, True),
        (" ", "Space", 32, False),
        ("\n", "Enter", 13, False),
    ],
)
def test_characters_come_from_the_main_block(
    char: str, code: str, key_code: int, shift: bool
) -> None:
    key, needs_shift = CHARACTERS[char]
    assert (key.code, key.key_code, key.location, needs_shift) == (code, key_code, 0, shift)


@pytest.mark.parametrize("char", ["é", "ü", "€", "😀", "中", "\t"])
def test_characters_no_key_types_are_not_in_the_table(char: str) -> None:
    assert char not in CHARACTERS


@pytest.mark.parametrize(
    ("name", "code", "key", "key_code", "location"),
    [
        ("Shift", "ShiftLeft", "Shift", 16, 1),
        ("ShiftLeft", "ShiftLeft", "Shift", 16, 1),
        ("ShiftRight", "ShiftRight", "Shift", 16, 2),
        ("control", "ControlLeft", "Control", 17, 1),
        ("ControlRight", "ControlRight", "Control", 17, 2),
        ("Alt", "AltLeft", "Alt", 18, 1),
        ("Meta", "MetaLeft", "Meta", 91, 1),
        ("MetaRight", "MetaRight", "Meta", 92, 2),
        ("Numpad1", "Numpad1", "1", 97, 3),
        ("NumpadAdd", "NumpadAdd", "+", 107, 3),
        ("NumpadEnter", "NumpadEnter", "Enter", 13, 3),
        ("NumpadDecimal", "NumpadDecimal", ".", 110, 3),
        ("Equal", "Equal", "=", 187, 0),
        ("Backquote", "Backquote", "`", 192, 0),
        ("enter", "Enter", "Enter", 13, 0),
        ("esc", "Escape", "Escape", 27, 0),
        ("space", "Space", " ", 32, 0),
    ],
)
def test_keys_by_name_or_code(name: str, code: str, key: str, key_code: int, location: int) -> None:
    found = key_named(name)
    assert found is not None
    assert (found.code, found.key, found.key_code, found.location) == (
        code,
        key,
        key_code,
        location,
    )


def test_modifier_bits_press_the_left_keys() -> None:
    assert {bit: k.code for bit, k in MODIFIER_KEYS.items()} == {
        ALT: "AltLeft",
        CONTROL: "ControlLeft",
        META: "MetaLeft",
        SHIFT: "ShiftLeft",
    }


def _brief(events: list[tuple[str, dict[str, Any]]]) -> list[tuple[Any, ...]]:
    return [
        (p["type"], p["key"], p["code"], p["modifiers"], p.get("text"), p.get("location", 0))
        for _, p in events
    ]


def test_press_plus_holds_shift_on_the_equal_key() -> None:
    assert _brief(chord_events(parse_keys("+"))) == [
        ("rawKeyDown", "Shift", "ShiftLeft", SHIFT, None, 1),
        ("keyDown", "+", "Equal", SHIFT, "+", 0),
        ("keyUp", "+", "Equal", SHIFT, None, 0),
        ("keyUp", "Shift", "ShiftLeft", 0, None, 1),
    ]


def test_press_shift_tilde_is_shift_backquote() -> None:
    events = chord_events(parse_keys("Shift+~"))
    assert _brief(events)[1] == ("keyDown", "~", "Backquote", SHIFT, "~", 0)
    assert events[1][1]["windowsVirtualKeyCode"] == 192
    assert parse_keys("Shift+~") == parse_keys("~") == parse_keys("Shift+`")


def test_a_modifier_key_pressed_alone_carries_its_own_bit_while_down() -> None:
    assert _brief(chord_events(parse_keys("Shift"))) == [
        ("rawKeyDown", "Shift", "ShiftLeft", SHIFT, None, 1),
        ("keyUp", "Shift", "ShiftLeft", 0, None, 1),
    ]
    right = chord_events(parse_keys("ControlRight"))
    assert [(p["type"], p["modifiers"], p["location"]) for _, p in right] == [
        ("rawKeyDown", CONTROL, 2),
        ("keyUp", 0, 2),
    ]


def test_numpad_keys_are_keypad_events() -> None:
    down = chord_events(parse_keys("Numpad5"))[0][1]
    assert (down["key"], down["code"], down["windowsVirtualKeyCode"]) == ("5", "Numpad5", 101)
    assert (down["location"], down["isKeypad"], down["text"]) == (3, True, "5")


def test_control_letter_is_a_shortcut_with_its_editing_command() -> None:
    events = chord_events(parse_keys("Control+A"))
    assert _brief(events) == [
        ("rawKeyDown", "Control", "ControlLeft", CONTROL, None, 1),
        ("rawKeyDown", "a", "KeyA", CONTROL, None, 0),
        ("keyUp", "a", "KeyA", CONTROL, None, 0),
        ("keyUp", "Control", "ControlLeft", 0, None, 1),
    ]
    assert events[1][1]["commands"] == ["selectAll"]


def test_typing_sends_each_character_as_its_keys() -> None:
    events = typing_events("aB+c")
    assert [(p["type"], p["key"], p["code"], p["modifiers"], p.get("text")) for _, p in events] == [
        ("keyDown", "a", "KeyA", 0, "a"),
        ("keyUp", "a", "KeyA", 0, None),
        ("rawKeyDown", "Shift", "ShiftLeft", SHIFT, None),  # held over the run "B+"
        ("keyDown", "B", "KeyB", SHIFT, "B"),
        ("keyUp", "B", "KeyB", SHIFT, None),
        ("keyDown", "+", "Equal", SHIFT, "+"),
        ("keyUp", "+", "Equal", SHIFT, None),
        ("keyUp", "Shift", "ShiftLeft", 0, None),
        ("keyDown", "c", "KeyC", 0, "c"),
        ("keyUp", "c", "KeyC", 0, None),
    ]
    assert all(m == "Input.dispatchKeyEvent" for m, _ in events)


def test_typing_lets_go_of_shift_at_the_end_and_before_inserted_text() -> None:
    events = typing_events("A")
    assert [(p["type"], p["key"]) for _, p in events][-1] == ("keyUp", "Shift")
    events = typing_events("Aé")
    assert [m for m, _ in events][-2:] == ["Input.dispatchKeyEvent", "Input.insertText"]
    assert events[-2][1]["type"] == "keyUp" and events[-2][1]["key"] == "Shift"


def test_typing_inserts_what_no_key_types_as_text_in_order() -> None:
    events = typing_events("café 👍🏽 ok")
    given = [
        p["text"] if m == "Input.insertText" else p["key"]
        for m, p in events
        if m == "Input.insertText" or p["type"] == "keyDown"
    ]
    # a run of such characters (an emoji and its skin tone) is one insertion
    assert given == ["c", "a", "f", "é", " ", "👍🏽", " ", "o", "k"]


def test_typing_a_newline_presses_enter() -> None:
    events = typing_events("a\nb")
    assert [p["key"] for _, p in events if p["type"] == "keyDown"] == ["a", "Enter", "b"]
    assert [p["text"] for _, p in events if p["type"] == "keyDown"] == ["a", "\r", "b"]
