"""`reins report DIR`: a trace's report, written by the CLI itself (no host needed)."""

from __future__ import annotations

import json
from typing import Any

import click

from reins._errors import ReinsError
from reins.cli.options import global_options, merged_options
from reins.cli.run import fail

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
@global_options
@click.pass_context
def report(
    ctx: click.Context,
    /,
    directory: str,
    output: str | None,
    fmt: str,
    baseline: str | None,
    **local: Any,
) -> None:
    """Make the report of a trace (`reins trace start DIR`): pass, fail or incomplete (with what
    the trace is missing), each failure with its command sequence, error and evidence, every step
    with its pictures."""
    from pathlib import Path

    from reins.trace.report import write_report

    opts = merged_options(ctx, local)
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
