"""The CLI is the command table: every host command, run through click with the request captured,
sends args its own pydantic model accepts; `reins batch` sends the same; no command is missing."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from reins.bridge import client
from reins.bridge.protocol import validate_args
from reins.cli import main, run
from reins.cli.host_commands import HostCommand, description
from reins.commands.table import all_commands, describe

TABLE = all_commands()
DESCRIBED = {c["name"]: c for c in describe(TABLE)["commands"]}

# Served by the host, not offered on the CLI.
NOT_ON_CLI = {"ping", "settle"}
# Run by the CLI itself, without the host.
# Commands the CLI runs itself inside a group of the host's.
LOCAL_SUBCOMMANDS = {("trace", "export")}
LOCAL = {
    "batch",
    "config",
    "doctor",
    "guide",
    "install",
    "launch",
    "mask",
    "mcp",
    "report",
    "run",
    "shutdown",
    "uninstall",
}
# `reins --help`: as it was when the CLI was written by hand, `mcp`, the trace commands and the
# Act II commands since, and `run` (a check file).
TOP_LEVEL = (
    {
        "back",
        "batch",
        "cdp",
        "check",
        "click",
        "config",
        "dblclick",
        "dialog",
        "doctor",
        "eval",
        "expect",
        "fill",
        "find",
        "forward",
        "guide",
        "hover",
        "install",
        "launch",
        "map",
        "mask",
        "mcp",
        "navigate",
        "press",
        "reload",
        "screenshot",
        "select",
        "shutdown",
        "state",
        "stats",
        "status",
        "tab",
        "tabs",
        "type",
        "uncheck",
        "uninstall",
        "wait",
    }
    | {"console", "network", "report", "trace"}
    | {"choose", "drag", "mouse", "scroll", "upload"}
    | {"run"}
    | {"handoff"}
)
# What the fake host answers, where a CLI quirk reads the answer.
ANSWERS: dict[str, dict[str, Any]] = {
    "map": {"map": {"elements": []}},
    "screenshot": {"png_base64": "", "bytes": 0},
    "state": {"text": ""},
}

Sent = list[dict[str, Any]]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Sent:
    """Every request the CLI sends, captured instead of reaching a host."""
    calls: Sent = []

    def capture(
        cmd: str,
        args: dict[str, Any],
        *,
        profile: str | None,
        tab: int | None,
        timeout_ms: int | None,
        default_timeout_ms: int | None = None,
    ) -> dict[str, Any]:
        calls.append(
            {"cmd": cmd, "args": args, "tab": tab, "timeout_ms": timeout_ms, "profile": profile}
        )
        return {"ok": True, **ANSWERS.get(cmd, {})}

    monkeypatch.setattr(run, "send", capture)
    monkeypatch.chdir(tmp_path)  # screenshot and map -o write here
    monkeypatch.delenv("REINS_CLICK", raising=False)
    return calls


def invoke(argv: list[str], stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, argv, input=stdin, catch_exceptions=False)


def send_one(sent: Sent, argv: list[str], stdin: str | None = None) -> dict[str, Any]:
    before = len(sent)
    result = invoke(argv, stdin)
    assert result.exit_code == 0, (argv, result.output)
    assert len(sent) == before + 1, argv
    return sent[-1]


# ---- one CLI command per table command, and back -----------------------------------------------


def _leaves(
    group: click.Group, prefix: tuple[str, ...] = ()
) -> dict[tuple[str, ...], click.Command]:
    ctx = click.Context(group)
    out: dict[tuple[str, ...], click.Command] = {}
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        if isinstance(cmd, click.Group):
            out.update(_leaves(cmd, (*prefix, name)))
        else:
            out[(*prefix, name)] = cmd
    return out


def test_every_table_command_is_a_cli_command_and_back() -> None:
    leaves = _leaves(main)
    host = {words: cmd for words, cmd in leaves.items() if isinstance(cmd, HostCommand)}
    assert set(leaves) - set(host) == {(name,) for name in LOCAL} | LOCAL_SUBCOMMANDS
    assert {cmd.wire_name for cmd in host.values()} == set(TABLE) - NOT_ON_CLI
    for words, cmd in host.items():
        assert TABLE[cmd.wire_name].cli == words
    assert {name for name, cmd in TABLE.items() if not cmd.cli} == NOT_ON_CLI


def test_help_lists_the_same_commands_as_before() -> None:
    assert {words[0] for words in _leaves(main)} == TOP_LEVEL
    listed = invoke(["--help"]).stdout.split("Commands:", 1)[1]
    assert {line.split()[0] for line in listed.splitlines() if line.strip()} == TOP_LEVEL


def test_the_cli_reads_the_current_description() -> None:
    assert list(description()) == [c for c in describe(TABLE)["commands"] if c["words"]]


# ---- every command, every argument: what the CLI sends, its model accepts ------------------------


def _tokens(param: dict[str, Any]) -> list[str]:
    """A value of the parameter's type, as CLI words (not its default, so that it is sent)."""
    kind = param["type"]
    if kind == "int":
        return [str(param.get("min", 0) + 2)]
    if kind == "choice":
        return [next(c for c in reversed(param["choices"]) if c != param.get("default"))]
    if kind == "list":
        return ["a", "b"]
    if kind == "object":
        return ['{"a": 1}']
    return [f"{param['name']}-value"]


def _generated(spec: dict[str, Any]) -> list[list[str]]:
    """Required arguments only; then every argument and every option."""
    words = spec["words"]
    required = [t for p in spec["arguments"] if p["required"] for t in _tokens(p)]
    every = [t for p in spec["arguments"] for t in _tokens(p)]
    for option in spec["options"]:
        every += [option["flag"]] + ([] if option["type"] == "bool" else _tokens(option))
    return [[*words, *required, "--json"], [*words, *every, "--json"]]


# Positionals a CLI quirk parses itself: spelled out here.
BY_HAND: dict[str, list[list[str]]] = {
    "navigate": [["navigate", "https://example.com/"], ["navigate", "-u", "https://example.com/"]],
    **{
        name: [
            [name, "@a", "alice"],
            [name, "@a", "-v", "alice"],
            [
                name,
                "--text",
                "Name",
                "--index",
                "2",
                "--type",
                "input",
                "--viewport-only",
                "--frame",
                "iframe",
                "alice",
            ],
        ]
        for name in ("fill", "type")
    },
}


# Hidden fields a CLI quirk fills in itself (upload: the directory the CLI runs in).
QUIRK_ADDED: dict[str, set[str]] = {"upload": {"cwd"}}


def _variants(name: str) -> list[list[str]]:
    return BY_HAND.get(name) or _generated(DESCRIBED[name])


CLI_COMMANDS = sorted(set(TABLE) - NOT_ON_CLI)


@pytest.mark.parametrize("name", CLI_COMMANDS)
def test_every_command_sends_args_its_model_accepts(sent: Sent, name: str) -> None:
    given: set[str] = set()
    for argv in _variants(name):
        request = send_one(sent, argv)
        assert request["cmd"] == name
        validate_args(TABLE[name].args, request["args"])
        given |= set(request["args"])
    spec = DESCRIBED[name]
    assert given == (
        {p["name"] for p in (*spec["arguments"], *spec["options"])} | QUIRK_ADDED.get(name, set())
    )


@pytest.mark.parametrize("name", CLI_COMMANDS)
def test_batch_sends_what_the_commands_send(
    sent: Sent, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    class Connection:
        def __init__(self, path: Path) -> None:
            pass

        def __enter__(self) -> Connection:
            return self

        def __exit__(self, *_: object) -> None:
            pass

        def call(
            self,
            cmd: str,
            args: dict[str, Any],
            *,
            tab: int | None,
            timeout_ms: int | None,
            default_timeout_ms: int | None = None,
        ) -> dict[str, Any]:
            batched.append(
                {"cmd": cmd, "args": args, "tab": tab, "timeout_ms": timeout_ms, "profile": None}
            )
            return {"ok": True, **ANSWERS.get(cmd, {})}

    batched: Sent = []
    monkeypatch.setattr(client, "connect", lambda profile: Connection(Path("unused.sock")))
    lines = [[*argv, "--json"] if "--json" not in argv else argv for argv in _variants(name)]
    for argv in lines:
        send_one(sent, argv)
    result = invoke(["batch"], stdin="".join(shlex.join(argv) + "\n" for argv in lines))
    assert result.exit_code == 0, result.output
    assert batched == sent


# ---- the mapping, spelled out ---------------------------------------------------------------------

MAPPING: list[tuple[list[str], str, dict[str, Any]]] = [
    (["status"], "status", {}),
    (["tab", "new"], "tab_new", {}),
    (["tab", "new", "https://example.com/"], "tab_new", {"url": "https://example.com/"}),
    (["tab", "select", "4"], "tab_select", {"id": 4}),
    (["tab", "close"], "tab_close", {}),
    (["navigate", "-u", "https://example.com/"], "navigate", {"url": "https://example.com/"}),
    (["cdp", "Runtime.evaluate"], "cdp", {"method": "Runtime.evaluate", "params": {}}),
    (
        ["cdp", "Runtime.evaluate", '{"expression":"1"}'],
        "cdp",
        {"method": "Runtime.evaluate", "params": {"expression": "1"}},
    ),
    (["state"], "state", {}),
    (
        ["state", "--source", "ax", "--max-tokens", "0", "--viewport-only"],
        "state",
        {"source": "ax", "max_tokens": 0, "viewport_only": True},
    ),
    (["map", "--force"], "map", {"force": True}),
    (
        ["find", "--text", "Save", "--id", "elem_3", "--type", "button"],
        "find",
        {"text": "Save", "id": "elem_3", "type": "button"},
    ),
    (["screenshot", "--annotate", "-o", "shot.png"], "screenshot", {"annotate": True}),
    (["click", "@a"], "click", {"target": "@a", "button": "left"}),
    (
        ["click", "--text", "Delete", "--index", "2"],
        "click",
        {"text": "Delete", "index": 2, "button": "left"},
    ),
    (["dblclick", "@a", "--button", "right"], "dblclick", {"target": "@a", "button": "right"}),
    (["hover", "@a"], "hover", {"target": "@a"}),
    (["hover", "@a", "--button", "right"], "hover", {"target": "@a"}),  # accepted, as before
    (["fill", "@a", "alice"], "fill", {"target": "@a", "value": "alice"}),
    (["fill", "--text", "Name", "alice"], "fill", {"text": "Name", "value": "alice"}),
    (["type", "@a", "-v", "-x-"], "type", {"target": "@a", "value": "-x-"}),
    (["press", "Enter"], "press", {"keys": "Enter"}),
    (
        ["press", "Enter", "@a", "--frame", "iframe"],
        "press",
        {"keys": "Enter", "target": "@a", "frame": "iframe"},
    ),
    (["select", "@s", "a", "b"], "select", {"target": "@s", "values": ["a", "b"]}),
    (["check", "@c"], "check", {"target": "@c"}),
    (["uncheck", "@c", "--frame", "#f"], "uncheck", {"target": "@c", "frame": "#f"}),
    (["wait", "--idle"], "wait", {"idle": True}),
    (["wait", "--url", "*/done"], "wait", {"url": "*/done"}),
    (["dialog"], "dialog", {}),
    (["dialog", "accept", "hi"], "dialog", {"action": "accept", "text": "hi"}),
    (
        ["eval", "1+1", "--target", "@a", "--frame", "#f"],
        "eval",
        {"expression": "1+1", "target": "@a", "frame": "#f"},
    ),
]


@pytest.mark.parametrize(
    ("argv", "cmd", "args"), MAPPING, ids=lambda x: shlex.join(x) if isinstance(x, list) else None
)
def test_what_each_command_line_sends(
    sent: Sent, argv: list[str], cmd: str, args: dict[str, Any]
) -> None:
    request = send_one(sent, [*argv, "--json"])
    assert (request["cmd"], request["args"]) == (cmd, args)


def test_global_options_travel_with_the_request(sent: Sent) -> None:
    request = send_one(
        sent, ["--tab", "3", "click", "@a", "--timeout-ms", "500", "--json", "--profile", "work"]
    )
    assert (request["tab"], request["timeout_ms"], request["profile"]) == (3, 500, "work")


def test_state_without_json_asks_for_the_text_only(sent: Sent) -> None:
    assert send_one(sent, ["state"])["args"] == {"text_only": True}
    validate_args(TABLE["state"].args, sent[-1]["args"])


def test_reins_click_js(sent: Sent, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REINS_CLICK", "js")
    assert send_one(sent, ["click", "@a", "--json"])["args"] == {
        "target": "@a",
        "button": "left",
        "mode": "js",
    }
    validate_args(TABLE["click"].args, sent[-1]["args"])
    assert send_one(sent, ["hover", "@a", "--json"])["args"] == {"target": "@a"}


def test_eval_reads_stdin_for_a_dash(sent: Sent) -> None:
    request = send_one(sent, ["eval", "-", "--json"], stdin="document.title\n")
    assert request["args"] == {"expression": "document.title\n"}


def test_files_written_by_the_cli(sent: Sent, tmp_path: Path) -> None:
    result = invoke(["map", "-o", "map.json", "--json"])
    assert json.loads(result.stdout) == {"ok": True, "written": "map.json"}
    assert json.loads((tmp_path / "map.json").read_text()) == {"elements": []}
    result = invoke(["screenshot"])
    assert result.stdout.strip() == "wrote screenshot.png (0 bytes, 0 labels)"
    assert (tmp_path / "screenshot.png").exists()
    invoke(["state", "--compare-sources", "--record", "figures.jsonl", "--json"])
    assert sent[-1]["args"] == {"compare_sources": True}


@pytest.mark.parametrize(
    "argv",
    [
        ["fill", "@a"],
        ["fill", "@a", "b", "c"],
        ["navigate"],
        ["select", "@s"],
        ["click", "--index", "0"],
        ["state", "--source", "html"],
        ["cdp", "A.b", "[]"],
        ["dialog", "maybe"],
        ["tab", "select", "x"],
    ],
)
def test_usage_errors_send_nothing(sent: Sent, argv: list[str]) -> None:
    assert invoke(argv).exit_code == 2
    assert sent == []
