"""Every command group the host serves, gathered into one table."""

from __future__ import annotations

from typing import Any

from reins.bridge.command import Command, build_table

__all__ = ["all_commands"]


def all_commands() -> dict[str, Command[Any]]:
    from reins.commands import act, browser, eval, observe

    return build_table(
        browser.COMMANDS, observe.COMMANDS, act.COMMANDS, eval.COMMANDS
    )
