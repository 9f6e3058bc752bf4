"""The global options, accepted before the command (on the group) or after its own arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

GLOBALS = ("json_out", "tab", "timeout_ms", "profile")

# ctx.meta key: the running host command's own budget (the table's timeout_ms), so the client
# waits for an answer as long as the host may take without --timeout-ms, not a fixed minute.
BUDGET_META = "reins.budget_ms"

# In the order the help lists them.
_GLOBAL_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("--profile",), {"default": None, "help": "Which connected browser profile."}),
    (
        ("--timeout-ms",),
        {
            "type": click.IntRange(0, 3_600_000),
            "default": None,
            "help": "The command's whole budget.",
        },
    ),
    (("--tab",), {"type": int, "default": None, "help": "Tab id (default: the current tab)."}),
    (("--json", "json_out"), {"is_flag": True, "default": None, "help": "Print one JSON object."}),
)


def global_options(fn: F) -> F:
    """Accept the global options after the command too (`reins navigate URL --json`)."""
    for decls, attrs in reversed(_GLOBAL_OPTIONS):
        fn = click.option(*decls, **attrs)(fn)
    return fn


def global_params() -> list[click.Parameter]:
    """The same options, for a command built without decorators."""
    return [click.Option(list(decls), **attrs) for decls, attrs in _GLOBAL_OPTIONS]


def merged_options(ctx: click.Context, /, local: dict[str, Any]) -> dict[str, Any]:
    """The global options in force: the group's, overridden by those given after the command.

    Takes the global options out of ``local`` (a command's keyword arguments).
    """
    merged = dict(ctx.find_root().obj or {})
    for key in GLOBALS:
        if local.get(key) is not None:
            merged[key] = local.pop(key)
        else:
            local.pop(key, None)
    return merged


def wants_json(ctx: click.Context, /, local: dict[str, Any]) -> bool:
    """Is --json in force? (Leaves ``local`` as it is.)"""
    return bool(merged_options(ctx, dict(local)).get("json_out"))
