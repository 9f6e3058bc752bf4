"""The command table: every command declared once, with its policy, and a handler for each."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from reins._errors import ReinsError
from reins.bridge.command import DEFAULT_TIMEOUT_MS, Args, NoArgs, cli_hints, command
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.commands.answers import Pong
from reins.commands.table import DESCRIPTION_PATH, all_commands, describe, describe_json

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
    # status tells a frozen browser or a hung host in seconds (tests/unit/test_faults.py).
    assert TABLE["status"].timeout_ms == 3_000
    # A person's step: sign in, a second factor, an approval.
    assert TABLE["handoff"].timeout_ms == 300_000
    # An expectation is a claim about now: Playwright's expect waits 5 s.
    expects = {n for n in TABLE if n.startswith("expect_")}
    assert expects and all(TABLE[n].timeout_ms == 5_000 for n in expects)
    for name in set(TABLE) - slow - expects - {"wait", "eval", "status", "handoff"}:
        assert TABLE[name].timeout_ms == DEFAULT_TIMEOUT_MS


def test_policies_as_before_the_table() -> None:
    # Tab management runs without a current tab: it is how the agent recovers from tab_closed.
    assert {n for n, c in TABLE.items() if not c.needs_tab} == {
        "status",
        "tabs",
        "tab_new",
        "tab_select",
        "tab_close",
        "stats",
        "ping",
        "trace_start",
        "trace_stop",
    }
    # Bringing a tab to the front touches no page: no dialog watch, no probe. `dialog` arms only
    # its own watch: the page's thread may wait on a dialog (the pause watch's Debugger.enable
    # would wait with it).
    assert {n for n, c in TABLE.items() if c.needs_tab and not c.watch_dialogs} == {
        "dialog",
        "tab_show",
        "handoff",
    }
    # What may run while a dialog is open (the others answer dialog_open at once); console and
    # network then show what the host already has, without asking the page.
    assert {n for n, c in TABLE.items() if c.needs_tab and c.dialog_free} == {
        "dialog",
        "tab_show",
        "console",
        "network",
        "handoff",
    }
    # What recovers a tab (or does not run on its main thread) is never held back by the probe,
    # nor refused on a crashed tab.
    assert {n for n, c in TABLE.items() if c.needs_tab and not c.probe} == {
        "dialog",
        "tab_show",
        "navigate",
        "reload",
        "handoff",
    }


def test_cli_words() -> None:
    assert TABLE["tab_new"].cli == ("tab", "new")
    assert TABLE["expect_value"].cli == ("expect", "value")
    assert TABLE["expect_value"].cli_args == ("target", "expected")
    assert TABLE["fill"].cli_args == ("target", "value")
    assert TABLE["ping"].cli == TABLE["settle"].cli == ()  # the host's own


# ---- the description the CLI is built from ------------------------------------------------------


def test_the_cli_description_is_current() -> None:
    """host/reins/_generated/table.json is what the table says (the CLI reads the file)."""
    assert DESCRIPTION_PATH.read_text(encoding="utf-8") == describe_json(TABLE), (
        "table.json is stale: run `scripts/generate` and commit it"
    )


def test_every_argument_the_cli_offers_has_help() -> None:
    for described in describe(TABLE)["commands"]:
        for param in (*described["arguments"], *described["options"]):
            assert param["help"].strip(), f"{described['name']}.{param['name']}: no description"


class _Sample(Args):
    name: str = Field(description="N.")
    count: int | None = Field(default=None, ge=1, description="C.")
    mode: Literal["a", "b"] = Field(default="a", description="M.")
    button: str = Field(
        default="left", description="B.", json_schema_extra=cli_hints(choices=("left", "right"))
    )
    items: list[str] = Field(default_factory=list, description="I.")
    params: dict[str, Any] = Field(default_factory=dict, description="P.")
    all_of_it: bool = Field(default=False, description="A.")
    secret: str | None = Field(default=None, json_schema_extra=cli_hints(hidden=True))
    tab: int | None = Field(
        default=None, description="T.", json_schema_extra=cli_hints(metavar="TAB_ID")
    )


async def _sample(ctx: CommandContext, args: Any) -> dict[str, Any]:
    """Does a sample."""
    return {}


def test_describe_types_defaults_and_hints() -> None:
    cmd = command(
        "sample_cmd", _Sample, Pong, cli_args=("name", "items"), timeout_ms=5_000, read_only=True
    )(_sample)
    (described,) = describe({"sample_cmd": cmd})["commands"]
    assert {k: described[k] for k in ("name", "words", "help", "timeout_ms", "read_only")} == {
        "name": "sample_cmd",
        "words": ["sample", "cmd"],
        "help": "Does a sample.",
        "timeout_ms": 5_000,
        "read_only": True,
    }
    assert described["arguments"] == [
        {"name": "name", "type": "string", "required": True, "help": "N."},
        {"name": "items", "type": "list", "required": False, "default": [], "help": "I."},
    ]
    options = {o["name"]: o for o in described["options"]}
    assert list(options) == ["count", "mode", "button", "params", "all_of_it", "tab"]
    assert options["count"] == {
        "name": "count",
        "type": "int",
        "flag": "--count",
        "required": False,
        "min": 1,
        "help": "C.",
    }
    assert options["mode"]["type"] == "choice" and options["mode"]["choices"] == ["a", "b"]
    assert options["mode"]["default"] == "a"
    assert options["button"]["choices"] == ["left", "right"]
    assert options["params"]["type"] == "object" and options["params"]["default"] == {}
    assert options["all_of_it"] == {
        "name": "all_of_it",
        "type": "bool",
        "flag": "--all-of-it",
        "required": False,
        "help": "A.",
    }
    assert options["tab"]["metavar"] == "TAB_ID"
    assert command("x", _Sample, Pong, on_cli=False)(_sample).cli == ()


def test_describe_refuses_what_the_cli_cannot_offer() -> None:
    class Nested(Args):
        inner: dict[int, str] = Field(default_factory=dict)

    with pytest.raises(ReinsError, match="no type"):
        describe({"x": command("x", Nested, Pong)(_sample)})

    class Hidden(Args):
        secret: str = Field(json_schema_extra=cli_hints(hidden=True))

    with pytest.raises(ReinsError, match="hidden"):
        describe({"x": command("x", Hidden, Pong, cli_args=("secret",))(_sample)})


async def _handler(ctx: CommandContext, args: NoArgs) -> dict[str, Any]:
    return {}


def test_a_command_needs_help_and_known_cli_args() -> None:
    with pytest.raises(ReinsError, match="docstring"):
        command("x", NoArgs, Pong)(_handler)

    class One(Args):
        a: int

    async def documented(ctx: CommandContext, args: One) -> dict[str, Any]:
        """Does x."""
        return {}

    with pytest.raises(ReinsError, match="not fields"):
        command("x", One, Pong, cli_args=("b",))(documented)
    assert command("x", One, Pong, cli_args=("a",))(documented).help == "Does x."


def test_only_navigate_may_start_on_a_refused_page() -> None:
    assert {n for n, c in TABLE.items() if c.leaves_refused_page} == {"navigate"}
