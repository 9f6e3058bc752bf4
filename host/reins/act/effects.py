"""Effects: what an action changed, read before and after it, so every answer proves itself.

Every action answers with what it observed change (value, checked, expanded, focus, URL, DOM in or
under the target, DOM elsewhere); when nothing changed it adds the warning `no_effect`. An action
that opens a JavaScript dialog answers ok with the dialog as its effect.
"""

from __future__ import annotations

import asyncio
from typing import Any

from reins._errors import ReinsError
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext
from reins.page.call import call_function, evaluate, page_call
from reins.page.dialogs import DialogOpened, DialogWatch, until_dialog

__all__ = ["act_on", "effect_of"]


# What an action may change is read before and after it by one page call each (``readState``,
# pagescripts/src/effects.js); "before" also arms the page's count of DOM changes in and outside
# the target, "after" first lets the page finish the frame the action started.


# After-read failures that prove the element's document went away (a navigation, or its frame
# removed), as Chrome words them (see _errors.from_cdp_error).
_DOCUMENT_GONE = (
    "navigated while the call ran",
    "cannot find context",
    "context was destroyed",
    "could not find object",
)


async def _observe(
    ctx: CommandContext,
    el: Resolved,
    phase: str,
) -> tuple[dict[str, Any] | None, ReinsError | None]:
    """The element's state, or why it could not be read."""
    try:
        value = await call_function(
            ctx,
            el.object_id,
            "readState",
            phase,
            session_id=el.session_id,
            await_promise=True,
            what="read state",
        )
    except ReinsError as exc:
        return None, exc
    if not isinstance(value, dict):
        return None, ReinsError("the page answered nothing", code="cdp_error")
    return value, None


async def _instead(
    ctx: CommandContext,
    before: dict[str, Any],
    failure: ReinsError | None,
) -> dict[str, Any]:
    """When the after-read failed: did the tab navigate, close, or is it simply unknown?
    A timed-out or failed read is never reported as a navigation (the page may have done nothing
    at all: a slow handler in a hidden tab)."""
    if failure is not None and failure.code == "target_closed":
        return {"tab_closed": True}
    text = str(failure.args[0] if failure is not None and failure.args else "").lower()
    gone = failure is not None and any(mark in text for mark in _DOCUMENT_GONE)
    try:
        identity = await evaluate(ctx, page_call("documentIdentity"), what="document")
    except ReinsError as exc:
        if exc.code == "target_closed":
            return {"tab_closed": True}
        identity = None
    if before.get("top") and isinstance(identity, list) and len(identity) == 2:
        origin, url = identity
        if gone or origin != before.get("document"):
            return {"navigated": str(url)}
    elif gone and before.get("top"):
        return {"navigated": None}
    reason = (
        "the element's document went away"
        if gone
        else (
            f"the page did not answer the read after the action ({failure.code})"
            if failure
            else "the element's document changed"
        )
    )
    return {"unknown": reason}


def effect_of(
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    instead: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """What changed between two state reads (pure). With no ``after`` read, ``instead`` says what
    the tab did: ``{"navigated": url or None}``, ``{"tab_closed": True}`` or ``{"unknown": why}``
    (also when it is missing)."""
    effect: dict[str, Any] = {}
    if before is None:
        return {"unknown": True}, ["effect_unknown"]
    if after is None:
        instead = instead or {"unknown": "no read after the action"}
        if "navigated" in instead:
            effect["navigated"] = True
            if instead["navigated"] is not None:
                effect["url"] = {"from": before.get("url"), "to": instead["navigated"]}
            return effect, []
        if instead.get("tab_closed"):
            return {"tab_closed": True}, []
        return {"unknown": True, "reason": str(instead.get("unknown"))}, ["effect_unknown"]
    for key in ("value", "checked", "selected", "expanded", "focus", "url"):
        if before.get(key) != after.get(key):
            effect[key] = {"from": before.get(key), "to": after.get(key)}
    if not after.get("connected", True):
        effect["target_detached"] = True
    counts = after.get("counts") or {}
    if counts.get("inside"):
        effect["dom_changed_in_target"] = int(counts["inside"])
    if counts.get("elsewhere"):
        effect["dom_changed_elsewhere"] = int(counts["elsewhere"])
    warnings = [] if effect else ["no_effect"]
    return effect, warnings


async def act_on(ctx: CommandContext, el: Resolved, action: Any) -> dict[str, Any]:
    """Run ``action(el)`` between two state reads and report the effect.

    If the action opens a JavaScript dialog, the page waits for it: the answer is then the dialog
    itself as the effect (answer it with `reins dialog accept|dismiss`)."""
    before, _ = await _observe(ctx, el, "before")
    try:
        return await until_dialog(_act_and_read(ctx, el, action, before), ctx.part(DialogWatch))
    except DialogOpened as opened:
        return _with_target({"effect": {"dialog": opened.dialog}, "warnings": ["dialog_open"]}, el)


async def _act_and_read(
    ctx: CommandContext, el: Resolved, action: Any, before: dict[str, Any] | None
) -> dict[str, Any]:
    try:
        extra = await action(el) or {}
    except ReinsError as exc:
        if exc.code != "target_closed":
            raise
        # The tab went away while the input was being given (a page that closes itself on the
        # click, or the user at that moment): what the agent needs to know is that it is gone.
        return _with_target(
            {"effect": {"tab_closed": True}, "warnings": ["tab_closed_during_action"]}, el
        )
    after, failure = await _observe(ctx, el, "after")
    if after is not None and before is not None and not effect_of(before, after)[0]:
        # Nothing yet: a navigation or a slower update may still be on its way; look once more.
        await asyncio.sleep(min(0.15, max(0.0, ctx.deadline.remaining() - 0.3)))
        after, failure = await _observe(ctx, el, "after")
        if after is not None:
            try:  # in the element's own frame: its document may have moved on meanwhile
                now = await call_function(
                    ctx, el.object_id, "elementDocument", session_id=el.session_id, what="document"
                )
                if now != before.get("document"):
                    after, failure = None, None
            except ReinsError as exc:
                after, failure = None, exc
    instead = await _instead(ctx, before, failure) if after is None and before else None
    effect, warnings = effect_of(before, after, instead)
    out: dict[str, Any] = {"effect": effect, "warnings": warnings + extra.pop("warnings", [])}
    out.update(extra)
    return _with_target(out, el)


def _with_target(out: dict[str, Any], el: Resolved) -> dict[str, Any]:
    """Which element the answer is about: its ref, and how a stale ref was recovered."""
    if el.recovered:
        out["recovered"] = el.recovered
    if el.ref:
        out["ref"] = el.ref
    return out
