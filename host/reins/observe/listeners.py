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

from dataclasses import dataclass, field
from typing import Any

from reins._errors import ReinsError
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.deadline import HEADROOM_MS
from reins.bridge.link import BatchAnswer, CdpCommand
from reins.page.call import call_value, evaluate_params, page_call

__all__ = ["CLICK_TYPES", "ListenerHandles", "handler_hints"]

# The candidates' handles in reins's world while they are handed over (released at once), and
# their handles in the page's world, kept while the candidate list stays the same.
SCAN_GROUP = "reins-listener-scan"
KEPT_GROUP = "reins-listeners"

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


@dataclass
class ListenerHandles(TabPart):
    """Per session: the candidate list (its ``gen``) whose elements the page's world was handed,
    and those handles (position, objectId), kept in ``KEPT_GROUP`` until the list changes."""

    by_session: dict[str | None, tuple[str, list[tuple[int, str]]]] = field(default_factory=dict)

    def on_detach(self) -> None:
        self.by_session.clear()


async def handler_hints(ctx: CommandContext, *, session_id: str | None = None) -> dict[str, Any]:
    """The collection's options for what reins's world cannot see itself: ``listened``, the
    candidates (kept in reins's world by ``listenerCandidates``) Chrome says have click
    listeners, and ``hints``, React's handlers and ``onclick`` properties read in the page's world
    (``handlerHints``: positions that only widen what is listed). Best effort past the first
    round trip: without them, detection is what reins's world sees itself. A list handed over
    already is asked about in that first round trip too, its answers used when the list is still
    the same (a repeated look at a page: one round trip before the collection)."""
    kept = ctx.part(ListenerHandles)
    held = kept.by_session.get(session_id)
    asked = held[1] if held is not None else []
    # A page that cannot answer this (paused, hung, gone) could not answer the collection either:
    # that error is the observation's, at once, rather than after the collection's own wait.
    first = await ctx.cdp_batch(
        [
            ("Runtime.evaluate", evaluate_params(page_call("listenerCandidates"), _timeout(ctx))),
            (
                "Runtime.evaluate",
                evaluate_params(page_call("handlerHints"), _timeout(ctx), context_id=None),
            ),
            *(_listeners_of(oid) for _, oid in asked),
        ],
        session_id=session_id,
    )
    if not first:
        return {}
    listing = first[0]
    if isinstance(listing, ReinsError):
        raise listing
    options: dict[str, Any] = {}
    hints = _value(first[1]) if len(first) > 1 else None
    if isinstance(hints, dict):
        options["hints"] = hints
    info = _value(listing)
    if not isinstance(info, dict) or not isinstance(info.get("gen"), str):
        return options
    try:
        if held is not None and held[0] == info["gen"]:
            options["listened"] = _listened_of(asked, first[2:])
            return options
        if held is not None:
            kept.by_session.pop(session_id, None)
            await _release(ctx, KEPT_GROUP, session_id)
        if not info.get("count"):
            return options
        held = (info["gen"], await _hand_over(ctx, session_id))
        kept.by_session[session_id] = held
        options["listened"] = await _listened(ctx, held[1], session_id)
    except ReinsError:
        kept.by_session.pop(session_id, None)  # asked again, whole, next time
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


async def _release(ctx: CommandContext, group: str, session_id: str | None) -> None:
    try:
        await ctx.cdp("Runtime.releaseObjectGroup", {"objectGroup": group}, session_id=session_id)
    except ReinsError:
        pass


async def _hand_over(ctx: CommandContext, session_id: str | None) -> list[tuple[int, str]]:
    """The candidates (reins's world) as handles of the page's world, by Chrome's node ids: there
    Chrome answers about their listeners (asked with a handle of reins's world, it answers
    none). Kept in ``KEPT_GROUP`` while the candidate list stays the same."""
    remote = await ctx.cdp(
        "Runtime.evaluate",
        evaluate_params(
            page_call("candidateList"), _timeout(ctx), by_value=False, object_group=SCAN_GROUP
        ),
        session_id=session_id,
    )
    array = _value(remote, by_value=False)
    array_id = array.get("objectId") if isinstance(array, dict) else None
    if not array_id:
        return []
    try:
        props = await ctx.cdp(
            "Runtime.getProperties",
            {"objectId": array_id, "ownProperties": True},
            session_id=session_id,
        )
        handles: list[tuple[int, str]] = []
        for prop in props.get("result") or []:
            name = str(prop.get("name", ""))
            object_id = (prop.get("value") or {}).get("objectId")
            if name.isdigit() and object_id:
                handles.append((int(name), str(object_id)))
        described = await ctx.cdp_batch(
            [("DOM.describeNode", {"objectId": oid}) for _, oid in handles],
            session_id=session_id,
        )
    finally:
        await _release(ctx, SCAN_GROUP, session_id)
    backends: list[tuple[int, int]] = []
    for (index, _), answer in zip(handles, described, strict=False):
        node = answer.get("node") if isinstance(answer, dict) else None
        backend = node.get("backendNodeId") if isinstance(node, dict) else None
        if isinstance(backend, int):
            backends.append((index, backend))
    resolved = await ctx.cdp_batch(
        [("DOM.resolveNode", {"backendNodeId": b, "objectGroup": KEPT_GROUP}) for _, b in backends],
        session_id=session_id,
    )
    in_page: list[tuple[int, str]] = []
    for (index, _), answer in zip(backends, resolved, strict=False):
        remote_node = answer.get("object") if isinstance(answer, dict) else None
        object_id = remote_node.get("objectId") if isinstance(remote_node, dict) else None
        if object_id:
            in_page.append((index, str(object_id)))
    return in_page


def _listeners_of(object_id: str) -> CdpCommand:
    return ("DOMDebugger.getEventListeners", {"objectId": object_id})


async def _listened(
    ctx: CommandContext, in_page: list[tuple[int, str]], session_id: str | None
) -> list[int]:
    """The positions of the candidates (handles of the page's world) with click listeners."""
    if not in_page:
        return []
    answers = await ctx.cdp_batch([_listeners_of(oid) for _, oid in in_page], session_id=session_id)
    return _listened_of(in_page, answers)


def _listened_of(in_page: list[tuple[int, str]], answers: list[BatchAnswer]) -> list[int]:
    """The positions whose Chrome answer lists a click listener; a handle gone (a new document)
    or an answer missing fails the whole: the list is handed over again next time (raises)."""
    if len(answers) < len(in_page):
        raise ReinsError("the listeners were not all answered", code="cdp_error", transient=True)
    listened: list[int] = []
    for (index, _), answer in zip(in_page, answers, strict=False):
        if isinstance(answer, ReinsError):
            raise answer
        if _clickable(answer):
            listened.append(index)
    return listened


def _clickable(answer: dict[str, Any]) -> bool:
    return any(item.get("type") in CLICK_TYPES for item in answer.get("listeners") or [])
