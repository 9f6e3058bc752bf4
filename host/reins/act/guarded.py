"""A click's move, Chrome's hit test and its press in one round trip, the extension as the guard.

Before every press reins moves the mouse, asks Chrome what is at the point and presses only the
target (act/hittest.py). Asked one step at a time that is two round trips more than the press
alone. With an extension that says ``hitGuard`` (extension/hitguard.js) the whole of it goes down
as one ordered batch:

    the target's tree (``DOM.describeNode``, depth -1, pierced)
    the mouse move
    Chrome's hit test at the point, and the layout metrics that check its scroll guess
    the receipt guard armed on the target's window  ← ``onlyIf``: sent only when the hit is the
                                                       target or inside it, the scroll guess held
                                                       and no dialog opened since the batch began
    the press and release, then the state read after them

and the extension, which sees the hit test's answer before it sends the next command, ends the
batch before the press when the hit does not reach the target (``held_back``). The host then
judges that hit itself by the full rule (a label, a widget's own part, a closed shadow root's
control: act/pointer.py) and gives the press in a batch of its own when it reaches. The handle
may come from an earlier answer of the same batch (``fill``: a ref's lookup), so a ref's click
is one round trip from its lookup to the read after its press.

Here: building that part of a batch, reading its answers, and the receipt guard's reading
(what received the press), which every press shares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypedDict, cast

from reins._errors import ReinsError, ResolutionError
from reins.act.handles import PressResult, Receipt
from reins.act.hittest import DomNode, ScrollSeen, dom_node, scroll_checked
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, BatchStep, CdpCommand, CdpResult, PressGuard
from reins.bridge.protocol import HIT_GUARD
from reins.page.call import call_params, call_value, page_constant

__all__ = [
    "HeldBack",
    "PressFields",
    "Pressed",
    "arm_receipt",
    "guard_ready",
    "guarded_part",
    "judge_receipt",
    "read_guarded",
    "receipt_in",
    "took_press",
]

# Where the handle of a ``fill``ed command comes from: a Runtime.evaluate answer (by reference).
_HANDLE_PATH = ("result", "objectId")

# Offsets of the guarded part's commands from its first.
TREE, MOVE, HIT, METRICS, ARM, EVENTS = range(6)


def guard_ready(ctx: CommandContext, session_id: str | None) -> bool:
    """May a press ride with its hit test here: the extension guards it, and the target is in
    the top document's session (a target in an out-of-process frame is pressed the long way)."""
    return session_id is None and ctx.host.link.has(HIT_GUARD)


def arm_receipt(object_id: str, *, steady: bool = False) -> CdpCommand:
    """The command that arms the press's receipt guard on the element's window. ``steady``: its
    probe left the second look of "stable" to this press (act/actionability.py,
    ``defer_stable``): the arm takes it first, a frame after the probe's (the mouse move's own
    frame, usually), and throws when the element moved, which ends the batch before the press."""
    if steady:
        return (
            "Runtime.callFunctionOn",
            call_params(object_id, "armReceipt", True, await_promise=True),
        )
    return ("Runtime.callFunctionOn", call_params(object_id, "armReceipt"))


def guarded_part(
    ctx: CommandContext,
    move: CdpCommand,
    events: list[CdpCommand],
    *,
    handle: str | int,
    after: CdpCommand,
    at: int,
    steady: bool = False,
) -> tuple[list[CdpCommand], list[BatchStep]]:
    """The guarded part of a sequential batch, starting at index ``at`` of it: the commands and
    what each adds to its command. ``handle``: the element's handle (an object id), or the index of
    the earlier answer of the batch that holds it (``fill``). ``move``: the mouse move to the press
    point; ``events``: the press's input after it; ``after``: the read after it (which names no
    filled handle). ``steady``: the arm takes the second look of "stable" (``arm_receipt``)."""
    seen = ctx.part(ScrollSeen)
    object_id = "" if isinstance(handle, int) else handle
    fill: BatchStep = {}
    arm_fill: BatchStep = {}
    if isinstance(handle, int):
        path: list[int | str] = [handle, *_HANDLE_PATH]
        fill = {"fill": {"objectId": path}}
        arm_fill = {"fill": {"objectId": path, "arguments.0.objectId": path}}
    x, y = float(move[1]["x"]), float(move[1]["y"])
    commands: list[CdpCommand] = [
        ("DOM.describeNode", {"objectId": object_id, "depth": -1, "pierce": True}),
        move,
        (
            "DOM.getNodeForLocation",
            {
                "x": int(round(x + seen.x)),
                "y": int(round(y + seen.y)),
                "includeUserAgentShadowDOM": False,
                "ignorePointerEventsNone": False,
            },
        ),
        ("Page.getLayoutMetrics", {}),
        arm_receipt(object_id, steady=steady),
        *events,
        after,
    ]
    guard: PressGuard = {
        "tree": at + TREE,
        "hit": at + HIT,
        "metrics": at + METRICS,
        "scroll": [seen.x, seen.y],
        "noDialog": True,
    }
    each: list[BatchStep] = [
        fill,
        {},
        {},
        {},
        {**arm_fill, "onlyIf": guard, **({"stopIfThrown": True} if steady else {})},
        *(BatchStep(noWait=True) for _ in events[:-1]),
        {},
        {},
    ]
    return commands, each


@dataclass(frozen=True)
class HeldBack:
    """The extension held the press back: the hit test's answers, for the host to judge (the
    hit test at ``at`` of ``answers``, its metrics after it) and the target's tree."""

    tree: DomNode
    answers: list[BatchAnswer]
    at: int


@dataclass(frozen=True)
class Pressed:
    """The press was given: whether the receipt guard was armed, and the answers from the first
    event on (the events, then the read after)."""

    armed: bool
    given: list[BatchAnswer]


def read_guarded(ctx: CommandContext, answers: list[BatchAnswer], at: int) -> HeldBack | Pressed:
    """What a batch with the guarded part at ``at`` did. Raises what failed before the press
    (the describe, the move, the hit test: nothing was pressed)."""
    for answer in answers[at : at + HIT]:
        if isinstance(answer, ReinsError):
            raise answer
    if len(answers) <= at + MOVE:
        raise ReinsError("the mouse move was cut short", code="cdp_error", transient=True)
    tree = answers[at + TREE]
    assert isinstance(tree, dict)
    arm = answers[at + ARM] if len(answers) > at + ARM else None
    if arm is None or (isinstance(arm, ReinsError) and arm.chrome == "held_back"):
        return HeldBack(dom_node(tree), answers, at + HIT)
    if isinstance(arm, dict) and arm.get("exceptionDetails"):
        # A steady arm found the element moved since its probe: nothing was pressed.
        _steady_refused(arm)
    metrics = answers[at + METRICS]
    if isinstance(metrics, dict):
        scroll_checked(ctx, metrics)  # the guard found it unchanged; kept all the same
    return Pressed(not isinstance(arm, ReinsError), answers[at + EVENTS :])


def _steady_refused(arm: CdpResult) -> None:
    try:
        call_value(arm, what="press guard")
    except ReinsError as exc:
        if page_constant("MOVING") in str(exc):
            raise ResolutionError(
                "the element is moving", code="not_stable", transient=True
            ) from None
        raise
    raise ReinsError("the press guard answered nothing", code="cdp_error", transient=True)


def took_press(
    ctx: CommandContext,
    checked: PressResult,
    answers: list[BatchAnswer],
    at: int,
    count: int,
) -> PressResult | None:
    """The press of a ref's lookup batch (its guarded part at ``at``; ``count`` input events
    after the move), given at the point its check set (``checked``): what was pressed, with the
    answers from the first event on and whether the receipt guard was armed; None when it was
    not given (held back, or something before the press failed): the click then goes on from
    the element's handle the long way."""
    try:
        outcome = read_guarded(ctx, answers, at)
    except ReinsError:
        return None
    if isinstance(outcome, HeldBack) or checked.checked_at is None:
        return None
    ctx.note("press_guarded")
    given = tuple(outcome.given[: count + 1])
    return replace(
        checked, point=checked.checked_at, count=count, answers=given, armed=outcome.armed
    )


def receipt_in(answer: BatchAnswer) -> Receipt | None:
    """The receipt a read after the press answered (``readState`` or ``takeReceipt``)."""
    if isinstance(answer, ReinsError):
        return None
    try:
        value = call_value(answer, what="receipt")
    except ReinsError:
        return None
    if isinstance(value, dict) and "seen" not in value:
        value = value.get("receipt")
    return cast(Receipt, value) if isinstance(value, dict) else None


class PressFields(TypedDict, total=False):
    """A press's own answer fields: how it was given (``cdp``: input events at ``point``, in
    viewport CSS pixels; ``js``, ``js_fallback``: the element's click()) and its warnings."""

    method: str
    point: list[float]
    warnings: list[str]


def judge_receipt(receipt: Receipt | None, extra: PressFields) -> PressFields:
    """What received the press, by reins's capture listener on the target's window: an event
    of the press on anything but the target (or its label) is ``press_intercepted``; none seen
    at all is a warning (another frame took it, or the page stopped it first)."""
    if receipt is None:
        return extra
    elsewhere = [str(e) for e in receipt.get("elsewhere") or []]
    if elsewhere:
        raise ResolutionError(
            f"the press went to another element ({'; '.join(elsewhere[:3])}), not the target:"
            " reins stopped those events there (their default action and the page's later"
            " listeners), but what the page moved under the pointer may have seen them",
            code="press_intercepted",
            details={"received_by": elsewhere},
        )
    if not receipt.get("seen"):
        return {**extra, "warnings": [*extra.get("warnings", []), "press_not_seen"]}
    return extra
