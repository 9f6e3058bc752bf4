"""tab_unresponsive: a tab whose main thread stays blocked fails fast instead of at every budget.

A command that timed out or was aborted marks its tab suspect (the dispatcher does). Before the
next command there, the tab must answer a trivial evaluate quickly; one that does not is blocked
(a loop in a promise continuation, the page's own code). chrome.debugger calls queue up behind a
blocked renderer; the probe's late answer is dropped by the link.

A JavaScript dialog holds the main thread too, and is no reason to give the tab up: before answering
`tab_unresponsive` the probe looks at the tab's dialog watch (Chrome's dialog events), and answers
`dialog_open` with the dialog when one holds the tab.
"""

from __future__ import annotations

from reins._errors import BrowserError, DeadlineExceeded
from reins.bridge.context import CommandContext
from reins.page.call import evaluate
from reins.page.dialogs import DialogWatch, refuse_while_open

__all__ = ["PROBE_MS", "probe_if_suspect"]

# How long a suspect tab gets to answer `Runtime.evaluate("1")` before it counts as blocked.
PROBE_MS = 400


async def probe_if_suspect(ctx: CommandContext) -> None:
    state = ctx.host.tabs.get(ctx.tab)
    if state is None or not state.suspect:
        return
    try:
        # The cheapest script there is: any answer proves the main thread is free.
        await evaluate(ctx, "1", answer_by=ctx.deadline.child(PROBE_MS), what="liveness probe")
    except DeadlineExceeded:
        # Not blocked by a script: a dialog (opened since the command's gates looked) holds it.
        refuse_while_open(ctx.part(DialogWatch))
        ctx.note("tab_unresponsive")
        raise BrowserError(
            f"tab {ctx.tab} does not answer: its main thread is blocked (a script that never "
            "yields)",
            code="tab_unresponsive",
            hint=f"close it (`reins tab close {ctx.tab}`) and open the page again "
            "(`reins tab new URL`): a reload queues behind the running script; other "
            "tabs are not affected",
        ) from None
    state.suspect = False
