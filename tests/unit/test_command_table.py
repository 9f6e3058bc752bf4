"""The command table: every command declared once, with its policy, and a handler for each."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from reins._errors import ReinsError
from reins.bridge.command import DEFAULT_TIMEOUT_MS, Args, NoArgs, command
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.commands.table import all_commands

TABLE = all_commands()


def test_every_command_has_a_model_help_and_a_budget() -> None:
    assert len(TABLE) >= 29
    for name, cmd in TABLE.items():
        assert cmd.name == name
        assert issubclass(cmd.args, BaseModel)
        assert cmd.help and not cmd.help.startswith(" ")
        assert cmd.timeout_ms > HEADROOM_MS
        assert set(cmd.cli_args) <= set(cmd.args.model_fields)


def test_budgets_as_before_the_table() -> None:
    slow = {"navigate", "back", "forward", "reload", "tab_new", "state", "map", "screenshot"}
    for name in slow:
        assert TABLE[name].timeout_ms == 30_000
    assert TABLE["wait"].timeout_ms == TABLE["eval"].timeout_ms == 10_000
    for name in set(TABLE) - slow - {"wait", "eval"}:
        assert TABLE[name].timeout_ms == DEFAULT_TIMEOUT_MS


def test_policies_as_before_the_table() -> None:
    # Tab management neither watches for dialogs nor touches the page.
    assert {n for n, c in TABLE.items() if c.needs_tab and not c.watch_dialogs} == {
        "tabs", "tab_show", "tab_close"}
    # What may run while a dialog is open (the others answer dialog_open at once).
    assert {n for n, c in TABLE.items() if c.needs_tab and c.dialog_free} == {
        "dialog", "tabs", "tab_show", "tab_close"}
    # What recovers a tab (or does not run on its main thread) is never held back by the probe.
    assert {n for n, c in TABLE.items() if c.needs_tab and not c.probe} == {
        "tabs", "tab_show", "tab_close", "navigate", "reload"}
    assert {n for n, c in TABLE.items() if not c.needs_tab} == {
        "status", "tab_new", "tab_select", "stats", "ping"}


def test_cli_words() -> None:
    assert TABLE["tab_new"].cli == ("tab", "new")
    assert TABLE["fill"].cli_args == ("target", "value")


async def _handler(ctx: CommandContext, args: NoArgs) -> dict[str, Any]:
    return {}


def test_a_command_needs_help_and_known_cli_args() -> None:
    with pytest.raises(ReinsError, match="docstring"):
        command("x", NoArgs)(_handler)

    class One(Args):
        a: int

    async def documented(ctx: CommandContext, args: One) -> dict[str, Any]:
        """Does x."""
        return {}

    with pytest.raises(ReinsError, match="not fields"):
        command("x", One, cli_args=("b",))(documented)
    assert command("x", One, cli_args=("a",))(documented).help == "Does x."
