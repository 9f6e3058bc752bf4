"""A recorded run as a check file (trace/export.py), on hand-built trace lines: @refs become what
they named, unrecorded values and cut URLs become variables, failures and observations are left
out with a comment, and the lines read back as a check file `reins run` takes."""

from __future__ import annotations

from typing import Any

from reins.cli.checkfile import parse_check
from reins.trace.export import export_check, stable_target_text


def _step(n: int, cmd: str, cli: str, args: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "step", "step": n, "cmd": cmd, "cli": cli, "args": args, "ok": True, **more}


LINES = [
    {"type": "start", "name": "expense"},
    _step(
        1,
        "navigate",
        "reins navigate 'http://app.test/e?token=…'",
        {"url": "http://app.test/e?token=…"},
    ),
    _step(2, "state", "reins state", {}),
    _step(
        3,
        "fill",
        "reins fill @e4 'Blue Bottle'",
        {"target": "@e4", "value": "Blue Bottle"},
        target_is={"role": "textbox", "name": "Merchant", "tag": "input"},
    ),
    _step(
        4,
        "fill",
        "reins fill @e7 '[9 characters, not recorded]'",
        {"target": "@e7", "value": "[9 characters, not recorded]"},
        target_is={"role": "textbox", "name": "Password", "id": "pw"},
    ),
    _step(
        5,
        "click",
        "reins click @e9",
        {"target": "@e9"},
        target_is={"testid": "save", "role": "button"},
    ),
    {
        **_step(6, "click", "reins click '#gone'", {"target": "#gone"}),
        "ok": False,
        "error": {"code": "not_found"},
    },
    _step(7, "click", "reins click @e11", {"target": "@e11"}, target_is={"role": "generic"}),
    _step(
        8, "expect_text", "reins expect text '#saved' 'Saved: Blue Bottle'", {"target": "#saved"}
    ),
]


def test_a_recorded_run_becomes_lines_that_name_their_targets_for_good() -> None:
    exported = export_check(LINES, name="expense  run")
    lines = exported.text.splitlines()
    assert lines[0] == "# name: expense run"
    body = [line for line in lines if not line.startswith("#")]
    assert body == [
        'navigate "${URL_1}"',
        "fill 'role=textbox[name=\"Merchant\"]' 'Blue Bottle'",
        'fill \'role=textbox[name="Password"]\' "${SECRET_2}"',
        "click '[data-testid=\"save\"]'",
        "click @e11",
        "expect text '#saved' 'Saved: Blue Bottle'",
    ]
    assert exported.steps == 6
    assert set(exported.variables) == {"URL_1", "SECRET_2"}
    assert "# step 6 (click) failed (not_found) in the recording: left out" in lines
    assert "# step 7: nothing stable names @e11: give a target" in lines
    parsed = parse_check(
        exported.text,
        name="x",
        given={"URL_1": "http://app.test/e", "SECRET_2": "s3cret!"},
        environ={},
    )
    assert parsed.name == "expense run" and len(parsed.steps) == 6


def test_stable_targets_prefer_test_ids_then_role_and_name_then_ids() -> None:
    assert (
        stable_target_text({"testid": "t", "role": "button", "name": "Go"}) == '[data-testid="t"]'
    )
    assert (
        stable_target_text({"role": "button", "name": "Go", "id": "go"}) == 'role=button[name="Go"]'
    )
    assert stable_target_text({"role": "generic", "name": "x", "id": "go"}) == "#go"
    assert stable_target_text({"role": "button", "name": 'Say "hi"'}) is None
    assert stable_target_text({"id": "1bad"}) is None
    assert stable_target_text({}) is None


def test_a_name_or_value_that_would_break_the_line_never_makes_a_step_of_its_own() -> None:
    """A page's accessible names, and the values typed, may hold newlines, carriage returns,
    Unicode line separators or escape codes; the check file is read line by line, so any of
    them would turn what follows into a step of its own."""
    import shlex

    for bad in (
        "Save\nclick '#delete'",
        "Save\rclick #delete",
        "Save\u2028click #delete",
        "Sa\x1bve",
    ):
        assert stable_target_text({"role": "button", "name": bad}) is None, repr(bad)
    value = "a\rclick #delete"
    lines = [
        _step(
            1,
            "click",
            "reins click @e1",
            {"target": "@e1"},
            target_is={"role": "button", "name": "Save\rclick #delete"},
        ),
        _step(
            2,
            "fill",
            shlex.join(["reins", "fill", "#note", value]),
            {"target": "#note", "value": value},
        ),
        _step(3, "click", "reins click '#ok'", {"target": "#ok"}),
    ]
    exported = export_check(lines, name="hostile")
    steps = parse_check(exported.text, name="x", given={}, environ={}).steps
    assert [step.argv for step in steps] == [("click", "@e1"), ("click", "#ok")]
    assert "# step 2 (fill): a word of it cannot be written on one line" in exported.text


def test_a_persons_step_is_asked_of_the_person_again() -> None:
    lines = [
        {"type": "start", "name": "sso"},
        _step(1, "handoff", "reins handoff 'Sign in with SSO'", {"text": "Sign in with SSO"}),
        _step(2, "click", "reins click '#next'", {"target": "#next"}),
    ]
    body = [x for x in export_check(lines, name="sso").text.splitlines() if not x.startswith("#")]
    assert body == ["handoff 'Sign in with SSO'", "click '#next'"]
