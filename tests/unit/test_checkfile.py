"""The check-file parser (reins/cli/checkfile.py) on hand-written files: steps with their line
numbers, variables from --var then the environment, a name, and every bad line a usage error that
names its line, before anything runs."""

from __future__ import annotations

import pytest
from reins._errors import UsageError
from reins.cli.checkfile import parse_check, parse_vars

FILE = """\
# name: an expense is saved
# the merchant comes from --var

navigate ${base}/app/expense.html
fill "role=textbox[name='Merchant']" "${merchant}"
expect text #saved "Saved: ${merchant} costs $$12"
"""


def test_steps_keep_their_line_numbers_and_fill_variables_inside_their_word() -> None:
    check = parse_check(
        FILE,
        name="expense",
        given={"merchant": 'Cafe O\'Neil "East"'},
        environ={"base": "http://localhost:8000", "merchant": "ignored"},
    )
    assert check.name == "an expense is saved"
    assert [s.line for s in check.steps] == [4, 5, 6]
    assert check.steps[0].argv == ("navigate", "http://localhost:8000/app/expense.html")
    assert check.steps[1].argv == ("fill", "role=textbox[name='Merchant']", 'Cafe O\'Neil "East"')
    assert check.steps[2].argv == (
        "expect",
        "text",
        "#saved",
        'Saved: Cafe O\'Neil "East" costs $12',
    )
    assert check.steps[2].text == 'expect text #saved "Saved: ${merchant} costs $$12"'


def test_the_file_s_name_is_the_default_name() -> None:
    assert parse_check("status\n", name="smoke", given={}, environ={}).name == "smoke"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("status\nfill #a ${nope}\n", "line 2: ${nope} is not set"),
        ("status\n\nclick '#a\n", "line 3: No closing quotation"),
        ("batch\n", "line 1: batch does not nest"),
        ("# only a comment\nrun other.reins\n", "line 2: a check file does not run another one"),
        ("fill #a ${1x}\n", "line 1: '${1x}' is not a variable"),
        ("fill #a $\n", ""),  # a lone $ is text: no error (checked below)
        ("# nothing to run\n\n", "the check has no step to run"),
    ],
)
def test_a_bad_line_is_a_usage_error_naming_its_line(text: str, says: str) -> None:
    if not says:
        assert parse_check(text, name="x", given={}, environ={}).steps[0].argv[-1] == "$"
        return
    with pytest.raises(UsageError) as caught:
        parse_check(text, name="x", given={}, environ={})
    assert caught.value.message.startswith(says), caught.value.message
    assert caught.value.code == "bad_request"


def test_vars_are_name_value_pairs() -> None:
    assert parse_vars(["a=1", "b_2=x=y", "c="]) == {"a": "1", "b_2": "x=y", "c": ""}
    for bad in (["novalue"], ["1a=2"], ["=x"]):
        with pytest.raises(UsageError):
            parse_vars(bad)


def test_a_local_step_is_judged_by_the_answer_it_printed_and_its_exit_status() -> None:
    from reins.cli.runfile import local_answer

    said = '{"ok": true, "profile": "p", "evaluate": true}\n'
    assert local_answer(said, 0) == {"ok": True, "profile": "p", "evaluate": True}
    assert local_answer(said, None)["ok"] is True
    # ok printed, yet a non-zero exit: failed, never passed on its word alone.
    assert local_answer(said, 1)["ok"] is False
    refused = '{"ok": false, "error": {"code": "bad_request", "message": "no"}}'
    assert local_answer("noise\n" + refused, 2)["error"]["code"] == "bad_request"
    assert local_answer("plain text output\n", 0) == {"ok": True}
    failed = local_answer("", 3)
    assert failed["ok"] is False and "status 3" in failed["error"]["message"]
