"""JavaScript dialogs (alert, confirm, prompt, beforeunload).

While a dialog is open the page's main thread waits for it, so every page call would hang until
its budget ran out. The host watches for dialogs on each tab it drives (`Page.enable` plus the two
dialog events) and, while one is open, answers page commands at once with `dialog_open` (the type
and message included); `reins dialog accept|dismiss` answers the dialog. An action whose own effect
is to open a dialog answers ok with the dialog as its effect.

Which dialog is open is decided by Chrome's events alone, never by the order in which reins's own
answers come back: a page can open its next alert before the answer to `Page.handleJavaScriptDialog`
reaches the host (the answer and the events travel apart through the extension), so "I answered it,
so none is open" would lose the new one. Every opening gets a serial number; an answer waits until
the dialog it answered is closed (or replaced) in the event stream, and a `Closed` event only closes
the dialog of its own frame.

Chrome reports a dialog only to a session that had `Page` on when it opened: a later `Page.enable`
neither reports it nor lets `Page.handleJavaScriptDialog` answer it. So the extension arms a popup
of a tab reins drives as Chrome creates it (window.open then alert, a javascript: popup: the alert
holds the opener's thread too), and the host hears that tab's dialog events before it drives it
(`Host.adopted`); a probe that finds the opener blocked names the popup's dialog (page/health.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict, TypeVar, cast

from reins._errors import BrowserError
from reins._pagetext import quote
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.deadline import Deadline
from reins.bridge.protocol import CdpEvent

__all__ = [
    "ANSWER_SETTLE_S",
    "DIALOG_EVENTS",
    "GRACE_S",
    "Dialog",
    "DialogOpened",
    "DialogWire",
    "DialogWatch",
    "refuse_while_open",
    "until_dialog",
    "watch_dialogs",
]

_T = TypeVar("_T")

DIALOG_EVENTS = ("Page.javascriptDialogOpening", "Page.javascriptDialogClosed")
# How long a command that saw a dialog open gets to report it as its own effect.
GRACE_S = 0.3
# How long an answered dialog's `Closed` event gets to arrive after Chrome answered
# `Page.handleJavaScriptDialog` (it is sent before that answer; the extension may reorder them).
ANSWER_SETTLE_S = 1.0
# How much of a page's message an error's one-line message quotes (the whole one is in details).
_MESSAGE_QUOTED = 200


class _DialogShown(TypedDict):
    type: Annotated[str, "alert, confirm, prompt or beforeunload"]
    message: Annotated[str, "its message, the page's words"]
    url: Annotated[str | None, "the URL of the document that opened it"]
    default_prompt: Annotated[str | None, "a prompt's default text"]


class DialogWire(_DialogShown, total=False):
    """A JavaScript dialog (the page waits for it: `reins dialog accept|dismiss`)."""

    # As answers show it (commands/answers.py names it ``JsDialog``).
    tab: Annotated[int, "a dialog in a tab this page opened: that tab"]


@dataclass(frozen=True, slots=True)
class Dialog:
    """One opening of a dialog, as Chrome reported it."""

    serial: int  # this tab's count of openings: an answer names the one it answered
    type: str
    message: str
    url: str | None = None
    default_prompt: str | None = None
    frame_id: str | None = None

    def to_wire(self) -> DialogWire:
        return {
            "type": self.type,
            "message": self.message,
            "url": self.url,
            "default_prompt": self.default_prompt,
        }


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class DialogWatch(TabPart):
    """The tab's open dialog, if any, as Chrome's dialog events say; ``is_open`` is set while one
    is open."""

    dialog: Dialog | None = None
    is_open: asyncio.Event = field(default_factory=asyncio.Event)
    # Page is on in this attachment (its `Page.enable` answered, or a dialog event came).
    armed: bool = False
    _openings: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def current(self) -> DialogWire | None:
        """The open dialog's wire form, or None."""
        return self.dialog.to_wire() if self.dialog is not None else None

    def handle(self, event: CdpEvent) -> None:
        params = event.params
        if event.method in DIALOG_EVENTS:
            self.armed = True  # heard, so Page is on (the extension arms a popup itself)
        if event.method == "Page.javascriptDialogOpening":
            self._openings += 1
            self._set(
                Dialog(
                    serial=self._openings,
                    type=_text(params.get("type")) or "dialog",
                    message=_text(params.get("message")) or "",
                    url=_text(params.get("url")),
                    default_prompt=_text(params.get("defaultPrompt")) or None,
                    frame_id=_text(params.get("frameId")),
                )
            )
        elif event.method == "Page.javascriptDialogClosed":
            open_ = self.dialog
            frame = _text(params.get("frameId"))
            if open_ is None:
                return
            if frame is not None and open_.frame_id is not None and frame != open_.frame_id:
                return  # another frame's dialog closed: not the one that is open
            self._set(None)

    def on_detach(self) -> None:
        # The new session will not hear of what is open now (see above): nothing to claim.
        self.armed = False
        self._set(None)

    def answered(self, serial: int) -> None:
        """Chrome answered `Page.handleJavaScriptDialog` for opening ``serial`` and no `Closed`
        event came for it: it is closed (a later opening is kept)."""
        if self.dialog is not None and self.dialog.serial == serial:
            self._set(None)

    async def closed(self, serial: int, within_s: float) -> bool:
        """Wait up to ``within_s`` until opening ``serial`` is no longer the open dialog (closed,
        or replaced by a later one); whether it came to pass."""
        loop = asyncio.get_running_loop()
        end = loop.time() + within_s
        while self.dialog is not None and self.dialog.serial == serial:
            left = end - loop.time()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return True

    def _set(self, dialog: Dialog | None) -> None:
        self.dialog = dialog
        if dialog is None:
            self.is_open.clear()
        else:
            self.is_open.set()
        # Wake whoever waits for a change, and start a new generation for the next one.
        self._changed.set()
        self._changed = asyncio.Event()


async def watch_dialogs(ctx: CommandContext, *, answer_by: Deadline | None = None) -> DialogWatch:
    """The tab's dialog watch, arming it (once per attachment) on first use. `Page.enable` is
    answered by the page's thread: ``answer_by`` bounds the wait on a thread a dialog may hold."""
    watch = ctx.part(DialogWatch)
    if not watch.armed:
        await ctx.subscribe(*DIALOG_EVENTS)
        # Dialogs from now on: one already open was never reported to this session (see above).
        await ctx.cdp("Page.enable", deadline=answer_by)
        watch.armed = True
    return watch


class DialogOpened(BrowserError):
    """A JavaScript dialog is open (or opened while a command ran): `dialog_open`."""

    def __init__(self, dialog: DialogWire, *, hint: str | None = None) -> None:
        kind = str(dialog.get("type") or "page")
        article = "an" if kind[:1] in ("a", "e", "i", "o", "u") else "a"
        message = quote(str(dialog.get("message") or ""), _MESSAGE_QUOTED, collapse=False)
        super().__init__(
            f"{article} {kind} dialog is open: {message}",
            code="dialog_open",
            hint=hint or "answer it: `reins dialog accept [TEXT]` or `reins dialog dismiss`",
            details={"dialog": dialog},
        )
        self.dialog = dialog


def refuse_while_open(watch: DialogWatch) -> None:
    """A page command cannot run while a dialog holds the page's thread: answer at once."""
    if watch.dialog is not None:
        raise DialogOpened(watch.dialog.to_wire())


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
        # None only if the dialog closed meanwhile: DialogOpened then names "a page dialog".
        raise DialogOpened(watch.current or cast(DialogWire, {}))
    finally:
        opened.cancel()
        if not task.done():
            task.cancel()
