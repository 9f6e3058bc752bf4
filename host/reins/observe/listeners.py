"""Click handlers reins's world cannot see itself, handed to the collection so detection lists them.

A handler bound with ``addEventListener`` (jQuery-style date pickers: ``<a>`` without href, role
or pointer cursor) leaves no trace a page script can read. Chrome reports it through
``DOMDebugger.getEventListeners``, one element at a time, so the page script (in reins's world)
names a bounded list of candidates (``listeners.js``: anchors without href and images nothing
else marks, then leaf spans, divs, items, cells, icons, labels, paragraphs in the viewport; at
most 300), the host asks Chrome about each, and the collection marks those with click listeners.
React's handlers and ``onclick`` properties are expandos of the page's world, read there
(``handlerHints``) and handed over as positions: hints that may widen what ``state`` lists, never
where input goes. A page without candidates costs one round trip.

The DevTools command line API (``getEventListeners(node)`` under ``includeCommandLineAPI``) would
do this inside the page script, but Chrome does not give it to ``chrome.debugger`` clients
(measured: ``getEventListeners is not defined``).
"""

from __future__ import annotations

from typing import Any

from reins._errors import ReinsError
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.page.call import call_value, evaluate_params, page_call

__all__ = ["CLICK_TYPES", "handler_hints"]

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


async def handler_hints(ctx: CommandContext, *, session_id: str | None = None) -> dict[str, Any]:
    """The collection's options for what reins's world cannot see itself: ``listened``, the
    candidates (kept in reins's world by ``listenerCandidates``) Chrome says have click
    listeners, and ``hints``, React's handlers and ``onclick`` properties read in the page's world
    (``handlerHints``: positions that only widen what is listed). Best effort past the first
    round trip: without them, detection is what reins's world sees itself."""
    # A page that cannot answer this (paused, hung, gone) could not answer the collection either:
    # that error is the observation's, at once, rather than after the collection's own wait.
    first = await ctx.cdp_batch(
        [
            (
                "Runtime.evaluate",
                evaluate_params(
                    page_call("listenerCandidates"),
                    _timeout(ctx),
                    by_value=False,
                    object_group=LISTENER_GROUP,
                ),
            ),
            (
                "Runtime.evaluate",
                evaluate_params(page_call("handlerHints"), _timeout(ctx), context_id=None),
            ),
        ],
        session_id=session_id,
    )
    if not first:
        return {}
    candidates = first[0]
    if isinstance(candidates, ReinsError):
        raise candidates
    options: dict[str, Any] = {}
    hints = _value(first[1]) if len(first) > 1 else None
    if isinstance(hints, dict):
        options["hints"] = hints
    remote = _value(candidates, by_value=False)
    array = remote.get("objectId") if isinstance(remote, dict) else None
    if not array:  # null: no candidates, and no handle to release
        return options
    try:
        options["listened"] = await _listened(ctx, array, session_id)
    except ReinsError:
        pass
    return options


def _timeout(ctx: CommandContext) -> int:
    return max(1, ctx.deadline.remaining_ms(headroom_ms=HEADROOM_MS))


def _value(answer: dict[str, Any] | ReinsError, *, by_value: bool = True) -> Any:
    if isinstance(answer, ReinsError):
        return None
    try:
        return call_value(answer, what="handler hints", by_value=by_value)
    except ReinsError:
        return None


async def _listened(ctx: CommandContext, array: str, session_id: str | None) -> list[int]:
    """The positions of the candidates (an array handle in reins's world) that have click
    listeners: each handed to the page's world by Chrome's node id, where Chrome answers about
    its listeners (asked with a handle of reins's world, it answers none)."""
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
    described = await ctx.cdp_batch(
        [("DOM.describeNode", {"objectId": oid}) for _, oid in handles], session_id=session_id
    )
    backends: list[tuple[int, int]] = []
    for (index, _), answer in zip(handles, described, strict=False):
        node = answer.get("node") if isinstance(answer, dict) else None
        backend = node.get("backendNodeId") if isinstance(node, dict) else None
        if isinstance(backend, int):
            backends.append((index, backend))
    resolved = await ctx.cdp_batch(
        [
            ("DOM.resolveNode", {"backendNodeId": b, "objectGroup": LISTENER_GROUP})
            for _, b in backends
        ],
        session_id=session_id,
    )
    in_page: list[tuple[int, str]] = []
    for (index, _), answer in zip(backends, resolved, strict=False):
        remote = answer.get("object") if isinstance(answer, dict) else None
        object_id = remote.get("objectId") if isinstance(remote, dict) else None
        if object_id:
            in_page.append((index, str(object_id)))
    # The release goes last: Chrome runs one session's commands in the order they came.
    answers = await ctx.cdp_batch(
        [
            *(("DOMDebugger.getEventListeners", {"objectId": oid}) for _, oid in in_page),
            ("Runtime.releaseObjectGroup", {"objectGroup": LISTENER_GROUP}),
        ],
        session_id=session_id,
    )
    return [
        index
        for (index, _), answer in zip(in_page, answers, strict=False)
        if not isinstance(answer, ReinsError) and _clickable(answer)
    ]


def _clickable(answer: dict[str, Any]) -> bool:
    return any(item.get("type") in CLICK_TYPES for item in answer.get("listeners") or [])
