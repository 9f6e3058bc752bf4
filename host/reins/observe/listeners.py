"""Click listeners page JS cannot see: marked before a collection so that detection lists them.

A handler bound with ``addEventListener`` (jQuery-style date pickers: ``<a>`` without href, role
or pointer cursor) leaves no trace a page script can read. Chrome reports it through
``DOMDebugger.getEventListeners``, one element at a time, so the page script names a bounded list
of candidates (``listeners.js``: anchors without href and images nothing else marks, then leaf
spans, divs, items, cells, icons, labels, paragraphs in the viewport; at most
300), the host asks about each in one batch, and the page keeps a mark on those with click
listeners. A page without candidates costs one evaluate.

The DevTools command line API (``getEventListeners(node)`` under ``includeCommandLineAPI``) would
do this inside the page script, but Chrome does not give it to ``chrome.debugger`` clients
(measured: ``getEventListeners is not defined``).
"""

from __future__ import annotations

from typing import Any

from reins._errors import ReinsError
from reins.bridge.context import CommandContext
from reins.page.call import evaluate, page_call

__all__ = ["CLICK_TYPES", "mark_listeners"]

# The handles of the candidates and their elements, released together (apart from the "reins"
# group, which holds the handles a command is acting on).
LISTENER_GROUP = "reins-listeners"

# Listener types that make an element something to click.
CLICK_TYPES = frozenset(
    {
        "click",
        "dblclick",
        "mousedown",
        "mouseup",
        "pointerdown",
        "pointerup",
        "touchstart",
        "touchend",
    }
)


async def mark_listeners(ctx: CommandContext, *, session_id: str | None = None) -> int:
    """Mark the candidates with click listeners; answers how many. Past the first call it is best
    effort: detection without the marks is what it was before (an older extension refuses
    DOMDebugger.getEventListeners per command, which leaves no marks)."""
    # A page that cannot answer this (paused, hung, gone) could not answer the collection either:
    # that error is the observation's, at once, rather than after the collection's own wait.
    remote = await evaluate(
        ctx,
        page_call("listenerCandidates"),
        session_id=session_id,
        by_value=False,
        object_group=LISTENER_GROUP,
        what="listener candidates",
    )
    array = remote.get("objectId") if isinstance(remote, dict) else None
    if not array:  # null: no candidates, and no handle to release
        return 0
    listened: list[int] = []
    try:
        listened = await _listened(ctx, array, session_id)
    except ReinsError:
        pass
    # The marks (none found clears the old ones) and the handles' release, in one message.
    try:
        await ctx.cdp_batch(
            [
                ("Runtime.evaluate", {"expression": page_call("markListened", listened)}),
                ("Runtime.releaseObjectGroup", {"objectGroup": LISTENER_GROUP}),
            ],
            session_id=session_id,
            sequential=True,
        )
    except ReinsError:
        return 0
    return len(listened)


async def _listened(ctx: CommandContext, array: str, session_id: str | None) -> list[int]:
    """The positions of the candidates (an array handle) that have click listeners."""
    props = await ctx.cdp(
        "Runtime.getProperties", {"objectId": array, "ownProperties": True}, session_id=session_id
    )
    handles: list[tuple[int, str]] = []
    for prop in props.get("result") or []:
        name = str(prop.get("name", ""))
        object_id = (prop.get("value") or {}).get("objectId")
        if name.isdigit() and object_id:
            handles.append((int(name), str(object_id)))
    if not handles:
        return []
    answers = await ctx.cdp_batch(
        [("DOMDebugger.getEventListeners", {"objectId": oid}) for _, oid in handles],
        session_id=session_id,
    )
    return [
        index
        for (index, _), answer in zip(handles, answers, strict=True)
        if not isinstance(answer, ReinsError) and _clickable(answer)
    ]


def _clickable(answer: dict[str, Any]) -> bool:
    return any(item.get("type") in CLICK_TYPES for item in answer.get("listeners") or [])
