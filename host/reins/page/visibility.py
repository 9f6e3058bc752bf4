"""Hidden tabs render while reins works in them: focus emulation on the tab reins drives.

A tab the user is not looking at (another tab active in its window, the window minimized, or fully
covered) is hidden: Chrome runs no requestAnimationFrame callbacks there at all and throttles its
timers to once a second. Page code that waits for a frame (the page's own widgets, and any wait in
reins) would never finish. ``Emulation.setFocusEmulationEnabled {enabled: true}`` makes Chrome
treat that one tab as shown and focused while the debugger is attached: it renders at full rate,
``visibilityState`` is "visible", and nothing changes for the user: no tab is activated, no window
raised or focused, the user's own tab keeps focus and keyboard (docs/hidden-tabs.md has the
measurements and the alternatives that do not work).

It is turned on once per attachment, before the first page command on the tab (the dispatcher
calls ``keep_rendering``). Chrome drops it when the debugger detaches (tab closed, reins paused,
the user's Cancel on the debugging bar), and so does ``on_detach`` here.

An extension that refuses the method (an older allowlist) leaves the tab hidden; then actions on a
hidden tab answer ``tab_hidden`` at once (``require_rendering``) instead of acting on a page that
cannot commit what its widgets wait a frame for.
"""

from __future__ import annotations

from dataclasses import dataclass

from reins._errors import BrowserError, ReinsError
from reins.bridge.context import CommandContext, TabPart

__all__ = ["Rendering", "keep_rendering", "require_rendering"]

_METHOD = "Emulation.setFocusEmulationEnabled"


@dataclass
class Rendering(TabPart):
    """Whether the tab renders while hidden (focus emulation on), and what was last seen."""

    emulating: bool = False
    # The extension refused the method: the tab renders only while the user shows it.
    refused: bool = False
    # With emulation refused: the document was hidden at the start of the current command.
    hidden: bool = False

    def on_detach(self) -> None:
        self.emulating = False
        self.hidden = False


async def keep_rendering(ctx: CommandContext) -> None:
    """Make the command's tab render even while the user does not show it (once per attachment)."""
    state = ctx.part(Rendering)
    if state.emulating:
        return
    if not state.refused:
        try:
            await ctx.cdp(_METHOD, {"enabled": True})
            state.emulating = True
            return
        except ReinsError as exc:
            if exc.code != "cdp_blocked":
                raise
            state.refused = True
            ctx.note("focus_emulation_refused")
    result = await ctx.cdp("Runtime.evaluate", {"expression": "document.visibilityState",
                                                "returnByValue": True})
    state.hidden = (result.get("result") or {}).get("value") == "hidden"


def require_rendering(ctx: CommandContext) -> None:
    """Before an action: answer ``tab_hidden`` at once when the tab cannot render while hidden."""
    state = ctx.part(Rendering)
    if state.hidden and not state.emulating:
        raise BrowserError(
            f"tab {ctx.tab} is hidden (another tab is in front, or its window is minimized or "
            "covered) and this extension does not allow focus emulation, so the page renders no "
            "frames and would not commit the action", code="tab_hidden")
