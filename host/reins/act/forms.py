"""Forms: fill and type (verified against what the field keeps), select, check and uncheck.

The page side is in pagescripts/src/actions.js (prepareField, fieldValue, selectOptions,
checkedState)."""

from __future__ import annotations

from typing import Any

from reins._errors import ActionError, ReinsError, ResolutionError, UsageError
from reins.act.actionability import actionable_point
from reins.act.effects import act_on
from reins.act.keyboard import parse_keys, press_keys
from reins.act.locate import Resolved
from reins.act.pointer import click_element
from reins.bridge.context import CommandContext
from reins.page.call import call_function

__all__ = ["fill_element", "select_options", "set_checked"]


async def fill_element(
    ctx: CommandContext,
    el: Resolved,
    text: str,
    *,
    append: bool = False,
) -> dict[str, Any]:
    async def do(target: Resolved) -> dict[str, Any]:
        await actionable_point(ctx, target)
        try:
            await ctx.cdp("DOM.focus", {"objectId": target.object_id}, session_id=target.session_id)
        except ReinsError:
            pass  # focus() in the page script below covers elements CDP will not focus
        ready = await call_function(
            ctx,
            target.object_id,
            "prepareField",
            "end" if append else "all",
            session_id=target.session_id,
            what="prepare field",
        )
        if not isinstance(ready, dict) or not ready.get("ok"):
            why = ready.get("why") if isinstance(ready, dict) else "unknown"
            raise ResolutionError(f"cannot type into this element: {why}", code="not_editable")
        original = await call_function(
            ctx, target.object_id, "fieldValue", session_id=target.session_id
        )
        if not append and original:
            await press_keys(ctx, parse_keys("Delete"))
        if text:
            await ctx.cdp("Input.insertText", {"text": text})
        kept = await call_function(
            ctx, target.object_id, "fieldValue", session_id=target.session_id
        )
        expected = (str(original or "") + text) if append else text
        if kept != expected:
            raise ActionError(
                f"the field kept {kept!r}, not {expected!r} (the page reformatted or refused it)",
                code="fill_mismatch",
                details={"kept": kept, "expected": expected},
            )
        return {"value": kept}

    result = await act_on(ctx, el, do)
    if "value" in result:
        await _check_kept(ctx, el, str(result["value"]))
    return result


async def _check_kept(ctx: CommandContext, el: Resolved, expected: str) -> None:
    """Once the page has settled (the effect read waited for its frame): does the field still hold
    what was typed? A page script, or the user typing into the tab, may have changed it since."""
    try:
        settled = await call_function(
            ctx, el.object_id, "fieldValue", session_id=el.session_id, what="field value"
        )
    except ReinsError:
        return  # the field left the page (a navigation the effect reports)
    if settled != expected:
        raise ActionError(
            f"the field holds {settled!r} now, not {expected!r}: it changed after the fill (the "
            "page or someone typing in this tab)",
            code="fill_mismatch",
            details={"kept": settled, "expected": expected},
        )


async def select_options(ctx: CommandContext, el: Resolved, values: list[str]) -> dict[str, Any]:
    async def do(target: Resolved) -> dict[str, Any]:
        await actionable_point(ctx, target)
        answer = await call_function(
            ctx,
            target.object_id,
            "selectOptions",
            values,
            session_id=target.session_id,
            what="select",
        )
        if not isinstance(answer, dict):
            raise ActionError("the select did not answer", code="select_mismatch")
        if "error" in answer:
            code = str(answer["error"])
            cls = ActionError if code == "select_mismatch" else ResolutionError
            raise cls(str(answer.get("message")), code=code)
        return {"selected": answer["selected"]}

    return await act_on(ctx, el, do)


async def set_checked(ctx: CommandContext, el: Resolved, wanted: bool) -> dict[str, Any]:
    state = await call_function(ctx, el.object_id, "checkedState", session_id=el.session_id)
    if not isinstance(state, dict) or state.get("kind") is None:
        raise ResolutionError("not a checkbox, radio or switch", code="not_editable")
    if state.get("checked") == wanted:
        return {
            "effect": {},
            "warnings": ["already_" + ("checked" if wanted else "unchecked")],
            "checked": wanted,
        }
    if not wanted and state.get("kind") == "radio":
        raise UsageError(
            "a radio button cannot be unchecked; check another one", code="bad_request"
        )
    result = await click_element(ctx, el)
    after = await call_function(ctx, el.object_id, "checkedState", session_id=el.session_id)
    if not isinstance(after, dict) or after.get("checked") != wanted:
        raise ActionError(
            f"the control is still {'un' if wanted else ''}checked after the click",
            code="check_failed",
        )
    result["checked"] = wanted
    return result
