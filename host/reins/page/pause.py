"""page_paused: a page held in DevTools' debugger answers at once, not after the whole budget.

Measured here (Chromium 156; a second DevTools client pausing the page with `Debugger.pause`, as
DevTools' pause button does): while V8 is paused, reins's chrome.debugger session still gets
answers to what the renderer handles in its paused message loop (`Runtime.evaluate("1")`,
`DOM.getDocument`, `Page.getFrameTree`, even `reins state`), but never to what needs the page's
event loop (an awaited promise, `reins eval`, a click's actionability, input): those waited out
the whole budget. What tells:
- V8 sends `Debugger.paused` to every session that has the Debugger domain on, except one that
  set `setSkipAllPauses(true)` (it then hears `Debugger.resumed` only, so skipping is no use);
- a session that turns the domain on while the page is paused gets `Debugger.paused` before the
  answer to its `Debugger.enable` (5 ms);
- with `Debugger.setBreakpointsActive(false)` in reins's session a page's own `debugger;`
  statement does not pause it (breakpoints count per session: DevTools' stay as they are);
- but while reins's session keeps the domain on, V8 keeps a page paused after DevTools closes,
  and pauses on exceptions when DevTools left that set: it resumes only when the last session
  with the domain lets go.

So the extension turns the domain off in reins's session the moment the page pauses
(extension/sessions.js): closing DevTools resumes the page as it always does, and a pause that
nobody else holds ends at once. The watch is then no longer armed; the next command arms it again
and learns whether the page is still paused (someone holds it: `page_paused`) or running. A command
running when the page pauses looks the same way at once, and either answers `page_paused` or goes
on (a pause that ended when reins let go).
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
    "PAUSE_EVENTS",
    "PagePaused",
    "PauseWatch",
    "refuse_if_paused",
    "until_paused",
    "watch_pauses",
]

PAUSED = "Debugger.paused"
RESUMED = "Debugger.resumed"
PAUSE_EVENTS = (PAUSED, RESUMED)
# What the extension allows reins to send (extension/allowlist.js): no script cache for reins.
_ENABLE = {"maxScriptsCacheSize": 0}


@dataclass
class PauseWatch(TabPart):
    """Whether the tab's page is paused in a debugger, and an event set when it pauses."""

    # reins's session has the Debugger domain on (the extension turns it off on a pause).
    armed: bool = False
    # The extension refuses the domain (an older one): the watch stays off for this attachment.
    unavailable: bool = False
    paused: bool = False
    reason: str | None = None
    happened: asyncio.Event = field(default_factory=asyncio.Event)

    def handle(self, event: CdpEvent) -> None:
        if event.sessionId:
            return  # reins enables the domain on the page's own session only
        if event.method == PAUSED:
            self.paused = True
            self.reason = event.params.get("reason")
            self.armed = False  # the extension has turned the domain off again
            self.happened.set()
        elif event.method == RESUMED:
            self.paused = False
            self.happened.clear()

    def on_detach(self) -> None:
        self.armed = self.unavailable = self.paused = False
        self.happened.clear()


class PagePaused(BrowserError):
    """The page is paused in a debugger (DevTools): `page_paused`."""

    def __init__(self, tab_id: int, reason: str | None, during: str | None = None) -> None:
        why = f", reason: {reason}" if reason and reason != "other" else ""
        when = f" while {during} ran" if during else ""
        super().__init__(
            f"tab {tab_id}'s page is paused in the debugger (DevTools{why}){when}: its scripts "
            "and input wait until it resumes",
            code="page_paused",
            hint="ask the user to resume it in DevTools (the ▶ button or F8; closing DevTools "
            "resumes it too), then retry; or work in another tab (`reins tab new URL`)",
            details={"reason": reason},
        )


async def watch_pauses(ctx: CommandContext) -> PauseWatch:
    """The tab's pause watch, armed (again, after a pause) on use. When the page is paused it
    says so here: ``watch.paused``."""
    watch = ctx.part(PauseWatch)
    if watch.armed or watch.unavailable:
        return watch
    if not set(PAUSE_EVENTS) <= ctx.tab_state.events:
        await ctx.subscribe(*PAUSE_EVENTS)
    # Until breakpoints are off in reins's session, a page's own `debugger;` statement pauses it
    # *for reins* (seen in the headful tier: a page running one every 300 ms). That pause comes
    # after the enable's answer, and it ends as soon as the extension lets go of the domain; so a
    # pause seen then is looked at once more. One held by someone else (DevTools) is reported
    # before the second enable's answer, as on any arming.
    for _attempt in range(2):
        if not await _arm(ctx, watch):
            break
    return watch


async def _arm(ctx: CommandContext, watch: PauseWatch) -> bool:
    """Debugger on with breakpoints off in reins's session. True when a pause came between the
    two (it may be reins's own: look again), False when armed, paused before the enable's answer
    (someone holds the page), or refused by the extension."""
    watch.paused = False
    watch.happened.clear()
    try:
        await ctx.cdp("Debugger.enable", _ENABLE)
    except BrowserError as exc:
        if exc.code != "cdp_blocked":
            raise
        watch.unavailable = True
        return False
    if watch.paused:  # reported before the answer; the extension has let go of the domain again
        return False
    watch.armed = True
    try:
        await ctx.cdp("Debugger.setBreakpointsActive", {"active": False})
    except BrowserError:
        if not watch.paused:  # a pause in between turned the domain off: nothing to switch
            raise
    return watch.paused


def refuse_if_paused(ctx: CommandContext, watch: PauseWatch) -> None:
    if watch.paused:
        ctx.note("page_paused")
        raise PagePaused(ctx.tab, watch.reason)


async def until_paused(
    work: Awaitable[dict[str, Any]], ctx: CommandContext, watch: PauseWatch, *, what: str
) -> dict[str, Any]:
    """Run ``work``; if the page pauses meanwhile and is still paused once reins has let go of
    the Debugger domain, stop it and raise ``PagePaused`` at once."""
    task: asyncio.Future[dict[str, Any]] = asyncio.ensure_future(work)
    try:
        while True:
            paused: asyncio.Future[Any] = asyncio.ensure_future(watch.happened.wait())
            try:
                await asyncio.wait([task, paused], return_when=asyncio.FIRST_COMPLETED)
            finally:
                paused.cancel()
            if task.done():
                return task.result()
            await watch_pauses(ctx)  # look again, now that reins's session has let go
            if watch.paused:
                ctx.note("page_paused")
                raise PagePaused(ctx.tab, watch.reason, what)
            if not watch.armed:  # the watch cannot look any more: let the work run its course
                return await task
    finally:
        if not task.done():
            task.cancel()
