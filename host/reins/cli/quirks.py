"""What some host commands do differently on the CLI, on top of what the table declares.

Each quirk is keyed by the command's wire name and kept small: CLI-only parameters (a local output
file, a second spelling of an argument), positionals the CLI parses itself, and what happens around
the request (reading stdin, writing a file, an environment switch). Everything else about a host
command, from its arguments to its help, comes from the table (``host_commands.py``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import click

from reins._errors import ReinsError
from reins._pagetext import json_text
from reins.cli.output_file import append_output, check_output_path, write_output
from reins.cli.render import TEXT
from reins.cli.run import fail, run

if TYPE_CHECKING:  # the answer types, for mypy only: the CLI starts without reins.commands
    from reins.commands import answers

__all__ = ["QUIRKS", "Call", "Quirk"]


class Call:
    """One host command as the CLI is about to send it."""

    # Plain classes, not dataclasses: importing and building those costs the CLI ~1 ms a run.
    __slots__ = ("args", "ctx", "extra", "json_out", "local", "name")

    def __init__(
        self,
        ctx: click.Context,
        name: str,
        args: dict[str, Any],
        extra: dict[str, Any],
        local: dict[str, Any],
        json_out: bool,
    ) -> None:
        self.ctx = ctx
        self.name = name  # the wire name
        self.args = args  # the wire arguments, from the table's mapping
        self.extra = extra  # the values of the quirk's own parameters
        self.local = local  # the global options given after the command's arguments
        self.json_out = json_out

    def send(self, *, quiet: bool = False) -> dict[str, Any]:
        """Send it, print the answer (unless quiet), exit on failure; returns the answer."""
        return run(self.ctx, self.name, self.args, self.local, TEXT.get(self.name), quiet=quiet)


def _send(call: Call) -> None:
    call.send()


class Quirk:
    """How one command differs on the CLI; a command without one just sends and prints."""

    __slots__ = ("invoke", "optional", "params", "positionals")

    def __init__(
        self,
        *,
        params: Callable[[], list[click.Parameter]] = list,
        optional: frozenset[str] = frozenset(),
        positionals: Callable[[], list[click.Parameter]] | None = None,
        invoke: Callable[[Call], None] = _send,
    ) -> None:
        self.params = params  # CLI-only parameters, listed after the table's options
        self.optional = optional  # table positionals one may leave out (the quirk finds them)
        self.positionals = positionals  # the CLI parses the positionals itself: these replace them
        self.invoke = invoke  # runs the call: by default, send it and print the answer


# ---- navigate URL, or navigate -u URL ------------------------------------------------------------


def _navigate(call: Call) -> None:
    url = call.args.get("url") or call.extra["url_opt"]
    if not url:
        call.ctx.fail("give a URL: reins navigate URL (or -u URL)")
    call.args["url"] = url
    call.send()


# ---- state: text only without --json; --record FILE ----------------------------------------------


def _state(call: Call) -> None:
    if not call.json_out:
        call.args["text_only"] = True  # the refs list would only be thrown away
    record_file = call.extra["record_file"] if call.args.get("compare_sources") else None
    if not record_file:
        call.send()
        return
    _output_checked(call, record_file)  # a link there is refused before the browser is asked
    answer = cast("answers.State", call.send(quiet=True))
    import time

    line = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "url": answer.get("url"),
        "sources": answer.get("sources"),
    }
    try:
        append_output(record_file, (json.dumps(line, ensure_ascii=False) + "\n").encode())
    except ReinsError as exc:
        fail(exc.to_wire(), call.json_out)  # the one answer: the figures were not recorded
    click.echo(json_text(answer) if call.json_out else TEXT["state"](answer))


# ---- map -o FILE, screenshot -o FILE: the file is written here, not by the host -------------------
# Never through a link, whole or not at all (output_file.py); a refusal is the command's typed error.


def _output_checked(call: Call, output: str) -> None:
    try:
        check_output_path(output)
    except ReinsError as exc:
        fail(exc.to_wire(), call.json_out)


def _output_written(call: Call, output: str, data: bytes) -> None:
    try:
        write_output(output, data)
    except ReinsError as exc:
        fail(exc.to_wire(), call.json_out)


def _map(call: Call) -> None:
    output = call.extra["output"]
    if not output:
        call.send()
        return
    _output_checked(call, output)
    answer = cast("answers.Map", call.send(quiet=True))
    text = json.dumps(answer["map"], ensure_ascii=False, indent=1)
    _output_written(call, output, text.encode("utf-8"))
    if call.json_out:
        click.echo(json.dumps({"ok": True, "written": output}))


def _screenshot(call: Call) -> None:
    import base64

    output = call.extra["output"]
    _output_checked(call, output)
    answer = cast("answers.Screenshot", call.send(quiet=True))
    _output_written(call, output, base64.b64decode(answer["png_base64"]))
    labels = answer.get("labels", [])
    summary = {"ok": True, "file": output, "bytes": answer["bytes"], "labels": labels}
    # Boxes filled (password fields, `reins mask` rules).
    if "masked" in answer:
        summary["masked"] = answer["masked"]
    if "mask_notes" in answer:
        summary["mask_notes"] = answer["mask_notes"]
    masked = f", {answer['masked']} boxes masked" if answer.get("masked") else ""
    click.echo(
        json.dumps(summary)
        if call.json_out
        else f"wrote {output} ({answer['bytes']} bytes, {len(labels)} labels{masked})"
    )


def _output_option(**attrs: Any) -> Callable[[], list[click.Parameter]]:
    return lambda: [click.Option(["-o", "--output"], type=click.Path(dir_okay=False), **attrs)]


# ---- fill/type TARGET VALUE, or --text LABEL VALUE, or -v VALUE ----------------------------------


def _fill(call: Call) -> None:
    positional = list(call.extra["args"])
    target = (
        None if call.args.get("text") is not None else (positional.pop(0) if positional else None)
    )
    value = call.extra["value_opt"]
    if value is None:
        value = positional.pop(0) if positional else None
    if value is None or positional:
        call.ctx.fail(f"reins {call.name} TARGET VALUE, or reins {call.name} --text LABEL VALUE")
    if target:
        call.args["target"] = target
    call.args["value"] = value
    call.send()


# ---- small ones ---------------------------------------------------------------------------------


def _eval(call: Call) -> None:
    if call.args["expression"] == "-":
        call.args["expression"] = sys.stdin.read()
    call.send()


def _click(call: Call) -> None:
    if os.environ.get("REINS_CLICK") == "js":  # DOM el.click() instead of mouse events
        call.args["mode"] = "js"
    call.send()


def _trace_start(call: Call) -> None:
    """DIR is optional on the CLI (a new reins-trace-DATE-TIME here) and sent absolute: the host
    runs in another directory."""
    import time

    directory = call.args.get("dir") or f"reins-trace-{time.strftime('%Y%m%d-%H%M%S')}"
    call.args["dir"] = os.path.abspath(directory)
    call.send()


# ---- upload: files resolved here, against the directory the CLI runs in --------------------------


def _upload(call: Call) -> None:
    """The host reads files only under the CLI's directory (or ones the user added): send it,
    and the paths made absolute against it."""
    cwd = os.getcwd()
    call.args["files"] = [os.path.abspath(os.path.join(cwd, f)) for f in call.args["files"]]
    call.args["cwd"] = cwd
    call.send()


_FILL = Quirk(
    params=lambda: [
        click.Option(
            ["-v", "--value", "value_opt"], default=None, help="The text (instead of VALUE)."
        )
    ],
    positionals=lambda: [click.Argument(["args"], nargs=-1)],
    invoke=_fill,
)

QUIRKS: dict[str, Quirk] = {
    "navigate": Quirk(
        params=lambda: [
            click.Option(["-u", "--url", "url_opt"], help="The URL (same as the argument).")
        ],
        optional=frozenset({"url"}),
        invoke=_navigate,
    ),
    "state": Quirk(
        params=lambda: [
            click.Option(
                ["--record", "record_file"],
                type=click.Path(dir_okay=False),
                default=None,
                help="With --compare-sources: append one JSON line with the figures to FILE.",
            )
        ],
        invoke=_state,
    ),
    "map": Quirk(
        params=_output_option(
            default=None, help="Write the JSON map to FILE instead of printing it."
        ),
        invoke=_map,
    ),
    "screenshot": Quirk(
        params=_output_option(default="screenshot.png", show_default=True), invoke=_screenshot
    ),
    "fill": _FILL,
    "type": _FILL,
    "eval": Quirk(invoke=_eval),
    "trace_start": Quirk(optional=frozenset({"dir"}), invoke=_trace_start),
    "click": Quirk(invoke=_click),
    "upload": Quirk(invoke=_upload),
    "dblclick": Quirk(invoke=_click),
    # hover took (and ignored) --button before the CLI was built from the table: still accepted.
    "hover": Quirk(
        params=lambda: [
            click.Option(
                ["--button", "ignored_button"],
                type=click.Choice(["left", "right", "middle"]),
                hidden=True,
            )
        ]
    ),
}
