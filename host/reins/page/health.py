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

from reins._errors import BrowserError, DeadlineExceeded, ReinsError
from reins.bridge.context import CommandContext
from reins.page.call import evaluate
from reins.page.dialogs import Dialog, DialogOpened, DialogWatch, refuse_while_open

__all__ = ["PROBE_MS", "probe_if_suspect"]

# How long a suspect tab gets to answer `Runtime.evaluate("1")` before it counts as blocked.
PROBE_MS = 400


async def probe_if_suspect(ctx: CommandContext) -> None:
    state = ctx.host.tabs.get(ctx.tab)
    if state is None or not state.suspect:
        return
    try:
        # The cheapest script there is: any answer proves the main thread is free.
        await evaluate(
            ctx,
            "1",
            answer_by=ctx.deadline.child(PROBE_MS),
            what="liveness probe",
            main_world=True,
        )
    except DeadlineExceeded:
        # Not blocked by a script: a dialog (opened since the command's gates looked) holds it,
        # or one in a tab this page opened (same renderer, one thread for both).
        refuse_while_open(ctx.part(DialogWatch))
        popups = await _popups_of(ctx)
        for tab_id, dialog in popups:
            if dialog is not None:
                raise DialogOpened(
                    {**dialog.to_wire(), "tab": tab_id},
                    hint=f"it is open in tab {tab_id}, which this page opened, and holds this "
                    f"page too: `reins dialog accept [TEXT] --tab {tab_id}` or "
                    f"`reins dialog dismiss --tab {tab_id}`",
                ) from None
        ctx.note("tab_unresponsive")
        if popups:
            # A dialog that opened before the extension armed the popup is out of CDP's reach;
            # closing the popup ends it (measured: the opener answers at once).
            ids = ", ".join(str(tab_id) for tab_id, _ in popups)
            raise BrowserError(
                f"tab {ctx.tab} does not answer: its main thread is blocked, by a script that "
                f"never yields or by a dialog in a tab this page opened ({ids}) that opened "
                "before reins could watch it",
                code="tab_unresponsive",
                hint=f"`reins tab close {popups[0][0]}` closes the popup and its dialog; if "
                f"this tab still does not answer, close it (`reins tab close {ctx.tab}`)",
            ) from None
        raise BrowserError(
            f"tab {ctx.tab} does not answer: its main thread is blocked (a script that never "
            "yields)",
            code="tab_unresponsive",
            hint=f"close it (`reins tab close {ctx.tab}`) and open the page again "
            "(`reins tab new URL`): a reload queues behind the running script; other "
            "tabs are not affected",
        ) from None
    state.suspect = False


async def _popups_of(ctx: CommandContext) -> list[tuple[int, Dialog | None]]:
    """The tabs this page opened, each with the dialog open in it as far as reins knows. A page
    and its popups share one thread: a popup's dialog holds the opener too (the extension arms
    the popups of the tabs reins drives, so that their dialogs are heard)."""
    try:
        listed = await ctx.host.link.request("tabs.list", ctx.deadline.child(PROBE_MS))
    except ReinsError:
        return []  # no list, no claim: the tab is answered as blocked
    found: list[tuple[int, Dialog | None]] = []
    for tab in listed:
        tab_id = tab.get("id")
        if tab.get("opener") != ctx.tab or not isinstance(tab_id, int):
            continue
        state = ctx.host.tabs.get(tab_id)
        found.append((tab_id, state.part(DialogWatch).dialog if state is not None else None))
    return found
