"""A recorded run as a check file (`reins trace export DIR`): the steps a person or an agent did
once, as `reins run` lines that do them again in another session (pure).

Each step that acted or checked (navigate, click, fill, choose, press, wait, expect …) becomes
its command line; an `@ref` target, which means nothing in another session, becomes what the ref
named when the step ran (``target_is``: a test id, else role and name, else the element's id);
a value the trace did not record (a password) and a URL whose query it cut become variables the
run takes with --var; a step that failed, and observations (state, find, screenshot, console …),
are left out, said in a comment. Nothing is guessed: a ref with nothing stable to name it stays as
it was, with a comment asking for a target.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Exported", "export_check", "stable_target_text"]

# The commands whose steps a check file repeats (wire names; expect_* too).
_REPEATED = frozenset(
    """navigate back forward reload click dblclick hover fill type press select check uncheck
    choose scroll wait upload drag dialog_accept dialog_dismiss mouse_move mouse_down mouse_up
    mouse_wheel handoff""".split()
)
_NOT_RECORDED = re.compile(r"^\[\d+ characters, not recorded\]$")
_CSS_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@dataclass
class Exported:
    """The check file's text and the variables it needs (name → why)."""

    text: str
    variables: dict[str, str] = field(default_factory=dict)
    steps: int = 0


# What would end a check file's line (str.splitlines breaks there) or hide in it: control
# characters, Unicode line and paragraph separators. A page's names may hold any of them.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line(text: str) -> bool:
    return _UNSAFE.search(text) is None


def _quotable(text: str) -> bool:
    return '"' not in text and "\\" not in text and _one_line(text)


def stable_target_text(target_is: dict[str, Any]) -> str | None:
    """A TARGET for an element by what named it (pure): its test id, else its role and name,
    else its id; None when none is there (or cannot be written plainly)."""
    testid = target_is.get("testid")
    if isinstance(testid, str) and testid and _quotable(testid):
        return f'[data-testid="{testid}"]'
    role, name = target_is.get("role"), target_is.get("name")
    if isinstance(role, str) and role not in ("", "generic") and isinstance(name, str) and name:
        if _quotable(name):
            return f'role={role}[name="{name}"]'
    element_id = target_is.get("id")
    if isinstance(element_id, str) and _CSS_ID.match(element_id):
        return f"#{element_id}"
    return None


def _words(step: dict[str, Any]) -> list[str] | None:
    cli = step.get("cli")
    if not isinstance(cli, str):
        return None
    try:
        words = shlex.split(cli)
    except ValueError:
        return None
    return words[1:] if words[:1] == ["reins"] else words


def export_check(lines: list[dict[str, Any]], *, name: str) -> Exported:
    """The check file of a trace's lines (``trace.jsonl``, in order)."""
    out = Exported("")
    body: list[str] = []
    for step in (line for line in lines if line.get("type") == "step"):
        cmd = str(step.get("cmd") or "")
        number = step.get("step")
        if cmd not in _REPEATED and not cmd.startswith("expect"):
            continue
        if not step.get("ok"):
            code = (step.get("error") or {}).get("code")
            body.append(f"# step {number} ({cmd}) failed ({code}) in the recording: left out")
            continue
        words = _words(step)
        if words is None:
            body.append(f"# step {number} ({cmd}): its command line could not be read back")
            continue
        given = step.get("args")
        args: dict[str, Any] = given if isinstance(given, dict) else {}
        target = args.get("target")
        if isinstance(target, str) and target.startswith("@"):
            stable = stable_target_text(step.get("target_is") or {})
            if stable is None:
                body.append(f"# step {number}: nothing stable names {target}: give a target")
            else:
                words = [stable if w == target else w for w in words]
        value = args.get("value")
        if isinstance(value, str) and _NOT_RECORDED.match(value):
            var = f"SECRET_{len(out.variables) + 1}"
            out.variables[var] = f"the value of step {number} ({cmd}), not recorded"
            words = [f"${{{var}}}" if w == value else w for w in words]
        url = args.get("url")
        if isinstance(url, str) and "…" in url:
            var = f"URL_{len(out.variables) + 1}"
            out.variables[var] = f"the URL of step {number}, recorded as {url}"
            words = [f"${{{var}}}" if w == url else w for w in words]
        if not all(_one_line(w) for w in words):
            # One line a step: a word that would break it (a newline in a value or a name) would
            # make a second step of what follows it.
            body.append(f"# step {number} ({cmd}): a word of it cannot be written on one line")
            continue
        body.append(" ".join(_quote(w) for w in words))
        out.steps += 1
    head = [
        f"# name: {' '.join(name.split())}",
        "# exported from a recorded run (reins trace export)",
    ]
    for var, why in out.variables.items():
        head.append(f"# --var {var}=…: {_UNSAFE.sub(' ', why)}")
    out.text = "\n".join([*head, *body]) + "\n"
    return out


def _quote(word: str) -> str:
    """A word of a batch line: as it stands when plain, a variable kept whole, else quoted."""
    if re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}", word):
        return f'"{word}"'
    return shlex.quote(word)
