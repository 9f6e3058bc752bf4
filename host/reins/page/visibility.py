"""Hidden tabs render while reins works in them, and nothing changes for the user.

A tab the user is not looking at (another tab in front in its window, the window minimized, or
covered by another application) is hidden: Chrome runs no requestAnimationFrame callbacks there
and throttles its timers to once a second, so page code that waits for a frame (the page's own
widgets; any wait in reins) would never finish. Two CDP calls on that one tab fix it
(docs/hidden-tabs.md has the measurements and what does not work):

- ``Emulation.setFocusEmulationEnabled {enabled: true}``, once per attachment: Chrome treats the
  tab as shown and focused. ``visibilityState`` is "visible", requestAnimationFrame runs at 60/s
  while the page paints nothing new. No tab is activated, no window raised or focused; the user's
  own tab keeps the focus and the keyboard. Chrome drops it when the debugger detaches (tab closed,
  reins paused, the user's Cancel on the debugging bar), and so does ``on_detach`` here.
- A screencast of 16x16 px thumbnails, never acknowledged (Chrome sends three, then waits), while
  a command runs and ``LINGER_S`` after: a page that paints (an animated menu) otherwise gets about
  3 frames a second in a background tab or a minimized window, because nothing draws its frames.
  With the capture pending, Chrome draws them: about 50 a second.

An extension that refuses these methods (an older allowlist) leaves the tab hidden; then actions
on a hidden tab answer ``tab_hidden`` at once (``require_rendering``) instead of acting on a page
that cannot commit what its widgets wait a frame for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reins._errors import BrowserError, ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink

__all__ = ["LINGER_S", "Rendering", "keep_rendering", "require_rendering"]

A = TypeVar("A")
T = TypeVar("T")

# The frames keep being drawn this long after the last command on the tab: the page finishes what
# the action started (a menu's opening animation) before the agent's next look.
LINGER_S = 2.0
_EMULATE = "Emulation.setFocusEmulationEnabled"
_PUMP = ("Page.startScreencast", {"format": "jpeg", "quality": 0, "maxWidth": 16, "maxHeight": 16})
_STOP_MS = 2000


@dataclass
class Rendering(TabPart):
    """How reins keeps one tab rendering: focus emulation, the frame pump, what was refused."""

    emulating: bool = False
    pumping: bool = False
    # The extension refused a method (an older allowlist): do without it.
    refused: bool = False
    pump_refused: bool = False
    # With emulation refused: the document was hidden at the start of the current command.
    hidden: bool = False
    # Commands running on the tab now; the pump stops LINGER_S after the last one ends.
    running: int = 0
    _stop: asyncio.TimerHandle | None = None
    # Concurrent commands on one tab arm it once (Chrome refuses a second screencast).
    _arming: asyncio.Lock = field(default_factory=asyncio.Lock)

    def on_detach(self) -> None:
        self.emulating = self.pumping = self.hidden = False
        self._cancel_stop()

    def _cancel_stop(self) -> None:
        if self._stop is not None:
            self._stop.cancel()
            self._stop = None

    def stop_pump_later(self, link: ExtensionLink, tab_id: int) -> None:
        self._cancel_stop()
        if self.pumping:
            self._stop = asyncio.get_running_loop().call_later(
                LINGER_S, lambda: asyncio.ensure_future(self._stop_pump(link, tab_id))
            )

    async def _stop_pump(self, link: ExtensionLink, tab_id: int) -> None:
        self._stop = None
        if self.running or not self.pumping:
            return
        self.pumping = False
        try:
            await link.cdp(tab_id, "Page.stopScreencast", {}, deadline=Deadline.after_ms(_STOP_MS))
        except ReinsError:
            pass  # the tab went away, or the debugger with it: the screencast is gone too


async def keep_rendering(
    ctx: CommandContext, handler: Callable[[CommandContext, A], Awaitable[T]], args: A
) -> T:
    """Run a page command with its tab rendering even while the user does not show it."""
    state = ctx.part(Rendering)
    state.running += 1
    try:
        async with state._arming:
            await _emulate(ctx, state)
            await _pump(ctx, state)
        return await handler(ctx, args)
    finally:
        state.running -= 1
        if not state.running:
            state.stop_pump_later(ctx.host.link, ctx.tab)


async def _emulate(ctx: CommandContext, state: Rendering) -> None:
    if state.emulating:
        return
    if not state.refused:
        if await _allowed(ctx, _EMULATE, {"enabled": True}):
            state.emulating = True
            return
        state.refused = True
        ctx.note("focus_emulation_refused")
    result = await ctx.cdp(
        "Runtime.evaluate", {"expression": "document.visibilityState", "returnByValue": True}
    )
    state.hidden = (result.get("result") or {}).get("value") == "hidden"


async def _pump(ctx: CommandContext, state: Rendering) -> None:
    """Best effort: without the pump a hidden page that paints is slower, never wrong."""
    state._cancel_stop()
    if state.pumping or state.pump_refused:
        return
    try:
        if await _allowed(ctx, *_PUMP):
            state.pumping = True
        else:
            state.pump_refused = True
            ctx.note("frame_pump_refused")
    except ReinsError as exc:
        if exc.chrome == "already_active":  # started by this host's previous life on the tab
            state.pumping = True
        elif exc.code in ("cdp_error", "timeout"):
            ctx.note("frame_pump_failed")
        else:
            raise


async def _allowed(ctx: CommandContext, method: str, params: dict[str, Any]) -> bool:
    """Run the call; False when the extension's allowlist refuses it."""
    try:
        await ctx.cdp(method, params)
    except ReinsError as exc:
        if exc.code != "cdp_blocked":
            raise
        return False
    return True


def require_rendering(ctx: CommandContext) -> None:
    """Before an action: answer ``tab_hidden`` at once when the tab cannot render while hidden."""
    state = ctx.part(Rendering)
    if state.hidden and not state.emulating:
        raise BrowserError(
            f"tab {ctx.tab} is hidden (another tab is in front, or its window is minimized or "
            "covered) and this extension does not allow focus emulation, so the page renders no "
            "frames and would not commit the action",
            code="tab_hidden",
        )
