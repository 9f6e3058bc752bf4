"""Key chords (reins.act.keyboard.parse_keys): named keys, aliases, modifiers, letters, errors."""

from __future__ import annotations

import pytest
from reins._errors import UsageError
from reins.act.keyboard import KeyChord, parse_keys

ALT, CONTROL, META, SHIFT = 1, 2, 4, 8  # CDP's Input.dispatchKeyEvent modifier bits


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("Enter", KeyChord("Enter", "Enter", 13, "\r", 0)),
        ("Tab", KeyChord("Tab", "Tab", 9, "", 0)),
        ("Escape", KeyChord("Escape", "Escape", 27, "", 0)),
        ("Backspace", KeyChord("Backspace", "Backspace", 8, "", 0)),
        ("Delete", KeyChord("Delete", "Delete", 46, "", 0)),
        ("Space", KeyChord(" ", "Space", 32, " ", 0)),
        ("ArrowUp", KeyChord("ArrowUp", "ArrowUp", 38, "", 0)),
        ("ArrowDown", KeyChord("ArrowDown", "ArrowDown", 40, "", 0)),
        ("ArrowLeft", KeyChord("ArrowLeft", "ArrowLeft", 37, "", 0)),
        ("ArrowRight", KeyChord("ArrowRight", "ArrowRight", 39, "", 0)),
        ("Home", KeyChord("Home", "Home", 36, "", 0)),
        ("End", KeyChord("End", "End", 35, "", 0)),
        ("PageUp", KeyChord("PageUp", "PageUp", 33, "", 0)),
        ("PageDown", KeyChord("PageDown", "PageDown", 34, "", 0)),
        ("Insert", KeyChord("Insert", "Insert", 45, "", 0)),
        ("F1", KeyChord("F1", "F1", 112, "", 0)),
        ("F12", KeyChord("F12", "F12", 123, "", 0)),
    ],
)
def test_named_keys(spec: str, want: KeyChord) -> None:
    assert parse_keys(spec) == want


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("enter", "Enter"),
        ("ENTER", "Enter"),
        ("f5", "F5"),
        ("pageup", "PageUp"),
        ("esc", "Escape"),
        ("ESC", "Escape"),
        ("return", "Enter"),
        ("Return", "Enter"),
        ("del", "Delete"),
        ("up", "ArrowUp"),
        ("Down", "ArrowDown"),
        ("left", "ArrowLeft"),
        ("RIGHT", "ArrowRight"),
        ("pgup", "PageUp"),
        ("pgdn", "PageDown"),
    ],
)
def test_names_are_case_insensitive_and_aliases_map_to_them(spec: str, canonical: str) -> None:
    assert parse_keys(spec) == parse_keys(canonical)
    assert parse_keys(spec).key == canonical


@pytest.mark.parametrize("spec", ["space", "SPACE", " "])
def test_space_spellings(spec: str) -> None:
    assert parse_keys(spec) == KeyChord(" ", "Space", 32, " ", 0)


@pytest.mark.parametrize(
    ("spec", "modifiers"),
    [
        ("Alt+Tab", ALT),
        ("Control+Tab", CONTROL),
        ("Ctrl+Tab", CONTROL),
        ("Meta+Tab", META),
        ("Cmd+Tab", META),
        ("Command+Tab", META),
        ("Shift+Tab", SHIFT),
        ("shift+Tab", SHIFT),
        ("CONTROL+Tab", CONTROL),
        ("Control+Shift+Tab", CONTROL | SHIFT),
        ("ctrl+alt+shift+meta+Tab", ALT | CONTROL | META | SHIFT),
        ("Control+Ctrl+Tab", CONTROL),
    ],
)
def test_modifiers_combine_as_bits(spec: str, modifiers: int) -> None:
    chord = parse_keys(spec)
    assert (chord.key, chord.modifiers) == ("Tab", modifiers)


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("a", KeyChord("a", "KeyA", 65, "a", 0)),
        ("A", KeyChord("A", "KeyA", 65, "A", SHIFT)),  # an upper-case letter is Shift+A
        ("Shift+a", KeyChord("A", "KeyA", 65, "A", SHIFT)),
        ("Shift+A", KeyChord("A", "KeyA", 65, "A", SHIFT)),
        ("SHIFT+b", KeyChord("B", "KeyB", 66, "B", SHIFT)),
        ("z", KeyChord("z", "KeyZ", 90, "z", 0)),
        ("1", KeyChord("1", "Digit1", 49, "1", 0)),
        ("Shift+1", KeyChord("!", "Digit1", 49, "!", SHIFT)),  # as a US keyboard types it
        ("/", KeyChord("/", "Slash", 191, "/", 0)),
        ("+", KeyChord("+", "Equal", 187, "+", SHIFT)),  # Shift+Equal
        ("é", KeyChord("é", "", 0, "é", 0)),  # no key types it: sent as the character
    ],
)
def test_single_characters(spec: str, want: KeyChord) -> None:
    assert parse_keys(spec) == want


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        # With Control, Alt or Meta held a key is a shortcut and types nothing; Shift alone types.
        ("Control+a", KeyChord("a", "KeyA", 65, "", CONTROL)),
        ("Meta+c", KeyChord("c", "KeyC", 67, "", META)),
        ("Cmd+v", KeyChord("v", "KeyV", 86, "", META)),
        ("Alt+f", KeyChord("f", "KeyF", 70, "", ALT)),
        ("Ctrl+Shift+z", KeyChord("Z", "KeyZ", 90, "", CONTROL | SHIFT)),
        ("Control+/", KeyChord("/", "Slash", 191, "", CONTROL)),
        ("Control+A", KeyChord("a", "KeyA", 65, "", CONTROL)),  # a shortcut names the key
        ("Control+1", KeyChord("1", "Digit1", 49, "", CONTROL)),
        ("Shift+Enter", KeyChord("Enter", "Enter", 13, "\r", SHIFT)),
        ("Control+Enter", KeyChord("Enter", "Enter", 13, "", CONTROL)),
        ("Shift+Space", KeyChord(" ", "Space", 32, " ", SHIFT)),
        ("Control+Space", KeyChord(" ", "Space", 32, "", CONTROL)),
        ("Alt+Enter", KeyChord("Enter", "Enter", 13, "", ALT)),
    ],
)
def test_text_only_without_control_alt_meta(spec: str, want: KeyChord) -> None:
    assert parse_keys(spec) == want


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "keys look like Enter, Control+A, Shift+Tab"),
        ("Control+", "keys look like Enter, Control+A, Shift+Tab"),
        ("+a", "keys look like Enter, Control+A, Shift+Tab"),
        ("Control++", "keys look like Enter, Control+A, Shift+Tab"),
        ("Control++a", "keys look like Enter, Control+A, Shift+Tab"),
        ("Hyper+a", "'Hyper' is not a modifier"),
        ("a+b", "'a' is not a modifier"),
        ("Enter+a", "'Enter' is not a modifier"),
        ("Foo", "unknown key 'Foo'"),
        ("ab", "unknown key 'ab'"),
        ("F13", "unknown key 'F13'"),
        ("Control+Foo", "unknown key 'Foo'"),
    ],
)
def test_invalid_specs_are_bad_requests(spec: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_keys(spec)
    assert info.value.code == "bad_request"
    assert message in str(info.value.args[0])
