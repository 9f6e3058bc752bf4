"""What the tab did instead of answering the read after an action: a navigation the page started
followed to its new document (bounded), a tab Chrome let go of (closed, or replaced when a link
handed its URL to another application), or unknown. Asked of the page's new document and of
the browser's tab list, never guessed."""

from __future__ import annotations

import asyncio

from reins._errors import ReinsError
from reins.act.answers import Detached, Instead, Navigated, TabClosed, Unknown
from reins.act.handles import StateRead
from reins.bridge.context import CommandContext
from reins.page.call import evaluate, page_call

__all__ = ["arrival", "instead_of", "let_go"]

# A navigation the action started: how long to wait for the new document before answering
# `navigation_started` instead of `navigated`.
_ARRIVAL_S = 1.0

# After-read failures that prove the element's document went away (a navigation, or its frame
# removed): what Chrome said, as the extension names it (extension/errors.js).
_DOCUMENT_GONE = ("context_gone", "object_gone")


async def arrival(ctx: CommandContext, before: StateRead) -> Instead | None:
    """After the page said a navigation started: the new document's URL once it is there
    (``Navigated``), or None when the old document is still shown at the end of the wait (a slow
    server, a download, a 204)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + min(_ARRIVAL_S, max(0.0, ctx.deadline.remaining() - 0.5))
    while True:
        try:
            identity = await evaluate(ctx, page_call("documentIdentity"), what="document")
        except ReinsError as exc:
            if exc.code == "target_closed":
                return await let_go(ctx)
            identity = None  # between documents: ask again
        if (
            isinstance(identity, list)
            and len(identity) == 2
            and identity[0] != before.get("document")
        ):
            return Navigated(str(identity[1]))
        if loop.time() >= end:
            return None
        await asyncio.sleep(0.03)


async def instead_of(
    ctx: CommandContext,
    before: StateRead,
    failure: ReinsError | None,
) -> Instead:
    """When the after-read failed: did the tab navigate, close, or is it simply unknown?
    A timed-out or failed read is never reported as a navigation (the page may have done nothing
    at all: a slow handler in a hidden tab)."""
    if failure is not None and failure.code == "target_closed":
        return await let_go(ctx)
    gone = failure is not None and failure.chrome in _DOCUMENT_GONE
    try:
        identity = await evaluate(ctx, page_call("documentIdentity"), what="document")
    except ReinsError as exc:
        if exc.code == "target_closed":
            return await let_go(ctx)
        identity = None
    if before.get("top") and isinstance(identity, list) and len(identity) == 2:
        origin, url = identity
        if gone or origin != before.get("document"):
            return Navigated(str(url))
    elif gone and before.get("top"):
        return Navigated(None)
    reason = (
        "the element's document went away"
        if gone
        else (
            f"the page did not answer the read after the action ({failure.code})"
            if failure
            else "the element's document changed"
        )
    )
    return Unknown(reason)


async def let_go(ctx: CommandContext) -> TabClosed | Detached:
    """Chrome let go of the tab while an action ran (``target_closed``). Either the tab went away
    (a page that closes itself on the click, or the user at that moment), or it is still open and
    Chrome replaced its target (a link that handed its URL to another application: mailto:, tel:,
    an app link). Which one is the browser's to say (its tab list), not a guess."""
    try:
        listed = await ctx.host.link.request("tabs.list", ctx.deadline)
    except ReinsError:
        listed = None
    if isinstance(listed, list) and any(t.get("id") == ctx.tab_id for t in listed):
        return Detached()
    return TabClosed()
