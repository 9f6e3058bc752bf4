"""Commands the CLI runs itself, without the host: registration, launch, settings, the guide, and the
MCP server (which talks to the host as the CLI does, one request per tool call)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from reins._errors import ReinsError
from reins._pagetext import json_text, visible
from reins.cli.options import global_options, merged_options
from reins.cli.run import EXIT_FAILED, EXIT_OK, fail
from reins.setup.browsers import CHOICES as BROWSER_CHOICES

__all__ = [
    "config",
    "doctor",
    "guide",
    "install",
    "launch",
    "mask",
    "mcp",
    "shutdown",
    "uninstall",
]


def _local_result(
    ctx: click.Context,
    /,
    local: dict[str, Any],
    action: Callable[[], dict[str, Any]],
    human: Callable[[dict[str, Any]], str],
) -> None:
    opts = merged_options(ctx, local)
    json_out = bool(opts.get("json_out"))
    try:
        result = action()
    except ReinsError as exc:
        fail(exc.to_wire(), json_out)
    if json_out:
        click.echo(json_text({"ok": True, **result}))
    else:
        click.echo(human(result))


_BROWSERS = click.Choice(list(BROWSER_CHOICES))


@click.command()
def guide() -> None:
    """Print the agent guide: observe, act, read the effect, what each error means."""
    from importlib import resources

    click.echo((resources.files("reins") / "agent-guide.md").read_text(encoding="utf-8"))


@click.command()
@click.option("--browser", type=_BROWSERS, default="all", show_default=True)
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Register in this profile's own NativeMessagingHosts folder instead.",
)
@global_options
@click.pass_context
def install(ctx: click.Context, /, browser: str, user_data_dir: str | None, **local: Any) -> None:
    """Register the native host for your browser(s); --profile NAME names the profile(s) it serves."""
    from reins.setup.install import install as do_install

    profile = merged_options(ctx, dict(local)).get("profile")
    _local_result(
        ctx,
        local,
        lambda: do_install(browser, user_data_dir, profile=profile),
        lambda r: "\n".join(
            [f"registered for {b}: {where}" for b, where in r["browsers"].items()]
            + ([f"not found here (skipped): {', '.join(r['not_found'])}"] if r["not_found"] else [])
            + [f"refused {b}: {why}" for b, why in (r.get("refused") or {}).items()]
            + _extension_lines(r)
        ),
    )


_LOAD = "chrome://extensions → Developer mode → Load unpacked → this folder"
_EXTENSION_STEP = {
    "new": _LOAD,
    "updated": f"updated: press reload on reins in chrome://extensions (first time: {_LOAD})",
    "same": f"already this reins's (first time: {_LOAD})",
}


def _extension_lines(result: dict[str, Any]) -> list[str]:
    if not result.get("extension"):
        return []
    step = _EXTENSION_STEP.get(str(result.get("extension_change")), "")
    return [f"extension to load: {result['extension']}", f"  ({step})"]


@click.command()
@click.option("--browser", type=_BROWSERS, default="all", show_default=True)
@click.option("--user-data-dir", type=click.Path(file_okay=False), default=None)
@global_options
@click.pass_context
def uninstall(ctx: click.Context, /, browser: str, user_data_dir: str | None, **local: Any) -> None:
    """Remove the native host registration."""
    from reins.setup.install import uninstall as do_uninstall

    _local_result(
        ctx,
        local,
        lambda: do_uninstall(browser, user_data_dir),
        lambda r: "\n".join(f"removed: {p}" for p in r["removed"]) or "nothing to remove",
    )


@click.command()
@click.option("--browser", type=_BROWSERS, default="all", show_default=True)
@click.option("--user-data-dir", type=click.Path(file_okay=False), default=None)
@global_options
@click.pass_context
def doctor(ctx: click.Context, /, browser: str, user_data_dir: str | None, **local: Any) -> None:
    """Check each link: manifest, launcher, allowed origin, host start, extension connected."""
    from reins.setup.doctor import doctor as run_doctor

    opts = merged_options(ctx, local)
    report = run_doctor(browser, user_data_dir, profile=opts.get("profile"))
    if opts.get("json_out"):
        click.echo(json.dumps({"ok": report["healthy"], **report}))
    else:
        for check in report["checks"]:
            mark = "ok  " if check["ok"] else "FAIL"
            click.echo(f"[{mark}] {check['name']}: {visible(str(check['detail']))}")
            if not check["ok"] and check.get("fix"):
                click.echo(f"       fix: {visible(str(check['fix']))}")
    sys.exit(EXIT_OK if report["healthy"] else EXIT_FAILED)


@click.command()
@click.argument("url", required=False)
@click.option("--headless", is_flag=True, help="Run without a window.")
@click.option("--browser", "browser_path", default=None, help="Chromium or Chrome binary.")
@click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Profile folder (default: under REINS_HOME).",
)
@click.option(
    "--load-via",
    type=click.Choice(["flag", "pipe"]),
    default=None,
    help="How the extension is loaded: --load-extension (Chromium, Chrome for Testing) or over "
    "the DevTools pipe (Chrome 137+, which ignores the flag). Default: by the browser.",
)
@global_options
@click.pass_context
def launch(
    ctx: click.Context,
    /,
    url: str | None,
    headless: bool,
    browser_path: str | None,
    user_data_dir: str | None,
    load_via: str | None,
    **local: Any,
) -> None:
    """Start a dedicated browser profile with reins loaded; returns once the host answers."""
    from reins.setup.launch import launch as do_launch

    opts = merged_options(ctx, local)
    name = opts.get("profile") or "launch"
    timeout_s = (opts.get("timeout_ms") or 30_000) / 1000.0
    _local_result(
        ctx,
        {"json_out": opts.get("json_out")},
        lambda: do_launch(
            name,
            url=url,
            headless=headless,
            browser=browser_path,
            user_data_dir=user_data_dir,
            timeout_s=timeout_s,
            load=load_via,
        ),
        lambda r: f"launched {r['browser']} (pid {r['pid']}) profile {r['profile']}",
    )


@click.command()
@global_options
@click.pass_context
def shutdown(ctx: click.Context, /, **local: Any) -> None:
    """Close a browser started by `reins launch` (its host exits with it)."""
    from reins.setup.launch import shutdown as do_shutdown

    opts = merged_options(ctx, local)
    _local_result(
        ctx,
        {"json_out": opts.get("json_out")},
        lambda: do_shutdown(opts.get("profile")),
        lambda r: f"stopped profile {r['profile']}",
    )


def _settings_profile(given: str | None) -> str:
    import os

    from reins.bridge.client import live_profiles

    if given or os.environ.get("REINS_PROFILE"):
        return str(given or os.environ.get("REINS_PROFILE"))
    live = live_profiles()
    return live[0] if len(live) == 1 else "default"


@click.command("config")
@click.argument("key", type=click.Choice(["evaluate", "downloads", "upload-dirs"]))
@click.argument("value", required=False)
@click.argument("directory", required=False)
@global_options
@click.pass_context
def config(
    ctx: click.Context, /, key: str, value: str | None, directory: str | None, **local: Any
) -> None:
    """Show or change a per-profile setting: `reins config evaluate off` refuses every eval;
    `reins config downloads off` cancels every download a page in a tab reins drives begins;
    `reins config upload-dirs add DIR` lets `reins upload` read files under DIR (besides the
    directory reins runs in), `remove DIR` takes it back.

    Settings live in REINS_HOME/config/PROFILE.json; the host reads them at each use.
    """
    from reins.setup.config import (
        change_upload_dirs,
        config_path,
        read_config,
        upload_dirs,
        write_setting,
    )

    opts = merged_options(ctx, local)
    profile = _settings_profile(opts.get("profile"))
    if key != "upload-dirs" and (value not in (None, "on", "off") or directory is not None):
        ctx.fail(f"reins config {key} [on|off]")
    if key == "upload-dirs" and (value is None) != (directory is None):
        ctx.fail("reins config upload-dirs [add|remove DIR]")

    def apply() -> dict[str, Any]:
        where = str(config_path(profile))
        if key == "upload-dirs":
            dirs = (
                change_upload_dirs(profile, value, directory)
                if value and directory
                else upload_dirs(profile)
            )
            return {"profile": profile, "upload_dirs": dirs, "path": where}
        settings = (
            write_setting(profile, key, value == "on")
            if value is not None
            else read_config(profile)
        )
        return {"profile": profile, key: settings[key], "path": where}

    def text(r: dict[str, Any]) -> str:
        if key == "upload-dirs":
            return f"upload-dirs (profile {r['profile']}): the directory reins runs in" + "".join(
                f", {d}" for d in r["upload_dirs"]
            )
        return f"{key}: {'on' if r[key] else 'off'} (profile {r['profile']})"

    _local_result(ctx, {"json_out": opts.get("json_out")}, apply, text)


@click.command("mask")
@click.argument("action", type=click.Choice(["add", "remove", "list"]))
@click.argument("site", required=False)
@click.option("--selector", default=None, help="CSS: the elements whose boxes are filled.")
@click.option("--text", "pattern", default=None, help="A simple pattern (see below).")
@global_options
@click.pass_context
def mask(
    ctx: click.Context,
    /,
    action: str,
    site: str | None,
    selector: str | None,
    pattern: str | None,
    **local: Any,
) -> None:
    """Masking rules for traces, by site: `reins mask add https://app.example.com --selector
    '#balance'` fills that element's box on every picture a trace takes there; `--text
    'ACCT-\\d{8}'` fills the text it matches on pictures and writes `[masked]` for it in the
    trace's text. SITE is an origin, or * for every site; `list` shows the rules, `remove` takes
    one back.

    Password, one-time-code and card fields are masked on pictures without any rule. A text
    pattern must be simple: characters, classes, `.`, `|`, groups, and a repetition on one
    character or class (never on a group), no more than one open (`+`, `*`); no look-arounds or
    back-references. Rules live in REINS_HOME/config/PROFILE.json (docs/tracing.md, "Masking").
    """
    from reins.setup.config import change_mask_rule, config_path, mask_rules

    opts = merged_options(ctx, local)
    profile = _settings_profile(opts.get("profile"))
    if action == "list":
        if selector is not None or pattern is not None:
            ctx.fail("reins mask list [SITE]")
    elif site is None or (selector is None) == (pattern is None):
        ctx.fail(f"reins mask {action} SITE (--selector CSS | --text PATTERN)")

    def apply() -> dict[str, Any]:
        if action == "list":
            rules = mask_rules(profile)
        else:
            kind, value = ("selector", selector) if selector is not None else ("text", pattern)
            rules = change_mask_rule(profile, action, str(site), kind, str(value))
        if site is not None and action == "list":
            from reins.setup.config import site_origin

            origin = site_origin(site)
            rules = {k: v for k, v in rules.items() if k in (origin, "*")}
        return {"profile": profile, "rules": rules, "path": str(config_path(profile))}

    def text(r: dict[str, Any]) -> str:
        lines = [
            f"masking rules (profile {r['profile']}); password, one-time-code and card "
            "fields are masked on pictures always"
        ]
        for where, rules in sorted(r["rules"].items()):
            for rule in rules:
                ((kind, value),) = rule.items()
                lines.append(f"  {where}  --{kind} {visible(value)}")
        if not r["rules"]:
            lines.append("  (no rules)")
        return "\n".join(lines)

    _local_result(ctx, {"json_out": opts.get("json_out")}, apply, text)


@click.command("mcp")
@click.option(
    "--max-tokens-per-answer",
    "answer_tokens",
    type=click.IntRange(1_000),
    default=None,
    help="No tool answer is longer (tokens ≈ chars/4; default 20,000, under the 25,000 "
    "hosts fail at): text is cut and says so, screenshots are re-encoded or scaled.",
)
@click.option(
    "--state-tokens",
    type=click.IntRange(1),
    default=None,
    help="The budget of `state` when the agent names none (default 8,000).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Build the server and its tool list, print them and exit (`reins doctor` runs it).",
)
@click.option(
    "--profile",
    default=None,
    help="Which connected browser profile (default: the one "
    "connected, looked up at each tool call).",
)
@click.option(
    "--json", "json_out", is_flag=True, default=None, help="With --check: one JSON object."
)
@click.pass_context
def mcp(
    ctx: click.Context,
    /,
    answer_tokens: int | None,
    state_tokens: int | None,
    check: bool,
    **local: Any,
) -> None:
    """Serve the host's commands as MCP tools on stdin/stdout (Claude Code, Cursor, VS Code …).

    `claude mcp add reins -- reins mcp`; see the README for other hosts. Tool answers are frugal:
    an action answers its effect, not the page; `state` is budgeted; nothing is over the cap.
    """
    # The one import the CLI defers to a handler: the MCP SDK and every host layer come with it,
    # and no other command needs them.
    from reins.mcp import Limits, Settings, ToolServer, serve

    opts = merged_options(ctx, local)
    limits = Limits(
        **{
            k: v
            for k, v in (("answer_tokens", answer_tokens), ("state_tokens", state_tokens))
            if v is not None
        }
    )
    settings = Settings(profile=opts.get("profile"), limits=limits)
    if not check:
        serve(settings)
        return
    from importlib.metadata import version

    tools = ToolServer(settings).tools
    summary = {
        "tools": [tool.name for tool in tools],
        "sdk": version("mcp"),
        "max_tokens_per_answer": limits.answer_tokens,
        "state_tokens": limits.state_tokens,
    }
    _local_result(
        ctx,
        {"json_out": opts.get("json_out")},
        lambda: summary,
        lambda r: (
            f"reins mcp: {len(r['tools'])} tools ({', '.join(r['tools'])}); "
            f"MCP SDK {r['sdk']}; answers ≤ {r['max_tokens_per_answer']:,} tokens, "
            f"state ≤ {r['state_tokens']:,} unless asked"
        ),
    )
