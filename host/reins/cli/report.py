"""`reins report DIR`: a trace's report, written by the CLI itself (no host needed)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from reins._errors import ReinsError
from reins._pagetext import visible
from reins.cli.options import global_options, merged_options
from reins.cli.run import EXIT_FAILED, EXIT_OK, fail

__all__ = ["report"]


@click.command()
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False, exists=True))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where to write it (default: DIR/report.html or DIR/report.md).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "md"]),
    default="html",
    show_default=True,
    help="html: one self-contained file; md: to paste into an issue.",
)
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="The trace of a good run: each step set beside it, the first divergence marked.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing: list what could still be sensitive in the trace and its reports "
    "(emails, long digit runs, tokens), each partly masked, and exit 1 if anything was found.",
)
@global_options
@click.pass_context
def report(
    ctx: click.Context,
    /,
    directory: str,
    output: str | None,
    fmt: str,
    baseline: str | None,
    check: bool,
    **local: Any,
) -> None:
    """Make the report of a trace (`reins trace start DIR`): pass, fail or incomplete (with what
    the trace is missing), each failure with its command sequence, error and evidence, every step
    with its pictures. Before it leaves the machine, `--check` lists what could still be
    sensitive in it (`reins mask` keeps more out of the next trace)."""
    from pathlib import Path

    from reins.trace.report import write_report

    opts = merged_options(ctx, local)
    if check:
        _check(Path(directory), Path(output) if output else None, bool(opts.get("json_out")))
    try:
        written, run, cmp = write_report(
            Path(directory),
            Path(output) if output else None,
            fmt=fmt,
            baseline=Path(baseline) if baseline else None,
        )
    except (ReinsError, OSError) as exc:
        error = (
            exc.to_wire()
            if isinstance(exc, ReinsError)
            else {
                "code": "bad_request",
                "message": f"cannot write the report: {exc}",
                "transient": False,
            }
        )
        fail(error, bool(opts.get("json_out")))
    verdict = ", ".join(run.verdict)
    if opts.get("json_out"):
        click.echo(
            json.dumps(
                {
                    "ok": True,
                    "file": str(written),
                    "format": fmt,
                    "verdict": verdict,
                    "complete": run.complete,
                    "missing": run.missing,
                    **({"baseline": cmp.summary()} if cmp else {}),
                }
            )
        )
    else:
        click.echo(f"wrote {written}: {verdict}")
        for text in run.missing:
            click.echo(f"missing: {text}")


def _check(directory: Any, output: Any, json_out: bool) -> None:
    """`report --check`: the findings, and exit 1 when there are any (a script gates on it)."""
    from reins.trace.masking import check_directory

    try:
        found = check_directory(directory, [output] if output is not None else [])
    except ReinsError as exc:
        fail(exc.to_wire(), json_out)
    if json_out:
        click.echo(json.dumps({"ok": not found, "findings": [f.to_wire() for f in found]}))
    else:
        for finding in found:
            click.echo(f"{visible(finding.where)}: {finding.kind} {visible(finding.shown)}")
        click.echo(
            f"{len(found)} thing(s) in {directory} could be sensitive: look before sharing it"
            if found
            else f"nothing in {directory} looks sensitive (emails, long digit runs, tokens)"
        )
    sys.exit(EXIT_FAILED if found else EXIT_OK)
