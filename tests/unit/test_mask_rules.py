"""Masking rules (issue 34, item 5): kept per site beside the other settings, checked simple
(a text pattern runs on page text), set with `reins mask`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from reins._errors import UsageError
from reins.cli.group import main
from reins.setup.config import (
    change_mask_rule,
    check_selector_rule,
    check_text_rule,
    mask_rules,
    read_config,
    site_origin,
    upload_dirs,
    write_setting,
)

# ---- sites, storage, checks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "site"),
    [
        ("https://App.Example.com/login?x=1", "https://app.example.com"),
        ("https://app.example.com:443", "https://app.example.com"),
        ("http://127.0.0.1:8080/a", "http://127.0.0.1:8080"),
        ("file:///tmp/page.html", "file://"),
        ("*", "*"),
    ],
)
def test_a_rule_is_kept_under_its_sites_origin(given: str, site: str) -> None:
    assert site_origin(given) == site


@pytest.mark.parametrize("given", ["example.com", "ftp://example.com", "javascript:alert(1)"])
def test_what_names_no_site_is_refused(given: str) -> None:
    with pytest.raises(UsageError):
        site_origin(given)


def test_rules_are_added_listed_and_removed_beside_the_other_settings(tmp_path: Path) -> None:
    write_setting("p", "evaluate", False, tmp_path)
    change_mask_rule("p", "add", "https://bank.test/x", "selector", "#balance", tmp_path)
    change_mask_rule("p", "add", "*", "text", r"ACCT-\d{8}", tmp_path)
    change_mask_rule("p", "add", "https://bank.test", "selector", "#balance", tmp_path)  # once
    assert mask_rules("p", tmp_path) == {
        "https://bank.test": [{"selector": "#balance"}],
        "*": [{"text": r"ACCT-\d{8}"}],
    }
    write_setting("p", "downloads", False, tmp_path)  # another setting keeps the rules
    assert read_config("p", tmp_path)["evaluate"] is False
    assert upload_dirs("p", tmp_path) == []
    assert len(mask_rules("p", tmp_path)) == 2
    change_mask_rule("p", "remove", "https://bank.test", "selector", "#balance", tmp_path)
    assert mask_rules("p", tmp_path) == {"*": [{"text": r"ACCT-\d{8}"}]}
    with pytest.raises(UsageError, match="no such rule"):
        change_mask_rule("p", "remove", "https://bank.test", "selector", "#balance", tmp_path)


def test_a_rule_the_file_holds_that_is_not_valid_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "config" / "p.json"
    path.parent.mkdir()
    bad = {"masks": {"*": [{"text": "(a+)+"}, {"selector": "#ok"}, {"other": "x"}], "x": 3}}
    path.write_text(json.dumps(bad))
    assert mask_rules("p", tmp_path) == {"*": [{"selector": "#ok"}]}


@pytest.mark.parametrize(
    "pattern",
    [r"ACCT-\d+", r"\d{12,19}", r"[A-Z]{2}\d{2}[A-Z0-9]{10,30}", r"(foo|bar)-\d+", r"x\.y?"],
)
def test_simple_text_rules_are_kept(pattern: str) -> None:
    assert check_text_rule(pattern) == pattern


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("(a+)+", "repeats a group"),
        ("(ab)*", "repeats a group"),
        (r"\w+\w+x", "more than one open repetition"),
        ("a*a*a*x", "more than one open repetition"),
        (r"\w+\w{1,64}x", "more than one open repetition"),
        ("(?=x)y", "look-around"),
        (r"(a)\1", r"\\1 is not an escape"),
        ("a.*?b", "lazy"),
        ("", "1 to"),
        ("a" * 201, "1 to"),
        ("[", "not a pattern"),
    ],
)
def test_text_rules_that_could_run_away_on_page_text_are_refused(pattern: str, why: str) -> None:
    with pytest.raises(UsageError, match=why):
        check_text_rule(pattern)


@pytest.mark.parametrize("selector", ["a{color:red}", "(", "div[x", "", "x" * 301, "a\nb"])
def test_selectors_that_are_not_css_are_refused_typed(selector: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_selector_rule(selector)
    assert caught.value.code == "invalid_selector"


def test_the_cli_adds_lists_and_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("REINS_HOME", str(home))
    runner = CliRunner()
    added = runner.invoke(main, ["mask", "add", "https://b.test", "--selector", "#n", "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.output)["rules"] == {"https://b.test": [{"selector": "#n"}]}
    refused = runner.invoke(main, ["mask", "add", "*", "--text", "(a+)+", "--json"])
    assert refused.exit_code == 2
    assert json.loads(refused.output)["error"]["code"] == "bad_request"
    both = runner.invoke(main, ["mask", "add", "*", "--text", "x", "--selector", "y"])
    assert both.exit_code == 2
    listed = runner.invoke(main, ["mask", "list"])
    assert "https://b.test  --selector #n" in listed.output
