"""What each command answers is declared in the command table (reins.commands.answers) and shown
in docs/commands.md (issue 41): every command names a TypedDict whose every field says what it
means; the answers recorded on the wire (tests/unit/wire) hold only the fields declared; and
docs/commands.md is what the table and the answer types say now."""

from __future__ import annotations

import json
from typing import Any, TypedDict, get_type_hints

import pytest
from reins._errors import ReinsError
from reins.bridge.command import Command, NoArgs, answer_fields, command
from reins.bridge.context import CommandContext
from reins.commands import answers
from reins.commands.reference import render_reference
from reins.commands.table import REFERENCE_PATH, all_commands, describe, describe_answers

from tests.unit.wire.scenarios import SCENARIOS, WIRE

TABLE = all_commands()
DESCRIBED = describe_answers(TABLE)


def test_every_command_names_what_it_answers() -> None:
    for name, cmd in TABLE.items():
        assert cmd.answer is not None, f"{name}: no answer type"
        assert answer_fields(cmd.answer), f"{name}: its answer type has no fields"


def test_every_field_of_every_answer_says_what_it_means() -> None:
    fields = [(name, f) for name, listed in DESCRIBED["commands"].items() for f in listed]
    fields += [(part, f) for part, p in DESCRIBED["parts"].items() for f in p["fields"]]
    unsaid = [f"{owner}.{f['name']}" for owner, f in fields if not f["meaning"].strip()]
    assert not unsaid, f"fields without a meaning (Annotated[type, 'meaning']): {unsaid}"


def _returns(cmd: Command[Any]) -> Any:
    return get_type_hints(cmd.handler).get("return")


def test_every_handler_returns_the_answer_its_declaration_names() -> None:
    """mypy --strict then holds what a handler builds to that type (bridge/command.py)."""
    wrong = {
        name: (_returns(cmd), cmd.answer)
        for name, cmd in TABLE.items()
        if _returns(cmd) is not cmd.answer
    }
    assert not wrong, f"handlers whose return annotation is not their answer type: {wrong}"


def test_a_handler_returning_another_type_is_found() -> None:
    async def loose(ctx: CommandContext, args: NoArgs) -> dict[str, Any]:
        """Help."""
        return {}

    async def other(ctx: CommandContext, args: NoArgs) -> answers.Check:
        """Help."""
        return {"effect": {}, "warnings": []}

    for handler in (loose, other):
        cmd = command("clicked", NoArgs, answers.Click)(handler)
        assert _returns(cmd) is not cmd.answer


def test_a_command_without_an_answer_type_is_refused() -> None:
    async def handler(ctx: CommandContext, args: NoArgs) -> dict[str, Any]:
        """Help."""
        return {}

    with pytest.raises(ReinsError, match="TypedDict"):
        command("nothing", NoArgs, None)(handler)
    with pytest.raises(ReinsError, match="TypedDict"):
        command("loose", NoArgs, dict)(handler)

    class Shape(TypedDict):
        pong: bool

    assert command("typed", NoArgs, Shape)(handler).answer is Shape


def _declared(answer: Any) -> set[str]:
    return {name for name, *_ in answer_fields(answer)}


# wait --idle answers the page's settle read as it is; its scenario's fake page answers made-up
# fields for it (tests/unit/wire/scenarios.py), which the real page never gives.
_FAKE_PAGE_FIELDS = {"wait_idle": {"settled", "quiet_ms"}}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_recorded_answers_hold_only_declared_fields(name: str) -> None:
    recorded = json.loads((WIRE / f"{name}.json").read_text(encoding="utf-8"))
    if not recorded.get("ok"):
        return  # an error answer: its fields are the error's
    cmd = TABLE[SCENARIOS[name].cmd]
    fields = set(recorded) - {"ok"} - _FAKE_PAGE_FIELDS.get(name, set())
    assert fields <= _declared(cmd.answer), f"{name}: undeclared {fields - _declared(cmd.answer)}"
    if "effect" in recorded:
        effect = set(recorded["effect"])
        assert effect <= _declared(answers.Effect), f"{name}: effect {effect}"


def test_the_reference_shows_what_each_command_answers_now() -> None:
    """docs/commands.md is generated from the table and the answer types (scripts/generate)."""
    fresh = render_reference(describe(TABLE), DESCRIBED)
    assert REFERENCE_PATH.read_text(encoding="utf-8") == fresh, (
        "docs/commands.md is stale: run `scripts/generate` and commit it"
    )
    for cmd in describe(TABLE)["commands"]:
        if cmd["words"]:
            section = fresh.split(f"## `reins {' '.join(cmd['words'])}`", 1)[1].split("\n## ")[0]
            assert "Answers:" in section, cmd["name"]
