"""CLI parsing and the exit-code / --json contract, with no host running."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from reins.cli import main

EXPECTED_COMMANDS = {
    "status",
    "tabs",
    "tab",
    "navigate",
    "back",
    "forward",
    "reload",
    "cdp",
    "install",
    "uninstall",
    "doctor",
    "launch",
    "shutdown",
}


@pytest.fixture
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "state"
    home.mkdir()
    monkeypatch.setenv("REINS_HOME", str(home))
    monkeypatch.delenv("REINS_PROFILE", raising=False)
    return home


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def json_of(result: Result) -> dict[str, object]:
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    payload: dict[str, object] = json.loads(lines[0])
    return payload


@pytest.mark.parametrize("args", [["--json", "status"], ["status", "--json"]])
def test_status_without_host_is_exit_3_no_host(empty_home: Path, args: list[str]) -> None:
    result = invoke(*args)
    assert result.exit_code == 3
    payload = json_of(result)
    assert payload["ok"] is False
    error = payload["error"]
    assert isinstance(error, dict)
    assert error["code"] == "no_host"
    assert isinstance(error["message"], str) and error["message"]
    assert error["transient"] is False


def test_status_without_host_in_plain_text(empty_home: Path) -> None:
    result = invoke("status")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert "no_host" in result.stderr


def test_status_for_a_named_profile_without_host(empty_home: Path) -> None:
    result = invoke("status", "--profile", "work", "--json")
    assert result.exit_code == 3
    error = json_of(result)["error"]
    assert isinstance(error, dict) and error["code"] == "no_host"
    assert "work" in str(error["message"])


@pytest.mark.parametrize(
    "args",
    [
        ["--json", "--timeout-ms", "500", "navigate", "https://example.com/"],
        ["navigate", "https://example.com/", "--json", "--timeout-ms", "500", "--tab", "3"],
        ["navigate", "--json", "-u", "https://example.com/"],
        ["--json", "tabs"],
        ["tab", "select", "4", "--json"],
        ["cdp", "Runtime.evaluate", '{"expression":"1"}', "--json"],
    ],
)
def test_global_options_before_or_after_the_arguments(empty_home: Path, args: list[str]) -> None:
    result = invoke(*args)
    assert result.exit_code == 3, result.output
    error = json_of(result)["error"]
    assert isinstance(error, dict) and error["code"] == "no_host"


def test_navigate_without_url_is_a_usage_error(empty_home: Path) -> None:
    result = invoke("navigate")
    assert result.exit_code == 2
    assert "URL" in result.stderr


@pytest.mark.parametrize("params", ["notjson", "[1, 2]", "{'a': 1}"])
def test_cdp_with_bad_params_is_a_usage_error(empty_home: Path, params: str) -> None:
    result = invoke("cdp", "Runtime.evaluate", params)
    assert result.exit_code == 2
    assert "PARAMS_JSON" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["no-such-command"],
        ["status", "--timeout-ms", "-1"],
        ["status", "--timeout-ms", "soon"],
        ["status", "--tab", "x"],
        ["tab", "select"],
        ["status", "extra-arg"],
        ["install", "--browser", "firefox"],
    ],
)
def test_parse_errors_exit_2(empty_home: Path, args: list[str]) -> None:
    assert invoke(*args).exit_code == 2


def _commands_in_help(text: str) -> set[str]:
    section = text.split("Commands:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^\s{2}(\S+)", section, re.MULTILINE)}


def test_help_lists_the_commands(empty_home: Path) -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    listed = _commands_in_help(result.stdout)
    assert EXPECTED_COMMANDS <= listed, EXPECTED_COMMANDS - listed
    for option in ("--json", "--tab", "--timeout-ms", "--profile"):
        assert option in result.stdout


def test_tab_group_help(empty_home: Path) -> None:
    result = invoke("tab", "--help")
    assert result.exit_code == 0
    assert {"new", "select", "close"} <= _commands_in_help(result.stdout)


def test_short_help_flag(empty_home: Path) -> None:
    assert invoke("-h").exit_code == 0


def test_version(empty_home: Path) -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert re.search(r"\d+\.\d+\.\d+", result.stdout)


def test_uninstall_with_nothing_installed(empty_home: Path, tmp_path: Path) -> None:
    result = invoke("uninstall", "--user-data-dir", str(tmp_path / "p"), "--json")
    assert result.exit_code == 0
    assert json_of(result) == {"ok": True, "removed": []}


# ---- the client path stays light -------------------------------------------------------------

_IMPORT_PROBE = """
import json, sys
import reins.cli
from reins.cli import main
code = 0  # a success returns without SystemExit
try:
    main(["--json", *sys.argv[1:], "status"], standalone_mode=True)
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def test_client_path_imports_nothing_heavy(tmp_path: Path) -> None:
    env = dict(os.environ, REINS_HOME=str(tmp_path))
    env.pop("REINS_PROFILE", None)
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE], env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    probe = json.loads(last)
    assert probe["code"] == 3
    modules = set(probe["modules"])
    assert "reins.cli" in modules and "reins.bridge.client" in modules
    heavy = {
        m
        for m in modules
        if m in ("pydantic", "mcp", "reins.mcp")
        or m.startswith(("pydantic.", "pydantic_core", "mcp.", "mcp_types", "reins.mcp."))
    }
    assert heavy == set()
    host_side = {
        "reins._host",
        "reins.bridge.protocol",
        "reins.bridge.link",
        "reins.bridge.server",
        "reins.bridge.native",
        "reins.bridge.command",
        "reins.commands.browser",
        "reins.commands.table",
        "nativemessaging",
        "asyncio",
    }
    assert host_side & modules == set()


def test_answered_status_imports_neither_socket_nor_pathlib(tmp_path: Path) -> None:
    """A `reins status` that reaches a host (here a hand-built one on the socket: one request line
    in, one answer line out) runs on `_socket` and string paths: `socket` and pathlib (with the
    urllib.parse and ipaddress it pulls in) cost ~12 ms of each start (docs/benchmarks.md)."""
    import socket
    import threading

    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(run / "launch.sock"))
    server.listen(1)
    server.settimeout(30)  # the thread ends even if the CLI never connects
    seen: list[dict[str, object]] = []

    def host() -> None:
        conn, _ = server.accept()
        with conn:
            line = conn.makefile("rb").readline()
            seen.append(json.loads(line))
            answer = {"id": seen[0]["id"], "ok": True, "host": {"pid": 1}}
            conn.sendall(json.dumps(answer).encode() + b"\n")

    thread = threading.Thread(target=host, daemon=True)
    thread.start()
    env = dict(os.environ, REINS_HOME=str(tmp_path))
    env.pop("REINS_PROFILE", None)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _IMPORT_PROBE, "--profile", "launch"],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        thread.join(timeout=10)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert json.loads(lines[0])["host"] == {"pid": 1}  # the host's answer, printed
    assert seen and seen[0]["cmd"] == "status"
    probe = json.loads(lines[-1])
    assert probe["code"] == 0
    modules = set(probe["modules"])
    assert {"socket", "pathlib", "urllib.parse", "ipaddress"} & modules == set()


def test_import_of_cli_alone_is_light() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, reins.cli; print(json.dumps(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout))
    assert "pydantic" not in modules
    assert "reins._host" not in modules


@pytest.mark.parametrize(
    "args",
    [
        ["fill", "#name", "--json"],
        ["--json", "no-such-command"],
        ["navigate", "--json"],
        ["cdp", "X.y", "not json", "--json"],
    ],
)
def test_usage_errors_answer_json_when_asked(empty_home: Path, args: list[str]) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["ok"] is False
    assert answer["error"]["code"] == "bad_request"
    assert answer["error"]["message"] and answer["error"]["transient"] is False


def test_usage_errors_without_json_print_click_usage(empty_home: Path) -> None:
    result = invoke("fill", "#name")
    assert result.exit_code == 2
    assert "Usage:" in result.output and not result.stdout.lstrip().startswith("{")


def test_a_check_file_with_a_bad_line_runs_nothing_and_names_the_line(
    empty_home: Path, tmp_path: Path
) -> None:
    checkfile = tmp_path / "flow.reins"
    checkfile.write_text("status\nfill #amount ${amount}\n")
    result = invoke("run", str(checkfile), "--json")
    assert result.exit_code == 2, result.output
    error = json_of(result)["error"]
    assert isinstance(error, dict) and "line 2: ${amount} is not set" in str(error["message"])
    # Given the variable, the file is read and the host is asked for: none runs here (exit 3).
    result = invoke("run", str(checkfile), "--var", "amount=12", "--json")
    assert result.exit_code == 3, result.output
    result = invoke("run", str(checkfile), "--var", "amount=12", "--report", "--json")
    assert result.exit_code == 2 and "--trace" in str(json_of(result)["error"]), result.output
