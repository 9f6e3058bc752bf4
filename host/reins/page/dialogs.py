"""JavaScript dialogs (alert, confirm, prompt, beforeunload).

While a dialog is open the page's main thread waits for it, so every page call would hang until
its budget ran out. The host watches for dialogs on each tab it drives (`Page.enable` plus the two
dialog events) and, while one is open, answers page commands at once with `dialog_open` (the type
and message included); `reins dialog accept|dismiss` answers the dialog. An action whose own effect
is to open a dialog answers ok with the dialog as its effect.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reins._host import CommandContext
    from reins.bridge.protocol import CdpEvent

__all__ = ["DIALOG_EVENTS", "DialogWatch", "watch_dialogs"]

DIALOG_EVENTS = ("Page.javascriptDialogOpening", "Page.javascriptDialogClosed")


@dataclass
class DialogWatch:
    """The tab's open dialog, if any, and an event set while one is open."""

    current: dict[str, Any] | None = None
    is_open: asyncio.Event = field(default_factory=asyncio.Event)

    def handle(self, event: CdpEvent) -> None:
        if event.method == "Page.javascriptDialogOpening":
            params = event.params
            self.current = {"type": params.get("type"), "message": params.get("message", ""),
                            "url": params.get("url"),
                            "default_prompt": params.get("defaultPrompt") or None}
            self.is_open.set()
        elif event.method == "Page.javascriptDialogClosed":
            self.current = None
            self.is_open.clear()


async def watch_dialogs(ctx: CommandContext) -> DialogWatch:
    """The tab's dialog watch, arming it (once per attachment) on first use."""
    state = ctx.host.tab(ctx.tab)
    watch = state.extra.get("dialogs")
    if not isinstance(watch, DialogWatch):
        watch = DialogWatch()
        state.extra["dialogs"] = watch
        state.listeners.append(watch.handle)
    if not set(DIALOG_EVENTS) <= state.events:
        await ctx.subscribe(*DIALOG_EVENTS)
        # Enabling Page also reports a dialog that is already open.
        await ctx.cdp("Page.enable")
    return watch
