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

So reins keeps no standing Debugger domain: with it on, V8 reports every script the page compiles
to the extension (a page that compiles scripts in a loop ran ~20x slower once reins had acted on
it, 160,000 evals a second against 8,000, measured here) and holds the page after DevTools
closes. The host cannot turn the domain on at all (extension/allowlist.js); it asks the
extension's pause probe (`pause_probe`, extension/sessions.js), which turns it on for an instant
and reads the order of Chrome's messages there: a pause reported before the enable's answer is one
someone else holds (DevTools); one after it is reins's own (the page's `debugger;` statement in that
instant) and ends as the domain goes off. The host asks only on suspicion: when a command has not
finished within ``SUSPECT_AFTER_S`` (a paused page never answers what needs its event loop), then
at growing intervals, and at the start of the command after one found the page paused. The order
of Chrome's messages is not proof enough on a page that runs `debugger;` statements all the time
(seen: its pause reported before the enable's answer): a pause the probe reports counts only when
the page then runs no task of its event loop within half a second.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from reins._errors import BrowserError, DeadlineExceeded, ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.page.call import evaluate

__all__ = [
    "SUSPECT_AFTER_S",
    "PagePaused",
    "PauseWatch",
    "refuse_if_paused",
    "until_paused",
    "watch_pauses",
]

# A command not finished by then may be held by a paused page: look; then again after each of
# these waits (the last one repeats).
SUSPECT_AFTER_S = 0.4
_LOOK_AGAIN_S = (1.0, 2.0, 4.0)
# A task through the event loop of reins's world's page (a MessageChannel message: not throttled in
# a hidden tab, unlike timers), and how long a running page may take to run it.
_ONE_TASK = (
    "new Promise((done) => { const c = new MessageChannel(); "
    "c.port1.onmessage = () => done(1); c.port2.postMessage(0); })"
)
_TASK_WITHIN_MS = 500
# A paused page answers the probe in milliseconds; one busy in a long script of its own does not
# (measured: not until the script ends).
_PROBE_WITHIN_MS = 1000


@dataclass
class PauseWatch(TabPart):
    """Whether the tab's page was paused in a debugger when reins last looked."""

    # The extension has no pause probe (an older one): no looking.
    unavailable: bool = False
    # The last look found the page paused: the next command looks first.
    paused: bool = False
    reason: str | None = None


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
    """The tab's pause watch; when the last look found the page paused, it looks again now
    (``watch.paused`` says what it saw)."""
    watch = ctx.part(PauseWatch)
    if watch.paused:
        await look(ctx, watch)
    return watch


async def look(ctx: CommandContext, watch: PauseWatch) -> None:
    """Ask the extension once whether someone else holds the page paused; sets ``watch.paused``."""
    if watch.unavailable or not ctx.host.link.has("pauseProbe"):
        watch.unavailable = True
        return
    watch.paused = False
    try:
        answer = await ctx.host.link.request(
            "pause_probe", ctx.deadline.child(_PROBE_WITHIN_MS), tab_id=ctx.tab
        )
    except DeadlineExceeded:
        return  # a page busy in its own script answers no debugger command: not paused
    answer = answer if isinstance(answer, dict) else {}
    reason = answer.get("reason")
    watch.reason = reason if isinstance(reason, str) else None
    # A pause of reins's own ended when the extension let go of the domain: the page's event loop
    # runs a task again at once. One held by someone else runs none.
    watch.paused = answer.get("paused") is True and not await _runs_a_task(ctx)


async def _runs_a_task(ctx: CommandContext) -> bool:
    try:
        await evaluate(
            ctx,
            _ONE_TASK,
            await_promise=True,
            answer_by=ctx.deadline.child(_TASK_WITHIN_MS),
            what="a task of the page's event loop",
        )
    except DeadlineExceeded:
        return False
    return True


def refuse_if_paused(ctx: CommandContext, watch: PauseWatch) -> None:
    if watch.paused:
        ctx.note("page_paused")
        raise PagePaused(ctx.tab, watch.reason)


async def until_paused(
    work: Awaitable[dict[str, Any]], ctx: CommandContext, watch: PauseWatch, *, what: str
) -> dict[str, Any]:
    """Run ``work``; while it has not finished, look from time to time whether the page is
    paused by someone else, and if it is, stop the work and raise ``PagePaused``."""
    task: asyncio.Future[dict[str, Any]] = asyncio.ensure_future(work)
    try:
        wait_s = SUSPECT_AFTER_S
        waits = iter(_LOOK_AGAIN_S)
        while True:
            done, _ = await asyncio.wait([task], timeout=wait_s)
            if done:
                return task.result()
            if watch.unavailable:
                return await task
            looking: asyncio.Future[Any] = asyncio.ensure_future(look(ctx, watch))
            await asyncio.wait([task, looking], return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                looking.cancel()
                return task.result()
            if isinstance(looking.exception(), ReinsError):
                return await task  # the tab itself went wrong: the work says how
            looking.result()  # anything else is a bug of reins's: raised
            if watch.paused:
                ctx.note("page_paused")
                raise PagePaused(ctx.tab, watch.reason, what)
            wait_s = next(waits, _LOOK_AGAIN_S[-1])
    finally:
        if not task.done():
            task.cancel()
