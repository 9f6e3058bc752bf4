"""The browser's word beside reins's own: after `fill`, `check`, `select` and `choose`, before
`expect value|checked|unchecked` and `wait --text` pass, Chrome's accessibility tree is asked
what the control holds (or the text shows), and an answer that differs from what reins's world
read is `unverified`, never ok.

reins's world reads values with built-ins the page cannot replace; the accessibility tree is
Chrome's own model of the same control, which no page script takes part in. They agree on every
honest page. Where the tree has no opinion (no node, an ignored one, no value for this kind of
control, a password field, a date or color picker whose value it shows formatted, a text it
holds no visible text node of), nothing is compared: the world's read stands, as before. One
`Accessibility.getPartialAXTree` (for a text, one `queryAXTree`) per action.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from reins._errors import ActionError, ReinsError
from reins.act.handles import Resolved
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, CdpCommand, CdpResult
from reins.observe.ax import TEXT_FIELD_ROLES, ax_states, ax_text_differs, ax_value, words
from reins.page.call import evaluate_handle, page_call
from reins.page.poll import NotYet

__all__ = [
    "TEXT_FIELD_ROLES",
    "ax_node_command",
    "ax_node_of",
    "confirm_checked",
    "confirm_chosen",
    "confirm_selected",
    "confirm_shown",
    "confirm_text",
    "text_agrees",
    "text_shown",
]

# `expect value` leaves a combobox out: a <select> is one, whose AX value is its label.
_TEXT_ROLES = TEXT_FIELD_ROLES | {"combobox"}
_ASK_MS = 1000
# How long `wait --text` asks Chrome's tree again when it does not show a text reins's world
# found (the tree may trail a text that appeared a moment ago).
_TREE_CATCH_UP_S = 0.5


def ax_node_command(el: Resolved) -> CdpCommand:
    """The question of the element's node in Chrome's accessibility tree, as a batch command (an
    action may ask it in the round trip of its last step: ``ax_node_of`` reads the answer)."""
    return ("Accessibility.getPartialAXTree", {"objectId": el.object_id, "fetchRelatives": False})


def ax_node_of(answer: BatchAnswer) -> CdpResult | None:
    """The node (CDP ``AXNode``, raw: read by observe/ax.py) ``ax_node_command`` was answered,
    or None when Chrome has no opinion (no node, an ignored one, or the question failed)."""
    if isinstance(answer, ReinsError):
        return None  # no opinion: the world's read stands
    nodes = [n for n in answer.get("nodes") or [] if isinstance(n, dict)]
    return next((n for n in nodes if not n.get("ignored")), None)


async def _node(ctx: CommandContext, el: Resolved) -> CdpResult | None:
    """The element's node in Chrome's accessibility tree, or None when Chrome has no opinion."""
    method, params = ax_node_command(el)
    try:
        answer = await ctx.cdp(
            method, params, session_id=el.session_id, deadline=ctx.deadline.child(_ASK_MS)
        )
    except ReinsError as exc:
        return ax_node_of(exc)
    return ax_node_of(answer)


def _squashed(text: str) -> str:
    """Text as compared across the two readings: no whitespace at all (the tree splits text into
    nodes where the DOM has none, and the DOM has line breaks the tree drops), case folded (the
    tree shows `text-transform`'s rendering)."""
    return "".join(text.split()).casefold()


def _unverified(what: str, ours: Any, theirs: Any) -> ActionError:
    return ActionError(
        f"reins read {what} {ours!r} from the page, but the browser's accessibility tree says "
        f"{theirs!r}: what the control holds is not confirmed",
        code="unverified",
        details={"read": ours, "accessibility": theirs},
    )


def text_agrees(node: CdpResult | None, text: str, roles: frozenset[str] = _TEXT_ROLES) -> None:
    """Raises ``unverified`` when the tree's node of a text field holds another value than
    ``text`` (compared with whitespace collapsed); a node with no opinion passes (pure)."""
    theirs = ax_text_differs(node, text, roles) if node is not None else None
    if theirs is not None:
        raise _unverified("the value", text, theirs)


async def confirm_text(
    ctx: CommandContext, el: Resolved, text: str, *, roles: frozenset[str] = _TEXT_ROLES
) -> None:
    """A text field's value as the tree has it, compared with whitespace collapsed."""
    text_agrees(await _node(ctx, el), text, roles)


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
    if isinstance(theirs, str) and words(theirs) != words(selected[0]):
        raise _unverified("the selected option", selected[0], theirs)


async def confirm_chosen(ctx: CommandContext, trigger: Resolved, label: str) -> None:
    """`choose`: a combobox the tree gives a value (the text it shows) holds the chosen label.
    A trigger of another role (a button whose name is its field's label) has no opinion."""
    node = await _node(ctx, trigger)
    if node is None or ax_value(node, "role") != "combobox":
        return
    theirs = ax_value(node, "value")
    if isinstance(theirs, str) and theirs.strip() and _squashed(label) not in _squashed(theirs):
        raise _unverified("the chosen option", label, theirs)


async def confirm_shown(ctx: CommandContext, holder: Resolved, text: str) -> None:
    """`wait --text`: the text nodes Chrome's tree has under the element that holds the text
    (``Accessibility.queryAXTree`` for StaticText, ignored ones left out) show it too."""
    try:
        answer = await ctx.cdp(
            "Accessibility.queryAXTree",
            {"objectId": holder.object_id, "role": "StaticText"},
            session_id=holder.session_id,
            deadline=ctx.deadline.child(_ASK_MS),
        )
    except ReinsError:
        return  # no opinion: the world's read stands
    shown = "".join(
        name
        for n in answer.get("nodes") or []
        if isinstance(n, dict)
        and not n.get("ignored")
        and isinstance(name := ax_value(n, "name"), str)
    )
    if shown and _squashed(text) not in _squashed(shown):
        raise _unverified("the text", text, shown[:200])


async def text_shown(ctx: CommandContext, wanted: str, exact: bool, disagreed: list[float]) -> None:
    """One look of `wait --text`: the element reins's world finds holding the text
    (``textHolder``), confirmed by Chrome's tree (``confirm_shown``). ``NotYet`` while the text
    is not there, or while the tree has disagreed for less than half a second (``disagreed``:
    when it did, kept across looks); then ``unverified``."""
    holder = await evaluate_handle(
        ctx, page_call("textHolder", {"text": wanted, "exact": exact}), what="wait"
    )
    if holder is None:
        raise NotYet("the text is not on the page")
    try:
        await confirm_shown(ctx, Resolved(holder, via="text"), wanted)
    except ActionError as exc:
        disagreed.append(time.monotonic())
        if disagreed[-1] - disagreed[0] < _TREE_CATCH_UP_S:
            raise NotYet(exc.message) from None
        raise
    finally:
        # A look every tenth of a second: its handle is let go at once, not kept with the
        # lookups' group until the next observation releases it.
        with contextlib.suppress(ReinsError):
            await ctx.cdp("Runtime.releaseObject", {"objectId": holder})
