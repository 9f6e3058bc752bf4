"""Every command a module declares is served: a `@command` handler left out of its module's
`COMMANDS` tuple (or a module left out of the table) would be silently missing from the host, the
CLI and MCP (issue 41)."""

from __future__ import annotations

import importlib
import pkgutil

import reins.commands
from reins.bridge.command import Command
from reins.commands.table import all_commands


def _declared() -> dict[str, Command[object]]:
    found: dict[str, Command[object]] = {}
    for info in pkgutil.iter_modules(reins.commands.__path__):
        module = importlib.import_module(f"reins.commands.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Command) and value.handler.__module__ == module.__name__:
                found[value.name] = value
    return found


def test_every_declared_command_is_in_the_table() -> None:
    declared = _declared()
    served = all_commands()
    assert declared, "no command found: the scan is broken"
    missing = sorted(set(declared) - set(served))
    assert missing == [], f"declared with @command but not served: {missing}"
    for name, cmd in declared.items():
        assert served[name] is cmd, name
