"""JavaScript dialogs (alert, confirm, prompt, beforeunload).

While a dialog is open the page's main thread waits for it, so every page call would hang until
its budget ran out. The host watches for dialogs on each tab it drives (`Page.enable` plus the two
dialog events) and, while one is open, answers page commands at once with `dialog_open` (the type
and message included); `reins dialog accept|dismiss` answers the dialog. An action whose own effect
is to open a dialog answers ok with the dialog as its effect.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reins._errors import BrowserError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.protocol import CdpEvent

__all__ = [
    "DIALOG_EVENTS",
    "GRACE_S",
    "DialogOpened",
    "DialogWatch",
    "refuse_while_open",
    "until_dialog",
    "watch_dialogs",
]

_T = TypeVar("_T")

DIALOG_EVENTS = ("Page.javascriptDialogOpening", "Page.javascriptDialogClosed")
# How long a command that saw a dialog open gets to report it as its own effect.
GRACE_S = 0.3


@dataclass
class DialogWatch(TabPart):
    """The tab's open dialog, if any, and an event set while one is open."""

    current: dict[str, Any] | None = None
    is_open: asyncio.Event = field(default_factory=asyncio.Event)

    def handle(self, event: CdpEvent) -> None:
        if event.method == "Page.javascriptDialogOpening":
            params = event.params
            self.current = {
                "type": params.get("type"),
                "message": params.get("message", ""),
                "url": params.get("url"),
                "default_prompt": params.get("defaultPrompt") or None,
            }
            self.is_open.set()
        elif event.method == "Page.javascriptDialogClosed":
            self.closed()

    def closed(self) -> None:
        self.current = None
        self.is_open.clear()


async def watch_dialogs(ctx: CommandContext) -> DialogWatch:
    """The tab's dialog watch, arming it (once per attachment) on first use."""
    watch = ctx.part(DialogWatch)
    if not set(DIALOG_EVENTS) <= ctx.tab_state.events:
        await ctx.subscribe(*DIALOG_EVENTS)
        # Enabling Page also reports a dialog that is already open.
        await ctx.cdp("Page.enable")
    return watch


class DialogOpened(BrowserError):
    """A JavaScript dialog is open (or opened while a command ran): `dialog_open`."""

    def __init__(self, dialog: dict[str, Any]) -> None:
        kind = dialog.get("type") or "dialog"
        super().__init__(
            f"a {kind} dialog is open: {dialog.get('message', '')!r}",
            code="dialog_open",
            hint="answer it: `reins dialog accept [TEXT]` or `reins dialog dismiss`",
            details={"dialog": dialog},
        )
        self.dialog = dialog


def refuse_while_open(watch: DialogWatch) -> None:
    """A page command cannot run while a dialog holds the page's thread: answer at once."""
    if watch.current is not None:
        raise DialogOpened(watch.current)


async def until_dialog(
    work: Awaitable[_T], watch: DialogWatch | None, *, grace_s: float = 0.0
) -> _T:
    """Run ``work``; if a dialog opens meanwhile (the page's thread then waits for it, and so would
    the work), give the work ``grace_s`` to finish anyway, else raise ``DialogOpened``."""
    task: asyncio.Future[_T] = asyncio.ensure_future(work)
    if watch is None:
        return await task
    opened: asyncio.Future[Any] = asyncio.ensure_future(watch.is_open.wait())
    try:
        await asyncio.wait([task, opened], return_when=asyncio.FIRST_COMPLETED)
        if not task.done() and grace_s > 0:
            await asyncio.wait({task}, timeout=grace_s)
        if task.done():
            return task.result()
        raise DialogOpened(dict(watch.current or {}))
    finally:
        opened.cancel()
        if not task.done():
            task.cancel()
