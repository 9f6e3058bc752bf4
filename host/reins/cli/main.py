"""The `reins` CLI: parse, send one request, print, exit with the contract's code.

Exit codes: 0 ok · 1 the command failed (typed error) · 2 usage error · 3 no host reachable.
Global options (--json, --tab, --timeout-ms, --profile) go before or after the command's own
arguments. Nothing heavy is imported on this path: no pydantic, no host modules.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from reins._errors import ReinsError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_HOST = 0, 1, 2, 3
_NO_HOST_CODES = {"no_host", "not_connected"}
_USAGE_CODES = {"ambiguous_profile", "bad_request", "unknown_command", "invalid_selector"}

_GLOBALS = ("json_out", "tab", "timeout_ms", "profile")


def _global_options(fn: F) -> F:
    """Accept the global options after the command too (`reins navigate URL --json`)."""
    fn = click.option("--json", "json_out", is_flag=True, default=None, help="Print one JSON object.")(fn)
    fn = click.option("--tab", type=int, default=None, help="Tab id (default: the current tab).")(fn)
    fn = click.option("--timeout-ms", type=click.IntRange(0, 3_600_000), default=None,
                      help="The command's whole budget.")(fn)
    fn = click.option("--profile", default=None, help="Which connected browser profile.")(fn)
    return fn


def _opts(ctx: click.Context, /, local: dict[str, Any]) -> dict[str, Any]:
    merged = dict(ctx.find_root().obj or {})
    for key in _GLOBALS:
        if local.get(key) is not None:
            merged[key] = local.pop(key)
        else:
            local.pop(key, None)
    return merged


def _exit_code(code: str) -> int:
    if code in _NO_HOST_CODES:
        return EXIT_NO_HOST
    if code in _USAGE_CODES:
        return EXIT_USAGE
    return EXIT_FAILED


def fail(error: dict[str, Any], json_out: bool) -> NoReturn:
    if json_out:
        click.echo(json.dumps({"ok": False, "error": error}, ensure_ascii=False))
    else:
        click.echo(f"error [{error.get('code')}]: {error.get('message')}", err=True)
    sys.exit(_exit_code(str(error.get("code"))))


def run(
    ctx: click.Context, cmd: str, args: dict[str, Any], local: dict[str, Any],
    human: Callable[[dict[str, Any]], str] | None = None, *, quiet: bool = False,
) -> dict[str, Any]:
    """Send one command to the host and print its answer; exits on failure."""
    from reins.bridge.client import request

    opts = _opts(ctx, local)
    json_out = bool(opts.get("json_out"))
    batch = opts.get("_batch")
    answer: dict[str, Any]
    try:
        if batch is not None:  # `reins batch`: one connection for every line
            answer = batch.call(cmd, args, tab=opts.get("tab"), timeout_ms=opts.get("timeout_ms"))
        else:
            answer = request(cmd, args, profile=opts.get("profile"), tab=opts.get("tab"),
                             timeout_ms=opts.get("timeout_ms"))
    except ReinsError as exc:
        answer = {"ok": False, "error": exc.to_wire()}
    answer.pop("request_id", None)
    if batch is not None:
        click.echo(json.dumps(answer, ensure_ascii=False))
        if not answer.get("ok"):
            raise _BatchLineFailed("printed", code=str(answer.get("error", {}).get("code")))
        return answer
    if not answer.get("ok"):
        fail(answer.get("error") or {"code": "internal", "message": "no error payload"}, json_out)
    if quiet:
        return answer
    if json_out:
        click.echo(json.dumps(answer, ensure_ascii=False))
    else:
        body = {k: v for k, v in answer.items() if k != "ok"}
        click.echo(human(answer) if human else _plain(body))
    return answer


class _BatchLineFailed(ReinsError):
    """A batch line's error answer has been printed; go on with the next line."""


def _plain(body: dict[str, Any]) -> str:
    if not body:
        return "ok"
    return "\n".join(
        f"{k}: {v if isinstance(v, str | int | float | bool) or v is None else json.dumps(v, ensure_ascii=False)}"
        for k, v in body.items()
    )


class _ReinsGroup(click.Group):
    """With --json anywhere on the line, a usage error is answered as JSON too (exit 2)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        argv = list(args[0] if args else kwargs.get("args") or sys.argv[1:])
        if kwargs.get("standalone_mode", True) is False or "--json" not in argv:
            return super().main(*args, **kwargs)
        try:
            return super().main(*args, **{**kwargs, "standalone_mode": False})
        except click.UsageError as exc:
            click.echo(json.dumps({"ok": False, "error": {
                "code": "bad_request", "message": exc.format_message(), "transient": False}}))
            sys.exit(EXIT_USAGE)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:
            sys.exit(EXIT_FAILED)


@click.group(cls=_ReinsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@_global_options
@click.version_option(package_name="reins")
@click.pass_context
def main(ctx: click.Context, /, **opts: Any) -> None:
    """Drive your own logged-in Chrome from the command line."""
    ctx.obj = {**(ctx.obj or {}), **{k: v for k, v in opts.items() if v is not None}}


# ---- bridge commands -------------------------------------------------------------------------


def _status_text(a: dict[str, Any]) -> str:
    ext = a.get("extension") or {}
    tab = a.get("tab") or {}
    lines = [
        f"host      {a['host']['version']} pid {a['host']['pid']} profile {a['host']['profile']}",
        f"extension {'connected ' + str(ext.get('version')) if a.get('connected') else 'not connected'}"
        + (" (paused)" if a.get("paused") else ""),
    ]
    if tab:
        lines.append(f"tab       {tab['id']} {tab.get('title', '')!r} {tab.get('url', '')}")
    return "\n".join(lines)


@main.command()
@_global_options
@click.pass_context
def status(ctx: click.Context, /, **local: Any) -> None:
    """Host, extension and current tab."""
    run(ctx, "status", {}, local, _status_text)


def _tabs_text(a: dict[str, Any]) -> str:
    def whose(t: dict[str, Any]) -> str:
        return "stopped" if t.get("stopped") else "reins" if t.get("reins") else "user"

    return "\n".join(
        f"{'*' if t['id'] == a.get('current') else ' '} {t['id']:>6}  {whose(t):<7}  "
        f"{t['title'][:40]:<40}  {t['url']}"
        for t in a["tabs"]
    ) or "no tabs"


@main.command()
@_global_options
@click.pass_context
def tabs(ctx: click.Context, /, **local: Any) -> None:
    """List the browser's tabs (* marks the one commands use)."""
    run(ctx, "tabs", {}, local, _tabs_text)


@main.group()
def tab() -> None:
    """Open, select and close tabs."""


@tab.command("new")
@click.argument("url", required=False)
@_global_options
@click.pass_context
def tab_new(ctx: click.Context, /, url: str | None, **local: Any) -> None:
    """Open a tab (and make it the one later commands use)."""
    run(ctx, "tab_new", {"url": url} if url else {}, local,
        lambda a: f"tab {a['id']} {a.get('url') or ''}")


@tab.command("select")
@click.argument("tab_id", type=int)
@_global_options
@click.pass_context
def tab_select(ctx: click.Context, /, tab_id: int, **local: Any) -> None:
    """Make tab ID the current one and bring it to the front."""
    run(ctx, "tab_select", {"id": tab_id}, local, lambda a: f"tab {a['tab']['id']} selected")


@tab.command("close")
@click.argument("tab_id", type=int, required=False)
@_global_options
@click.pass_context
def tab_close(ctx: click.Context, /, tab_id: int | None, **local: Any) -> None:
    """Close tab ID (default: the current tab)."""
    run(ctx, "tab_close", {"id": tab_id} if tab_id is not None else {}, local,
        lambda a: f"tab {a['closed']} closed")


def _page_text(a: dict[str, Any]) -> str:
    return f"{a.get('title') or ''}\n{a.get('url') or ''}".strip()


@main.command()
@click.argument("url", required=False)
@click.option("-u", "--url", "url_opt", help="The URL (same as the argument).")
@_global_options
@click.pass_context
def navigate(ctx: click.Context, /, url: str | None, url_opt: str | None, **local: Any) -> None:
    """Open URL in the current tab; returns once the page has loaded and settled."""
    target = url or url_opt
    if not target:
        ctx.fail("give a URL: reins navigate URL (or -u URL)")
    run(ctx, "navigate", {"url": target}, local, _page_text)


@main.command()
@_global_options
@click.pass_context
def back(ctx: click.Context, /, **local: Any) -> None:
    """Go back one page in the tab's history."""
    run(ctx, "back", {}, local, _page_text)


@main.command()
@_global_options
@click.pass_context
def forward(ctx: click.Context, /, **local: Any) -> None:
    """Go forward one page in the tab's history."""
    run(ctx, "forward", {}, local, _page_text)


@main.command()
@_global_options
@click.pass_context
def reload(ctx: click.Context, /, **local: Any) -> None:
    """Reload the tab and wait until it has settled."""
    run(ctx, "reload", {}, local, _page_text)


@main.command()
@click.argument("method")
@click.argument("params_json", required=False, default="{}")
@_global_options
@click.pass_context
def cdp(ctx: click.Context, /, method: str, params_json: str, **local: Any) -> None:
    """Run one allowlisted DevTools command: reins cdp Runtime.evaluate '{"expression":"1"}'."""
    try:
        params = json.loads(params_json)
    except json.JSONDecodeError as exc:
        ctx.fail(f"PARAMS_JSON is not JSON: {exc}")
    if not isinstance(params, dict):
        ctx.fail("PARAMS_JSON must be a JSON object")
    run(ctx, "cdp", {"method": method, "params": params}, local,
        lambda a: json.dumps(a["result"], ensure_ascii=False, indent=1))


@main.command()
@_global_options
@click.pass_context
def stats(ctx: click.Context, /, **local: Any) -> None:
    """Per command: count, failures by code, duration percentiles."""
    run(ctx, "stats", {}, local, lambda a: json.dumps(a["stats"], indent=1))


# ---- observe --------------------------------------------------------------------------------


@main.command()
@click.option("--source", type=click.Choice(["dom", "ax"]), default=None,
              help="dom: the page script (default); ax: Chrome's accessibility tree.")
@click.option("--viewport-only", is_flag=True, help="Only what is in the viewport.")
@click.option("--max-tokens", type=click.IntRange(0), default=None,
              help="Hard budget (chars/4); viewport first, says what it left out.")
@click.option("--compare-sources", is_flag=True, help="Measure both sources side by side.")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None,
              help="With --compare-sources: append one JSON line with the figures to FILE.")
@_global_options
@click.pass_context
def state(ctx: click.Context, /, source: str | None, viewport_only: bool, max_tokens: int | None,
          compare_sources: bool, record_file: str | None, **local: Any) -> None:
    """The page's interactive elements, one line each: @ref role "name" value [flags]."""
    args: dict[str, Any] = {"viewport_only": viewport_only, "compare_sources": compare_sources}
    if not _opts(ctx, dict(local)).get("json_out"):
        args["text_only"] = True  # the refs list would only be thrown away
    if source:
        args["source"] = source
    if max_tokens is not None:
        args["max_tokens"] = max_tokens
    answer = run(ctx, "state", args, local,
                 (lambda a: json.dumps(a["sources"], indent=1)) if compare_sources
                 else (lambda a: a["text"]))
    if compare_sources and record_file:
        import time as _time

        line = {"time": _time.strftime("%Y-%m-%dT%H:%M:%S%z"), "url": answer.get("url"),
                "sources": answer.get("sources")}
        with open(record_file, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")


@main.command("map")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the JSON map to FILE instead of printing it.")
@click.option("--force", is_flag=True, help="Regenerate even if the cached map is fresh.")
@_global_options
@click.pass_context
def map_cmd(ctx: click.Context, /, output: str | None, force: bool, **local: Any) -> None:
    """The interaction map (JSON): elements, selectors, indexes, statistics."""
    if output:
        json_out = _opts(ctx, dict(local)).get("json_out")
        answer = run(ctx, "map", {"force": force}, local, quiet=True)
        with open(output, "w", encoding="utf-8") as fh:
            json.dump(answer["map"], fh, ensure_ascii=False, indent=1)
        if json_out:
            click.echo(json.dumps({"ok": True, "written": output}))
        return
    run(ctx, "map", {"force": force}, local, lambda a: json.dumps(a["map"], ensure_ascii=False, indent=1))


def _smart_options(fn: F) -> F:
    fn = click.option("--text", default=None, help="Find by visible text (fuzzy fallback).")(fn)
    fn = click.option("--index", type=click.IntRange(1), default=None, help="1-based among matches.")(fn)
    fn = click.option("--type", "type_", default=None, help="Interaction-map type: button, input, input-text, a …")(fn)
    fn = click.option("--viewport-only", is_flag=True, help="Only elements in the viewport.")(fn)
    return fn


def _smart_args(text: str | None, index: int | None, type_: str | None, viewport_only: bool) -> dict[str, Any]:
    query: dict[str, Any] = {}
    if text is not None:
        query["text"] = text
    if index is not None:
        query["index"] = index
    if type_ is not None:
        query["type"] = type_
    if viewport_only:
        query["viewport_only"] = True
    return query


def _find_text(a: dict[str, Any]) -> str:
    return "\n".join(f"{m['ref']} {m['type']} {m['text']!r} {m['selector']}" for m in a["matches"])


@main.command()
@_smart_options
@click.option("--tag", default=None, help="HTML tag.")
@click.option("--id", "elem_id", default=None, help="Map element id (elem_N).")
@_global_options
@click.pass_context
def find(ctx: click.Context, /, text: str | None, index: int | None, type_: str | None,
         viewport_only: bool, tag: str | None, elem_id: str | None, **local: Any) -> None:
    """Query the interaction map: --text, --type (aliases), --tag, --index, --viewport-only, --id."""
    args = _smart_args(text, index, type_, viewport_only)
    if tag:
        args["tag"] = tag
    if elem_id:
        args["id"] = elem_id
    run(ctx, "find", args, local, _find_text)


@main.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="screenshot.png",
              show_default=True)
@click.option("--annotate", is_flag=True, help="Box and label each visible element with its ref.")
@click.option("--full-page", is_flag=True, help="The whole page, not only the viewport.")
@_global_options
@click.pass_context
def screenshot(ctx: click.Context, /, output: str, annotate: bool, full_page: bool, **local: Any) -> None:
    """A PNG of the tab; --annotate labels elements with the refs `state` prints."""
    import base64

    json_out = _opts(ctx, dict(local)).get("json_out")
    answer = run(ctx, "screenshot", {"annotate": annotate, "full_page": full_page}, local, quiet=True)
    with open(output, "wb") as fh:
        fh.write(base64.b64decode(answer["png_base64"]))
    summary = {"ok": True, "file": output, "bytes": answer["bytes"], "labels": answer.get("labels", [])}
    click.echo(json.dumps(summary) if json_out
               else f"wrote {output} ({answer['bytes']} bytes, {len(summary['labels'])} labels)")


# ---- act ------------------------------------------------------------------------------------


def _effect_text(a: dict[str, Any]) -> str:
    parts = []
    for key, change in (a.get("effect") or {}).items():
        if isinstance(change, dict) and "from" in change:
            parts.append(f"{key}: {change['from']!r} -> {change['to']!r}")
        else:
            parts.append(f"{key}: {change}")
    line = "; ".join(parts) or "no observable change"
    if a.get("recovered"):
        r = a["recovered"]
        line += f"\nrecovered stale ref via {r.get('via')} (confidence {r.get('confidence')})"
    for warning in a.get("warnings") or []:
        line += f"\nwarning: {warning}"
    return line


def _target_args(target: str | None, frame: str | None, smart: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = dict(smart)
    if target:
        args["target"] = target
    if frame:
        args["frame"] = frame
    return args


_frame_option = click.option("--frame", default=None, help="CSS of an iframe to scope a CSS/XPath target.")


def _pointer_command(name: str, doc: str) -> None:
    @main.command(name, help=doc)
    @click.argument("target", required=False)
    @_smart_options
    @_frame_option
    @click.option("--button", type=click.Choice(["left", "right", "middle"]), default="left")
    @_global_options
    @click.pass_context
    def _cmd(ctx: click.Context, /, target: str | None, text: str | None, index: int | None,
             type_: str | None, viewport_only: bool, frame: str | None, button: str,
             **local: Any) -> None:
        import os

        args = _target_args(target, frame, _smart_args(text, index, type_, viewport_only))
        if name != "hover":
            args["button"] = button
            if os.environ.get("REINS_CLICK") == "js":
                args["mode"] = "js"
        run(ctx, name, args, local, _effect_text)


_pointer_command("click", "Click TARGET with real mouse events (or --text T [--index N] [--type X]).")
_pointer_command("dblclick", "Double-click TARGET with real mouse events.")
_pointer_command("hover", "Move the mouse over TARGET.")


def _fill_command(name: str, doc: str) -> None:
    @main.command(name, help=doc)
    @click.argument("args", nargs=-1)
    @_smart_options
    @_frame_option
    @click.option("-v", "--value", "value_opt", default=None, help="The text (instead of VALUE).")
    @_global_options
    @click.pass_context
    def _cmd(ctx: click.Context, /, args: tuple[str, ...], text: str | None, index: int | None,
             type_: str | None, viewport_only: bool, frame: str | None, value_opt: str | None,
             **local: Any) -> None:
        positional = list(args)
        target = None if text is not None else (positional.pop(0) if positional else None)
        value = value_opt if value_opt is not None else (positional.pop(0) if positional else None)
        if value is None or positional:
            ctx.fail(f"reins {name} TARGET VALUE, or reins {name} --text LABEL VALUE")
        body = _target_args(target, frame, _smart_args(text, index, type_, viewport_only))
        body["value"] = value
        run(ctx, name, body, local, _effect_text)


_fill_command("fill", "Replace the text of TARGET with VALUE and verify what the page kept.")
_fill_command("type", "Type VALUE at the end of TARGET's text.")


@main.command()
@click.argument("keys")
@click.argument("target", required=False)
@_frame_option
@_global_options
@click.pass_context
def press(ctx: click.Context, /, keys: str, target: str | None, frame: str | None, **local: Any) -> None:
    """Press KEYS (Enter, Control+A, Shift+Tab…) on TARGET, or on what has focus."""
    run(ctx, "press", _target_args(target, frame, {"keys": keys}), local, _effect_text)


@main.command()
@click.argument("target")
@click.argument("values", nargs=-1, required=True)
@_frame_option
@_global_options
@click.pass_context
def select(ctx: click.Context, /, target: str, values: tuple[str, ...], frame: str | None,
           **local: Any) -> None:
    """Choose option(s) of a native <select> by value or label."""
    run(ctx, "select", _target_args(target, frame, {"values": list(values)}), local, _effect_text)


@main.command()
@click.argument("target")
@_frame_option
@_global_options
@click.pass_context
def check(ctx: click.Context, /, target: str, frame: str | None, **local: Any) -> None:
    """Check a checkbox, radio or switch (verified by its checked state)."""
    run(ctx, "check", _target_args(target, frame, {}), local, _effect_text)


@main.command()
@click.argument("target")
@_frame_option
@_global_options
@click.pass_context
def uncheck(ctx: click.Context, /, target: str, frame: str | None, **local: Any) -> None:
    """Uncheck a checkbox or switch (verified by its checked state)."""
    run(ctx, "uncheck", _target_args(target, frame, {}), local, _effect_text)


@main.command()
@click.option("--text", default=None, help="Until this text is on the page.")
@click.option("--target", default=None, help="Until TARGET is there and visible.")
@click.option("--gone", default=None, help="Until TARGET is gone.")
@click.option("--url", default=None, help="Until the URL matches GLOB.")
@click.option("--idle", is_flag=True, help="Until the DOM has been quiet for a moment.")
@_global_options
@click.pass_context
def wait(ctx: click.Context, /, text: str | None, target: str | None, gone: str | None,
         url: str | None, idle: bool, **local: Any) -> None:
    """Wait for one condition, within --timeout-ms (default 10 s)."""
    args: dict[str, Any] = {k: v for k, v in {"text": text, "target": target, "gone": gone, "url": url}.items()
            if v is not None}
    if idle:
        args["idle"] = True
    run(ctx, "wait", args, local, lambda a: f"ok: {a.get('waited_for')}")


@main.command()
@click.argument("action", type=click.Choice(["accept", "dismiss"]), required=False)
@click.argument("text", required=False)
@_global_options
@click.pass_context
def dialog(ctx: click.Context, /, action: str | None, text: str | None, **local: Any) -> None:
    """Show the open alert/confirm/prompt dialog, or `accept [TEXT]` / `dismiss` it."""
    args: dict[str, Any] = {}
    if action:
        args["action"] = action
    if text is not None:
        args["text"] = text
    run(ctx, "dialog", args, local)


@main.command()
def guide() -> None:
    """Print the agent guide: observe, act, read the effect, what each error means."""
    from importlib import resources

    click.echo((resources.files("reins") / "agent-guide.md").read_text(encoding="utf-8"))


# ---- local commands: registration, launch, doctor -------------------------------------------


def _local_result(ctx: click.Context, /, local: dict[str, Any], action: Callable[[], dict[str, Any]],
                  human: Callable[[dict[str, Any]], str]) -> None:
    opts = _opts(ctx, local)
    json_out = bool(opts.get("json_out"))
    try:
        result = action()
    except ReinsError as exc:
        fail(exc.to_wire(), json_out)
    if json_out:
        click.echo(json.dumps({"ok": True, **result}, ensure_ascii=False))
    else:
        click.echo(human(result))


_BROWSERS = click.Choice(["chrome", "chromium", "edge", "brave", "all"])


@main.command()
@click.option("--browser", type=_BROWSERS, default="all", show_default=True)
@click.option("--user-data-dir", type=click.Path(file_okay=False), default=None,
              help="Register in this profile's own NativeMessagingHosts folder instead.")
@_global_options
@click.pass_context
def install(ctx: click.Context, /, browser: str, user_data_dir: str | None, **local: Any) -> None:
    """Register the native host for your browser(s); --profile NAME names the profile(s) it serves."""
    from reins.setup.install import install as do_install

    profile = _opts(ctx, dict(local)).get("profile")
    _local_result(ctx, local, lambda: do_install(browser, user_data_dir, profile=profile),
                  lambda r: "\n".join(f"registered: {p}" for p in r["manifests"]))


@main.command()
@click.option("--browser", type=_BROWSERS, default="all", show_default=True)
@click.option("--user-data-dir", type=click.Path(file_okay=False), default=None)
@_global_options
@click.pass_context
def uninstall(ctx: click.Context, /, browser: str, user_data_dir: str | None, **local: Any) -> None:
    """Remove the native host registration."""
    from reins.setup.install import uninstall as do_uninstall

    _local_result(ctx, local, lambda: do_uninstall(browser, user_data_dir),
                  lambda r: "\n".join(f"removed: {p}" for p in r["removed"]) or "nothing to remove")


@main.command()
@click.option("--browser", type=_BROWSERS, default="all", show_default=True)
@click.option("--user-data-dir", type=click.Path(file_okay=False), default=None)
@_global_options
@click.pass_context
def doctor(ctx: click.Context, /, browser: str, user_data_dir: str | None, **local: Any) -> None:
    """Check each link: manifest, launcher, allowed origin, host start, extension connected."""
    from reins.setup.install import doctor as run_doctor

    opts = _opts(ctx, local)
    report = run_doctor(browser, user_data_dir, profile=opts.get("profile"))
    if opts.get("json_out"):
        click.echo(json.dumps({"ok": report["healthy"], **report}))
    else:
        for check in report["checks"]:
            mark = "ok  " if check["ok"] else "FAIL"
            click.echo(f"[{mark}] {check['name']}: {check['detail']}")
            if not check["ok"] and check.get("fix"):
                click.echo(f"       fix: {check['fix']}")
    sys.exit(EXIT_OK if report["healthy"] else EXIT_FAILED)


@main.command()
@click.argument("url", required=False)
@click.option("--headless", is_flag=True, help="Run without a window.")
@click.option("--browser", "browser_path", default=None, help="Chromium or Chrome binary.")
@click.option("--user-data-dir", type=click.Path(file_okay=False), default=None,
              help="Profile folder (default: under REINS_HOME).")
@_global_options
@click.pass_context
def launch(ctx: click.Context, /, url: str | None, headless: bool, browser_path: str | None,
           user_data_dir: str | None, **local: Any) -> None:
    """Start a dedicated browser profile with reins loaded; returns once the host answers."""
    from reins.setup.launch import launch as do_launch

    opts = _opts(ctx, local)
    name = opts.get("profile") or "launch"
    timeout_s = (opts.get("timeout_ms") or 30_000) / 1000.0
    _local_result(ctx, {"json_out": opts.get("json_out")},
                  lambda: do_launch(name, url=url, headless=headless, browser=browser_path,
                                    user_data_dir=user_data_dir, timeout_s=timeout_s),
                  lambda r: f"launched {r['browser']} (pid {r['pid']}) profile {r['profile']}")


@main.command()
@_global_options
@click.pass_context
def shutdown(ctx: click.Context, /, **local: Any) -> None:
    """Close a browser started by `reins launch` (its host exits with it)."""
    from reins.setup.launch import shutdown as do_shutdown

    opts = _opts(ctx, local)
    _local_result(ctx, {"json_out": opts.get("json_out")},
                  lambda: do_shutdown(opts.get("profile")),
                  lambda r: f"stopped profile {r['profile']}")


# ---- evaluate and per-profile settings -------------------------------------------------------


def _eval_text(a: dict[str, Any]) -> str:
    if "value" in a:
        value = a["value"]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
        if a.get("truncated"):
            text += f"\n[truncated: {a.get('size')} bytes in all]"
        return str(text)
    kind = a.get("type", "?") + (f"/{a['subtype']}" if a.get("subtype") else "")
    reason = f" ({a['reason']})" if a.get("reason") else ""
    return f"[{kind}] {a.get('description', '')}{reason}"


@main.command("eval")
@click.argument("expression")
@click.option("--target", default=None, metavar="TARGET",
              help="Run on one element (@ref, CSS, //xpath, role=..., text=...); EXPRESSION is then "
                   "a function that receives it, e.g. 'el => el.textContent'.")
@click.option("--frame", default=None, metavar="CSS", help="Look for --target inside this iframe.")
@_global_options
@click.pass_context
def eval_(ctx: click.Context, /, expression: str, target: str | None, frame: str | None,
          **local: Any) -> None:
    """Run JavaScript in the page (EXPRESSION, `-` reads stdin) and print its result.

    Promises are awaited, top-level await works, and V8 stops the script when the budget
    (--timeout-ms, default 10 s) runs out. Values that are not JSON print as a description;
    results over 256 KiB are cut and marked truncated.
    """
    if expression == "-":
        expression = sys.stdin.read()
    args: dict[str, Any] = {"expression": expression}
    if target is not None:
        args["target"] = target
    if frame is not None:
        args["frame"] = frame
    run(ctx, "eval", args, local, _eval_text)


def _settings_profile(given: str | None) -> str:
    import os

    from reins.bridge.client import live_profiles

    if given or os.environ.get("REINS_PROFILE"):
        return str(given or os.environ.get("REINS_PROFILE"))
    live = live_profiles()
    return live[0] if len(live) == 1 else "default"


@main.command("config")
@click.argument("key", type=click.Choice(["evaluate"]))
@click.argument("value", type=click.Choice(["on", "off"]), required=False)
@_global_options
@click.pass_context
def config(ctx: click.Context, /, key: str, value: str | None, **local: Any) -> None:
    """Show or change a per-profile setting: `reins config evaluate off` refuses every eval.

    Settings live in REINS_HOME/config/PROFILE.json; the host reads them at each use.
    """
    from reins.setup.config import config_path, read_config, write_setting

    opts = _opts(ctx, local)
    profile = _settings_profile(opts.get("profile"))

    def apply() -> dict[str, Any]:
        settings = (write_setting(profile, key, value == "on") if value is not None
                    else read_config(profile))
        return {"profile": profile, key: settings[key], "path": str(config_path(profile))}

    _local_result(ctx, {"json_out": opts.get("json_out")}, apply,
                  lambda r: f"{key}: {'on' if r[key] else 'off'} (profile {r['profile']})")


@main.command()
@_global_options
@click.pass_context
def batch(ctx: click.Context, /, **local: Any) -> None:
    """Run commands from stdin, one per line in CLI syntax, over one connection.

    Each line answers one JSON line ({"ok": true, ...} or {"ok": false, "error": ...}). Lines run
    in order; a failed line does not stop the rest. Blank lines and # comments are skipped.
    Example: printf 'state\\nclick @save\\n' | reins batch
    """
    import shlex

    from reins.bridge.client import Connection, find_socket

    opts = _opts(ctx, local)
    try:
        conn = Connection(find_socket(opts.get("profile")))
    except ReinsError as exc:
        fail(exc.to_wire(), True)
    failures = 0
    with conn:
        for raw in sys.stdin:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                argv = shlex.split(line)
                if argv and argv[0] == "batch":
                    click.echo(json.dumps({"ok": False, "error": {
                        "code": "bad_request", "message": "batch does not nest", "transient": False}}))
                    failures += 1
                    continue
                base = {k: v for k, v in opts.items() if k in _GLOBALS}
                main.main(args=argv, prog_name="reins", standalone_mode=False,
                          obj={**base, "json_out": True, "_batch": conn})
            except _BatchLineFailed:
                failures += 1
            except (click.ClickException, ValueError) as exc:
                failures += 1
                message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
                click.echo(json.dumps({"ok": False, "error": {
                    "code": "bad_request", "message": f"{line!r}: {message}", "transient": False}}))
            except SystemExit as exc:
                failures += 1 if exc.code else 0
            sys.stdout.flush()
    sys.exit(EXIT_FAILED if failures else EXIT_OK)


if __name__ == "__main__":
    main()
