"""Every command group the host serves, gathered into one table, and its description for the CLI.

The CLI must start without pydantic or the host modules, so it cannot read the table itself: it reads
``describe()``'s plain-data rendering, kept in ``reins/_generated/table.json``. Regenerate it
after changing a command with ``scripts/generate`` (which runs ``python -m reins.commands.table
--write``); ``scripts/generate --check`` (run by ``scripts/check``, and a unit test) fails while it
is stale.

What the description says of each command: its wire name, CLI words, help, budget, whether it only
reads, whether ``reins mcp`` offers it as a tool (named by its wire name); its positional arguments in order (``cli_args``) and its options (the other fields), each with
a type (string, int, bool, choice, list, object), whether it is required, its default, its help (the
field's description), and the ``cli_hints`` (metavar, choices). Hidden fields are left out.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, is_typeddict

from annotated_types import Ge, Gt, Le, Lt, MinLen
from pydantic.fields import FieldInfo

from reins._errors import ReinsError
from reins.bridge.command import Command, answer_fields, build_table, field_hints
from reins.commands import act, answers, browser, eval, expect, observe, trace
from reins.commands.reference import render_reference

__all__ = ["DESCRIPTION_PATH", "all_commands", "describe", "describe_answers", "describe_json"]

DESCRIPTION_PATH = Path(__file__).parents[1] / "_generated" / "table.json"
# The human reference beside the other docs, in a source checkout (not in an installed package).
REFERENCE_PATH = Path(__file__).resolve().parents[3] / "docs" / "commands.md"
_FORMAT = 1


def all_commands() -> dict[str, Command[Any]]:
    return build_table(
        browser.COMMANDS,
        observe.COMMANDS,
        act.COMMANDS,
        eval.COMMANDS,
        trace.COMMANDS,
        expect.COMMANDS,
    )


def describe(table: dict[str, Command[Any]] | None = None) -> dict[str, Any]:
    """The table as plain JSON-able data: what the CLI (and docs, and tools) build from."""
    table = all_commands() if table is None else table
    return {"format": _FORMAT, "commands": [_command(cmd) for _, cmd in sorted(table.items())]}


def describe_answers(table: dict[str, Command[Any]] | None = None) -> dict[str, Any]:
    """What each command answers, from the answer types the table names, as plain data for
    docs/commands.md: each command's fields, and the parts (TypedDicts) fields are made of."""
    table = all_commands() if table is None else table
    parts: dict[str, Any] = {}
    commands = {name: _fields(cmd.answer, parts) for name, cmd in sorted(table.items())}
    described: dict[str, Any] = {}
    while len(described) < len(parts):  # a part's fields may name more parts
        for name, part in list(parts.items()):
            if name not in described:
                doc = " ".join((part.__doc__ or "").split())
                described[name] = {"doc": doc, "fields": _fields(part, parts)}
    return {"commands": commands, "parts": dict(sorted(described.items()))}


def _fields(answer: Any, parts: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": name, "kind": _answer_kind(hint, parts), "always": always, "meaning": meaning}
        for name, hint, always, meaning in answer_fields(answer)
    ]


# A part is called by the name commands/answers.py gives it: a shape declared below it, where it
# is written (``EffectWire`` in act/answers.py), is named there as it is shown (``Effect``).
_PART_NAMES = {id(part): name for name, part in vars(answers).items() if is_typeddict(part)}


def _answer_kind(hint: Any, parts: dict[str, Any]) -> str:
    """A field's type in words, naming the parts it is made of (collected in ``parts``)."""
    origin = get_origin(hint)
    if is_typeddict(hint):
        name = _PART_NAMES.get(id(hint), hint.__name__)
        parts[name] = hint
        return f"[{name}](#{name.lower()})"
    if origin is Literal:
        return " or ".join(json.dumps(a) for a in get_args(hint))
    if origin in (Union, types.UnionType):
        return " or ".join(_answer_kind(a, parts) for a in get_args(hint))
    if origin is list:
        return "list of " + _answer_kind(get_args(hint)[0], parts)
    if origin is dict:
        return "object"
    names = {str: "string", int: "int", float: "number", bool: "bool", type(None): "null"}
    return names.get(hint, "any")


def describe_json(table: dict[str, Command[Any]] | None = None) -> str:
    return json.dumps(describe(table), indent=1, ensure_ascii=False) + "\n"


def _command(cmd: Command[Any]) -> dict[str, Any]:
    fields = cmd.args.model_fields
    shown = {name: info for name, info in fields.items() if not _hints(info).get("hidden")}
    hidden_positional = set(cmd.cli_args) - set(shown)
    if hidden_positional:
        raise ReinsError(
            f"command {cmd.name}: positional {sorted(hidden_positional)} is hidden", code="internal"
        )
    return {
        "name": cmd.name,
        "words": list(cmd.cli),
        "help": cmd.help,
        "timeout_ms": cmd.timeout_ms,
        "read_only": cmd.read_only,
        "mcp": cmd.mcp,
        "arguments": [_param(cmd, name, shown[name], positional=True) for name in cmd.cli_args],
        "options": [
            _param(cmd, name, info, positional=False)
            for name, info in shown.items()
            if name not in cmd.cli_args
        ],
    }


def _hints(info: FieldInfo) -> dict[str, Any]:
    return field_hints(info)


def _param(cmd: Command[Any], name: str, info: FieldInfo, *, positional: bool) -> dict[str, Any]:
    kind, choices = _kind(info.annotation, f"{cmd.name}.{name}")
    hints = _hints(info)
    out: dict[str, Any] = {"name": name, "type": kind}
    if not positional:
        out["flag"] = "--" + name.replace("_", "-")
    out["required"] = info.is_required()
    if not info.is_required():
        default = info.get_default(call_default_factory=True)
        if default is not None and not (kind == "bool" and default is False):
            out["default"] = default
    if kind == "bool" and (positional or info.get_default() is not False):
        raise ReinsError(
            f"{cmd.name}.{name}: a bool field is an option that defaults to False", code="internal"
        )
    choices = hints.get("choices") or choices
    if choices:
        out["type"] = "choice" if kind in ("string", "choice") else kind
        out["choices"] = list(choices)
    for constraint in info.metadata:
        bound: Any = getattr(constraint, type(constraint).__name__.lower(), None)
        if kind == "int" and isinstance(constraint, Ge | Gt):
            out["min"] = int(bound) + (1 if isinstance(constraint, Gt) else 0)
        elif kind == "int" and isinstance(constraint, Le | Lt):
            out["max"] = int(bound) - (1 if isinstance(constraint, Lt) else 0)
        elif kind == "list" and isinstance(constraint, MinLen):
            out["min_items"] = constraint.min_length
    if hints.get("metavar"):
        out["metavar"] = hints["metavar"]
    out["help"] = info.description or ""
    return out


_SCALARS: dict[Any, str] = {str: "string", int: "int", bool: "bool"}


def _kind(annotation: Any, where: str) -> tuple[str, list[str]]:
    """The CLI type of a field's annotation: string, int, bool, choice (and its choices), list of
    strings, object (a JSON object)."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        if len(inner) == 1:
            return _kind(inner[0], where)
    elif annotation in _SCALARS:
        return _SCALARS[annotation], []
    elif origin is Literal and all(isinstance(a, str) for a in get_args(annotation)):
        return "choice", list(get_args(annotation))
    elif origin is list and get_args(annotation) == (str,):
        return "list", []
    elif origin is dict and get_args(annotation)[:1] == (str,):
        return "object", []
    raise ReinsError(f"{where}: the CLI has no type for {annotation!r}", code="internal")


def main(argv: list[str] | None = None) -> int:
    import argparse  # the generator's command line only: not in every host's memory

    parser = argparse.ArgumentParser(
        prog="python -m reins.commands.table",
        description="Write or check the CLI's table.json and docs/commands.md.",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help=f"write {DESCRIPTION_PATH.name}")
    action.add_argument("--check", action="store_true", help="fail if it is stale")
    opts = parser.parse_args(argv)
    description = describe()
    fresh = {DESCRIPTION_PATH: json.dumps(description, indent=1, ensure_ascii=False) + "\n"}
    if REFERENCE_PATH.parent.is_dir():
        fresh[REFERENCE_PATH] = render_reference(description, describe_answers())
    if opts.write:
        for path, text in fresh.items():
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        return 0
    stale = [
        path
        for path, text in fresh.items()
        if (path.read_text(encoding="utf-8") if path.exists() else "") != text
    ]
    for path in stale:
        print(
            f"{path} is stale: run `scripts/generate` and commit it",
            file=sys.stderr,
        )
    if stale:
        return 1
    print(" and ".join(path.name for path in fresh) + " up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
