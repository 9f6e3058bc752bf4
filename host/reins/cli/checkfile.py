"""A check file: a validation run a person reads and writes (`reins run FILE`).

The lines are `reins batch` lines (the CLI's syntax), in order, with `expect` lines stating what
must hold. Blank lines and `#` comments are skipped; a comment `# name: …` names the check (else
the file's name does). `${NAME}` in a line is a variable: from `--var NAME=VALUE`, else from the
environment; `$$` is a `$`. A variable fills one word as it stands (a value with spaces or
quotes stays inside its word). The whole file is read and checked before anything runs: a bad
line is a usage error naming its line number, and nothing runs.

Example::

    # name: an expense is saved with its category
    navigate ${base}/app/expense.html
    fill "role=textbox[name='Merchant']" "${merchant}"
    choose "role=combobox[name='Category']" Meals
    click "role=button[name='Save']"
    expect text "#saved" "Saved: ${merchant}"
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from reins._errors import UsageError
from reins.cli.batch import NOT_A_LINE, split_line

__all__ = ["CheckFile", "Step", "parse_check", "parse_vars"]

_VAR = re.compile(r"\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{[^}]*\}?)")
_NAME = re.compile(r"#\s*name\s*:\s*(.+)", re.IGNORECASE)
# Lines that would take the check over, or run one inside another.
_NOT_A_STEP = {**NOT_A_LINE, "run": "a check file does not run another one"}


@dataclass(frozen=True)
class Step:
    """One line to run: where it stands in the file, as written, and its words."""

    line: int
    text: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class CheckFile:
    name: str
    steps: tuple[Step, ...]


def parse_vars(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs (from --var) as a dict; a pair without ``=`` or with a bad name is a
    usage error."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise UsageError(
                f"--var {pair!r}: give NAME=VALUE (NAME: letters, digits, _)",
                code="bad_request",
            )
        out[name] = value
    return out


def _fill(word: str, line: int, given: Mapping[str, str], environ: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole == "$$":
            return "$"
        name = match.group(1)
        if name is None:
            raise UsageError(
                f"line {line}: {whole!r} is not a variable: write ${{NAME}} (letters, digits, _),"
                " or $$ for a $",
                code="bad_request",
            )
        if name in given:
            return given[name]
        if name in environ:
            return environ[name]
        raise UsageError(
            f"line {line}: ${{{name}}} is not set",
            code="bad_request",
            hint=f"give --var {name}=VALUE, or set {name} in the environment",
        )

    return _VAR.sub(one, word)


def parse_check(
    text: str, *, name: str, given: Mapping[str, str], environ: Mapping[str, str]
) -> CheckFile:
    """The check ``text`` as steps, every variable filled (``name``: the check's name unless a
    ``# name:`` comment gives one). Raises UsageError naming the first bad line."""
    steps: list[Step] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            named = _NAME.fullmatch(line)
            if named and not steps:
                name = named.group(1).strip()
            continue
        try:
            words = split_line(line)
        except UsageError as exc:
            raise UsageError(f"line {number}: {exc.message}", code="bad_request") from None
        if words and words[0] in _NOT_A_STEP:
            raise UsageError(f"line {number}: {_NOT_A_STEP[words[0]]}", code="bad_request")
        argv = tuple(_fill(w, number, given, environ) for w in words)
        steps.append(Step(number, line, argv))
    if not steps:
        raise UsageError("the check has no step to run", code="bad_request")
    return CheckFile(name, tuple(steps))
