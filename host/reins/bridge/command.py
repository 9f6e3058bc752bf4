"""How a command is declared: once, with everything the host, the CLI and the docs need.

A handler module declares each command with ``@command(...)``: its wire name, its argument model
(pydantic, validated at the boundary), what it answers (a TypedDict whose every field says what it
means: ``Annotated[type, "meaning"]``; docs/commands.md shows it), its help (the handler's
docstring), its budget, and its policy
(needs a tab, probes a suspect tab first, may run while a JavaScript dialog is open, watches for
dialogs at all, only reads, may be repeated), and where it is offered (the CLI's words; an MCP tool
or not). ``reins.commands.table`` gathers them; the dispatcher reads the policy from there, the CLI
builds its commands from the table's description (``describe``), and ``reins mcp`` its tools.

An argument's CLI help is its ``Field(description=...)``; what only the CLI needs to know about it (a
metavar, choices the host checks itself, a field the CLI never offers) goes in ``cli_hints``. The
argument model's JSON schema (``model_json_schema()``) is what MCP tools take as their input schema:
the hints stay out of it, except choices, which every client may know (an ``enum``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    Generic,
    TypeVar,
    cast,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from pydantic import BaseModel, ConfigDict, JsonValue
from pydantic.fields import FieldInfo

from reins._errors import ReinsError
from reins.bridge.context import CommandContext

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "field_hints",
    "Args",
    "CliHints",
    "Command",
    "NoArgs",
    "answer_fields",
    "build_table",
    "cli_hints",
    "command",
]

A = TypeVar("A", bound=BaseModel)
# What a handler answers: the TypedDict its declaration names (``command(..., answers, ...)``).
R = TypeVar("R")

# What a command gets when neither it nor the caller names a budget.
DEFAULT_TIMEOUT_MS = 15_000


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(Args):
    pass


class CliHints:
    """What the CLI shows of one args field, kept as the field's ``json_schema_extra``.

    Pydantic calls it while it writes the field's JSON schema: it adds the choices as an ``enum``
    and nothing else, so the schema says what holds for every client and no CLI detail.
    """

    __slots__ = ("hints",)

    def __init__(self, hints: dict[str, JsonValue]) -> None:
        self.hints = hints

    def __call__(self, schema: dict[str, JsonValue]) -> None:
        choices = self.hints.get("choices")
        if isinstance(choices, list):
            schema["enum"] = list(choices)


def field_hints(info: FieldInfo) -> dict[str, Any]:
    """The CLI hints of one args field (``cli_hints``), or none."""
    extra = info.json_schema_extra
    return dict(extra.hints) if isinstance(extra, CliHints) else {}


def cli_hints(
    *,
    hidden: bool = False,
    metavar: str | None = None,
    choices: Iterable[str] = (),
) -> CliHints:
    """What the CLI shows of one args field; give it as the field's ``json_schema_extra``.

    hidden: the CLI never offers it (the host's own, or set by a CLI quirk); metavar: the word in
    the usage line; choices: offered as a click.Choice although the model takes any string.
    """
    hints: dict[str, JsonValue] = {}
    if hidden:
        hints["hidden"] = True
    if metavar:
        hints["metavar"] = metavar
    if choices:
        hints["choices"] = list(choices)
    return CliHints(hints)


# A handler as the dispatcher runs it: its answer is plain data there (a TypedDict is a dict at run
# time); ``command`` checks, statically, that it returns the type its declaration names.
Handler = Callable[[CommandContext, A], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Command(Generic[A]):
    name: str
    args: type[A]
    handler: Handler[A]
    help: str
    # What it answers: a TypedDict, each field ``Annotated`` with its meaning (``answer_fields``).
    answer: Any = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    # Runs against a tab (the current one unless --tab): needs the extension connected, not paused.
    needs_tab: bool = True
    # Arms the tab's dialog watch and answers `dialog_open` while one is open (unless dialog_free).
    watch_dialogs: bool = True
    # May run while a JavaScript dialog is open (it does not touch the page's main thread).
    dialog_free: bool = False
    # Runs on the page's main thread: answers `tab_crashed` at once on a crashed tab and probes a
    # tab whose last command timed out (`tab_unresponsive`). Off for what works without the page
    # (tabs, tab close) or brings it back (navigate, reload).
    probe: bool = True
    # Changes nothing in the page or the browser (MCP tool annotations; docs).
    read_only: bool = False
    # Sets something to the value given, so a second identical call changes nothing more: safe to
    # repeat after a transient error (MCP's idempotentHint; meaningless for read-only commands).
    idempotent: bool = False
    # May start on a tab showing a page reins does not attach to (chrome://…): it can take the tab
    # away from it (the extension's `tabs.navigate`), so a refused dialog watch does not stop it.
    leaves_refused_page: bool = False
    # The CLI's words for it ("tab new"; none: not on the CLI) and its positional arguments, in
    # order (field names).
    cli: tuple[str, ...] = ()
    cli_args: tuple[str, ...] = ()
    # Offered as a tool by `reins mcp` (under its wire name).
    mcp: bool = True


def command(
    name: str,
    args: type[A],
    answers: type[R],
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    needs_tab: bool = True,
    watch_dialogs: bool = True,
    dialog_free: bool = False,
    probe: bool = True,
    read_only: bool = False,
    idempotent: bool = False,
    leaves_refused_page: bool = False,
    cli: str | None = None,
    cli_args: Iterable[str] = (),
    on_cli: bool = True,
    on_mcp: bool = True,
) -> Callable[[Callable[[CommandContext, A], Awaitable[R]]], Command[A]]:
    """Declare a command; the decorated handler's docstring is its help, ``answers`` the
    TypedDict of what it answers (its fields' meanings ``Annotated`` on them), which the handler
    returns (mypy holds it to that).

    cli: its words on the command line (default: the name, ``_`` read as a space); cli_args: the
    fields taken as positional arguments, in order (the others are options); on_cli=False: the
    host serves it but the CLI does not offer it; on_mcp=False: not a tool of ``reins mcp``.
    """

    def wrap(fn: Callable[[CommandContext, A], Awaitable[R]]) -> Command[A]:
        doc = inspect.cleandoc(fn.__doc__ or "").strip()
        if not doc:
            raise ReinsError(
                f"command {name}: the handler needs a docstring (its help)", code="internal"
            )
        if not is_typeddict(answers):
            raise ReinsError(
                f"command {name}: what it answers must be a TypedDict (reins.commands.answers)",
                code="internal",
            )
        unknown = set(cli_args) - set(args.model_fields)
        if unknown:
            raise ReinsError(
                f"command {name}: cli_args {sorted(unknown)} are not fields of {args.__name__}",
                code="internal",
            )
        words = tuple((cli or name.replace("_", " ")).split()) if on_cli else ()
        return Command(
            name,
            args,
            cast("Handler[A]", fn),
            doc,
            answer=answers,
            timeout_ms=timeout_ms,
            needs_tab=needs_tab,
            watch_dialogs=watch_dialogs,
            dialog_free=dialog_free,
            probe=probe,
            read_only=read_only,
            idempotent=idempotent,
            leaves_refused_page=leaves_refused_page,
            cli=words,
            cli_args=tuple(cli_args),
            mcp=on_mcp,
        )

    return wrap


def answer_fields(answer: Any) -> list[tuple[str, Any, bool, str]]:
    """The fields of an answer type (a TypedDict): each one's name, type (its ``Annotated``
    meaning taken off), whether every answer has it, and its meaning ("" when it gives none)."""
    hints = get_type_hints(answer, include_extras=True)
    required: frozenset[str] = getattr(answer, "__required_keys__", frozenset())
    out: list[tuple[str, Any, bool, str]] = []
    for name, hint in hints.items():
        meaning = ""
        if get_origin(hint) is Annotated:
            hint, *extras = get_args(hint)
            meaning = next((e for e in extras if isinstance(e, str)), "")
        out.append((name, hint, name in required, meaning))
    return out


def build_table(*groups: Iterable[Command[Any]]) -> dict[str, Command[Any]]:
    table: dict[str, Command[Any]] = {}
    for group in groups:
        for cmd in group:
            if cmd.name in table:
                raise ReinsError(f"command {cmd.name} is declared twice", code="internal")
            table[cmd.name] = cmd
    return table
