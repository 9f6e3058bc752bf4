"""Element handles: what resolution hands to actions (``Resolved``), and the page-side calls
that produce them — a CSS/XPath query through frames, an element the latest observation stored,
one element's record for identity checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NotRequired, TypedDict, cast

from reins._errors import BrowserError, ReinsError, ResolutionError, UsageError
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.bridge.link import BatchAnswer, BatchStep, CdpCommand, CdpResult
from reins.observe.collect import ElementRecord, install_expression
from reins.page.call import (
    call_function,
    call_params,
    call_value,
    evaluate,
    evaluate_handle,
    evaluate_params,
    page_call,
)
from reins.page.dialogs import DialogWire
from reins.page.frames import session_for_iframe

__all__ = [
    "Counts",
    "FocusFrame",
    "FrameNamed",
    "Press",
    "PressResult",
    "Probe",
    "ProbeOptions",
    "ReadOptions",
    "Receipt",
    "Recovery",
    "Resolved",
    "StateRead",
    "describe",
    "find_all",
    "find_one",
    "handle_for_record",
    "match_handle",
    "refuse_frame_owner",
]

# Input events as (CDP method, params), built for a point of the main viewport.
InputAt = Callable[[float, float], list[CdpCommand]]


# ---- what the page functions of an action answer (pagescripts/src), once checked a dict ----


class Counts(TypedDict):
    """The DOM changes the state read counted since "before": in or under the target, elsewhere."""

    inside: int
    elsewhere: int


class FocusFrame(TypedDict, total=False):
    """A frame the target does not contain that holds keyboard focus now: its label and URL."""

    frame: str | None
    url: str


class Receipt(TypedDict, total=False):
    """What the receipt guard on the target's window saw of the press: how many of its events
    reached the target (or its label), and the ones that went elsewhere (stopped there)."""

    seen: int
    elsewhere: list[str]


class StateRead(TypedDict, total=False):
    """``readState``'s answer (pagescripts/src/effects.js): the target's state (``value``,
    ``checked``, ``selected``, ``expanded``, ``focus``, ``url``, ``connected``), whether its
    document is the top one and which one it is; after the action also the DOM changes counted,
    the hidden elements now shown, the navigation or download it started, a frame that took
    focus, the press's receipt and (``field``) the field's text."""

    connected: bool
    value: str | None
    checked: bool | str | None
    selected: list[str] | None
    expanded: bool | None
    focus: str | None
    url: str
    top: bool
    document: float
    counts: Counts | None
    shown: list[str]
    navigating: str | None
    downloading: str | None
    focusFrame: FocusFrame | None
    receipt: Receipt | None
    field: str


def state_read(value: object) -> StateRead | None:
    """A state read's answer as the page gave it, or None when it is no object."""
    return cast(StateRead, value) if isinstance(value, dict) else None


class ReadOptions(TypedDict, total=False):
    """The options of the state read after an action: how long it may wait on a sign of pending
    work, whether it lets the page finish a frame first, and whether it reads the field's text."""

    waitMs: int
    settle: str
    field: bool


class Probe(TypedDict, total=False):
    """The actionability probe's answer (pagescripts/src/actions.js ``probe``): ``state``
    (``ok`` or ``detached``), the checks (visible, stable, disabled, readonly) and the press
    point (``x``, ``y``), or why there is none (``zeroBox``, ``offscreen``, ``noHit``, ``cover``)."""

    state: str
    visible: bool
    stable: bool | None  # None: not asked (ProbeOptions.stable)
    deferred: bool  # the second look of stable is left to the press (ProbeOptions.defer)
    disabled: bool
    readonly: bool
    zeroBox: bool
    offscreen: bool
    noHit: bool
    cover: str | None
    x: float
    y: float


def probe_of(value: object) -> Probe | None:
    """A probe's answer as the page gave it, or None when it is no object."""
    return cast(Probe, value) if isinstance(value, dict) else None


class ProbeOptions(TypedDict):
    """What the probe is asked: to scroll the element into view, at which of the alignments,
    and the box the latest observation saw it at (the first of the stability check's looks);
    ``defer``: leave the second look of stable to the press's batch (act/guarded.py, steady);
    ``stable`` False: not to check it at all (fill, type, select: no point is pressed)."""

    scroll: bool
    align: int
    seen: list[float] | None
    defer: NotRequired[bool]
    stable: NotRequired[bool]


class Recovery(TypedDict):
    """How a stale ref was recovered: by the element's identity, with what confidence, from
    which ref of the latest observation."""

    via: str
    confidence: float
    ref: NotRequired[str]


class FrameNamed(TypedDict, total=False):
    """The frame --frame named, as the browser names it: Chrome's frame id, its URL (query
    values hidden) and its origin, when it has its own."""

    id: str
    url: str
    origin: str


@dataclass(frozen=True)
class Press:
    """Input an action may give in the very round trip that looks its ref up (act/refs.py): when
    the node the latest observation showed under the ref is still there, with the identity
    fields of the record the host's check passed, ready for input, and hit at the middle of the
    box it was seen at — the page checks all of it and the batch stops before the input if
    anything differs. Otherwise the action goes on as usual from what the lookup found.

    The plan only: what the lookup did with it comes back as ``Resolved.pressed``."""

    events: InputAt
    need_enabled: bool = True
    # The options of the state read after the input (act/effects.py, read_options).
    read_after: ReadOptions = field(default_factory=lambda: ReadOptions())
    # A press (not a hover): its input waits for Chrome's hit test after the move
    # (act/hittest.py), so the lookup gives only the check, the state read before and the
    # element's handle (``PressResult.checked_at``).
    hit_test: bool = False


@dataclass(frozen=True)
class PressResult:
    """What a ref's lookup did with its ``Press``, built once when the lookup answered.

    The input was given (``point``: where; ``count`` input events; ``answers``: the batch's
    answers from the first event on, the events then the read after; ``dialog``: the JavaScript
    dialog it opened; ``armed``: the receipt guard was armed before it, its read after holds what
    received it), or only checked (``checked_at``: the point the page checked; the move, Chrome's
    hit test and the press follow in act/pointer.py). ``before``: the state read before the
    input (None: not readable)."""

    point: tuple[float, float] | None = None
    count: int = 0
    before: StateRead | None = None
    answers: tuple[BatchAnswer, ...] = ()
    dialog: DialogWire | None = None
    armed: bool = False
    checked_at: tuple[float, float] | None = None

    @property
    def given(self) -> bool:
        return self.point is not None


@dataclass
class Resolved:
    """An element handle and where it lives, with what its resolution did, set when it is built
    (``dataclasses.replace`` makes another)."""

    object_id: str
    session_id: str | None = None
    backend_node_id: int | None = None
    via: str = "css"
    ref: str | None = None
    recovered: Recovery | None = None
    # The box the latest observation saw this very node at (main-frame nodes reached as the same
    # node only): the first of the two looks actionability's stability check needs.
    seen_box: list[float] | None = None
    # The first actionability probe's answer, taken with the ref's lookup (act/refs.py) or a
    # CSS/XPath one (find_one): the action's first probe (act/actionability.py, ``first_probe``).
    probed: Probe | None = None
    # What that probe was asked, when the lookup was told (find_one); the action takes the probe
    # only when it would ask the same (None: a ref's, taken as it is).
    probed_with: ProbeOptions | None = None
    # What the ref's lookup did with the action's Press (None: it had none, or none rode).
    pressed: PressResult | None = None
    # With --frame: the frame the element is in, as the browser names it ({id, url, origin}).
    frame: FrameNamed | None = None
    # For an element of an out-of-process frame: its iframe's backend node id, once the action
    # looked it up (act/actionability.py, frame_owner; a cache, never resolution's).
    frame_owner: int | None = None
    # The browser said, in the lookup's own round trip, that it owns no frame (find_one).
    owner_checked: bool = False


# Frame owners by the browser's own node name; any other element owns a frame when the browser
# reports one for it (an <object> holding a document).
_FRAME_OWNER_NAMES = frozenset({"IFRAME", "FRAME", "FENCEDFRAME", "EMBED"})


async def refuse_frame_owner(ctx: CommandContext, resolved: Resolved) -> None:
    """``target_is_frame`` when ``resolved`` is a frame owner: input to it is input to the
    document it shows, maybe another site's (issue 43). Asked of the browser (`DOM.describeNode`:
    its node name, the frame it owns), never of the page script, which the page can make lie."""
    described = await ctx.cdp(
        "DOM.describeNode",
        {"objectId": resolved.object_id, "depth": 0},
        session_id=resolved.session_id,
    )
    _refuse_owner_node(described, resolved)


def _refuse_owner_node(described: CdpResult, resolved: Resolved) -> None:
    node = described.get("node") or {}
    name = str(node.get("nodeName") or "").upper()
    if name in _FRAME_OWNER_NAMES or node.get("frameId") or node.get("contentDocument"):
        shown = name.lower() if name.isalpha() else "frame owner"
        raise ResolutionError(
            f"the target is a frame (<{shown}>): reins never presses, fills or types into a frame "
            "owner, which would give that input to the document it shows, maybe another site's",
            code="target_is_frame",
            details={"ref": resolved.ref} if resolved.ref else None,
        )


async def _ensure_api(ctx: CommandContext, session: str | None) -> None:
    installed = await evaluate(ctx, page_call("hasApi"), session_id=session, what="api check")
    if not installed:
        await evaluate(ctx, install_expression(), session_id=session, what="install page api")


async def describe(ctx: CommandContext, resolved: Resolved) -> ElementRecord:
    """The element record (docs/element-record.md) of one element, for identity checks.

    ``describe`` comes with the collection (it shares the collection's whole walk), which leaves
    it on the page; the rare document the collection has not run in gets it installed first."""
    record = await call_function(
        ctx, resolved.object_id, "describeElement", session_id=resolved.session_id, what="describe"
    )
    if record is None:  # a document the page script has not run in yet
        await _ensure_api(ctx, resolved.session_id)
        record = await call_function(
            ctx,
            resolved.object_id,
            "describeElement",
            session_id=resolved.session_id,
            what="describe",
        )
    return record if isinstance(record, dict) else {}


async def match_handle(ctx: CommandContext, index: int, session: str | None) -> str:
    handle = await evaluate_handle(
        ctx, page_call("matchAt", index), session_id=session, what="match handle"
    )
    if handle is None:
        raise ResolutionError("the element went away while being resolved", transient=True)
    return handle


async def find_one(
    ctx: CommandContext,
    kind: str,
    value: str,
    *,
    pierce: bool,
    control: bool,
    probe: ProbeOptions | None = None,
) -> tuple[int, Resolved | None] | None:
    """A CSS/XPath query of the top document in one round trip: the matches, the handle of the
    one match, (``control``) the browser's word that it owns no frame and (``probe``) the
    action's first actionability probe, as one sequential batch (the handle given to the
    commands after it by the extension: ``fill``; no handle when several matched, so the batch
    ends there). Answers the count and, when exactly one matched, the element; None when the
    query enters a frame (``find_all``)."""
    timeout = ctx.deadline.remaining_ms(headroom_ms=HEADROOM_MS)
    spec = {"kind": kind, "value": value, "frames": [], "shadow": [], "pierce": pierce}
    sole = page_call("matchAt", 0, True)
    commands: list[CdpCommand] = [
        ("Runtime.evaluate", evaluate_params(page_call("findMatches", spec), timeout)),
        ("Runtime.evaluate", evaluate_params(sole, timeout, by_value=False, object_group="reins")),
    ]
    each: list[BatchStep] = [{}, {}]
    handle_path: list[int | str] = [1, "result", "objectId"]
    if control:
        commands.append(("DOM.describeNode", {"objectId": "", "depth": 0}))
        each.append({"fill": {"objectId": handle_path}})
    if probe is not None:
        commands.append(
            ("Runtime.callFunctionOn", call_params("", "probe", probe, await_promise=True))
        )
        each.append({"fill": {"objectId": handle_path, "arguments.0.objectId": handle_path}})
    answers = await ctx.cdp_batch(commands, sequential=True, each=each)
    found = answers[0] if answers else None
    if isinstance(found, ReinsError):
        raise found
    answer = _matches(call_value(found or {}, what="find"), value)
    if "frame" in answer:
        return None
    count = int(answer["count"])
    if count != 1:
        return count, None
    handle = answers[1] if len(answers) > 1 else None
    if isinstance(handle, ReinsError):
        raise handle
    remote = call_value(handle or {}, what="match handle", by_value=False)
    object_id = remote.get("objectId") if isinstance(remote, dict) else None
    if not object_id or remote.get("subtype") == "null":
        raise ResolutionError("the element went away while being resolved", transient=True)
    resolved = Resolved(str(object_id), None, via=kind)
    described = answers[2] if control and len(answers) > 2 else None
    if isinstance(described, dict):
        _refuse_owner_node(described, resolved)
        resolved = replace(resolved, owner_checked=True)
    probed = answers[-1] if probe is not None and len(answers) == len(commands) else None
    if isinstance(probed, dict):
        try:  # a probe the page threw in is asked again by the action, which reports it
            taken = probe_of(call_value(probed, what="actionability"))
        except ReinsError:
            taken = None
        if taken is not None:
            resolved = replace(resolved, probed=taken, probed_with=probe)
    return 1, resolved


def _matches(answer: object, value: str) -> dict[str, Any]:
    """``findMatches``'s answer: {count} or {frame}; its errors raised as typed errors."""
    if not isinstance(answer, dict):
        raise BrowserError(
            "the page answered the query in a form reins cannot read",
            code="page_answer_invalid",
            transient=True,
        )
    if "error" in answer:
        code = str(answer["error"])
        if code == "invalid_selector":
            raise UsageError(f"{value!r}: {answer.get('message')}", code="invalid_selector")
        raise ResolutionError(str(answer.get("message")), code=code)
    return answer


async def find_all(
    ctx: CommandContext,
    kind: str,
    value: str,
    *,
    frames: tuple[str, ...] = (),
    shadow: tuple[str, ...] = (),
    pierce: bool = False,
) -> tuple[int, str | None]:
    """Run a CSS/XPath query through frames (entering OOPIF sessions as needed).

    ``pierce``: a CSS query also matches inside open shadow roots (a TARGET's CSS, as Playwright's
    css engine does); locators that name their shadow hosts do not need it.

    Returns (match count, session); the matches are parked page-side for ``match_handle``.
    """
    session: str | None = None
    remaining = list(frames)
    while True:
        spec = {
            "kind": kind,
            "value": value,
            "frames": remaining,
            "shadow": list(shadow),
            "pierce": pierce,
        }
        answer = _matches(
            await evaluate(ctx, page_call("findMatches", spec), session_id=session, what="find"),
            value,
        )
        if "frame" in answer:
            iframe = await match_handle(ctx, 0, session)
            session = await session_for_iframe(ctx, iframe, session_id=session)
            remaining = remaining[int(answer["frame"]) + 1 :]
            continue
        return int(answer["count"]), session


async def handle_for_record(
    ctx: CommandContext, home: tuple[str | None, int], *, via: str, ref: str | None = None
) -> Resolved:
    session, local = home
    handle = await evaluate_handle(
        ctx, page_call("storedElement", local), session_id=session, what="element handle"
    )
    if handle is None:
        raise ResolutionError("the element went away", code="ref_stale", transient=True)
    return Resolved(handle, session, via=via, ref=ref)
