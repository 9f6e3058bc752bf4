"""The host's commands as click commands, built from the command table's description.

Every host command is declared once, in ``reins.commands`` (``@command``); ``_generated/table.json`` is the
plain-data description of that table (``scripts/generate``), read here so
that the CLI starts without pydantic or any host module. Arguments map to the request's args by
field name: a value not given (None, a flag not set, no list items) is left out, so the host's
model supplies its default. What a command does differently on the CLI is in ``quirks.py``.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import click

from reins._errors import ReinsError
from reins.cli.options import BUDGET_META, GLOBALS, global_params, wants_json
from reins.cli.quirks import QUIRKS, Call, Quirk

__all__ = ["HostCommand", "description", "host_command", "host_command_words"]

_DESCRIPTION = os.path.join(os.path.dirname(os.path.dirname(__file__)), "_generated", "table.json")

# Help for the groups that two-word commands make (`reins tab new`).
_GROUP_HELP = {"tab": "Open, select and close tabs."}


@functools.cache
def description() -> tuple[dict[str, Any], ...]:
    """The commands of the table that the CLI offers (those with CLI words)."""
    with open(_DESCRIPTION, encoding="utf-8") as fh:
        described = json.load(fh)
    return tuple(c for c in described["commands"] if c["words"])


def host_command_words() -> list[str]:
    """The first words of the host commands (`tab` for `tab new`)."""
    return sorted({c["words"][0] for c in description()})


class HostCommand(click.Command):
    """A click command that sends one host command; ``wire_name`` is its name in the table."""

    def __init__(self, spec: dict[str, Any]) -> None:
        quirk = QUIRKS.get(spec["name"], Quirk())
        self.wire_name: str = spec["name"]
        self.spec = spec
        self.quirk = quirk
        if quirk.positionals is not None:
            params = quirk.positionals()
        else:
            params = [_argument(p, optional=p["name"] in quirk.optional) for p in spec["arguments"]]
        params += [_option(p) for p in spec["options"]]
        params += quirk.params()
        params += global_params()
        names = [p.name for p in params]
        if len(names) != len(set(names)):
            raise ReinsError(
                f"{self.wire_name}: two CLI parameters with one name: {names}", code="internal"
            )
        super().__init__(spec["words"][-1], params=params, callback=self._invoke, help=spec["help"])

    def _invoke(self, **values: Any) -> None:
        ctx = click.get_current_context()
        ctx.meta[BUDGET_META] = self.spec["timeout_ms"]
        local = {key: values.pop(key) for key in GLOBALS}
        args: dict[str, Any] = {}
        for param in (*self.spec["arguments"], *self.spec["options"]):
            name = param["name"]
            if name not in values:  # parsed by the quirk
                continue
            value = values.pop(name)
            if value is None or value is False or value == ():
                continue
            args[name] = list(value) if param["type"] == "list" else value
        call = Call(ctx, self.wire_name, args, values, local, wants_json(ctx, local))
        self.quirk.invoke(call)


@functools.cache
def host_command(word: str) -> click.Command | None:
    """The click command (or group) for the first word, or None."""
    specs = [c for c in description() if c["words"][0] == word]
    if not specs:
        return None
    if len(specs) == 1 and len(specs[0]["words"]) == 1:
        return HostCommand(specs[0])
    group = click.Group(word, help=_GROUP_HELP.get(word))
    for spec in specs:
        group.add_command(HostCommand(spec))
    return group


def _json_object(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An object-typed argument is given as JSON (`reins cdp METHOD '{"a": 1}'`)."""
    if value is None or isinstance(value, dict):
        return value
    where = f"{(param.name or '').upper()}_JSON"
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        ctx.fail(f"{where} is not JSON: {exc}")
    if not isinstance(parsed, dict):
        ctx.fail(f"{where} must be a JSON object")
    return parsed


def _type(param: dict[str, Any]) -> dict[str, Any]:
    """click's type (and callback) attributes for a parameter of the table's type."""
    kind = param["type"]
    if kind == "int":
        if "min" in param or "max" in param:
            return {"type": click.IntRange(param.get("min"), param.get("max"))}
        return {"type": click.INT}
    if kind == "choice":
        return {"type": click.Choice(param["choices"])}
    if kind == "object":
        return {"type": click.STRING, "callback": _json_object}
    return {"type": click.STRING}


def _default(param: dict[str, Any]) -> dict[str, Any]:
    """click's default attribute, if the table has one (click reads default=None as a value)."""
    if "default" not in param:
        return {}
    default = param["default"]
    return {"default": json.dumps(default) if param["type"] == "object" else default}


def _argument(param: dict[str, Any], *, optional: bool) -> click.Argument:
    required = param["required"] and not optional
    nargs = -1 if param["type"] == "list" else 1
    metavar = param.get("metavar") or (
        param["name"].upper() + "_JSON" if param["type"] == "object" else None
    )
    if metavar:  # click brackets its own metavars only
        metavar = (metavar if required else f"[{metavar}]") + ("..." if nargs != 1 else "")
    return click.Argument(
        [param["name"]],
        required=required,
        nargs=nargs,
        metavar=metavar,
        **_type(param),
        **_default(param),
    )


def _option(param: dict[str, Any]) -> click.Option:
    attrs: dict[str, Any] = {"help": param["help"] or None, "required": param["required"]}
    if param["type"] == "bool":
        attrs["is_flag"] = True
    else:
        attrs.update(
            metavar=param.get("metavar"),
            multiple=param["type"] == "list",
            **_type(param),
            **_default(param),
        )
    return click.Option([param["flag"], param["name"]], **attrs)
