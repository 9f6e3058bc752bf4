"""The `reins` CLI: parse, send one request, print, exit with the contract's code.

Exit codes: 0 ok · 1 the command failed (typed error) · 2 usage error · 3 no host reachable.
Global options (--json, --tab, --timeout-ms, --profile) go before or after the command's own
arguments. Nothing heavy is imported on this path: no pydantic, no host modules.

The host's commands are built from the command table's description (``host_commands.py``); the
local ones are written out (``local.py``, ``batch.py``). Either kind is built or imported only
when asked for: one command per run, all of them for --help.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import click

from reins.cli.host_commands import host_command, host_command_words
from reins.cli.options import global_options
from reins.cli.run import EXIT_FAILED, EXIT_USAGE

__all__ = ["main"]

# The commands the CLI runs itself, and the module that defines each (under the same name).
_LOCAL = {
    "batch": "reins.cli.batch",
    "run": "reins.cli.runfile",
    "report": "reins.cli.report",
    **dict.fromkeys(
        (
            "config",
            "doctor",
            "guide",
            "install",
            "launch",
            "mask",
            "mcp",
            "shutdown",
            "uninstall",
        ),
        "reins.cli.local",
    ),
}


class _ReinsGroup(click.Group):
    """The local commands, and the host's commands built from the table when asked for.

    With --json anywhere on the line, a usage error is answered as JSON too (exit 2).
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_LOCAL, *host_command_words()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _LOCAL:
            local: click.Command = getattr(importlib.import_module(_LOCAL[cmd_name]), cmd_name)
            return local
        found = self.commands.get(cmd_name) or host_command(cmd_name)
        if (
            cmd_name == "trace"
            and isinstance(found, click.Group)
            and "export" not in found.commands
        ):
            # `trace export` runs in the CLI itself, beside the host's `trace start`/`stop`.
            found.add_command(importlib.import_module("reins.cli.traceexport").export)
        return found

    def main(self, *args: Any, **kwargs: Any) -> Any:
        argv = list(args[0] if args else kwargs.get("args") or sys.argv[1:])
        if kwargs.get("standalone_mode", True) is False or "--json" not in argv:
            return super().main(*args, **kwargs)
        try:
            return super().main(*args, **{**kwargs, "standalone_mode": False})
        except click.UsageError as exc:
            click.echo(
                json.dumps(
                    {
                        "ok": False,
                        "error": {
                            "code": "bad_request",
                            "message": exc.format_message(),
                            "transient": False,
                        },
                    }
                )
            )
            sys.exit(EXIT_USAGE)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:
            sys.exit(EXIT_FAILED)


@click.group(cls=_ReinsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@global_options
@click.version_option(package_name="reins")
@click.pass_context
def main(ctx: click.Context, /, **opts: Any) -> None:
    """Drive your own logged-in Chrome from the command line."""
    ctx.obj = {**(ctx.obj or {}), **{k: v for k, v in opts.items() if v is not None}}


if __name__ == "__main__":
    main()
