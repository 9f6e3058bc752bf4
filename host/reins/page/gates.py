"""What every command on a tab's page goes through, in one place, before and around its handler.

Armed once per attachment and checked per command, in this order:
1. the crash watch (`Inspector.targetCrashed`): a crashed tab answers `tab_crashed` at once, except
   to the commands that bring it back (reload, navigate: those that are not probed);
2. the pause watch: while DevTools holds the page paused in its debugger, a page command answers
   `page_paused` once it has waited a moment and looked (`Debugger.enable` as a probe, only then:
   page/pause.py), and the next command looks first;
3. the dialog watch: while an alert/confirm/prompt holds the page, page commands answer
   `dialog_open` at once (unless they may run beside it: those are not ended by one either);
   the download watch beside it (page/downloads.py: what the command's action downloads is
   its effect; refused as it begins when the profile says so);
4. around the handler: the tab renders while hidden (focus emulation, frame pump), a dialog that
   opens meanwhile is reported, a crash meanwhile ends the command with `tab_crashed`, and a
   command that takes long looks whether the page is paused (`page_paused`).
A command that may lead a tab out of a page reins does not drive (navigate) goes ahead when the
watches cannot attach there.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from reins._errors import BrowserError
from reins.bridge.command import Command
from reins.bridge.context import CommandContext
from reins.page.crash import CrashWatch, refuse_if_crashed, until_crash, watch_crashes
from reins.page.dialogs import GRACE_S, DialogWatch, refuse_while_open, until_dialog, watch_dialogs
from reins.page.downloads import watch_downloads
from reins.page.pause import PauseWatch, refuse_if_paused, until_paused, watch_pauses
from reins.page.visibility import keep_rendering
from reins.setup.config import downloads_allowed

__all__ = ["PageGates", "arm_page"]


@dataclass
class PageGates:
    dialogs: DialogWatch | None = None
    crash: CrashWatch | None = None
    pauses: PauseWatch | None = None
    # Keep the tab rendering while the command runs (not on a refused or crashed page).
    render: bool = False

    def run(
        self,
        ctx: CommandContext,
        cmd: Command[Any],
        args: Any,
    ) -> Awaitable[dict[str, Any]]:
        work = keep_rendering(ctx, cmd.handler, args) if self.render else cmd.handler(ctx, args)
        work = until_dialog(work, self.dialogs, grace_s=GRACE_S)
        if self.pauses is not None:
            work = until_paused(work, ctx, self.pauses, what=cmd.name)
        if self.crash is not None:
            work = until_crash(work, self.crash, tab_id=ctx.tab, what=cmd.name)
        return work


async def arm_page(ctx: CommandContext, cmd: Command[Any]) -> PageGates:
    """Arm the tab's watches and refuse what cannot run now (crashed, paused, a dialog open)."""
    if ctx.tab_id is None or not cmd.watch_dialogs:
        return PageGates()
    gates = PageGates(render=True)
    try:
        crash = await watch_crashes(ctx)
        if cmd.probe:
            refuse_if_crashed(ctx, crash)
        if crash.crashed:  # this command brings the tab back (reload, navigate); `Page.enable`
            gates.render = False  # and the renderer-side calls would wait for a dead page
        else:
            gates.crash = crash
            # Before the dialog watch: every page command is refused on a paused page,
            # navigate and reload too (the user holds it in DevTools).
            pauses = await watch_pauses(ctx)
            refuse_if_paused(ctx, pauses)
            gates.pauses = None if pauses.unavailable else pauses
            gates.dialogs = await watch_dialogs(ctx)
            await watch_downloads(
                ctx, refuse=not downloads_allowed(ctx.host.profile, ctx.host.home)
            )
    except BrowserError as exc:
        if exc.code != "page_refused" or not cmd.leaves_refused_page:
            raise
        return PageGates()  # it leads the tab out of a page reins does not drive
    if cmd.dialog_free:
        # It runs beside a dialog (it does not wait on the page's thread): one that opens
        # meanwhile is no reason to end it.
        gates.dialogs = None
    elif gates.dialogs is not None:
        refuse_while_open(gates.dialogs)
    return gates
