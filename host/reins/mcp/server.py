"""The stdio MCP server: the command table's tools, answered by the host over the CLI's socket.

One process per MCP client session: the client starts ``reins mcp`` and the server ends when its
stdin closes. Each tool call is one request over a connection of its own (``bridge/client.py``, run
in a worker thread), so calls may run side by side, and a call the client cancels closes its
connection, which cancels the command in the host. The profile is found at each call (``--profile``,
``REINS_PROFILE``, or the one browser connected), so the server may start before the browser does.

Built on the MCP SDK's low-level server: the tools are generated, not decorated functions, and
their schemas are the argument models' own.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolRequestParams,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    ListToolsResult,
    PaginatedRequestParams,
    Tool,
    ToolAnnotations,
)
from pydantic import ValidationError

from reins import __version__
from reins._errors import ReinsError, UsageError
from reins.bridge.client import connect
from reins.bridge.command import Command
from reins.bridge.protocol import validate_args
from reins.commands.table import all_commands
from reins.mcp.answers import Limits, error_result, prepare_args, tool_result
from reins.mcp.tools import ToolSpec, ToolWords, tool_specs

__all__ = ["INSTRUCTIONS", "Settings", "ToolServer", "serve"]

# Sent once, when the client connects; hosts put it before the tool list.
INSTRUCTIONS = (
    "reins drives the user's own Chrome: their tabs, their logins. The loop: `state` lists the "
    'page\'s interactive elements, one line each (`@ref role "name" value [flags]`); act on a ref '
    "(click, fill, select, check, press …); each action answers what it changed (its effect), not "
    "the page: call `state` again when you need to see the page. `state` has a token budget "
    "(max_tokens) and says what it left out. An error names its code and the next step."
)


@dataclass(frozen=True)
class Settings:
    profile: str | None = None  # None: REINS_PROFILE, else the one browser connected
    limits: Limits = field(default_factory=Limits)
    # The server process's directory: `upload` reads files from it and below, as the CLI does
    # from its own. The client never names it (docs/security.md, "File uploads").
    cwd: str = field(default_factory=os.getcwd)


class ToolServer:
    """The tools of a command table, and how a call runs: validate, send, shape the answer."""

    def __init__(self, settings: Settings, table: dict[str, Command[Any]] | None = None) -> None:
        table = all_commands() if table is None else table
        self.settings = settings
        self.specs = {spec.name: spec for spec in tool_specs(table)}
        self.words = ToolWords.of(table)
        self.tools = [_tool(spec) for spec in self.specs.values()]

    def server(self) -> Server[Any]:
        return Server(
            "reins",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )

    async def list_tools(
        self, _ctx: Any, _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=self.tools)

    async def call_tool(self, _ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        return await self.call(params.name, dict(params.arguments or {}))

    async def call(self, name: str, args: dict[str, Any]) -> CallToolResult:
        limits = self.settings.limits
        spec = self.specs.get(name)
        try:
            if spec is None:
                raise UsageError(
                    f"reins has no tool {name!r}; its tools: " + ", ".join(self.specs),
                    code="unknown_command",
                    hint="",
                )
            _validate(spec, args)
            answer = await self._send(name, prepare_args(name, args, limits, cwd=self.settings.cwd))
            if not answer.get("ok"):
                error = answer.get("error")
                return error_result(
                    error if isinstance(error, dict) else {"code": "internal"}, limits, self.words
                )
            return tool_result(name, answer, limits)
        except ReinsError as exc:
            return error_result(exc.to_wire(), limits, self.words)

    async def _send(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        profile = self.settings.profile or os.environ.get("REINS_PROFILE") or None
        conn = await anyio.to_thread.run_sync(lambda: connect(profile))
        try:
            return await anyio.to_thread.run_sync(
                functools.partial(conn.call, cmd, args), abandon_on_cancel=True
            )
        finally:
            conn.abort()


def _validate(spec: ToolSpec, args: dict[str, Any]) -> None:
    """The host validates too; checked here first so that the next step names the tool's schema.
    An argument the tool's schema does not list is refused, although the command's model may take
    it: such a field is the server's to supply (upload's ``cwd``)."""
    unlisted = sorted(set(args) - set(spec.input_schema.get("properties", {})))
    if unlisted:
        raise UsageError(
            f"the {spec.name} tool takes no argument {', '.join(unlisted)}",
            hint=f"check the arguments against the {spec.name} tool's input schema",
        )
    try:
        validate_args(spec.command.args, args)
    except UsageError as exc:
        raise UsageError(
            str(exc.args[0]),
            hint=f"check the arguments against the {spec.name} tool's input schema",
        ) from None


def _tool(spec: ToolSpec) -> Tool:
    return Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
        ),
    )


class _Answered:
    """The transport's read stream, with each line it could not read answered as JSON-RPC asks
    (-32700 for a line that is not JSON, -32600 for JSON that is not a JSON-RPC message, ``id``
    null) instead of dropped: the SDK's server logs such a line and answers nothing, and a client
    would wait for an answer that never comes."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    def __getattr__(self, name: str) -> Any:  # last_context and the like
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(_unreadable(item)))

    def __aiter__(self) -> _Answered:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Answered:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _unreadable(exc: Exception) -> JSONRPCError:
    kinds = {e.get("type") for e in exc.errors()} if isinstance(exc, ValidationError) else set()
    if "json_invalid" in kinds or not isinstance(exc, ValidationError):
        error = ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON")
    else:
        error = ErrorData(
            code=INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 message"
        )
    return JSONRPCError(jsonrpc="2.0", id=None, error=error)


async def _serve(tools: ToolServer) -> None:
    server = tools.server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            _Answered(read_stream, write_stream),
            write_stream,
            server.create_initialization_options(),
        )


def serve(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""
    anyio.run(_serve, ToolServer(settings))
