"""Bridge commands: status, tabs, navigation, stats, dialogs."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import Field

from reins import __version__
from reins._errors import (
    BrowserError,
    ConnectionFailure,
    DeadlineExceeded,
    ReinsError,
    ResolutionError,
)
from reins.bridge.command import Args, Command, NoArgs, cli_hints, command
from reins.bridge.context import CommandContext, Host
from reins.bridge.memory import allocator
from reins.commands import answers
from reins.page.crash import CrashWatch, is_crashed, refuse_if_crashed
from reins.page.dialogs import (
    ANSWER_SETTLE_S,
    DialogOpened,
    DialogWatch,
    until_dialog,
    watch_dialogs,
)
from reins.page.navigation import document_info, settle, wait_for_new_document

__all__ = ["COMMANDS"]


def _tab_view(tab: dict[str, Any], host: Host | None = None) -> answers.Tab:
    # reins: reins may drive it (it opened it, or it was handed over; in a launched browser every
    # tab); stopped: the user pressed Cancel on the debugging bar while reins drove it.
    view: answers.Tab = {
        "id": tab["id"],
        "url": tab.get("url", ""),
        "title": tab.get("title", ""),
        "active": bool(tab.get("active")),
        "reins": bool(tab.get("reins")),
        "stopped": bool(tab.get("stopped")),
    }
    state = host.tabs.get(tab["id"]) if host is not None else None
    if state is not None and state.part(CrashWatch).crashed:
        view["crashed"] = True  # its page is gone until `reins reload`
    return view


# The extension answers `status` within a millisecond or two. One that takes longer than this is
# stuck behind a frozen (or badly overloaded) browser: `status` says so instead of waiting on it.
EXTENSION_ANSWER_MS = 1500


# Not MCP tools: `status`, `stats` and `ping` describe reins itself (an MCP agent learns of a missing
# browser from any tool's `not_connected` error, and `tabs` names the current tab); `settle` is the
# host's own; `cdp` is left out on purpose (see its declaration).
@command(
    "status", NoArgs, answers.Status, needs_tab=False, read_only=True, timeout_ms=3000, on_mcp=False
)
async def status(ctx: CommandContext, _: NoArgs) -> answers.Status:
    """Host, extension and current tab."""
    host = ctx.host
    link = host.link
    out: answers.Status = {
        "host": {
            "version": __version__,
            "pid": os.getpid(),
            "profile": host.profile,
            "home": str(host.home),
            "allocator": allocator(),
        },
        "connected": link.connected.is_set(),
        "paused": link.paused,
        "launched": host.launched,
        "extension": link.hello.model_dump(exclude={"type", "instance", "session"})
        if link.hello
        else None,
        "tab": None,
    }
    if not link.connected.is_set():
        return out
    try:
        ext = await link.request("status", ctx.deadline.child(EXTENSION_ANSWER_MS))
    except DeadlineExceeded:
        raise BrowserError(
            f"the extension is connected but did not answer within {EXTENSION_ANSWER_MS} ms: the "
            "browser is frozen or overloaded (this host answers)",
            code="browser_unresponsive",
            transient=True,
            details={"host": out["host"], "extension": "not answering"},
        ) from None
    try:
        out["attached_tabs"] = ext.get("attached", [])
        out["paused"] = bool(ext.get("paused"))
        if not out["paused"]:
            tabs = await link.request("tabs.list", ctx.deadline)
            tab_id = (
                ctx.request.tab
                if ctx.request.tab is not None or not tabs
                else await host.default_tab(ctx.deadline)
            )
            current = next((t for t in tabs if t["id"] == tab_id), None)
            out["tab"] = _tab_view(current, host) if current else None
    except ReinsError as exc:
        out["error"] = exc.to_wire()
    return out


@command("tabs", NoArgs, answers.Tabs, needs_tab=False, read_only=True)
async def tabs(ctx: CommandContext, _: NoArgs) -> answers.Tabs:
    """List the browser's tabs: * marks the one commands use, reins the ones reins may drive."""
    host = ctx.host
    if not host.link.connected.is_set():
        raise ConnectionFailure("the extension is not connected to this host")
    listed = await host.link.request("tabs.list", ctx.deadline)
    return {"tabs": [_tab_view(t, host) for t in listed], "current": host.current.tab}


class TabNewArgs(Args):
    url: str | None = Field(default=None, description="What to open (default: a blank tab).")


@command(
    "tab_new", TabNewArgs, answers.TabOpened, needs_tab=False, timeout_ms=30_000, cli_args=("url",)
)
async def tab_new(ctx: CommandContext, args: TabNewArgs) -> answers.TabOpened:
    """Open a tab of reins's own and make it the one later commands use.

    In your own profile it opens in the background, in the "reins" tab group of the window you
    used last, so what you are looking at stays in front."""
    host = ctx.host
    created = await host.link.request("tabs.create", ctx.deadline, url=args.url or "about:blank")
    tab_id = int(created["id"])
    host.current.choose(tab_id)
    ctx.tab_id = tab_id
    page: dict[str, Any] = {}
    if args.url:
        page = await wait_for_new_document(ctx, None, expect_url=None)
    return {
        "id": tab_id,
        "url": page.get("url", created.get("url")),
        "title": page.get("title", ""),
    }


class TabIdArgs(Args):
    id: int = Field(
        description="The tab's id, as `reins tabs` lists it.",
        json_schema_extra=cli_hints(metavar="TAB_ID"),
    )


@command(
    "tab_select", TabIdArgs, answers.TabChosen, needs_tab=False, idempotent=True, cli_args=("id",)
)
async def tab_select(ctx: CommandContext, args: TabIdArgs) -> answers.TabChosen:
    """Make tab ID the one later commands use; a tab of the user's is handed over to reins.

    A tab the user stopped reins on (Cancel on the debugging bar) stays refused until the user
    hands it back in the reins popup. In a browser `reins launch` started, the tab also comes to
    the front; in your own profile it stays where it is."""
    tab = await ctx.host.link.request("tabs.select", ctx.deadline, tabId=args.id)
    ctx.host.current.choose(args.id)
    return {"tab": _tab_view(tab)}


class TabCloseArgs(Args):
    id: int | None = Field(
        default=None,
        description="The tab's id (default: the current tab).",
        json_schema_extra=cli_hints(metavar="TAB_ID"),
    )


class TabShowArgs(Args):
    id: int | None = Field(
        default=None,
        description="The tab's id (default: the current tab).",
        json_schema_extra=cli_hints(metavar="TAB_ID"),
    )


@command(
    "tab_show",
    TabShowArgs,
    answers.TabChosen,
    watch_dialogs=False,
    dialog_free=True,
    probe=False,
    cli_args=("id",),
)
async def tab_show(ctx: CommandContext, args: TabShowArgs) -> answers.TabChosen:
    """Bring tab ID (default: the current tab) and its window to the front, in front of the user."""
    tab_id = args.id if args.id is not None else ctx.tab
    tab = await ctx.host.link.request("tabs.activate", ctx.deadline, tabId=tab_id)
    ctx.host.current.choose(tab_id)
    return {"tab": _tab_view(tab, ctx.host)}


@command("tab_close", TabCloseArgs, answers.TabClosed, needs_tab=False, cli_args=("id",))
async def tab_close(ctx: CommandContext, args: TabCloseArgs) -> answers.TabClosed:
    """Close tab ID (default: the current tab); only tabs reins may drive. In a browser `reins
    launch` started, its last tab is replaced by a blank one first (the browser would end)."""
    host = ctx.host
    if args.id is not None:
        tab_id = args.id
    elif ctx.request.tab is not None:
        tab_id = ctx.request.tab
    else:
        tab_id = await host.default_tab(ctx.deadline)
    watch = await _closing_watch(ctx, tab_id)
    try:
        closed = await until_dialog(
            host.link.request("tabs.close", ctx.deadline, tabId=tab_id), watch
        )
    except DialogOpened as asked:
        # The page asks before it is left (beforeunload): its question, and any unsaved work it
        # guards in the user's profile, are the agent's to answer, not reins's to dismiss.
        raise DialogOpened(
            asked.dialog,
            hint=f"the page asks before it is left: `reins dialog accept --tab {tab_id}` "
            f"leaves it and closes the tab, `reins dialog dismiss --tab {tab_id}` keeps it open",
        ) from None
    host.current.lost(tab_id)
    host.tabs.pop(tab_id, None)
    replaced_by = closed.get("replacedBy") if isinstance(closed, dict) else None
    if isinstance(replaced_by, int) and not isinstance(replaced_by, bool):
        host.current.choose(replaced_by)
        return {"closed": tab_id, "replaced_by": replaced_by}
    return {"closed": tab_id}


async def _closing_watch(ctx: CommandContext, tab_id: int) -> DialogWatch | None:
    """The dialog watch of a tab about to close, armed if reins drives the tab: a page that asks
    before it is left holds the close until its prompt is answered. None when no prompt can be
    seen there (a tab reins never drove, a crashed one, a page reins may not attach to) or one is
    already open (the close then goes ahead as Chrome decides)."""
    state = ctx.host.tabs.get(tab_id)
    if state is None or state.part(CrashWatch).crashed:
        return None
    there = CommandContext(ctx.host, ctx.deadline, tab_id, ctx.request)
    try:
        watch = await watch_dialogs(there, answer_by=ctx.deadline.child(DIALOG_ARM_MS))
    except (BrowserError, DeadlineExceeded):
        return None  # held (by a dialog reins cannot answer) or gone: closing ends it
    return watch if watch.dialog is None else None


class NavigateArgs(Args):
    url: str = Field(min_length=1, description="What to open.")


async def _origin(ctx: CommandContext) -> float | None:
    if is_crashed(ctx):
        return None  # no document to tell apart, and asking the dead page would wait forever
    try:
        value = (await document_info(ctx)).get("origin")
        return float(value) if value is not None else None
    except ReinsError:
        return None


def _page(info: dict[str, Any]) -> answers.Page:
    return {"url": info.get("url"), "title": info.get("title"), "settled_ms": info.get("settledMs")}


@command(
    "navigate",
    NavigateArgs,
    answers.Page,
    timeout_ms=30_000,
    probe=False,
    idempotent=True,
    leaves_refused_page=True,
    cli_args=("url",),
)
async def navigate(ctx: CommandContext, args: NavigateArgs) -> answers.Page:
    """Open URL in the current tab; returns once the page has loaded and settled."""
    old = await _origin(ctx)
    try:
        result = await ctx.cdp("Page.navigate", {"url": args.url})
    except BrowserError as exc:
        if exc.code != "page_refused":
            raise
        # The tab is on a page reins may not attach to (chrome://…), or the URL is refused: the
        # extension sends the tab away without the debugger, after checking the URL itself.
        await ctx.host.link.request("tabs.navigate", ctx.deadline, tab_id=ctx.tab, url=args.url)
        return _page(await wait_for_new_document(ctx, None))
    if result.get("errorText"):
        raise BrowserError(
            f"navigation to {args.url} failed: {result['errorText']}", code="navigation_failed"
        )
    same_document = not result.get("loaderId")
    info = await wait_for_new_document(ctx, old, expect_url=args.url if same_document else None)
    return _page(info)


async def _history_step(ctx: CommandContext, step: int) -> answers.Page:
    history = await ctx.cdp("Page.getNavigationHistory")
    index = int(history.get("currentIndex", 0)) + step
    entries = history.get("entries", [])
    if not 0 <= index < len(entries):
        raise ResolutionError(
            f"no {'earlier' if step < 0 else 'later'} page in this tab's history",
            hint="use `reins navigate URL`",
        )
    old = await _origin(ctx)
    await ctx.cdp("Page.navigateToHistoryEntry", {"entryId": entries[index]["id"]})
    return _page(await wait_for_new_document(ctx, old, expect_url=entries[index].get("url")))


@command("back", NoArgs, answers.Page, timeout_ms=30_000)
async def back(ctx: CommandContext, _: NoArgs) -> answers.Page:
    """Go back one page in the tab's history."""
    return await _history_step(ctx, -1)


@command("forward", NoArgs, answers.Page, timeout_ms=30_000)
async def forward(ctx: CommandContext, _: NoArgs) -> answers.Page:
    """Go forward one page in the tab's history."""
    return await _history_step(ctx, +1)


@command("reload", NoArgs, answers.Page, timeout_ms=30_000, probe=False, idempotent=True)
async def reload(ctx: CommandContext, _: NoArgs) -> answers.Page:
    """Reload the tab and wait until it has settled."""
    old = await _origin(ctx)
    await ctx.cdp("Page.reload", {})
    return _page(await wait_for_new_document(ctx, old))


@command("settle", NoArgs, answers.Page, read_only=True, on_cli=False, on_mcp=False)
async def settle_cmd(ctx: CommandContext, _: NoArgs) -> answers.Page:
    """Wait until the page has loaded and its DOM has been quiet for a moment."""
    return _page(await settle(ctx))


@command("stats", NoArgs, answers.Stats, needs_tab=False, read_only=True, on_mcp=False)
async def stats(ctx: CommandContext, _: NoArgs) -> answers.Stats:
    """Per command: count, failures by code, duration percentiles."""
    # pending_requests: extension requests in flight (0 when idle: nothing left by an aborted eval).
    return {"stats": {**ctx.host.stats.snapshot(), "pending_requests": ctx.host.link.pending_count}}


@command("ping", NoArgs, answers.Pong, needs_tab=False, read_only=True, on_cli=False, on_mcp=False)
async def ping(ctx: CommandContext, _: NoArgs) -> answers.Pong:
    """Is the host up, and is the extension connected to it?"""
    return {"pong": True, "connected": ctx.host.link.connected.is_set()}


# How long `reins dialog` and `tab close` wait for a tab reins did not watch yet to turn its
# dialog events on (answered by the page's thread, which a dialog may hold).
DIALOG_ARM_MS = 1000


class DialogArgs(Args):
    action: Literal["accept", "dismiss"] | None = Field(
        default=None, description="What to do with the open dialog (default: show it)."
    )
    text: str | None = Field(default=None, description="What to answer a prompt with.")


# Not probed, and no gates but its own watch: it never waits on the page's thread (the pause
# watch's Debugger.enable would, behind a dialog), and is what frees a tab a dialog holds.
@command(
    "dialog",
    DialogArgs,
    answers.DialogState,
    watch_dialogs=False,
    dialog_free=True,
    probe=False,
    cli_args=("action", "text"),
)
async def dialog(ctx: CommandContext, args: DialogArgs) -> answers.DialogState:
    """Show the open alert/confirm/prompt dialog, or `accept [TEXT]` / `dismiss` it."""
    refuse_if_crashed(ctx, ctx.part(CrashWatch))  # no dialog there, and Page.enable would wait
    watch = ctx.part(DialogWatch)
    try:
        await watch_dialogs(ctx, answer_by=ctx.deadline.child(DIALOG_ARM_MS))
    except DeadlineExceeded:
        # One that opened while Page was turned on was heard (it is why the answer waits).
        if watch.dialog is None:
            raise _held_unseen(ctx.tab) from None
    if args.action is None:
        return {"dialog": watch.current}
    handled = watch.dialog
    if handled is None:
        raise _no_dialog()
    params: dict[str, Any] = {"accept": args.action == "accept"}
    if args.text is not None:
        params["promptText"] = args.text
    try:
        await ctx.cdp("Page.handleJavaScriptDialog", params)
    except BrowserError as exc:
        if exc.code != "cdp_error" or "no dialog" not in str(exc).lower():
            raise
        watch.answered(handled.serial)  # its closing was never reported: it is gone
        raise _no_dialog() from None
    # What is open now is what Chrome's events say: the page may already have opened its next
    # dialog (kept), or the closing of this one may still be on its way (waited for).
    if not await watch.closed(handled.serial, ANSWER_SETTLE_S):
        watch.answered(handled.serial)
    return {"handled": handled.to_wire(), "accepted": args.action == "accept"}


def _held_unseen(tab_id: int) -> BrowserError:
    """The page's thread is held and reins was not watching when it was taken: by a dialog that
    opened before (Chrome lets no later session answer it), or by a script."""
    return BrowserError(
        f"tab {tab_id} does not answer: its thread is held, by a dialog that opened before reins "
        "watched this tab (Chrome lets no later watcher answer it) or by a script that never "
        "yields",
        code="tab_unresponsive",
        hint=f"`reins tab close {tab_id}` closes it and its dialog (and frees the page that "
        "opened it)",
    )


def _no_dialog() -> ResolutionError:
    return ResolutionError(
        "no dialog is open in this tab",
        code="not_found",
        hint="`reins dialog` shows one when a page opens it",
    )


COMMANDS: tuple[Command[Any], ...] = (
    status,
    tabs,
    tab_new,
    tab_select,
    tab_show,
    tab_close,
    navigate,
    back,
    forward,
    reload,
    settle_cmd,
    stats,
    ping,
    dialog,
)
