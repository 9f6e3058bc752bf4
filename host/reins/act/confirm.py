"""The browser's word beside reins's own: after `fill`, `check` and `select`, and before `expect
value|checked|unchecked` passes, Chrome's accessibility tree is asked what the control holds,
and an answer that differs from what reins's world read is `unverified`, never ok.

reins's world reads values with built-ins the page cannot replace; the accessibility tree is
Chrome's own model of the same control, which no page script takes part in. They agree on every
honest page. Where the tree has no opinion (no node, an ignored one, no value for this kind of
control, a password field, a date or color picker whose value it shows formatted), nothing is
compared: the world's read stands, as before. One `Accessibility.getPartialAXTree` per action.
"""

from __future__ import annotations

from typing import Any

from reins._errors import ActionError, ReinsError
from reins.act.handles import Resolved
from reins.bridge.context import CommandContext
from reins.observe.ax import ax_states, ax_value

__all__ = ["TEXT_FIELD_ROLES", "confirm_checked", "confirm_selected", "confirm_text"]

# The roles whose AX value is the text a person sees in the field (a text input with a list of
# suggestions is a combobox; a <select> is one too, whose value is its label: `expect value`
# leaves it out).
TEXT_FIELD_ROLES = frozenset({"textbox", "searchbox"})
_TEXT_ROLES = TEXT_FIELD_ROLES | {"combobox"}
_ASK_MS = 1000
_MASKS = frozenset("•*●")


async def _node(ctx: CommandContext, el: Resolved) -> dict[str, Any] | None:
    try:
        answer = await ctx.cdp(
            "Accessibility.getPartialAXTree",
            {"objectId": el.object_id, "fetchRelatives": False},
            session_id=el.session_id,
            deadline=ctx.deadline.child(_ASK_MS),
        )
    except ReinsError:
        return None  # no opinion: the world's read stands
    nodes = [n for n in answer.get("nodes") or [] if isinstance(n, dict)]
    return next((n for n in nodes if not n.get("ignored")), None)


def _words(text: str) -> str:
    return " ".join(text.split())


def _unverified(what: str, ours: Any, theirs: Any) -> ActionError:
    return ActionError(
        f"reins read {what} {ours!r} from the page, but the browser's accessibility tree says "
        f"{theirs!r}: what the control holds is not confirmed",
        code="unverified",
        details={"read": ours, "accessibility": theirs},
    )


async def confirm_text(
    ctx: CommandContext, el: Resolved, text: str, *, roles: frozenset[str] = _TEXT_ROLES
) -> None:
    """A text field's value as the tree has it, compared with whitespace collapsed."""
    node = await _node(ctx, el)
    if node is None or ax_value(node, "role") not in roles:
        return
    theirs = ax_value(node, "value")
    if isinstance(theirs, str) and theirs and set(theirs) <= _MASKS:
        return  # a password field: the tree shows it masked
    if isinstance(theirs, str | int | float) and _words(str(theirs)) != _words(text):
        raise _unverified("the value", text, str(theirs))


async def confirm_checked(ctx: CommandContext, el: Resolved, wanted: bool) -> None:
    node = await _node(ctx, el)
    theirs = ax_states(node).get("checked") if node is not None else None
    if isinstance(theirs, bool) and theirs is not wanted:
        raise _unverified("checked", wanted, theirs)


async def confirm_selected(ctx: CommandContext, el: Resolved, selected: list[str]) -> None:
    """A one-choice select's chosen label as the tree has it (a list box has no single value)."""
    if len(selected) != 1:
        return
    node = await _node(ctx, el)
    if node is None or ax_value(node, "role") != "combobox":
        return
    theirs = ax_value(node, "value")
    if isinstance(theirs, str) and _words(theirs) != _words(selected[0]):
        raise _unverified("the selected option", selected[0], theirs)
