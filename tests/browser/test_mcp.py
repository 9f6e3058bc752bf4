"""`reins mcp` driven by the MCP SDK's own stdio client, against the session's real browser.

Every call goes MCP client -> `reins mcp` (a process started over stdio, as a host starts it) ->
the host's socket -> extension -> chrome.debugger; the page is the oracle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, stdio_client
from mcp_types import CallToolResult, ImageContent, TextContent
from reins.commands.table import all_commands
from reins.mcp import DEFAULT_ANSWER_TOKENS
from reins.mcp.answers import answer_tokens

from ._act_support import eventually
from .conftest import Browser
from .support import mcp_server

T = TypeVar("T")
TABLE = all_commands()


def with_mcp(
    browser: Browser,
    body: Callable[[ClientSession], Awaitable[T]],
    *args: str,
    cwd: Path | None = None,
) -> T:
    """Start `reins mcp ARGS` (in directory `cwd`) for the session's browser, run `body` in one
    MCP session, stop it."""

    async def main() -> T:
        async with stdio_client(mcp_server(browser.home, *args, cwd=cwd)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)

    return anyio.run(main)


def text_of(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


def ref_of(state_text: str, role: str, name: str) -> str:
    match = re.search(rf'^(@\S+) {role} "{re.escape(name)}"', state_text, re.M)
    assert match, f"no {role} {name!r} in:\n{state_text}"
    return match.group(1)


def test_the_tools_are_the_command_table(browser: Browser) -> None:
    async def body(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in with_mcp(browser, body)}
    assert set(tools) == {name for name, cmd in TABLE.items() if cmd.mcp}
    for name, tool in tools.items():
        cmd = TABLE[name]
        assert tool.input_schema == cmd.args.model_json_schema(), name
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is cmd.read_only, name
        assert tool.description and tool.description.split()[0] in cmd.help, name


def test_the_expense_flow_through_tool_calls_only(browser: Browser, page: Any) -> None:
    page("app/expense.html")

    async def body(session: ClientSession) -> list[tuple[str, CallToolResult]]:
        steps: list[tuple[str, CallToolResult]] = []

        async def call(label: str, tool: str, **args: Any) -> str:
            result = await session.call_tool(tool, args)
            assert not result.is_error, (label, text_of(result))
            steps.append((label, result))
            return text_of(result)

        first = await call("state", "state")
        await call(
            "click the category trigger", "click", target=ref_of(first, "combobox", "Category")
        )
        menu = await call("state with the menu open", "state")
        await call("click Meals", "click", target=ref_of(menu, "option", "Meals"))
        await call("save", "click", target=ref_of(first, "button", "Save"))
        return steps

    steps = with_mcp(browser, body)
    saved = eventually(
        lambda: browser.js("return document.querySelector('#saved').textContent"), lambda v: bool(v)
    )
    assert saved.endswith("Meals"), saved
    assert browser.js("return window.__saved.at(-1).category") == "Meals"

    # Frugal: an action answers its effect, one short JSON line, never the page.
    tokens = {label: answer_tokens(result) for label, result in steps}
    opened = json.loads(text_of(steps[1][1]))
    assert opened["effect"]["expanded"] == {"from": False, "to": True}
    for label, result in steps:
        if label.startswith(("click", "save")):
            answer = json.loads(text_of(result))
            assert "effect" in answer and not {"text", "refs"} & set(answer), answer
            assert tokens[label] < 120, (label, text_of(result))
    assert tokens["state"] < 300 and tokens["state with the menu open"] < 300, tokens


def test_a_bad_ref_is_a_typed_tool_error(browser: Browser, page: Any) -> None:
    page("app/expense.html")

    async def body(session: ClientSession) -> CallToolResult:
        return await session.call_tool("click", {"target": "@nosuchref"})

    result = with_mcp(browser, body)
    assert result.is_error
    text = text_of(result)
    code = text.split(":", 1)[0].removeprefix("error ")
    assert code in ("not_found", "ref_stale"), text
    assert "`state`" in text  # the next step, in the tool's words


def test_no_answer_exceeds_the_cap_on_a_5000_element_page(browser: Browser, page: Any) -> None:
    page("static/big.html", n=5000)
    eventually(lambda: browser.js("return window.__ready === true"), bool, timeout=20)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("state", {}),
        ("state", {"max_tokens": 0}),
        ("state", {"max_tokens": 100_000}),
        ("find", {"type": "button"}),
        ("eval", {"expression": "'x'.repeat(400000)"}),
        ("screenshot", {"annotate": True}),
        ("tabs", {}),
    ]

    async def body(session: ClientSession) -> list[CallToolResult]:
        return [await session.call_tool(tool, args) for tool, args in calls]

    results = with_mcp(browser, body)
    for (tool, args), result in zip(calls, results, strict=True):
        assert not result.is_error, (tool, text_of(result))
        assert answer_tokens(result) <= DEFAULT_ANSWER_TOKENS, (tool, args, answer_tokens(result))
    default_state, everything, too_much = (text_of(r) for r in results[:3])
    assert answer_tokens(results[0]) <= 8_100  # the default budget, with its page line
    for text in (default_state, everything, too_much):
        assert re.search(r"^… [\d,]+ more elements left out .*max_tokens", text, re.M), text[-300:]
    assert "cut: this answer was" in text_of(results[4])
    image = next(b for b in results[5].content if isinstance(b, ImageContent))
    assert image.mime_type in ("image/png", "image/jpeg")
    assert "ref labels" in text_of(results[5])


def test_a_smaller_cap_is_kept_too(browser: Browser, page: Any) -> None:
    page("static/big.html", n=1000)
    eventually(lambda: browser.js("return window.__ready === true"), bool, timeout=20)

    async def body(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("state", {"max_tokens": 0}),
            await session.call_tool("screenshot", {"annotate": True}),
        ]

    for result in with_mcp(browser, body, "--max-tokens-per-answer", "2000"):
        assert not result.is_error, text_of(result)
        assert answer_tokens(result) <= 2000, text_of(result)


def test_upload_takes_files_from_the_server_directory_only(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
    """The MCP server's own directory and below, as the CLI's: a client cannot name another one,
    and hidden files or folders, or files outside, answer upload_refused."""
    (tmp_path / "receipt.pdf").write_bytes(b"%PDF" * 5)
    (tmp_path / ".env").write_text("TOKEN=1")
    page("static/upload.html")
    calls: list[dict[str, Any]] = [
        {"target": "#docs", "files": [".env"]},
        {"target": "#docs", "files": ["/etc/hostname"]},
        {"target": "#docs", "files": ["../outside.txt"]},
        {"target": "#docs", "files": ["/etc/hostname"], "cwd": "/etc"},
        {"target": "#docs", "files": ["receipt.pdf"]},
    ]
    (tmp_path.parent / "outside.txt").write_text("x")

    async def body(session: ClientSession) -> list[CallToolResult]:
        return [await session.call_tool("upload", args) for args in calls]

    *refused, named_dir, done = with_mcp(browser, body, cwd=tmp_path)
    for args, result in zip(calls, refused, strict=False):
        assert result.is_error and text_of(result).startswith("error upload_refused"), (
            args,
            text_of(result),
        )
    assert named_dir.is_error and text_of(named_dir).startswith("error bad_request"), text_of(
        named_dir
    )
    assert not done.is_error, text_of(done)
    assert json.loads(text_of(done))["files"] == [
        {"name": "receipt.pdf", "size": 20, "type": "application/pdf"}
    ]
    received = browser.js(
        "return Array.from(document.querySelector('#docs').files).map(f => [f.name, f.size])"
    )
    assert received == [["receipt.pdf", 20]]
    assert browser.js("return window.__changes") == ["docs:receipt.pdf"]
