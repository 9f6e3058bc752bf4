"""Send one request, print its answer, exit with the contract's code.

Exit codes: 0 ok · 1 the command failed (typed error) · 2 usage error · 3 no host reachable.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from reins._errors import ReinsError
from reins._pagetext import json_text, visible
from reins.cli.contract import (
    EXIT_FAILED,
    EXIT_NO_HOST,
    EXIT_OK,
    EXIT_USAGE,
    exit_code,
    plain,
)
from reins.cli.options import BUDGET_META, merged_options

__all__ = [
    "EXIT_FAILED",
    "EXIT_NO_HOST",
    "EXIT_OK",
    "EXIT_USAGE",
    "BatchLineFailed",
    "exit_code",
    "fail",
    "plain",
    "run",
    "send",
]


def fail(error: dict[str, Any], json_out: bool) -> NoReturn:
    if json_out:
        click.echo(json_text({"ok": False, "error": error}))
    else:
        click.echo(
            f"error [{visible(str(error.get('code')))}]: {visible(str(error.get('message')))}",
            err=True,
        )
    sys.exit(exit_code(str(error.get("code"))))


class BatchLineFailed(ReinsError):
    """A batch line's error answer has been printed; go on with the next line."""


def send(
    cmd: str,
    args: dict[str, Any],
    *,
    profile: str | None,
    tab: int | None,
    timeout_ms: int | None,
    default_timeout_ms: int | None = None,
) -> dict[str, Any]:
    """One request to the host over its socket (the contract test replaces this)."""
    from reins.bridge.client import request

    return request(
        cmd,
        args,
        profile=profile,
        tab=tab,
        timeout_ms=timeout_ms,
        default_timeout_ms=default_timeout_ms,
    )


def run(
    ctx: click.Context,
    cmd: str,
    args: dict[str, Any],
    local: dict[str, Any],
    human: Callable[[dict[str, Any]], str] | None = None,
    *,
    quiet: bool = False,
) -> dict[str, Any]:
    """Send one command to the host and print its answer; exits on failure.

    quiet: print nothing on success (the caller prints); human: the text form (default: plain).
    """
    opts = merged_options(ctx, local)
    json_out = bool(opts.get("json_out"))
    batch = opts.get("_batch")
    budget = ctx.meta.get(BUDGET_META)
    answer: dict[str, Any]
    try:
        if batch is not None:  # `reins batch`: one connection for every line
            answer = batch.call(
                cmd,
                args,
                tab=opts.get("tab"),
                timeout_ms=opts.get("timeout_ms"),
                default_timeout_ms=budget,
            )
        else:
            answer = send(
                cmd,
                args,
                profile=opts.get("profile"),
                tab=opts.get("tab"),
                timeout_ms=opts.get("timeout_ms"),
                default_timeout_ms=budget,
            )
    except ReinsError as exc:
        answer = {"ok": False, "error": exc.to_wire()}
    answer.pop("request_id", None)
    if batch is not None:
        sink = opts.get("_sink")
        if sink is not None:
            sink(answer)  # `reins check`: it says how the step went
        else:
            click.echo(json_text(answer))
        if not answer.get("ok"):
            raise BatchLineFailed("printed", code=str(answer.get("error", {}).get("code")))
        return answer
    if not answer.get("ok"):
        fail(answer.get("error") or {"code": "internal", "message": "no error payload"}, json_out)
    if quiet:
        return answer
    if json_out:
        click.echo(json_text(answer))
    else:
        body = {k: v for k, v in answer.items() if k != "ok"}
        click.echo(human(answer) if human else plain(body))
    return answer
