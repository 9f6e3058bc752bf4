"""`reins expect` without a browser: the CLI's forms and what they send, the pure judgements (the
one text rule, a whole value, a URL glob, a status class, a request pattern), the typed error."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner
from reins._errors import ExpectationFailure, UsageError, error_from_wire
from reins.act.expect import (
    Unmet,
    matching_requests,
    request_matches,
    status_matches,
    url_matches,
    value_matches,
)
from reins.act.targets import parse_target, text_matches, text_query
from reins.cli import main, run
from reins.cli.contract import exit_code
from reins.cli.render import TEXT

# ---- the CLI's forms ---------------------------------------------------------------------------


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []

    def capture(cmd: str, args: dict[str, Any], **_: Any) -> dict[str, Any]:
        calls.append((cmd, args))
        return {"ok": True, "expectation": cmd[7:], "expected": "x", "seen": "x"}

    monkeypatch.setattr(run, "send", capture)
    return calls


@pytest.mark.parametrize(
    ("argv", "cmd", "args"),
    [
        (["value", "#amount", "12.50"], "expect_value", {"target": "#amount", "expected": "12.50"}),
        (
            ["text", "@status", '"Saved"'],
            "expect_text",
            {"target": "@status", "expected": '"Saved"'},
        ),
        (["checked", "#agree"], "expect_checked", {"target": "#agree"}),
        (
            ["unchecked", "#news", "--frame", "#f"],
            "expect_unchecked",
            {"target": "#news", "frame": "#f"},
        ),
        (["count", "#rows li", "3"], "expect_count", {"target": "#rows li", "count": 3}),
        (["visible", "text=Saved"], "expect_visible", {"target": "text=Saved"}),
        (["hidden", "#spinner"], "expect_hidden", {"target": "#spinner"}),
        (["url", "*/done"], "expect_url", {"pattern": "*/done"}),
        (["title", "Expenses"], "expect_title", {"expected": "Expenses"}),
        (["no-errors"], "expect_no_errors", {}),
        (["no-errors", "--since", "3"], "expect_no_errors", {"since": "3"}),
        (["request", "/api/save"], "expect_request", {"pattern": "/api/save", "status": "2xx"}),
        (
            ["request", "*/api/*", "--status", "201", "--since", "last"],
            "expect_request",
            {"pattern": "*/api/*", "status": "201", "since": "last"},
        ),
    ],
)
def test_each_form_sends_its_command(
    sent: list[tuple[str, dict[str, Any]]], argv: list[str], cmd: str, args: dict[str, Any]
) -> None:
    result = CliRunner().invoke(main, ["expect", *argv], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert sent == [(cmd, args)]
    assert result.stdout.startswith("pass: ")


@pytest.mark.parametrize(
    "argv", [["value", "#a"], ["count", "#a", "three"], ["count", "#a", "-1"], ["url"], ["nope"]]
)
def test_malformed_forms_are_usage_errors(
    sent: list[tuple[str, dict[str, Any]]], argv: list[str]
) -> None:
    result = CliRunner().invoke(main, ["expect", *argv], catch_exceptions=False)
    assert result.exit_code == 2 and sent == []


def test_a_pass_prints_what_was_seen_as_data() -> None:
    shown = TEXT["expect_text"](
        {"expectation": "text", "expected": "saved", "seen": "Saved\x1b[2J"}
    )
    assert shown == 'pass: text "saved" (seen "Saved\\x1b[2J")'
    assert TEXT["expect_checked"]({"expectation": "checked", "expected": True, "seen": True}) == (
        "pass: checked (seen true)"
    )


# ---- the typed error -----------------------------------------------------------------------------


def test_an_unmet_expectation_is_expectation_failed_with_expected_and_seen() -> None:
    error = Unmet("value", "Blue Bottle", "Blue", message="the field holds 'Blue'")
    assert isinstance(error, ExpectationFailure) and error.transient
    wire = error.to_wire()
    assert wire["code"] == "expectation_failed"
    assert wire["expected"] == "Blue Bottle" and wire["seen"] == "Blue"
    assert wire["message"].startswith("expect value 'Blue Bottle' did not hold: the field holds")
    assert "reins state" in wire["message"]  # the next step
    assert exit_code("expectation_failed") == 1
    back = error_from_wire(wire)
    assert type(back) is ExpectationFailure and back.details["seen"] == "Blue"


# ---- the one text rule -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seen", "query", "holds"),
    [
        ("March   2026", "march 2026", True),  # whitespace normalized, any case
        ("Saved the draft", "the DRAFT", True),  # a part of it
        ("  Saved\n", '"Saved"', True),  # quoted: the whole text, normalized
        ("Saved", '"saved"', False),  # quoted: case counts
        ("Saved the draft", '"Saved"', False),  # quoted: the whole text
        ("Saved", "'Saved'", True),
        ("", "x", False),
        ("anything", "", True),
    ],
)
def test_text_matches_by_the_one_rule(seen: str, query: str, holds: bool) -> None:
    assert text_matches(seen, query) is holds


def test_text_targets_and_expect_read_quotes_alike() -> None:
    assert text_query('"Save"') == ("Save", True)
    assert text_query("Save") == ("Save", False)
    assert text_query('"') == ('"', False)
    target = parse_target('text="Save"')
    assert (target.value, target.exact) == ("Save", True)
    target = parse_target("text=Save")
    assert (target.value, target.exact) == ("Save", False)
    assert parse_target('text=""').exact


# ---- value, URL, status, request ---------------------------------------------------------------------


def test_a_value_is_compared_whole() -> None:
    assert value_matches("Blue Bottle", "Blue Bottle")
    assert value_matches("Blue Bottle", '"Blue Bottle"')
    assert not value_matches("Blue Bottle", "Blue")
    assert not value_matches("Blue Bottle", "blue bottle")
    assert not value_matches(None, "")
    assert value_matches("", "")


def test_url_matches_a_glob_or_the_whole_url() -> None:
    url = "https://app.example.com/expenses/42/done?x=1"
    assert url_matches(url, "*/done?*")
    assert url_matches(url, url)
    assert url_matches(url, "https://app.example.com/*")
    assert not url_matches(url, "*/done")
    assert not url_matches(url, "expenses")


@pytest.mark.parametrize(
    ("status", "spec", "holds"),
    [
        (200, "2xx", True),
        (204, "2XX", True),
        (302, "2xx", False),
        (404, "4xx", True),
        (404, "404", True),
        (404, "200", False),
        (None, "2xx", False),
        (0, "2xx", False),
        (True, "1xx", False),
    ],
)
def test_status_matches_a_class_or_a_status(status: Any, spec: str, holds: bool) -> None:
    assert status_matches(status, spec) is holds


@pytest.mark.parametrize("spec", ["ok", "2x", "600", "20", "2xx,3xx", ""])
def test_a_status_that_is_neither_is_a_usage_error(spec: str) -> None:
    with pytest.raises(UsageError) as caught:
        status_matches(200, spec)
    assert caught.value.code == "bad_request"


def test_requests_match_by_a_part_of_their_url_or_a_glob() -> None:
    url = "http://127.0.0.1:8000/api/expenses?token=…"
    assert request_matches(url, "/api/expenses")
    assert request_matches(url, "*/api/*")
    assert not request_matches(url, "/api/users")
    entries = [{"url": url, "status": 200}, {"url": "http://x/other", "status": 404}, {}]
    assert matching_requests(entries, "/api/") == [entries[0]]
