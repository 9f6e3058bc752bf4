"""The action commands' answers on the wire, pinned (issue 41): each scenario of
tests/unit/wire/scenarios.py runs the real host code against the one fake Chrome, and its answer
must be, byte for byte, the JSON file recorded for it from the code before answers became types.
A difference is a change of the CLI's and MCP's contract: re-record (``python -m
tests.unit.wire.record NAME``) only when it is meant."""

from __future__ import annotations

import pytest

from tests.unit.wire.scenarios import SCENARIOS, WIRE, answer_of, wire_text


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_answer_is_the_recorded_one_byte_for_byte(name: str) -> None:
    recorded = (WIRE / f"{name}.json").read_text(encoding="utf-8")
    assert wire_text(answer_of(name)) == recorded


def test_every_recorded_answer_has_its_scenario() -> None:
    files = {p.stem for p in WIRE.glob("*.json")}
    assert files == set(SCENARIOS)


def test_the_scenarios_cover_every_family_of_action() -> None:
    """Click and its kin, fill/type, check, select, choose, upload, press, scroll, drag, the
    mouse, wait, eval: each has at least one recorded answer."""
    covered = {s.cmd for s in SCENARIOS.values()}
    wanted = {"click", "dblclick", "hover", "fill", "type", "check", "uncheck", "select", "press"}
    wanted |= {"choose", "upload"}
    wanted |= {"scroll", "drag", "mouse_move", "mouse_down", "mouse_up", "mouse_wheel", "wait"}
    assert wanted | {"eval"} <= covered
