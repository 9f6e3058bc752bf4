"""The CLI's fast path: a host command whose arguments it can parse alone, without click.

Most calls an agent makes are plain (`reins click @e4`, `reins state`, `reins fill @e2 12.50
--json`): the command's words, its positionals, its long options and the global options. For
those, click and the CLI's command objects are most of a call's start (importing click ~15-25 ms
here, more than the request itself). This module reads the same command table the click CLI is
built from (``_generated/table.json``), parses what it understands exactly as click would, sends
through the same client and prints through the same renderers, and exits. Anything else — help, a
short option, ``--``, an unknown or repeated option, a value click would refuse, a local command,
a command whose CLI quirk it does not follow — it leaves to click, untouched, so every usage error
is still click's own. ``tests/unit/test_cli_fast.py`` runs both on the same command lines.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from reins._errors import ReinsError

__all__ = ["parse", "run_fast"]

_TABLE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "_generated", "table.json")

# The global options, accepted before the command or after its words (cli/options.py).
_GLOBAL_VALUES = {"--profile": "profile", "--timeout-ms": "timeout_ms", "--tab": "tab"}
_GLOBAL_FLAGS = {"--json": "json_out"}
_TIMEOUT_MAX = 3_600_000

# Commands with a CLI quirk (cli/quirks.py) the fast path follows, and how; every other quirk's
# command goes to click (the contract test checks the two lists against QUIRKS).
FOLLOWED = frozenset({"navigate", "state", "fill", "type", "eval", "click", "dblclick"})
LEFT_TO_CLICK = frozenset({"map", "screenshot", "trace_start", "upload", "hover"})


class _Decline(ReinsError):
    """Not for the fast path: click runs the command line (never reaches a user)."""

    def __init__(self) -> None:
        super().__init__("left to the click CLI", code="internal")


_LOADED: list[list[dict[str, Any]]] = []


def _table() -> list[dict[str, Any]]:
    """The table's commands, read once a process (the warm CLI reads it before it forks)."""
    if not _LOADED:
        with open(_TABLE, encoding="utf-8") as fh:
            _LOADED.append([c for c in json.load(fh)["commands"] if c["words"]])
    return _LOADED[0]


def _value(param: dict[str, Any], text: str) -> Any:
    """``text`` as click's type for the parameter reads it, or _Decline where click would fail."""
    kind = param["type"]
    if kind == "int":
        try:
            number = int(text)
        except ValueError:
            raise _Decline from None
        low, high = param.get("min"), param.get("max")
        if (low is not None and number < low) or (high is not None and number > high):
            raise _Decline
        return number
    if kind == "choice":
        if text not in param["choices"]:
            raise _Decline
        return text
    if kind == "object":
        try:
            parsed = json.loads(text)
        except ValueError:
            raise _Decline from None
        if not isinstance(parsed, dict):
            raise _Decline
        return parsed
    return text


def _globals(token: str, rest: list[str], into: dict[str, Any]) -> bool:
    """Take a global option (and its value) off the front; False when ``token`` is not one."""
    if token in _GLOBAL_FLAGS:
        into[_GLOBAL_FLAGS[token]] = True
        return True
    name, eq, inline = token.partition("=")
    if name not in _GLOBAL_VALUES:
        return False
    key = _GLOBAL_VALUES[name]
    if key in into:
        raise _Decline  # given twice: click's rules for that are its own
    text = inline if eq else (rest.pop(0) if rest else None)
    if text is None or (not eq and text.startswith("-")):
        raise _Decline
    if key == "profile":
        into[key] = text
        return True
    try:
        number = int(text)
    except ValueError:
        raise _Decline from None
    if key == "timeout_ms" and not 0 <= number <= _TIMEOUT_MAX:
        raise _Decline
    into[key] = number
    return True


def _command(argv: list[str], table: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    for spec in table:
        words = spec["words"]
        if argv[: len(words)] == words:
            if len(words) == 1 and any(
                len(s["words"]) > 1 and s["words"][0] == words[0] for s in table
            ):
                continue  # a group's word alone (`reins tab`) is click's
            return spec, argv[len(words) :]
    raise _Decline


def parse(
    argv: list[str], table: list[dict[str, Any]] | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The command's table entry, its wire args, the group's and the command's global options,
    as click would make them from ``argv``; raises _Decline for anything else."""
    table = table if table is not None else _table()
    rest = list(argv)
    group: dict[str, Any] = {}
    while rest and rest[0].startswith("-"):
        if not _globals(rest.pop(0), rest, group):
            raise _Decline
    spec, rest = _command(rest, table)
    options = {p["flag"]: p for p in spec["options"]}
    local: dict[str, Any] = {}
    given: dict[str, Any] = {}
    positional: list[str] = []
    while rest:
        token = rest.pop(0)
        if token == "-" or token == "--" or (token.startswith("-") and not token.startswith("--")):
            raise _Decline
        if not token.startswith("--"):
            positional.append(token)
            continue
        if token in _GLOBAL_FLAGS or token.partition("=")[0] in _GLOBAL_VALUES:
            if token in _GLOBAL_FLAGS and "json_out" in local:
                raise _Decline
            _globals(token, rest, local)
            continue
        flag, eq, inline = token.partition("=")
        param = options.get(flag)
        if param is None:
            raise _Decline
        name = param["name"]
        if param["type"] == "bool":
            if eq or name in given:
                raise _Decline
            given[name] = True
            continue
        text = inline if eq else (rest.pop(0) if rest else None)
        if text is None or (not eq and text.startswith("-")):
            raise _Decline
        if param["type"] == "list":
            given.setdefault(name, []).append(text)
        elif name in given:
            raise _Decline
        else:
            given[name] = _value(param, text)
    for param in spec["arguments"]:
        name = param["name"]
        if param["type"] == "list":
            given[name], positional = positional, []
            if param["required"] and not given[name]:
                raise _Decline
        elif positional:
            given[name] = _value(param, positional.pop(0))
        elif param["required"]:
            raise _Decline
    if positional:
        raise _Decline
    args: dict[str, Any] = {}
    for param in (*spec["arguments"], *spec["options"]):
        name = param["name"]
        # click gives a flag False when it is not given, whatever the table's default.
        default = False if param["type"] == "bool" else param.get("default")
        value = given.get(name, default)
        if param["type"] == "object" and name not in given and value is not None:
            value = _value(param, json.dumps(value))  # click reads a default as its JSON text
        if value is None or value is False or value == [] or value == ():
            continue
        args[name] = value
    if any(p["required"] and p["name"] not in given for p in spec["options"]):
        raise _Decline  # a required option not given: click's error
    return spec, args, group, local


def _follow_quirk(name: str, args: dict[str, Any], json_out: bool) -> None:
    """What the followed quirks do (cli/quirks.py), or _Decline where they do more."""
    if name in LEFT_TO_CLICK:
        raise _Decline
    if name == "navigate" and "url" not in args:
        raise _Decline
    if name == "state" and not json_out:
        args["text_only"] = True
    if name in ("fill", "type") and ("text" in args or "target" not in args):
        raise _Decline  # `--text LABEL VALUE` and `-v`: the quirk's own positionals
    if name == "eval" and args.get("expression") == "-":
        raise _Decline  # the script from stdin
    if name in ("click", "dblclick") and os.environ.get("REINS_CLICK") == "js":
        raise _Decline


def _send(
    cmd: str, args: dict[str, Any], opts: dict[str, Any], budget: int | None
) -> dict[str, Any]:
    """One request over the socket (the contract test replaces this, as cli/run.send)."""
    from reins.bridge.client import request

    return request(
        cmd,
        args,
        profile=opts.get("profile"),
        tab=opts.get("tab"),
        timeout_ms=opts.get("timeout_ms"),
        default_timeout_ms=budget,
    )


def _print(text: str, *, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


def run_fast(argv: list[str]) -> None:
    """Run ``argv`` and exit, when the fast path parses it; return (having done nothing) when
    click must."""
    try:
        spec, args, group, local = parse(argv)
        opts = {**group, **local}
        json_out = bool(opts.get("json_out"))
        _follow_quirk(spec["name"], args, json_out)
    except _Decline:
        return
    from reins._pagetext import json_text, visible
    from reins.cli.contract import exit_code, plain
    from reins.cli.render import TEXT

    try:
        answer = _send(spec["name"], args, opts, spec["timeout_ms"])
    except ReinsError as exc:
        answer = {"ok": False, "error": exc.to_wire()}
    answer.pop("request_id", None)
    if not answer.get("ok"):
        error = answer.get("error") or {"code": "internal", "message": "no error payload"}
        if json_out:
            _print(json_text({"ok": False, "error": error}))
        else:
            code, message = visible(str(error.get("code"))), visible(str(error.get("message")))
            _print(f"error [{code}]: {message}", err=True)
        sys.exit(exit_code(str(error.get("code"))))
    if json_out:
        _print(json_text(answer))
    else:
        human = TEXT.get(spec["name"])
        _print(human(answer) if human else plain({k: v for k, v in answer.items() if k != "ok"}))
    sys.exit(0)
