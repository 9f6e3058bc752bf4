"""Downloads a page starts in a tab reins drives: an action's effect, with the file's name and folder.

Chrome tells the tab's own session when a download begins (`Page.downloadWillBegin`: its URL and
suggested name) and how it goes (`Page.downloadProgress`); where the file landed only the browser's
download list says, which the extension reads for a download it saw begin in that tab
(`downloads.find`, extension/tabs.js). With the profile's setting `downloads` off
(`reins config downloads off`), a download a reins tab begins is cancelled as it begins
(`downloads.cancel`) and the effect says `refused`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from reins._errors import ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.protocol import CdpEvent

__all__ = [
    "DOWNLOAD_EVENTS",
    "Download",
    "DownloadWatch",
    "DownloadWire",
    "downloads_since",
    "watch_downloads",
]

DOWNLOAD_EVENTS = ("Page.downloadWillBegin", "Page.downloadProgress")
# How long an action's answer waits for a download it began to end (most exports are small), and
# for Chrome to say that one the page asked for began.
_END_WAIT_S = 1.5
_BEGIN_WAIT_S = 1.0
_STATES = {"inProgress": "in_progress", "completed": "completed", "canceled": "canceled"}


@dataclass
class Download:
    guid: str
    url: str
    suggested: str
    state: str = "in_progress"
    received: int = 0
    total: int = 0
    # The profile refuses downloads: the extension's cancel, running, then whether it took.
    refusing: asyncio.Future[bool] | None = None


class DownloadWire(TypedDict, total=False):
    """A download the action started."""

    # As an action's effect shows it (commands/answers.py names it ``Download``).
    file: Annotated[str | None, "the file's name (None until the browser says)"]
    folder: Annotated[str | None, "where the browser saved it"]
    state: Annotated[str, "completed, in_progress, failed or refused"]
    bytes: Annotated[int, "the bytes received"]
    refusal_failed: Annotated[bool, "reins was to refuse it and could not"]


@dataclass
class DownloadWatch(TabPart):
    """The downloads the tab's page began, in order; ``mark`` is where this command began."""

    armed: bool = False
    begun: list[Download] = field(default_factory=list)
    mark: int = 0
    # Set by the command that armed it when the profile refuses downloads: cancels one by URL.
    refuse: Any = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def handle(self, event: CdpEvent) -> None:
        params = event.params
        if event.method == "Page.downloadWillBegin":
            guid, url = params.get("guid"), params.get("url")
            if not isinstance(guid, str) or not isinstance(url, str):
                return
            name = params.get("suggestedFilename")
            download = Download(guid, url, name if isinstance(name, str) else "")
            self.begun.append(download)
            del self.begun[: max(0, len(self.begun) - 50)]
            self.mark = min(self.mark, len(self.begun))
            if self.refuse is not None:
                download.refusing = self.refuse(download)
        elif event.method == "Page.downloadProgress":
            for download in self.begun:
                if download.guid == params.get("guid"):
                    download.state = _STATES.get(str(params.get("state")), download.state)
                    download.received = _count(params.get("receivedBytes"), download.received)
                    download.total = _count(params.get("totalBytes"), download.total)
        self.changed.set()

    def on_detach(self) -> None:
        self.armed = False


def _count(value: Any, default: int) -> int:
    return int(value) if isinstance(value, int | float) and value >= 0 else default


async def watch_downloads(ctx: CommandContext, *, refuse: bool) -> DownloadWatch:
    """The tab's download watch, subscribed on first use (Page is on: the dialog watch), its mark
    set where this command begins. ``refuse``: the profile's setting says no downloads."""
    watch = ctx.part(DownloadWatch)
    if not watch.armed:
        await ctx.subscribe(*DOWNLOAD_EVENTS)
        watch.armed = True
    watch.mark = len(watch.begun)
    watch.refuse = _canceller(ctx) if refuse else None
    return watch


def _canceller(ctx: CommandContext) -> Any:
    link, tab_id, deadline = ctx.host.link, ctx.tab, ctx.deadline
    loop = asyncio.get_running_loop()

    def cancel(download: Download) -> asyncio.Future[bool]:
        async def run() -> bool:
            try:
                answer = await link.request(
                    "downloads.cancel", deadline, tab_id=tab_id, url=download.url
                )
            except ReinsError:
                return False
            return isinstance(answer, dict) and answer.get("canceled") is True

        return loop.create_task(run())

    return cancel


async def downloads_since(
    ctx: CommandContext, watch: DownloadWatch, *, asked: bool = False
) -> list[DownloadWire]:
    """The downloads begun since this command's mark, as an effect: each waited for (briefly,
    within the budget) until it ended, and located through the extension. ``asked``: the page
    saw the action ask for a download (its navigation's `downloadRequest`); Chrome's word that
    it began comes a moment later (after the response's headers), and is waited for."""
    loop = asyncio.get_running_loop()
    if asked and len(watch.begun) <= watch.mark:
        begin_by = loop.time() + min(_BEGIN_WAIT_S, max(0.0, ctx.deadline.remaining() - 0.5))
        while len(watch.begun) <= watch.mark and loop.time() < begin_by:
            watch.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.changed.wait(), begin_by - loop.time())
    new = watch.begun[watch.mark :]
    if not new:
        return []
    end = loop.time() + min(_END_WAIT_S, max(0.0, ctx.deadline.remaining() - 0.5))
    while any(d.state == "in_progress" and d.refusing is None for d in new) and loop.time() < end:
        watch.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(watch.changed.wait(), end - loop.time())
    return [await _described(ctx, d) for d in new]


async def _described(ctx: CommandContext, download: Download) -> DownloadWire:
    out: DownloadWire = {"file": download.suggested or None, "folder": None}
    if download.refusing is not None:
        # Refused only when the extension says the file is gone; else what the browser has.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.shield(download.refusing), max(0.0, ctx.deadline.remaining() - 0.3)
            )
        if download.refusing.done() and download.refusing.result():
            return {**out, "state": "refused"}
        out["refusal_failed"] = True
    out["state"] = download.state
    if download.received or download.total:
        out["bytes"] = download.received or download.total
    try:
        found = await ctx.host.link.request(
            "downloads.find", ctx.deadline.child(1000), tab_id=ctx.tab, url=download.url
        )
    except ReinsError:
        found = None
    if isinstance(found, dict) and isinstance(found.get("filename"), str) and found["filename"]:
        out["folder"], out["file"] = os.path.split(found["filename"])
        if isinstance(found.get("state"), str):
            states = {"interrupted": "failed", "complete": "completed"}
            out["state"] = states.get(found["state"]) or str(found["state"])
    return out
