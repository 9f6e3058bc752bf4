"""The controls a closed shadow root holds, listed from the browser (issue 45).

No script reaches a closed shadow root, reins's world included: a host titled "Save draft" whose
closed root is one full-size "Delete my account" button is, to every page script, the host
alone. The collection marks the elements that may be such a host (``sealed``: one that may carry
a shadow root, has no open one, and whose own children show nothing); for those, Chrome describes
the subtree with every root pierced (``DOM.describeNode``), and the controls inside a closed root
are named by Chrome's accessibility tree (``Accessibility.getPartialAXTree``; one it ignores, a
hidden one, is left out). They go on the host's record as ``holds`` ([{role, name}]): ``state``
shows them on the host's line, and a press on the host that Chrome's hit test puts inside one is
refused (``act/hittest.closed_control``). Three batched round trips when the page has such
elements, none otherwise; at most ``MAX_HOSTS`` hosts and ``MAX_HELD`` controls each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reins._errors import ReinsError
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.observe.ax import ax_value
from reins.observe.collect import PageSnapshot
from reins.page.call import call_value, evaluate_params, page_call

__all__ = ["MAX_HELD", "MAX_HOSTS", "held_controls", "is_control", "node_attributes", "sealed"]

MAX_HOSTS = 100
MAX_HELD = 5
_GROUP = "reins-sealed"

# What a person would take for a control of its own: its tag (an <a> only with an href), or a
# widget role or a tabindex on anything.
_CONTROL_TAGS = frozenset({"BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY"})
_CONTROL_ROLES = frozenset(
    {
        "button",
        "link",
        "checkbox",
        "radio",
        "switch",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "tab",
        "textbox",
        "combobox",
        "slider",
    }
)


def node_attributes(node: Mapping[str, Any]) -> dict[str, str]:
    """A ``DOM.describeNode`` node's attributes as a dict (pure)."""
    flat = node.get("attributes") or []
    return {str(flat[i]): str(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}


def is_control(node: Mapping[str, Any]) -> bool:
    """Would a person take this described node for a control of its own? (pure)"""
    name = str(node.get("nodeName") or "").upper()
    attrs = node_attributes(node)
    if name in _CONTROL_TAGS or (name == "A" and "href" in attrs):
        return True
    if attrs.get("role", "").strip().lower().split(" ")[0] in _CONTROL_ROLES:
        return True
    return "tabindex" in attrs and attrs["tabindex"].strip().lstrip("-").isdigit()


def held_controls(host: dict[str, Any]) -> list[int]:
    """The backend node ids of the controls inside a closed shadow root of ``host``'s described
    subtree, in tree order: the outermost ones (a control inside a control is part of it) (pure)."""
    found: list[int] = []

    def walk(n: dict[str, Any], closed: bool) -> None:
        if closed and is_control(n) and isinstance(n.get("backendNodeId"), int):
            found.append(int(n["backendNodeId"]))
            return
        for root in n.get("shadowRoots") or []:
            if isinstance(root, dict):
                walk(root, closed or root.get("shadowRootType") == "closed")
        for child in n.get("children") or []:
            if isinstance(child, dict):
                walk(child, closed)

    walk(host, False)
    return found


def _answer(answer: dict[str, Any] | ReinsError, key: str) -> Any:
    return answer.get(key) if isinstance(answer, dict) else None


async def sealed(
    ctx: CommandContext, snap: PageSnapshot, records: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``records`` with ``holds`` set on each sealed host that holds controls in a closed root
    (new dicts for those; the list is a copy when any changed). Best effort: a host Chrome cannot
    describe lists nothing, and the hit test still refuses a press into its closed root."""
    hosts = [i for i, r in enumerate(records) if r.get("sealed")][:MAX_HOSTS]
    if not hosts:
        return records
    by_session: dict[str | None, list[int]] = {}
    for i in hosts:
        by_session.setdefault(snap.homes[i][0], []).append(i)
    out = list(records)
    for session, indexes in by_session.items():
        try:
            held = await _held(ctx, session, [snap.homes[i][1] for i in indexes])
        except ReinsError:
            continue
        for i, controls in zip(indexes, held, strict=True):
            if controls:
                out[i] = {**out[i], "holds": controls}
    return out


async def _held(
    ctx: CommandContext, session: str | None, locals_: list[int]
) -> list[list[dict[str, str]]]:
    timeout = max(1, ctx.deadline.remaining_ms(headroom_ms=HEADROOM_MS))
    try:
        handles = await ctx.cdp_batch(
            [
                (
                    "Runtime.evaluate",
                    evaluate_params(
                        page_call("storedElement", local),
                        timeout,
                        by_value=False,
                        object_group=_GROUP,
                    ),
                )
                for local in locals_
            ],
            session_id=session,
        )
        ids = [
            (call_value(h, what="sealed host", by_value=False) or {}).get("objectId")
            if isinstance(h, dict)
            else None
            for h in handles
        ]
        described = await ctx.cdp_batch(
            [
                ("DOM.describeNode", {"objectId": oid, "depth": -1, "pierce": True})
                for oid in ids
                if oid
            ],
            session_id=session,
        )
    finally:
        try:
            await ctx.cdp("Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, session_id=session)
        except ReinsError:
            pass
    trees = iter(described)
    per_host: list[list[int]] = []
    for oid in ids:
        node = _answer(next(trees), "node") if oid else None
        per_host.append(held_controls(node)[:MAX_HELD] if isinstance(node, dict) else [])
    wanted = [b for controls in per_host for b in controls]
    if not wanted:
        return [[] for _ in per_host]
    answers = await ctx.cdp_batch(
        [
            ("Accessibility.getPartialAXTree", {"backendNodeId": b, "fetchRelatives": False})
            for b in wanted
        ],
        session_id=session,
    )
    named: dict[int, dict[str, str]] = {}
    for backend, answer in zip(wanted, answers, strict=False):
        nodes = [n for n in _answer(answer, "nodes") or [] if isinstance(n, dict)]
        node = next((n for n in nodes if not n.get("ignored")), None)
        role = ax_value(node, "role") if node is not None else None
        if isinstance(role, str) and role not in ("", "none", "generic"):
            name = ax_value(node, "name") if node is not None else None
            named[backend] = {"role": role, "name": name.strip() if isinstance(name, str) else ""}
    return [[named[b] for b in controls if b in named] for controls in per_host]
