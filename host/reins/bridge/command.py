"""The command table: every command the host answers, with its argument model and budget kind.

The CLI, the batch runner and any future front end (an MCP server, a Python API) all reach the host
through this one table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from reins._host import CommandContext

__all__ = ["Args", "Command", "NoArgs", "command", "build_table"]

A = TypeVar("A", bound=BaseModel)


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(Args):
    pass


@dataclass(frozen=True)
class Command(Generic[A]):
    name: str
    args: type[A]
    handler: Callable[[CommandContext, A], Awaitable[dict[str, Any]]]
    needs_tab: bool = True
    budget_kind: str = "*"


def command(
    name: str, args: type[A], *, needs_tab: bool = True, budget_kind: str | None = None
) -> Callable[[Callable[[CommandContext, A], Awaitable[dict[str, Any]]]], Command[A]]:
    def wrap(fn: Callable[[CommandContext, A], Awaitable[dict[str, Any]]]) -> Command[A]:
        return Command(name, args, fn, needs_tab, budget_kind or name)

    return wrap


def build_table(*groups: Iterable[Command[Any]]) -> dict[str, Command[Any]]:
    table: dict[str, Command[Any]] = {}
    for group in groups:
        for cmd in group:
            table[cmd.name] = cmd
    return table
