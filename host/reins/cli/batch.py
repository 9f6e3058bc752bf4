"""`reins batch`: many commands over one connection, each line parsed as the CLI parses it."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any, cast

import click

from reins._errors import ReinsError, UsageError
from reins.cli.options import GLOBALS, global_options, merged_options
from reins.cli.run import EXIT_FAILED, EXIT_OK, BatchLineFailed, fail

if TYPE_CHECKING:  # the answer types, for mypy only: the CLI starts without reins.commands
    from reins.commands import answers

__all__ = [
    "NOT_A_LINE",
    "batch",
    "line_error",
    "run_line",
    "split_line",
    "start_trace",
    "stop_trace",
]


# Commands that read stdin themselves: on a batch line they would take the rest of the batch.
NOT_A_LINE = {
    "batch": "batch does not nest",
    "mcp": "mcp is a server on stdin/stdout, not a batch line",
}


# One piece of a line as POSIX `shlex.split` reads it: a run of plain characters, a '…' string, a
# "…" string (in which a backslash escapes only " and itself), a backslash and the character it
# escapes, a run of separators (shlex's whitespace: space, tab, CR, LF; not every Unicode space).
# Nothing matching at a position is an unclosed quote or a trailing backslash.
_PIECE = re.compile(
    r"""(?P<plain>[^ \t\r\n'"\\]+)"""
    r"""|'(?P<single>[^']*)'"""
    r'''|"(?P<double>(?:[^"\\]|\\.)*)"'''
    r"""|\\(?P<escaped>.)"""
    r"""|(?P<gap>[ \t\r\n]+)""",
    re.DOTALL,
)
_DOUBLE_ESCAPE = re.compile(r'\\(["\\])')
_ENDS_ESCAPING = re.compile(r'(?:[^"\\]|\\.)*\\', re.DOTALL)


def _unreadable(line: str, at: int) -> str:
    """shlex's words for what stopped it at ``at``: a backslash with nothing after it (also the
    last character of an unclosed "…"), or a quote never closed."""
    rest = line[at + 1 :]
    if line[at] == "\\" or (line[at] == '"' and _ENDS_ESCAPING.fullmatch(rest)):
        return "No escaped character"
    return "No closing quotation"


def split_line(line: str) -> list[str]:
    """A batch line's words, exactly as ``shlex.split(line)`` gives them (the CLI syntax), with the
    per-character work done by ``re``: shlex reads one character at a time in Python, ≈ 32 ms for
    a 35 KB `eval` line (docs/benchmarks.md). Where shlex raises ValueError, this raises
    UsageError with shlex's message."""
    words: list[str] = []
    word: list[str] | None = None  # None: between words ('' is a word: an empty quote)
    at, end = 0, len(line)
    while at < end:
        piece = _PIECE.match(line, at)
        if piece is None:
            raise UsageError(
                _unreadable(line, at),
                hint="close the quote, or end the line with a character after the backslash",
            )
        at = piece.end()
        kind = piece.lastgroup or "plain"
        if kind == "gap":
            if word is not None:
                words.append("".join(word))
                word = None
            continue
        text = piece.group(kind)
        if kind == "double":
            text = _DOUBLE_ESCAPE.sub(r"\1", text)
        if word is None:
            word = []
        word.append(text)
    if word is not None:
        words.append("".join(word))
    return words


def _bad_line(message: str) -> None:
    click.echo(
        json.dumps(
            {"ok": False, "error": {"code": "bad_request", "message": message, "transient": False}}
        )
    )


def start_trace(conn: Any, directory: str | None, screenshots: bool, json_out: bool) -> None:
    """`--trace DIR`: start a trace before the first line (said on stderr: stdout answers the
    lines)."""
    if directory is None:
        return
    import os

    answer = conn.call(
        "trace_start", {"dir": os.path.abspath(directory), "screenshots": screenshots}
    )
    if not answer.get("ok"):
        fail(answer.get("error") or {"code": "internal", "message": "no error payload"}, json_out)
    started = cast("answers.TraceStarted", answer)
    click.echo(f"tracing into {started['dir']}", err=True)


@click.command()
@click.option(
    "--trace",
    "trace_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Record the run into DIR (a new directory); `reins report DIR` makes the report.",
)
@click.option(
    "--screenshots", is_flag=True, help="With --trace: pictures before and after each action."
)
@global_options
@click.pass_context
def batch(ctx: click.Context, /, trace_dir: str | None, screenshots: bool, **local: Any) -> None:
    """Run commands from stdin, one per line in CLI syntax, over one connection.

    Each line answers one JSON line ({"ok": true, ...} or {"ok": false, "error": ...}). Lines run
    in order; a failed line does not stop the rest. Blank lines and # comments are skipped.
    Example: printf 'state\\nclick @save\\n' | reins batch
    """
    from reins.bridge.client import connect

    root = ctx.find_root().command  # every line goes through the same commands as the CLI's
    opts = merged_options(ctx, local)
    try:
        conn = connect(opts.get("profile"))
    except ReinsError as exc:
        fail(exc.to_wire(), True)
    failures = 0
    with conn:
        start_trace(conn, trace_dir, screenshots, bool(opts.get("json_out")))
        for raw in sys.stdin:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                argv = split_line(line)
                if argv and argv[0] in NOT_A_LINE:
                    _bad_line(NOT_A_LINE[argv[0]])
                    failures += 1
                    continue
                run_line(root, argv, opts, conn)
            except BatchLineFailed:
                failures += 1
            except (click.ClickException, UsageError, ValueError) as exc:
                failures += 1
                _bad_line(f"{line!r}: {line_error(exc)}")
            except SystemExit as exc:
                failures += 1 if exc.code else 0
            sys.stdout.flush()
        if trace_dir is not None and not stop_trace(conn):
            failures += 1
    sys.exit(EXIT_FAILED if failures else EXIT_OK)


def line_error(exc: click.ClickException | UsageError | ValueError) -> str:
    """What a line that could not be run says: click's usage message, reins's (with its hint)."""
    if isinstance(exc, click.ClickException):
        return exc.format_message()
    if isinstance(exc, UsageError):
        return exc.message
    return str(exc)


def run_line(
    root: click.Command,
    argv: list[str],
    opts: dict[str, Any],
    conn: Any,
    sink: Any = None,
) -> None:
    """One line's command over ``conn``, as the CLI parses it, the global options of the whole
    run applying. Its answer is printed as a JSON line, or handed to ``sink`` (a callable taking
    the answer) when one is given. Raises BatchLineFailed when it failed."""
    base = {k: v for k, v in opts.items() if k in GLOBALS}
    obj = {**base, "json_out": True, "_batch": conn, "_sink": sink}
    root.main(args=argv, prog_name="reins", standalone_mode=False, obj=obj)


def stop_trace(conn: Any) -> bool:
    """Stop the `--trace` run and say how it went on stderr, as `reins trace stop` says it: the
    steps, every write that failed (``trace_incomplete``), the report. Answers whether the
    trace holds every step (an incomplete one fails the batch: a validation run never passes
    on a record with holes)."""
    from reins.cli.render import trace_stopped

    reply = conn.call("trace_stop")
    if not reply.get("ok"):
        click.echo(f"trace: {reply.get('error')}", err=True)
        return False
    stopped = cast("answers.TraceStopped", reply)
    click.echo(trace_stopped(stopped), err=True)
    return "trace_incomplete" not in (stopped.get("warnings") or [])
