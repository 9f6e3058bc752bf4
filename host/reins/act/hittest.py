"""The browser's hit test before a press: what Chrome itself will send the pointer to.

A page's own code cannot say what is under a point: it may redefine ``elementFromPoint`` and lay
another origin's frame, nearly transparent, over the target, or move another element under the
pointer when the mouse arrives. So before every press reins gives the mouse move first, then
asks Chrome (``DOM.getNodeForLocation``, in the main frame's document coordinates) what is at
the press point, and presses only when that is the target or inside it (shadow-including) —
never a frame owner other than the target, never a node of another frame. Anything else is
``obscured``, naming what is there, and no press is sent.

The target's subtree comes from Chrome too (``DOM.describeNode`` with ``pierce``), in the same
round trip as the move and the hit test: the check itself runs in the host, not in the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict, cast
from urllib.parse import urlsplit

from reins._errors import ReinsError, ResolutionError
from reins._pagetext import quote
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.link import BatchAnswer, CdpCommand, CdpResult
from reins.observe.sealed import is_control, node_attributes
from reins.page.call import OWN_WORLD, call_params, call_value

__all__ = [
    "DomNode",
    "HitPlan",
    "ScrollSeen",
    "closed_control",
    "hit_after_move",
    "hit_commands",
    "judge",
    "judge_hit",
    "dom_node",
    "name_node",
    "what_is_at",
    "subtree",
]

# Elements that show another document: a hit on one that is not the target is a press into a
# frame the target is not in.
FRAME_OWNERS = frozenset({"IFRAME", "FRAME", "OBJECT", "EMBED", "FENCEDFRAME", "PORTAL"})

# How often a hit test is asked again when the page scrolled between the guess and the answer.
_SCROLL_TRIES = 3


@dataclass
class ScrollSeen(TabPart):
    """The main frame's scroll offset Chrome last reported (``Page.getLayoutMetrics``): the guess
    that turns a viewport point into the document point the hit test takes, checked in the same
    round trip."""

    x: float = 0.0
    y: float = 0.0

    def on_detach(self) -> None:
        self.x = self.y = 0.0


class DomNode(TypedDict, total=False):
    """A node as Chrome describes it (CDP ``DOM.Node``: the fields reins reads)."""

    backendNodeId: int
    nodeType: int
    nodeName: str
    localName: str
    nodeValue: str
    attributes: list[str]
    children: list[DomNode]
    shadowRoots: list[DomNode]
    pseudoElements: list[DomNode]
    contentDocument: DomNode
    shadowRootType: str
    frameId: str


def dom_node(result: CdpResult) -> DomNode:
    """The node of a ``DOM.describeNode`` answer ({} when it has none)."""
    node = result.get("node")
    return cast(DomNode, node) if isinstance(node, dict) else {}


def _inside(node: DomNode) -> list[DomNode]:
    """A described node's children, shadow roots and pseudo-elements, in that order."""
    return [
        c
        for c in (
            *(node.get("children") or []),
            *(node.get("shadowRoots") or []),
            *(node.get("pseudoElements") or []),
        )
        if isinstance(c, dict)
    ]


def subtree(node: DomNode) -> dict[int, str]:
    """backendNodeId → nodeName of a ``DOM.describeNode`` tree: the node, its descendants and
    their shadow roots and pseudo-elements (pure). A frame's document is inside only when the
    node itself is that frame's owner (the target is the frame)."""
    out: dict[int, str] = {}
    stack = [node]
    document = node.get("contentDocument")
    if isinstance(document, dict):
        stack.append(document)
    while stack:
        n = stack.pop()
        backend = n.get("backendNodeId")
        if isinstance(backend, int):
            out[backend] = str(n.get("nodeName") or "")
        stack.extend(_inside(n))
    return out


def judge(target: DomNode, hit: int, *, owner: int | None = None) -> bool:
    """Does a press at a point whose hit test answered ``hit`` go to ``target`` (pure)?

    ``target``: the target's ``describeNode`` tree. ``owner``: for a target in an out-of-process
    frame, the backend node id of its frame's owner in the main frame, which is all the main
    frame's hit test can see of it (that test must answer exactly the owner)."""
    if owner is not None:
        return hit == owner
    nodes = subtree(target)
    if hit not in nodes:
        return False
    root = target.get("backendNodeId")
    return hit == root or nodes[hit] not in FRAME_OWNERS


def _text_of(node: DomNode, limit: int = 40) -> str:
    parts: list[str] = []
    stack = [node]
    while stack and sum(len(p) for p in parts) < limit:
        n = stack.pop()
        if n.get("nodeType") == 3:
            parts.append(str(n.get("nodeValue") or ""))
        stack.extend(reversed([c for c in n.get("children") or [] if isinstance(c, dict)]))
    return " ".join(" ".join(parts).split())[:limit]


def closed_control(target: DomNode, hit: int) -> str | None:
    """When the hit lies inside a closed shadow root of the target, under a control of that
    closed tree (a button, a link, a field, a widget role): that control's label (pure). The page
    cannot show reins those (page code cannot reach a closed root), so a press there would be
    the closed tree's control, not the element the agent named: never pressed as it."""
    path: list[DomNode] = []

    def find(n: DomNode) -> bool:
        path.append(n)
        if n.get("backendNodeId") == hit:
            return True
        if any(find(c) for c in _inside(n)):
            return True
        path.pop()
        return False

    if not find(target):
        return None
    closed_at = next((i for i, n in enumerate(path) if n.get("shadowRootType") == "closed"), None)
    if closed_at is None:
        return None
    for n in reversed(path[closed_at + 1 :]):
        if is_control(n):
            text = _text_of(n)
            return name_node(n) + (f' "{text}"' if text else "")
    return None


def name_node(node: DomNode) -> str:
    """A short label for a node Chrome described: ``tag#id.class``, and for a frame owner the
    origin its frame shows (pure; printed as data by the renderers)."""
    tag = str(node.get("localName") or node.get("nodeName") or "node").lower()
    attrs = node_attributes(node)
    label = tag
    if attrs.get("id"):
        label += "#" + attrs["id"][:40]
    classes = attrs.get("class", "").split()
    if classes:
        label += "." + ".".join(c[:30] for c in classes[:2])
    if str(node.get("nodeName") or "").upper() in FRAME_OWNERS:
        src = attrs.get("src") or attrs.get("data") or ""
        parts = urlsplit(src)
        if parts.scheme and parts.netloc:
            label += f" (a frame of {parts.scheme}://{parts.netloc})"
        else:
            label += " (a frame)"
    return label


@dataclass
class HitPlan:
    """Where one press goes: the point of the main viewport the mouse events use, and for a target
    in an out-of-process frame, its owner's backend node id."""

    x: int
    y: int
    owner: int | None = None


def hit_commands(ctx: CommandContext, plan: HitPlan) -> list[CdpCommand]:
    """The hit test at ``plan``'s point in document coordinates (the scroll offset guessed from
    ``ScrollSeen``), then the layout metrics that check the guess."""
    seen = ctx.part(ScrollSeen)
    return [
        (
            "DOM.getNodeForLocation",
            {
                "x": int(round(plan.x + seen.x)),
                "y": int(round(plan.y + seen.y)),
                "includeUserAgentShadowDOM": False,
                "ignorePointerEventsNone": False,
            },
        ),
        ("Page.getLayoutMetrics", {}),
    ]


def scroll_checked(ctx: CommandContext, metrics: CdpResult) -> bool:
    """Did the hit test use the scroll offset Chrome reports now? Keeps the new one either way."""
    viewport = metrics.get("cssLayoutViewport") or {}
    x, y = float(viewport.get("pageX") or 0.0), float(viewport.get("pageY") or 0.0)
    seen = ctx.part(ScrollSeen)
    same = abs(seen.x - x) < 0.5 and abs(seen.y - y) < 0.5
    seen.x, seen.y = x, y
    return same


async def hit_after_move(
    ctx: CommandContext,
    plan: HitPlan,
    answers: list[BatchAnswer],
    at: int,
) -> int | None:
    """The hit test's node from a batch's answers (``hit_commands`` at index ``at``), asked again
    (no new move) while the page's scroll offset was not the one guessed. None: nothing at the
    point (off the visible area)."""
    for _ in range(_SCROLL_TRIES):
        hit = answers[at] if len(answers) > at else None
        metrics = answers[at + 1] if len(answers) > at + 1 else None
        if hit is None:
            raise ReinsError("the hit test was cut short", code="cdp_error", transient=True)
        nothing = isinstance(hit, ReinsError) and hit.chrome == "no_node_at_point"
        if isinstance(hit, ReinsError):
            if not nothing:
                raise hit
        if metrics is None:  # the batch stopped at a point off the document: check the guess
            metrics = await ctx.cdp("Page.getLayoutMetrics", {})
        if isinstance(metrics, ReinsError):
            raise metrics
        if scroll_checked(ctx, metrics):
            return None if isinstance(hit, ReinsError) else int(hit["backendNodeId"])
        answers, at = await ctx.cdp_batch(hit_commands(ctx, plan), sequential=True), 0
    raise ResolutionError(
        "the page kept scrolling under the pointer", code="not_stable", transient=True
    )


async def what_is_at(ctx: CommandContext, hit: int) -> str:
    """A label for the node Chrome's hit test found (``name_node``)."""
    try:
        described = await ctx.cdp("DOM.describeNode", {"backendNodeId": hit})
    except ReinsError:
        return "another element"
    return name_node(dom_node(described))


async def judge_hit(
    ctx: CommandContext,
    object_id: str,
    session_id: str | None,
    plan: HitPlan,
    tree: DomNode,
    answers: list[BatchAnswer],
    at: int,
) -> None:
    """Raises ``obscured`` (or ``ambiguous``) unless a press where the hit test at ``at`` of
    ``answers`` looked reaches the element ``object_id`` names (``tree``: its ``describeNode`` tree)."""
    hit = await hit_after_move(ctx, plan, answers, at)
    inner = closed_control(tree, hit) if hit is not None else None
    if inner is not None:
        raise ResolutionError(
            f"the element holds controls of its own in a closed shadow root: the press would go"
            f" to {inner}, not to the element as one control; no press was given",
            code="ambiguous",
            details={"inner_control": inner},
        )
    if hit is None or not (
        judge(tree, hit, owner=plan.owner)
        or (plan.owner is None and await _reaches_target(ctx, object_id, session_id, hit))
    ):
        raise _obscured(None if hit is None else await what_is_at(ctx, hit))


async def _reaches_target(
    ctx: CommandContext, object_id: str, session_id: str | None, hit: int
) -> bool:
    """Does a press on the node Chrome's hit test found reach the target all the same? Inside the
    target's own ``<label>`` (the browser hands the press to its control), or a part drawn with
    it in its widget that is no control itself (a placeholder laid over the input): reins's
    world judges (``pressReaches``, the rule its probe and receipt guard use). Same document
    only: neither is ever in another frame than its control."""
    if session_id is not None:
        return False
    try:
        described = dom_node(await ctx.cdp("DOM.describeNode", {"backendNodeId": hit}))
        if str(described.get("nodeName") or "").upper() in FRAME_OWNERS:
            return False  # a frame inside a label takes the click itself: never passed through
        # In reins's world of the top document, where the target's handle is: a node of another
        # document (a same-site frame) does not resolve there, so it is never taken for a label.
        node = await ctx.cdp(
            "DOM.resolveNode",
            {"backendNodeId": hit, "executionContextId": OWN_WORLD, "objectGroup": "reins"},
        )
        hit_object = (node.get("object") or {}).get("objectId")
        if not hit_object:
            return False
        params = call_params(str(hit_object), "pressReaches")
        params["arguments"].append({"objectId": object_id})
        answer = await ctx.cdp("Runtime.callFunctionOn", params)
    except ReinsError:
        return False
    return call_value(answer, what="label check") is True


def _obscured(label: str | None) -> ResolutionError:
    """Chrome's hit test found ``label`` (None: nothing) where the press would go."""
    if label is None:
        return ResolutionError(
            "nothing of the page is at the press point (Chrome's hit test)",
            code="obscured",
            transient=True,
        )
    return ResolutionError(
        f"the element is covered by {quote(label, 160)} (Chrome's hit test at the press point,"
        " after the mouse moved there): no press was given",
        code="obscured",
        transient=True,
        details={"covered_by": label},
        hint="`reins state` shows what the page offers now; a frame laid over the element takes"
        " the click, not the element",
    )
