"""tab_crashed: a tab whose renderer died answers at once, and `reins reload` brings it back.

When a tab's renderer process dies (a crash, the OOM killer, `Page.crash`), chrome.debugger stays
attached and does not detach; every call the page would answer (`Runtime.evaluate`, `Page.enable`,
`DOM.*`) then never answers. What does tell (measured here, docs/architecture.md): the debugger
session's `Inspector.targetCrashed` event, 20–35 ms after the crash, sent without any domain
enabled; and `Inspector.enable` sends it again, before its own answer, for a tab that had crashed
before anyone listened (attached later, or re-attached). No chrome.tabs or chrome.webNavigation
event fires; only `chrome.tabs.get` reads `status: "unloaded"`. Browser-side calls still answer:
`Page.reload` and `Page.navigate` load the page in a new renderer and send
`Inspector.targetReloadedAfterCrash`.

So each tab a page command runs on gets a watch (once per attachment: subscribe to both events,
then `Inspector.enable`). A command on a crashed tab answers `tab_crashed` before touching the page,
except those that bring it back (reload, navigate: the commands that are not probed); a command
running when the tab crashes answers `tab_crashed` at once instead of waiting out its budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from reins._errors import BrowserError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.protocol import CdpEvent

__all__ = [
    "CRASH_EVENTS",
    "CrashWatch",
    "TabCrashed",
    "is_crashed",
    "refuse_if_crashed",
    "until_crash",
    "watch_crashes",
]

CRASHED = "Inspector.targetCrashed"
RELOADED = "Inspector.targetReloadedAfterCrash"
CRASH_EVENTS = (CRASHED, RELOADED)


@dataclass
class CrashWatch(TabPart):
    """Whether the tab's renderer is gone, and an event set when it goes."""

    crashed: bool = False
    happened: asyncio.Event = field(default_factory=asyncio.Event)

    def handle(self, event: CdpEvent) -> None:
        if event.sessionId:
            return  # an out-of-process iframe's renderer: the page itself lives on
        if event.method == CRASHED:
            self.crashed = True
            self.happened.set()
        elif event.method == RELOADED:
            self.crashed = False
            self.happened.clear()

    def on_detach(self) -> None:
        # Re-armed on the next command: `Inspector.enable` reports the crash again if it still is.
        self.crashed = False
        self.happened.clear()


class TabCrashed(BrowserError):
    """The tab's renderer is gone: `tab_crashed`."""

    def __init__(self, tab_id: int, during: str | None = None) -> None:
        when = f" while {during} ran" if during else ""
        super().__init__(
            f"tab {tab_id}'s page crashed{when} (its renderer process is gone)",
            code="tab_crashed",
            hint=f"`reins reload --tab {tab_id}` brings it back "
            "(or `reins navigate URL`); other tabs are not affected",
        )


async def watch_crashes(ctx: CommandContext) -> CrashWatch:
    """The tab's crash watch, arming it (once per attachment) on first use."""
    watch = ctx.part(CrashWatch)
    if not set(CRASH_EVENTS) <= ctx.tab_state.events:
        await ctx.subscribe(*CRASH_EVENTS)
        # Browser-side, so it answers on a crashed tab too; it reports an earlier crash first.
        await ctx.cdp("Inspector.enable")
    return watch


def is_crashed(ctx: CommandContext) -> bool:
    """Is the tab known to have crashed (by its armed watch)?"""
    state = ctx.host.tabs.get(ctx.tab)
    return state is not None and state.part(CrashWatch).crashed


def refuse_if_crashed(ctx: CommandContext, watch: CrashWatch) -> None:
    if watch.crashed:
        ctx.note("tab_crashed")
        raise TabCrashed(ctx.tab)


async def until_crash(
    work: Awaitable[dict[str, Any]], watch: CrashWatch | None, *, tab_id: int, what: str
) -> dict[str, Any]:
    """Run ``work``; if the tab crashes meanwhile, stop it and raise ``TabCrashed`` at once."""
    task: asyncio.Future[dict[str, Any]] = asyncio.ensure_future(work)
    if watch is None:
        return await task
    crashed: asyncio.Future[Any] = asyncio.ensure_future(watch.happened.wait())
    try:
        await asyncio.wait([task, crashed], return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        raise TabCrashed(tab_id, what)
    finally:
        crashed.cancel()
        if not task.done():
            task.cancel()
