"""`reins mcp` without a browser: the tools are the table's, answers are frugal and under the cap,
errors are typed tool errors, screenshots fit and stay legible."""

from __future__ import annotations

import base64
import io
import json
import os
import random
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp_types import CallToolResult, ImageContent, TextContent
from PIL import Image
from reins._errors import UsageError
from reins.cli import main
from reins.commands.table import all_commands
from reins.mcp import DEFAULT_ANSWER_TOKENS, DEFAULT_STATE_TOKENS, Limits, Settings, ToolServer
from reins.mcp.answers import answer_tokens, error_result, prepare_args, tool_result
from reins.mcp.images import LEGIBLE_LABEL_PX, MAX_EDGE, MAX_PIXELS, fit_image
from reins.mcp.tools import ToolWords, tool_specs
from reins.observe.annotate import Mark, annotate

TABLE = all_commands()
SPECS = {spec.name: spec for spec in tool_specs(TABLE)}
# Declared `on_mcp=False`, each with its reason at the declaration (commands/browser.py, eval.py, observe.py).
NOT_TOOLS = {"cdp", "map", "ping", "settle", "stats", "status"}


# ---- the tools are the table --------------------------------------------------------------------


def test_the_tools_are_the_table_less_what_is_declared_not_a_tool() -> None:
    assert set(SPECS) == set(TABLE) - NOT_TOOLS
    assert {name for name, cmd in TABLE.items() if not cmd.mcp} == NOT_TOOLS


def test_every_cli_command_with_a_page_effect_is_a_tool_taking_the_same_model() -> None:
    acting = {name for name, cmd in TABLE.items() if cmd.cli and not cmd.read_only}
    # raw CDP: not a tool on purpose (see its declaration).
    assert acting - set(SPECS) == {"cdp"}
    for name in acting - {"cdp"}:
        spec = SPECS[name]
        assert spec.command is TABLE[name]
        assert spec.input_schema == TABLE[name].args.model_json_schema()


def test_every_tool_schema_is_its_model_schema_and_says_no_cli_detail() -> None:
    for name, spec in SPECS.items():
        schema = spec.input_schema
        assert schema == TABLE[name].args.model_json_schema()
        assert schema["type"] == "object" and schema.get("additionalProperties") is False
        assert '"cli"' not in json.dumps(schema), name
    # Choices the host checks itself are an enum for every client.
    assert SPECS["click"].input_schema["properties"]["button"]["enum"] == [
        "left",
        "right",
        "middle",
    ]


def test_annotations_follow_the_table() -> None:
    for name, spec in SPECS.items():
        cmd = TABLE[name]
        assert spec.read_only is cmd.read_only
        if cmd.read_only:
            assert spec.destructive is None and spec.idempotent is None
        else:
            assert spec.destructive is True and spec.idempotent is cmd.idempotent
    assert {n for n, s in SPECS.items() if s.idempotent} == {
        "check",
        "fill",
        "hover",
        "navigate",
        "reload",
        "select",
        "tab_select",
        "uncheck",
    }
    expects = {n for n in SPECS if n.startswith("expect_")}
    assert {n for n, s in SPECS.items() if s.read_only} == {
        "find",
        "screenshot",
        "state",
        "tabs",
        "wait",
        "console",
        "network",
        *expects,
    }
    assert {"expect_value", "expect_text", "expect_checked", "expect_count"} <= expects


def test_listed_tools_carry_schema_and_hints() -> None:
    tools = {tool.name: tool for tool in ToolServer(Settings(), TABLE).tools}
    assert set(tools) == set(SPECS)
    assert tools["state"].annotations is not None and tools["state"].annotations.read_only_hint
    click = tools["click"].annotations
    assert click is not None and click.read_only_hint is False and click.destructive_hint is True
    assert (
        tools["click"].description
        == "Click TARGET with real mouse events (or text T [index N] [type X])."
    )


@pytest.mark.parametrize(
    ("cli", "tool"),
    [
        (
            "take a new snapshot with `reins state` and use a ref",
            "take a new snapshot with `state` and use a ref",
        ),
        ("`reins tab select ID` or `reins tab new URL`", "`tab_select ID` or `tab_new URL`"),
        ("`reins dialog accept [TEXT]`", "`dialog accept [TEXT]`"),
        ("a smaller --max-tokens, or --viewport-only", "a smaller max_tokens, or viewport_only"),
        # Not tools, not tool arguments: left as the CLI says them (the user runs them).
        ("run `reins doctor`", "run `reins doctor`"),
        ("retry with a larger --timeout-ms", "retry with a larger --timeout-ms"),
        ("the reins extension, read-only", "the reins extension, read-only"),
    ],
)
def test_cli_words_read_as_tool_words(cli: str, tool: str) -> None:
    assert ToolWords.of(TABLE)(cli) == tool


# ---- what is sent -------------------------------------------------------------------------------


def test_state_gets_a_budget_the_answer_can_hold() -> None:
    limits = Limits(answer_tokens=20_000, state_tokens=8_000)
    assert prepare_args("state", {}, limits) == {"max_tokens": 8_000, "text_only": True}
    assert prepare_args("state", {"max_tokens": 500}, limits)["max_tokens"] == 500
    assert prepare_args("state", {"max_tokens": 0}, limits)["max_tokens"] == limits.state_cap
    assert prepare_args("state", {"max_tokens": 90_000}, limits)["max_tokens"] == limits.state_cap
    assert limits.state_cap < limits.answer_tokens
    assert prepare_args("state", {"compare_sources": True}, limits) == {"compare_sources": True}
    assert prepare_args("click", {"target": "@a"}, limits) == {"target": "@a"}


def test_upload_reads_from_the_server_directory_which_the_client_cannot_name() -> None:
    limits = Limits()
    schema = SPECS["upload"].input_schema
    assert "cwd" in TABLE["upload"].args.model_fields and "cwd" not in schema["properties"]
    sent = prepare_args(
        "upload", {"target": "#f", "files": ["a.pdf", "/x/b.txt"]}, limits, cwd="/w"
    )
    assert sent == {"target": "#f", "files": ["/w/a.pdf", "/x/b.txt"], "cwd": "/w"}
    # Run from the filesystem root (as some MCP hosts start servers), nothing is allowed from it.
    sent = prepare_args("upload", {"target": "#f", "files": ["a.pdf"]}, limits, cwd="/")
    assert sent == {"target": "#f", "files": ["a.pdf"], "cwd": None}


def test_an_argument_the_tool_schema_does_not_list_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def send(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        sent.append((cmd, args))
        return {"ok": True, "files": []}

    server = ToolServer(Settings(cwd="/home/u/project"), TABLE)
    monkeypatch.setattr(server, "_send", send)
    named = _call(server, "upload", {"target": "#f", "files": ["/etc/hostname"], "cwd": "/etc"})
    assert named.is_error and _text(named).startswith("error bad_request: the upload tool takes")
    assert not sent
    assert not _call(server, "upload", {"target": "#f", "files": ["a.pdf"]}).is_error
    assert sent == [
        ("upload", {"target": "#f", "files": ["/home/u/project/a.pdf"], "cwd": "/home/u/project"})
    ]


def test_defaults() -> None:
    assert Limits() == Limits(DEFAULT_ANSWER_TOKENS, DEFAULT_STATE_TOKENS)
    assert DEFAULT_STATE_TOKENS < DEFAULT_ANSWER_TOKENS < 25_000  # under the hosts' cap
    with pytest.raises(UsageError):
        Limits(answer_tokens=10)


# ---- what is answered ---------------------------------------------------------------------------


def _text(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


def test_an_action_answers_its_effect_in_one_compact_line() -> None:
    answer = {
        "ok": True,
        "request_id": 3,
        "method": "cdp",
        "point": [10.5, 20.0],
        "effect": {"expanded": {"from": False, "to": True}, "dom_changed_elsewhere": 12},
        "warnings": [],
        "ref": "@categorytrig",
    }
    result = tool_result("click", answer, Limits())
    assert not result.is_error
    assert json.loads(_text(result)) == {
        "effect": {"expanded": {"from": False, "to": True}, "dom_changed_elsewhere": 12},
        "ref": "@categorytrig",
    }
    fallback = tool_result("click", {**answer, "method": "js_fallback"}, Limits())
    assert json.loads(_text(fallback))["method"] == "js_fallback"
    assert answer_tokens(result) < 60


def test_state_text_says_what_it_left_out_in_tool_words() -> None:
    answer = {
        "ok": True,
        "url": "http://x/",
        "title": "Big",
        "left_out": 412,
        "text": '@a button "A"\n… 412 elements left out (offscreen); run with --max-tokens 0 '
        "for all, or scroll and run again",
        "refs": [],
    }
    text = _text(tool_result("state", answer, Limits()))
    assert text.splitlines()[0] == 'page: "Big" "http://x/"'
    assert text.splitlines()[1] == '@a button "A"'
    last = text.splitlines()[-1]
    assert "412 more elements left out" in last and "max_tokens" in last and "--" not in last


def test_find_answers_one_line_a_match() -> None:
    match = {
        "ref": "@btn4",
        "id": "elem_4",
        "type": "button",
        "tag": "button",
        "role": "button",
        "text": "Button 4",
        "selector": "#btn-4",
        "position": {"x": 1, "y": 2},
        "visibility": {"inViewport": False, "visible": True, "obscured": False},
        "frame": "f0",
    }
    text = _text(tool_result("find", {"ok": True, "matches": [match], "stage": "type"}, Limits()))
    assert text == '1 match (by type)\n@btn4 button "Button 4" [offscreen]'


@pytest.mark.parametrize("tool", ["eval", "find", "tabs", "state", "navigate"])
def test_no_answer_is_over_the_cap_and_a_cut_one_says_so(tool: str) -> None:
    limits = Limits(answer_tokens=1_000)
    line = "x" * 70 + "\n"
    answers: dict[str, dict[str, Any]] = {
        "eval": {"value": "y" * 50_000},
        "find": {
            "matches": [{"ref": f"@r{i}", "role": "button", "text": "t" * 60} for i in range(2_000)]
        },
        "tabs": {
            "tabs": [
                {"id": i, "url": "http://x/" + "p" * 80, "title": "t", "active": False}
                for i in range(500)
            ]
        },
        "state": {"text": line * 2_000, "url": "u", "title": "t", "left_out": 0},
        "navigate": {"url": "http://x/" + "q" * 10_000, "title": "t"},
    }
    result = tool_result(tool, {"ok": True, **answers[tool]}, limits)
    assert answer_tokens(result) <= limits.answer_tokens
    assert "cut: this answer was" in _text(result)
    assert "--max-tokens-per-answer" in _text(result)


def test_a_typed_error_is_a_tool_error_with_code_message_and_next_step() -> None:
    error = {
        "code": "ref_stale",
        "transient": False,
        "candidates": ["@a", "@b"],
        "message": "@save is gone; take a new snapshot with `reins state` and use the new ref",
    }
    result = error_result(error, Limits(), ToolWords.of(TABLE))
    assert result.is_error
    text = _text(result)
    assert text.startswith("error ref_stale: @save is gone; take a new snapshot with `state`")
    assert json.loads(text.splitlines()[1]) == {"transient": False, "candidates": ["@a", "@b"]}


# ---- screenshots --------------------------------------------------------------------------------


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _noise(width: int, height: int, seed: int = 1) -> Image.Image:
    rng = random.Random(seed)
    return Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))


def _page(width: int, height: int, marks: int) -> tuple[bytes, int]:
    """A page-like picture (flat colours, some noise) with ref labels; and their height."""
    image = Image.new("RGB", (width, height), (250, 250, 250))
    image.paste(_noise(width // 3, height // 4), (width // 3, height // 3))
    boxes = [Mark(f"@e{i}", 20 + (i % 8) * 150, 20 + (i // 8) * 40, 120, 24) for i in range(marks)]
    drawn = annotate(_png(image), boxes)
    heights = {p.label_box[3] - p.label_box[1] for p in drawn.placements}
    return drawn.png, min(heights)


def test_a_screenshot_that_fits_goes_as_taken() -> None:
    png = _png(Image.new("RGB", (1280, 720), (255, 255, 255)))
    fitted = fit_image(png, max_bytes=60_000)
    assert fitted.data == png and fitted.encoding == "png" and fitted.scale == 1.0


def test_fewer_bytes_before_fewer_pixels_and_labels_stay_legible() -> None:
    png, label_px = _page(1280, 720, 120)
    assert len(png) > 60_000
    fitted = fit_image(png, max_bytes=60_000, label_px=label_px)
    assert len(fitted.data) <= 60_000
    assert fitted.scale * label_px >= LEGIBLE_LABEL_PX
    assert fitted.cut_at is None or fitted.scale < 1  # scaled only when re-encoding was not enough


def test_a_picture_too_big_to_scale_legibly_is_cut_not_shrunk() -> None:
    png, label_px = _page(1280, 720, 120)
    fitted = fit_image(png, max_bytes=8_000, label_px=label_px)
    assert len(fitted.data) <= 8_000
    assert fitted.scale * label_px >= LEGIBLE_LABEL_PX
    assert fitted.cut_at is not None and fitted.height == fitted.cut_at < 720


def test_a_tall_page_is_cut_to_what_a_model_takes_as_is() -> None:
    tall = Image.new("RGB", (1280, 5_000), (255, 255, 255))
    tall.paste(_noise(200, 5_000), (0, 0))
    fitted = fit_image(_png(tall), max_bytes=60_000)
    assert len(fitted.data) <= 60_000
    assert fitted.height <= MAX_EDGE and fitted.width * fitted.height <= MAX_PIXELS
    assert fitted.cut_at is not None


def test_the_screenshot_tool_answers_an_image_within_the_cap() -> None:
    png, label_px = _page(1280, 720, 120)
    labels = [
        {"ref": f"@e{i}", "box": [0, 0, 1, 1], "label_box": [0, 0, 30, label_px]}
        for i in range(120)
    ]
    answer = {
        "ok": True,
        "format": "png",
        "png_base64": base64.b64encode(png).decode(),
        "bytes": len(png),
        "labels": labels,
    }
    limits = Limits(answer_tokens=5_000)
    result = tool_result("screenshot", answer, limits)
    image = next(b for b in result.content if isinstance(b, ImageContent))
    assert image.mime_type in ("image/png", "image/jpeg")
    assert answer_tokens(result) <= limits.answer_tokens
    assert "120 ref labels" in _text(result)


# ---- a call, end to end but for the socket -------------------------------------------------------


def _call(server: ToolServer, name: str, args: dict[str, Any]) -> CallToolResult:
    async def run() -> CallToolResult:
        return await server.call(name, args)

    return anyio.run(run)


def test_a_call_validates_sends_and_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def send(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        sent.append((cmd, args))
        if args.get("target") == "@gone":
            return {
                "ok": False,
                "error": {
                    "code": "not_found",
                    "transient": False,
                    "message": "no @gone; take a new snapshot with "
                    "`reins state` and use a ref from it",
                },
            }
        return {"ok": True, "text": '@a button "A"', "url": "u", "title": "t", "left_out": 0}

    server = ToolServer(Settings(), TABLE)
    monkeypatch.setattr(server, "_send", send)
    assert not _call(server, "state", {}).is_error
    assert sent[-1] == ("state", {"max_tokens": DEFAULT_STATE_TOKENS, "text_only": True})
    gone = _call(server, "click", {"target": "@gone"})
    assert gone.is_error and "not_found" in _text(gone) and "`state`" in _text(gone)
    bad = _call(server, "state", {"max_tokens": "many"})
    assert bad.is_error and _text(bad).startswith("error bad_request: argument max_tokens")
    assert "state tool's input schema" in _text(bad)
    unknown = _call(server, "cdp", {"method": "Runtime.evaluate"})
    assert unknown.is_error and _text(unknown).startswith("error unknown_command")
    assert len(sent) == 2  # neither the bad call nor the unknown tool reached the host


def test_no_browser_is_a_typed_tool_error(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REINS_HOME", str(tmp_path))
    monkeypatch.delenv("REINS_PROFILE", raising=False)
    result = _call(ToolServer(Settings(), TABLE), "tabs", {})
    assert result.is_error and _text(result).startswith("error no_host:")


# ---- the CLI command ----------------------------------------------------------------------------


def test_reins_mcp_check_lists_the_tools() -> None:
    result = CliRunner().invoke(main, ["mcp", "--check", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["ok"] and body["tools"] == sorted(SPECS)
    assert body["max_tokens_per_answer"] == DEFAULT_ANSWER_TOKENS
    assert body["state_tokens"] == DEFAULT_STATE_TOKENS
    small = CliRunner().invoke(
        main,
        ["mcp", "--check", "--json", "--max-tokens-per-answer", "5000", "--state-tokens", "900"],
    )
    assert json.loads(small.output)["max_tokens_per_answer"] == 5000


def test_reins_mcp_help_states_the_defaults() -> None:
    result = CliRunner().invoke(main, ["mcp", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert f"default {DEFAULT_ANSWER_TOKENS:,}" in result.output
    assert f"default {DEFAULT_STATE_TOKENS:,}" in result.output


def test_a_cancelled_call_hangs_up_so_the_host_cancels_the_command(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host that never answers: the client cancels, and the host sees the connection close."""
    import socket
    import threading
    import time

    home = tmp_path / "h"
    (home / "run").mkdir(parents=True)
    path = home / "run" / "p.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    hung_up = threading.Event()

    def silent_host() -> None:
        conn, _ = listener.accept()
        conn.recv(1 << 16)  # the request; never answered
        if conn.recv(1) == b"":
            hung_up.set()
        conn.close()

    threading.Thread(target=silent_host, daemon=True).start()
    monkeypatch.setenv("REINS_HOME", str(home))
    server = ToolServer(Settings(profile="p"), TABLE)

    async def cancelled() -> None:
        with anyio.move_on_after(0.3):
            await server.call("tabs", {})
            raise AssertionError("the silent host answered")

    started = time.monotonic()
    anyio.run(cancelled)
    assert time.monotonic() - started < 2
    assert hung_up.wait(2), "the host never saw the connection close"
    listener.close()


def test_the_package_surface_is_pinned() -> None:
    import reins.mcp

    assert reins.mcp.__all__ == [
        "DEFAULT_ANSWER_TOKENS",
        "DEFAULT_STATE_TOKENS",
        "Limits",
        "Settings",
        "ToolServer",
        "serve",
    ]


def test_a_line_that_is_not_json_rpc_is_answered_not_dropped(tmp_path: Path) -> None:
    """A real `reins mcp` process: JSON-RPC answers an unreadable line with -32700 (not JSON) or
    -32600 (JSON, not a message), id null, and the server keeps serving."""
    import subprocess
    import sys

    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    lines = ["{not json", json.dumps({"hello": 1}), json.dumps(init)]
    done = subprocess.run(
        [sys.executable, "-m", "reins.cli", "mcp"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "REINS_HOME": str(tmp_path)},
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert answers[0] == {"jsonrpc": "2.0", "id": None, "error": answers[0]["error"]}
    assert answers[0]["error"]["code"] == -32700
    assert answers[1]["id"] is None and answers[1]["error"]["code"] == -32600
    assert answers[2]["id"] == 1 and answers[2]["result"]["serverInfo"]["name"]
