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


async def _observe(ctx: CommandContext, el: Resolved, phase: str) -> dict[str, Any] | None:
    try:
        value = await call_function(ctx, el.object_id, "readState", phase,
                                    session_id=el.session_id, await_promise=True, what="read state")
        return value if isinstance(value, dict) else None
    except ReinsError:
        return None  # the context went away: a navigation


def effect_of(before: dict[str, Any] | None, after: dict[str, Any] | None,
              url_after: str | None) -> tuple[dict[str, Any], list[str]]:
    """What changed between two state reads (pure)."""
    effect: dict[str, Any] = {}
    if before is None:
        return {"unknown": True}, []
    if after is None:
        effect["navigated"] = True
        if url_after is not None:
            effect["url"] = {"from": before.get("url"), "to": url_after}
        return effect, []
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
    before = await _observe(ctx, el, "before")
    try:
        return await until_dialog(_act_and_read(ctx, el, action, before), ctx.part(DialogWatch))
    except DialogOpened as opened:
        out: dict[str, Any] = {"effect": {"dialog": opened.dialog}, "warnings": ["dialog_open"]}
        if el.recovered:
            out["recovered"] = el.recovered
        if el.ref:
            out["ref"] = el.ref
        return out


async def _act_and_read(ctx: CommandContext, el: Resolved, action: Any,
                        before: dict[str, Any] | None) -> dict[str, Any]:
    extra = await action(el) or {}
    after = await _observe(ctx, el, "after")
    if after is not None and before is not None and not effect_of(before, after, None)[0]:
        # Nothing yet: a navigation or a slower update may still be on its way; look once more.
        await asyncio.sleep(min(0.15, max(0.0, ctx.deadline.remaining() - 0.3)))
        after = await _observe(ctx, el, "after")
        if after is not None:
            try:  # in the element's own frame: its document may have moved on meanwhile
                now = await call_function(ctx, el.object_id, "elementDocument",
                                          session_id=el.session_id, what="document")
                if now != before.get("document"):
                    after = None
            except ReinsError:
                after = None
    url_after = None
    if after is None:
        try:
            url_after = str(await evaluate(ctx, page_call("documentUrl"), what="url"))
        except ReinsError:
            url_after = None
    effect, warnings = effect_of(before, after, url_after)
    out: dict[str, Any] = {"effect": effect, "warnings": warnings + extra.pop("warnings", [])}
    out.update(extra)
    if el.recovered:
        out["recovered"] = el.recovered
    if el.ref:
        out["ref"] = el.ref
    return out
