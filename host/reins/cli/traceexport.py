"""`reins trace export DIR`: a recorded run as a check file `reins run` takes, written by the CLI
itself (no host needed; trace/export.py says what becomes of each step)."""

from __future__ import annotations

from typing import Any

import click

from reins.cli.options import global_options, merged_options
from reins.cli.run import fail

__all__ = ["export"]


@click.command()
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False, exists=True))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where to write it (default: DIR/check.reins).",
)
@click.option("--name", default=None, help="The check's name (default: the trace's).")
@global_options
@click.pass_context
def export(
    ctx: click.Context, /, directory: str, output: str | None, name: str | None, **local: Any
) -> None:
    """Turn a recorded run (`reins trace start DIR` … `trace stop`) into a check file: its
    actions and expectations as `reins run` lines, @refs written as what they named (test id,
    role and name, id), values the trace did not record as --var variables.

    Example: reins trace export runs/good -o expense.reins && reins run expense.reins
    """
    import json
    from pathlib import Path

    from reins.trace.export import export_check
    from reins.trace.tracefile import read_trace

    opts = merged_options(ctx, local)
    where = Path(directory)
    target = Path(output) if output else where / "check.reins"
    try:
        lines = read_trace(where)
        start = next((line for line in lines if line.get("type") == "start"), {})
        title = name or str(start.get("name") or where.resolve().name)
        exported = export_check(lines, name=title)
        with target.open("x", encoding="utf-8") as out:  # never over a file that is there
            out.write(exported.text)
    except FileExistsError:
        message = f"{target} exists: give another -o FILE"
        fail(
            {"code": "bad_request", "message": message, "transient": False},
            bool(opts.get("json_out")),
        )
    except OSError as exc:
        error = {"code": "bad_request", "message": f"cannot export: {exc}", "transient": False}
        fail(error, bool(opts.get("json_out")))
    answer = {
        "ok": True,
        "file": str(target),
        "steps": exported.steps,
        "variables": exported.variables,
    }
    if opts.get("json_out"):
        click.echo(json.dumps(answer, ensure_ascii=False))
        return
    click.echo(f"wrote {target}: {exported.steps} steps")
    for var, why in exported.variables.items():
        click.echo(f"  --var {var}=…  ({why})")
