"""Every command group the host serves, gathered into one table."""

from __future__ import annotations

from typing import Any

from reins._commands import Command, build_table

__all__ = ["all_commands"]


def all_commands() -> dict[str, Command[Any]]:
    from reins import _cmd_act, _cmd_browser, _cmd_eval, _cmd_observe

    return build_table(
        _cmd_browser.COMMANDS, _cmd_observe.COMMANDS, _cmd_act.COMMANDS, _cmd_eval.COMMANDS
    )
