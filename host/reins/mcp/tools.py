"""The MCP tools, derived from the command table: one per command declared ``on_mcp`` (pure).

A tool is its command under the same wire name: its description is the command's help, its input
schema is the argument model's JSON schema (``Args.model_json_schema()``, the model the host
validates against), and its annotations follow from the command's policy: ``read_only`` is
``readOnlyHint``; every other tool may destroy something (a click does whatever the page does on a
click, and reins cannot know what that is), and is idempotent when the table says so. Nothing about
a tool is written a second time here.

Help and error messages speak the CLI's words (``reins state``, ``--max-tokens``); ``ToolWords``
reads them as a tool user would (``state``, ``max_tokens``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reins.bridge.command import Command

__all__ = ["ToolSpec", "ToolWords", "tool_specs"]


@dataclass(frozen=True)
class ToolSpec:
    """One tool as MCP lists it, and the command it runs."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    destructive: bool | None  # None where MCP gives it no meaning (read-only tools)
    idempotent: bool | None
    command: Command[Any]


def tool_specs(table: Mapping[str, Command[Any]]) -> tuple[ToolSpec, ...]:
    """Every MCP tool of the table, by name."""
    words = ToolWords.of(table)
    return tuple(_spec(cmd, words) for _, cmd in sorted(table.items()) if cmd.mcp)


def _spec(cmd: Command[Any], words: ToolWords) -> ToolSpec:
    return ToolSpec(
        name=cmd.name,
        description=words(cmd.help),
        input_schema=cmd.args.model_json_schema(),
        read_only=cmd.read_only,
        destructive=None if cmd.read_only else True,
        idempotent=None if cmd.read_only else cmd.idempotent,
        command=cmd,
    )


@dataclass(frozen=True)
class ToolWords:
    """How the CLI's words read to a tool user: which commands are tools, which flags arguments."""

    calls: Mapping[tuple[str, ...], str]  # CLI words -> tool name
    arguments: frozenset[str]  # field names of any tool

    @classmethod
    def of(cls, table: Mapping[str, Command[Any]]) -> ToolWords:
        tools = [cmd for cmd in table.values() if cmd.mcp]
        return cls(
            {cmd.cli: cmd.name for cmd in tools if cmd.cli},
            frozenset(name for cmd in tools for name in cmd.args.model_fields),
        )

    def __call__(self, text: str) -> str:
        """`reins tab select ID` -> `tab_select ID` and --max-tokens -> max_tokens where a tool
        has them; other commands (`reins doctor`) and options (--timeout-ms) stay as they are."""
        text = _CLI_CALL.sub(self._call, text)
        return _FLAG.sub(self._flag, text)

    def _call(self, match: re.Match[str]) -> str:
        words = tuple(match.group(1).split())
        for n in range(len(words), 0, -1):
            tool = self.calls.get(words[:n])
            if tool is not None:
                return "`" + " ".join((tool, *words[n:])) + "`"
        return match.group(0)

    def _flag(self, match: re.Match[str]) -> str:
        name = match.group(1).replace("-", "_")
        return name if name in self.arguments else match.group(0)


_CLI_CALL = re.compile(r"`reins ([^`]+)`")
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
