"""`reins run FILE`: run a check file (``checkfile.py``) in the chosen profile and tab, stop at
the first failed step (or go on with ``--keep-going``), and exit 0 only when every step passed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from reins._errors import ReinsError, UsageError
from reins._pagetext import json_text, visible
from reins.cli.batch import line_error, run_line, start_trace, stop_trace
from reins.cli.checkfile import Step, parse_check, parse_vars
from reins.cli.options import global_options, merged_options
from reins.cli.run import EXIT_FAILED, EXIT_OK, BatchLineFailed, fail

__all__ = ["local_answer", "run"]


def _failure(answer: dict[str, Any]) -> str:
    error = answer.get("error") or {}
    return f"{visible(str(error.get('code')))}: {visible(str(error.get('message')))}"


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, exists=True))
@click.option(
    "--var",
    "variables",
    multiple=True,
    metavar="NAME=VALUE",
    help="A variable the file uses as ${NAME} (else taken from the environment). Repeatable.",
)
@click.option("--keep-going", is_flag=True, help="Run every step, even after a failed one.")
@click.option(
    "--trace",
    "trace_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Record the run into DIR (a new directory).",
)
@click.option(
    "--screenshots", is_flag=True, help="With --trace: pictures before and after each action."
)
@click.option("--report", is_flag=True, help="With --trace: write DIR/report.html at the end.")
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="The trace of a good run to compare with, step by step (the run is traced: into "
    "--trace DIR, else a new folder beside the baseline; pictures when the baseline has them).",
)
@global_options
@click.pass_context
def run(
    ctx: click.Context,
    /,
    file: str,
    variables: tuple[str, ...],
    keep_going: bool,
    trace_dir: str | None,
    screenshots: bool,
    report: bool,
    baseline: str | None,
    **local: Any,
) -> None:
    """Run the check FILE: `reins batch` lines with `expect` lines, # comments, `# name: …`, and
    ${NAME} variables (--var NAME=VALUE, else the environment). Stops at the first failed step
    unless --keep-going; exits 0 when every step passed, 1 otherwise.

    Example: reins run expense.reins --var base=http://localhost:8000 --trace runs/today --report

    After a release: reins run expense.reins --baseline runs/today --report
    """
    from reins.bridge.client import connect

    opts = merged_options(ctx, local)
    json_out = bool(opts.get("json_out"))
    try:
        text = Path(file).read_text(encoding="utf-8")
        parsed = parse_check(
            text, name=Path(file).stem, given=parse_vars(variables), environ=os.environ
        )
        if baseline is not None:
            trace_dir = trace_dir or _beside(Path(baseline), Path(file).stem)
            screenshots = screenshots or _has_pictures(Path(baseline))
        if report and trace_dir is None:
            raise UsageError("--report writes the trace's report: give --trace DIR too")
    except (ReinsError, OSError, UnicodeDecodeError) as exc:
        error = (
            exc.to_wire()
            if isinstance(exc, ReinsError)
            else {"code": "bad_request", "message": f"cannot read {file}: {exc}"}
        )
        fail(error, json_out)
    try:
        conn = connect(opts.get("profile"))
    except ReinsError as exc:
        fail(exc.to_wire(), json_out)
    root = ctx.find_root().command
    results: list[tuple[Step, dict[str, Any], float]] = []
    if not json_out:
        click.echo(f"check {json_text(parsed.name)}: {len(parsed.steps)} steps")
    with conn:
        start_trace(conn, trace_dir, screenshots, json_out)
        for step in parsed.steps:
            answers: list[dict[str, Any]] = []
            started = time.monotonic()
            printed, status = io.StringIO(), 0
            try:
                # A local command (config, report, guide …) prints its answer rather than
                # handing it over: kept, and judged by that answer and its exit status.
                with contextlib.redirect_stdout(printed):
                    run_line(root, list(step.argv), opts, conn, sink=answers.append)
            except BatchLineFailed:
                pass
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            except (click.ClickException, UsageError) as exc:
                error = {"code": "bad_request", "message": line_error(exc)}
                answers.append({"ok": False, "error": error})
            answer = answers[-1] if answers else local_answer(printed.getvalue(), status)
            ms = (time.monotonic() - started) * 1000
            results.append((step, answer, ms))
            _say(step, answer, ms, json_out)
            if not answer.get("ok") and not keep_going:
                break
        trace_ok = True
        compared: dict[str, Any] | None = None
        if trace_dir is not None:
            trace_ok = stop_trace(conn)
            if report or baseline:
                compared = _report(trace_dir, baseline, write=report, json_out=json_out)
    passed = sum(1 for _, a, _ in results if a.get("ok"))
    failed = len(results) - passed
    not_run = len(parsed.steps) - len(results)
    ok = failed == 0 and not_run == 0 and trace_ok
    if json_out:
        click.echo(
            json_text(
                {
                    "ok": ok,
                    "check": parsed.name,
                    "passed": passed,
                    "failed": failed,
                    "not_run": not_run,
                    "trace_complete": trace_ok,
                    **({"baseline": compared} if baseline else {}),
                }
            )
        )
    else:
        verdict = "PASSED" if ok else "FAILED"
        click.echo(f"{verdict}: {passed} passed, {failed} failed, {not_run} not run")
    sys.exit(EXIT_OK if ok else EXIT_FAILED)


def local_answer(printed: str, status: int | None) -> dict[str, Any]:
    """A local command's step: the JSON answer it printed last (it ran with --json), passed only
    when that says ok and the command exited 0; without one, its exit status alone decides."""
    lines = [line for line in printed.splitlines() if line.strip()]
    try:
        said = json.loads(lines[-1]) if lines else None
    except ValueError:
        said = None
    passed = status in (0, None)
    if isinstance(said, dict) and isinstance(said.get("ok"), bool):
        if said["ok"] and not passed:
            said = {"ok": False, "error": {"code": "internal", "message": f"exit status {status}"}}
        return said
    if passed:
        return {"ok": True}
    message = f"the command exited with status {status}"
    return {"ok": False, "error": {"code": "internal", "message": message}}


def _say(step: Step, answer: dict[str, Any], ms: float, json_out: bool) -> None:
    if json_out:
        click.echo(json_text({"step": step.line, "command": step.text, "ms": round(ms), **answer}))
        return
    mark = "ok  " if answer.get("ok") else "FAIL"
    line = f"  {mark} line {step.line}: {visible(step.text)}  ({ms:.0f} ms)"
    if not answer.get("ok"):
        line += f"\n         {_failure(answer)}"
    click.echo(line)


def _beside(baseline: Path, name: str) -> str:
    """Where a run compared with ``baseline`` is traced when no --trace was given: a new folder
    beside the baseline, named by the check file and the time."""
    stem = baseline.absolute().parent / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder, n = stem, 1
    while folder.exists():
        n += 1
        folder = stem.with_name(f"{stem.name}-{n}")
    return str(folder)


def _has_pictures(baseline: Path) -> bool:
    from reins.trace.report import read_trace_run

    try:
        return read_trace_run(baseline).screenshots
    except (ReinsError, OSError):
        return False


def _report(
    trace_dir: str, baseline: str | None, *, write: bool, json_out: bool
) -> dict[str, Any] | None:
    """Write the report (``write``) and compare with ``baseline``: what the JSON summary says
    of the comparison, and its first divergence said on stderr."""
    from reins.trace.compare import compare_runs
    from reins.trace.report import read_trace_run, write_report

    base = Path(baseline) if baseline else None
    try:
        if write:
            written, run, cmp = write_report(Path(trace_dir), None, fmt="html", baseline=base)
            click.echo(f"report: {written} ({', '.join(run.verdict)})", err=True)
        else:
            assert base is not None
            cmp = compare_runs(read_trace_run(base), read_trace_run(Path(trace_dir)))
    except (ReinsError, OSError) as exc:
        click.echo(f"report: not written: {exc}", err=True)
        return None
    if cmp is None:
        return None
    first = cmp.first
    if first is None:
        click.echo(f"baseline: no step differs ({len(cmp.pairs)} compared)", err=True)
    else:
        said = "; ".join(first.differences)
        click.echo(
            f"baseline: {cmp.differing} of {len(cmp.pairs)} steps differ; first: "
            f"{visible(first.command)} — {visible(said)}",
            err=True,
        )
    return cmp.summary()
