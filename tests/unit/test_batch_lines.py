"""`reins batch` reads each line in the CLI syntax: its splitter must give exactly what POSIX
``shlex.split`` gives (the words, or shlex's error message, as a bad_request), only without reading one
character at a time in Python."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from reins._errors import UsageError
from reins.cli.batch import split_line


def _shlex(line: str) -> list[str] | tuple[str, str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        return ("ValueError", str(exc))


def _ours(line: str) -> list[str] | tuple[str, str]:
    try:
        return split_line(line)
    except UsageError as exc:
        return ("ValueError", str(exc))


# The characters shlex treats specially, a few it does not (a Unicode space, a non-ASCII letter),
# and plain ones, so that random lines are mostly quoting and escaping.
_LINES = st.text(alphabet=st.sampled_from(list("ab \t'\"\\\n\r\xa0é#;=@$")), max_size=40)


@settings(max_examples=3000, deadline=None)
@given(_LINES)
@example('"\\')  # an unclosed "…" that ends in a backslash: shlex calls it an escape
@example("a\\")
@example('"a\\\\\\"b" \'c\\d\'')
@example("''")
@example('a""b')
def test_every_line_splits_as_shlex_splits_it(line: str) -> None:
    assert _ours(line) == _shlex(line)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("click @save", ["click", "@save"]),
        ("fill @name 'Blue Bottle Coffee'", ["fill", "@name", "Blue Bottle Coffee"]),
        ('eval "document.title + \\"!\\""', ["eval", 'document.title + "!"']),
        ("type @q it\\'s", ["type", "@q", "it's"]),
        ("fill @x ''", ["fill", "@x", ""]),
        ("find --text Save\xa0all", ["find", "--text", "Save\xa0all"]),
    ],
)
def test_the_cli_syntax(line: str, words: list[str]) -> None:
    assert split_line(line) == words


def test_a_long_eval_line_is_one_word() -> None:
    expression = "(() => { const s = 'x \"y\"'; return [1, 2].map(v => v * 2); })(); " * 600
    line = "eval " + shlex.quote(expression)
    assert split_line(line) == ["eval", expression]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("fill @x 'unclosed", "No closing quotation"),
        ('fill @x "unclosed', "No closing quotation"),
        ("click @x\\", "No escaped character"),
    ],
)
def test_unreadable_lines_are_bad_requests(line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as raised:
        split_line(line)
    assert raised.value.code == "bad_request" and raised.value.hint


class _Conn:
    def __init__(self, answer: dict[str, object]) -> None:
        self.answer = answer

    def call(self, cmd: str) -> dict[str, object]:
        assert cmd == "trace_stop"
        return self.answer


def test_a_batch_trace_with_holes_says_so_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    from reins.cli.batch import stop_trace

    whole = {"ok": True, "steps": 3, "recorded": 3, "dir": "/t", "report": "reins report /t"}
    assert stop_trace(_Conn({**whole, "warnings": []})) is True
    assert "trace stopped: 3 steps in /t" in capsys.readouterr().err
    holed = {
        **whole,
        "recorded": 1,
        "warnings": ["trace_incomplete"],
        "lost": {"step_numbers": [[2, 3]], "error": "No space left on device"},
    }
    assert stop_trace(_Conn(holed)) is False
    err = capsys.readouterr().err
    assert "warning: trace_incomplete: 2 of 3 steps not written: 2-3" in err
    assert "INCOMPLETE" in err
