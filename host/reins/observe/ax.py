"""The AX source: the page script's candidates as Chrome's accessibility tree sees them.

Chrome's tree is asked only about those candidates (`Accessibility.getPartialAXTree` per element,
batched), never for the whole tree, so its cost grows with the number of interactive elements, not
with the document. A record the page repeated from its last collection, of the very same node,
takes what Chrome answered for it then (``observe.sent``): a repeated AX observation asks only
about what changed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from reins._errors import ReinsError
from reins.bridge.context import CommandContext
from reins.observe.collect import AxCoverage, PageSnapshot
from reins.observe.sent import SentRecords, carry
from reins.observe.store import ObserveState
from reins.page.call import evaluate_handle, page_call

__all__ = [
    "FIELD_LIMIT",
    "TEXT_FIELD_ROLES",
    "ax_records",
    "ax_states",
    "ax_text_differs",
    "ax_value",
    "merge_ax",
    "words",
]

# The roles whose AX value is the text a person sees in the field (a text input with a list of
# suggestions is a combobox; a <select> is one too, whose value is its label).
TEXT_FIELD_ROLES = frozenset({"textbox", "searchbox"})
_MASKS = frozenset("•*●")
# The most characters of a value a record carries (pagescripts/src/text.js FIELD_LIMIT): a value
# that long was clipped page-side, and is compared with the start of the tree's.
FIELD_LIMIT = 1000


async def _object_ids(ctx: CommandContext, session: str | None) -> list[str]:
    array_id = await evaluate_handle(
        ctx, page_call("storedElements"), session_id=session, what="element handles"
    )
    if array_id is None:
        return []
    props = await ctx.cdp(
        "Runtime.getProperties", {"objectId": array_id, "ownProperties": True}, session_id=session
    )
    ids: dict[int, str] = {}
    for prop in props.get("result") or []:
        name = str(prop.get("name", ""))
        value = prop.get("value") or {}
        if name.isdigit() and value.get("objectId"):
            ids[int(name)] = str(value["objectId"])
    return [ids[i] for i in sorted(ids)]


def ax_value(node: dict[str, Any], key: str) -> Any:
    """One of an AX node's own values (role, name, value), as Chrome gave it."""
    return (node.get(key) or {}).get("value")


def words(text: str) -> str:
    """``text`` with its whitespace collapsed, as both readings of a value are compared."""
    return " ".join(text.split())


def ax_text_differs(
    node: dict[str, Any], ours: str, roles: frozenset[str], *, clipped: bool = False
) -> str | None:
    """What the tree says a text field (of one of ``roles``) holds, when that differs from
    ``ours`` (whitespace collapsed); None when they agree or the tree has no opinion (another
    role, no value, a password field it shows masked). ``clipped``: ``ours`` is the start of
    the value (clipped page-side), compared with as much of the tree's."""
    if ax_value(node, "role") not in roles:
        return None
    theirs = ax_value(node, "value")
    if isinstance(theirs, str) and theirs and set(theirs) <= _MASKS:
        return None
    if not isinstance(theirs, str | int | float):
        return None
    shown = str(theirs)
    if words(shown[: len(ours)] if clipped else shown) != words(ours):
        return shown
    return None


def ax_states(node: dict[str, Any]) -> dict[str, Any]:
    """An AX node's states reins reads (checked as True, False or "mixed")."""
    states: dict[str, Any] = {}
    for prop in node.get("properties") or []:
        name = prop.get("name")
        value = (prop.get("value") or {}).get("value")
        if name in (
            "disabled",
            "expanded",
            "selected",
            "focused",
            "checked",
            "readonly",
            "required",
        ):
            states[name] = (
                value
                if name != "checked"
                else (True if value == "true" else False if value == "false" else value)
            )
    return states


# Kept back from the budget for what follows the AX queries (registry, rendering, the answer).
AX_RESERVE_S = 1.5
AX_CHUNK = 200


async def ax_records(
    ctx: CommandContext,
    snap: PageSnapshot,
) -> tuple[list[dict[str, Any]], AxCoverage]:
    """The snapshot's candidates as Chrome's accessibility tree sees them (role, name, states,
    backend node id), asked element by element in batches, viewport first.

    Each `Accessibility.getPartialAXTree` costs Chrome time that grows with the document (about
    0.4 ms per call at 1,000 elements, 4-6 ms at 20,000, measured here), so the queries stop when
    the budget would not cover another batch: the remaining elements keep the page script's
    role and name, and the coverage says how many were asked.
    """
    records = [dict(r) for r in snap.elements]
    coverage = AxCoverage(total=len(records))
    held = ctx.part(SentRecords)
    known = _carried_ax(records, snap, held)  # then also every record asked below
    if known:
        ctx.note("ax_answers_carried")
    coverage.asked += len(known)
    order = sorted(
        (i for i in range(len(records)) if i not in known),
        key=lambda i: (not records[i].get("in_viewport"), i),
    )
    enabled = ctx.part(ObserveState).ax_enabled
    handles: dict[str | None, list[str]] = {}
    loop = asyncio.get_running_loop()
    per_call = 0.002  # seconds; refined from each batch
    for k in range(0, len(order), AX_CHUNK):
        chunk = order[k : k + AX_CHUNK]
        if ctx.deadline.remaining() < AX_RESERVE_S + per_call * len(chunk):
            break
        by_session: dict[str | None, list[int]] = {}
        for i in chunk:
            by_session.setdefault(snap.homes[i][0], []).append(i)
        started = loop.time()
        for session, indexes in by_session.items():
            if session not in handles:
                # With the domain enabled Chrome keeps its tree between calls.
                if session not in enabled:
                    await ctx.cdp("Accessibility.enable", {}, session_id=session)
                    enabled.add(session)
                handles[session] = await _object_ids(ctx, session)
            ids = handles[session]
            pairs = [(i, ids[snap.homes[i][1]]) for i in indexes if snap.homes[i][1] < len(ids)]
            answers = await ctx.cdp_batch(
                [
                    ("Accessibility.getPartialAXTree", {"objectId": oid, "fetchRelatives": False})
                    for _, oid in pairs
                ],
                session_id=session,
            )
            for (i, _), answer in zip(pairs, answers, strict=False):
                merge_ax(records[i], answer)
                known.add(i)
        coverage.asked += len(chunk)
        per_call = max(per_call, (loop.time() - started) / max(1, len(chunk)))
    for session in handles:
        await ctx.cdp("Runtime.releaseObjectGroup", {"objectGroup": "reins"}, session_id=session)
    if snap.carried is not None:
        # What Chrome said of each main-context record, for the next AX observation.
        kept: list[Any] = [None] * len(snap.carried.indexes)
        for i, (session, local) in enumerate(snap.homes):
            if session is None and local < len(kept) and i in known:
                kept[local] = dict(records[i])
        held.derived["ax"] = (None, kept)
    return records, coverage


def _carried_ax(records: list[dict[str, Any]], snap: PageSnapshot, held: SentRecords) -> set[int]:
    """Records the page repeated from its last collection, of the very same node, that Chrome's
    tree was asked about then: they take that answer (with their new box) instead of a new
    question — the DOM fields are the same text, and the AX fields are the node's. Returns their
    indexes."""
    before = carry("ax", None, snap.homes, snap.carried, held, lambda _i: None, node=True)
    known: set[int] = set()
    for i, answer in enumerate(before):
        if isinstance(answer, dict) and "ax_error" not in answer:
            records[i] = {**answer, "box": records[i].get("box"), "i": records[i].get("i")}
            known.add(i)
    return known


# Chrome's roles for a frame owner that carries no ARIA role of its own. One that carries one
# (`<iframe role=button>`) Chrome's tree reports as that role: the page script's `frame` stands.
_FRAME_ROLES = frozenset({"Iframe", "IframePresentational", "Embed", "PluginObject"})


def merge_ax(record: dict[str, Any], answer: dict[str, Any] | ReinsError) -> None:
    if isinstance(answer, ReinsError):
        record["ax_error"] = answer.code
        return
    nodes = answer.get("nodes") or []
    node = next((n for n in nodes if not n.get("ignored")), nodes[0] if nodes else None)
    if node is None:
        return
    record["backend_node_id"] = node.get("backendDOMNodeId")
    role = ax_value(node, "role")
    if node.get("ignored"):
        record["ax_ignored"] = True
    elif role in _FRAME_ROLES:
        record["role"] = "frame"
    elif isinstance(role, str) and role not in ("", "none") and record.get("role") != "frame":
        record["role"] = role
    name = ax_value(node, "name")
    if isinstance(name, str) and name.strip():
        record["name"] = name.strip()
    states = dict(record.get("states") or {})
    states.update(ax_states(node))
    value = record.get("value")
    if (
        isinstance(value, str)
        and ax_text_differs(node, value, TEXT_FIELD_ROLES, clipped=len(value) >= FIELD_LIMIT - 1)
        is not None
    ):
        # reins's world read the value; Chrome's tree shows another: not confirmed (issue 44).
        states["unverified"] = True
    record["states"] = states
