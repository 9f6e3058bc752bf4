"""Refs to elements: the very node the latest observation showed, else the same backend node,
else the ref's locator (strong refs only), each verified against the registered identity; else the
element re-identified by its identity signals, used only when unambiguous (confidence ≥ 0.75 and
a margin over the runner-up), else ``ref_stale`` with the candidates."""

from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

from reins._errors import ReinsError, ResolutionError
from reins._pagetext import quote, word
from reins._pagetext import ref as quote_ref
from reins.act.effects import ASK_AFTER_MS
from reins.act.guarded import guard_ready, guarded_part, took_press
from reins.act.handles import (
    Press,
    PressResult,
    ProbeOptions,
    Recovery,
    Resolved,
    describe,
    find_all,
    handle_for_record,
    match_handle,
    probe_of,
    state_read,
)
from reins.act.presscheck import (
    PressPlan,
    expected_identity,
    findings,
    held_plan,
    keep_defined,
    remote_handle,
)
from reins.act.targets import Target
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.bridge.link import BatchAnswer, BatchStep, CdpResult
from reins.bridge.protocol import STOP_IF_THROWN
from reins.observe.collect import ElementRecord
from reins.observe.identity import MATCH_THRESHOLD, Identity, compare
from reins.observe.page import observe_page
from reins.observe.registry import RegistryEntry
from reins.observe.store import ObserveState, SeenAt, current_url, registry_for, seen_for
from reins.page.call import (
    HeldFunctions,
    call_value,
    evaluate_handle,
    evaluate_params,
    page_call,
)
from reins.page.dialogs import DialogOpened, DialogWatch, until_dialog
from reins.page.world import node_in_own_world

__all__ = ["resolve_ref"]

# A recovered candidate must beat the runner-up by this much to count as unambiguous.
RECOVERY_MARGIN = 0.05


async def _by_locator(ctx: CommandContext, entry: RegistryEntry) -> Resolved | None:
    loc = entry.locator
    if loc.selector is None:
        return None
    kind = "xpath" if loc.selector.startswith(("/", "(")) else "css"
    try:
        count, session = await find_all(
            ctx, kind, loc.selector, frames=loc.frames, shadow=loc.shadow
        )
    except ResolutionError:
        return None
    if count != 1:
        return None
    return Resolved(await match_handle(ctx, 0, session), session, via="ref", ref=entry.ref)


def _plan_press(
    ctx: CommandContext,
    press: Press,
    entry: RegistryEntry,
    seen: SeenAt,
    index: int,
    options: ProbeOptions | None,
    timeout: int,
) -> PressPlan | None:
    """The Press in this lookup's batch, or None when it cannot ride (an extension that cannot
    stop the batch, an element of a frame, no record that passes the identity check)."""
    gen = seen.gens.get("main")
    seen_box = options.get("seen") if options is not None else None
    if seen_box is None or not ctx.host.link.has(STOP_IF_THROWN):
        return None
    expect = expected_identity(ctx, entry, gen, index)
    if expect is None or expect.get("role") == "frame":
        # A frame owner is never pressed (issue 43): the action goes the way that asks the
        # browser what the node is before any input (act/locate.py, refuse_frame_owner).
        return None
    point = (seen_box[0] + seen_box[2] / 2, seen_box[1] + seen_box[3] / 2)
    after_ms = max(1, ctx.deadline.remaining_ms(headroom_ms=ASK_AFTER_MS))
    check_args = (gen, index, options, expect, list(point), press.need_enabled)
    after_args = (gen, index, "after", press.read_after)
    handle = (
        (
            "Runtime.evaluate",
            evaluate_params(
                page_call("sameNode", gen, index), timeout, by_value=False, object_group="reins"
            ),
        )
        if press.hit_test
        else None
    )
    plan = held_plan(ctx, press, seen, point, check_args, after_args, after_ms, timeout)
    if handle is None:
        return plan
    guarded = None
    if guard_ready(ctx, None):  # the check at 0, the handle at 1, then the guarded part
        move, *events = plan.events
        guarded = guarded_part(ctx, move, events, handle=1, after=plan.after, at=2)
    return replace(plan, handle=handle, guarded=guarded)


def _given(
    ctx: CommandContext,
    plan: PressPlan,
    tail: list[BatchAnswer],
    checked: CdpResult,
    document_id: str,
) -> tuple[ElementRecord, PressResult]:
    """``pressSame`` answered (``checked``) without throwing, so the extension went on with the
    input (``tail``: the batch's answers after the check; kept: the functions the batch
    compiled). Answers the check's record and what was pressed (or only checked, when the
    press waits for Chrome's hit test)."""
    try:
        value = call_value(checked, what="press")
    except ReinsError:
        value = None
    found = value if isinstance(value, dict) else {}
    count = len(plan.events)
    if plan.defining:
        keep_defined(ctx.part(HeldFunctions), document_id, tail[plan.defs_at :])
    else:
        ctx.note("press_by_held_functions")
    before = state_read(found.get("before"))
    if plan.handle is not None:
        pressed = PressResult(before=before, checked_at=plan.point)
    else:
        pressed = PressResult(plan.point, count, before, tuple(tail[: count + 1]))
    ctx.note("press_with_lookup")
    record = found.get("record")
    return (record if isinstance(record, dict) else {}), pressed


async def _by_last_snapshot(
    ctx: CommandContext, entry: RegistryEntry, *, probe: bool, press: Press | None = None
) -> tuple[Resolved, ElementRecord] | None:
    """The very node the tab's latest observation showed under this ref, if it is still attached,
    and its record now (for the identity check) — with ``probe``, also the actionability probe an
    action would start with (``Resolved.probed``): one round trip.

    With ``press``, that same round trip may also give the action's input (``Press``; what it
    did: ``Resolved.pressed``): the
    page checks the node's identity fields against the collection's record the host checked,
    and its readiness at the middle of the box it was seen at, and the batch stops before the
    input when anything differs (``stopIfThrown``, an extension that says it has it).

    DOM-source records carry no backend node id; the page script keeps the observed nodes with a
    generation mark, so this is the same-node fast path for them — also after a host restart,
    through the positions saved beside the registry (a re-render detaches the node: None).
    """
    seen = seen_for(ctx, ctx.part(ObserveState).registry_url)
    if seen is None or seen.document_id != entry.document_id or entry.ref not in seen.homes:
        return None
    session, index = seen.homes[entry.ref]
    gen = seen.gens.get(session or "main")
    timeout = ctx.deadline.remaining_ms(headroom_ms=HEADROOM_MS)
    if timeout <= 0:
        return None
    seen_box: list[float] | None = None
    if session is None and not entry.locator.frames and entry.bounds is not None:
        b = entry.bounds
        seen_box = [b.x, b.y, b.width, b.height]
    # The first probe of actionable_point (align 0), for an element of the main context only
    # (an out-of-process frame's owner is scrolled into view before its probe).
    options: ProbeOptions | None = (
        {"scroll": True, "align": 0, "seen": seen_box} if probe and session is None else None
    )
    plan = (
        _plan_press(ctx, press, entry, seen, index, options, timeout)
        if press is not None and session is None
        else None
    )
    if plan is not None:
        return await _press_with_lookup(ctx, entry, plan, seen, index, seen_box)
    same = (
        "Runtime.evaluate",
        evaluate_params(
            page_call("sameNode", gen, index), timeout, by_value=False, object_group="reins"
        ),
    )
    check = (
        "Runtime.evaluate",
        evaluate_params(page_call("probeSame", gen, index, options), timeout, await_promise=True),
    )
    try:
        answers = await ctx.cdp_batch([same, check], session_id=session, sequential=True)
    except ReinsError:
        return None
    if len(answers) < 2 or isinstance(answers[0], ReinsError):
        return None  # the batch stopped there: nothing after it was sent
    if isinstance(answers[1], ReinsError):
        ctx.part(HeldFunctions).forget()  # a handle of a context that went away
        return None
    try:
        remote = call_value(answers[0], what="same node", by_value=False)
        found = call_value(answers[1], what="describe")
    except ReinsError:
        return None
    handle = remote.get("objectId") if isinstance(remote, dict) else None
    record = found.get("record") if isinstance(found, dict) else None
    if not handle or remote.get("subtype") == "null" or not isinstance(record, dict):
        return None
    probed = found.get("probe") if options is not None and isinstance(found, dict) else None
    resolved = Resolved(
        str(handle),
        session,
        via="ref",
        ref=entry.ref,
        seen_box=seen_box,
        probed=probe_of(probed),
    )
    return resolved, record


async def _press_with_lookup(
    ctx: CommandContext,
    entry: RegistryEntry,
    plan: PressPlan,
    seen: SeenAt,
    index: int,
    seen_box: list[float] | None,
) -> tuple[Resolved, ElementRecord] | None:
    """The lookup's round trip with the input in it: ``pressSame`` first (the batch stops there
    when it throws), then the input and the read after. The element's handle is asked for only
    when the page refused the input (the action then goes on from its findings as from
    ``probeSame``'s); a given input needs none, and asking for it in the batch cost a script run
    in front of every press. What was pressed comes back as the element's ``pressed``."""
    tail, tail_each = plan.tail()
    try:
        answers = await until_dialog(
            ctx.cdp_batch(
                [plan.check, *tail],
                sequential=True,
                each=[BatchStep(stopIfThrown=True), *tail_each],
                answer_within_ms=plan.after_ms,
            ),
            ctx.part(DialogWatch),
        )
    except DialogOpened as opened:
        # The input was given (the page let it go) and opened a dialog: that is the answer.
        ctx.note("press_with_lookup")
        pressed = PressResult(plan.point, dialog=opened.dialog)
        return Resolved("", None, via="ref", ref=entry.ref, pressed=pressed), {}
    except ReinsError as exc:
        # The batch failed as a whole: its input may have gone in, so the action is not looked up
        # or given again; it answers what happened (a closed tab) or this failure.
        if exc.code != "target_closed":
            raise
        pressed = PressResult(plan.point, len(plan.events), answers=(exc,))
        return Resolved("", None, via="ref", ref=entry.ref, pressed=pressed), {}
    if not answers:
        return None
    checked = answers[0]
    if isinstance(checked, ReinsError):
        ctx.part(HeldFunctions).forget()  # a handle of a context that went away
        return None
    if not checked.get("exceptionDetails"):
        record_now, pressed = _given(ctx, plan, answers[1:], checked, seen.document_id)
        taken = (
            took_press(ctx, pressed, answers, 2, len(plan.events) - 1)
            if plan.guarded is not None
            else None
        )
        if taken is not None:
            return Resolved("", None, via="ref", ref=entry.ref, seen_box=seen_box, pressed=taken), (
                record_now
            )
        if plan.handle is not None:
            # No input yet: the element's handle goes on to the move, the hit test and the
            # press (and through the identity check like any lookup's).
            remote = remote_handle(answers[1] if len(answers) > 1 else None)
            if remote is None:
                return None
            found_now = Resolved(
                remote, None, via="ref", ref=entry.ref, seen_box=seen_box, pressed=pressed
            )
            return found_now, record_now
        # Whatever the answers say, this is the element the input was given to (never looked
        # up, nor given, again).
        given = Resolved("", None, via="ref", ref=entry.ref, seen_box=seen_box, pressed=pressed)
        return given, record_now
    ctx.note("press_with_lookup_refused")
    found = findings(checked)
    record = found.get("record") if found is not None else None
    if found is None or not isinstance(record, dict):
        return None
    handle = await evaluate_handle(
        ctx, page_call("sameNode", seen.gens.get("main"), index), what="same node"
    )
    if handle is None:
        return None
    probed = found.get("probe")
    resolved = Resolved(
        handle,
        None,
        via="ref",
        ref=entry.ref,
        seen_box=seen_box,
        probed=probe_of(probed),
    )
    return resolved, record


async def _by_backend(ctx: CommandContext, entry: RegistryEntry) -> Resolved | None:
    if entry.backend_node_id is None:
        return None
    session = None
    frames = list(entry.locator.frames)
    if frames:  # an element inside a frame: resolve in that frame's session
        try:
            _, session = await find_all(ctx, "css", ":root", frames=tuple(frames))
        except ReinsError:
            return None
    try:
        object_id = await node_in_own_world(ctx, entry.backend_node_id, session_id=session)
    except ReinsError:
        return None
    return Resolved(
        str(object_id), session, backend_node_id=entry.backend_node_id, via="ref", ref=entry.ref
    )


class Candidate(TypedDict):
    """An element that may stand for a stale ref, as an error lists it: its ref now, role,
    accessible name and how sure reins is (0..1)."""

    ref: str
    role: str | None
    name: str | None
    confidence: float


async def _verified(
    ctx: CommandContext,
    entry: RegistryEntry,
    resolved: Resolved,
    record: ElementRecord | None = None,
    *,
    acting: bool = False,
) -> float:
    if record is None:
        record = await describe(ctx, resolved)
    if not record.get("connected", True):
        return 0.0
    found = Identity.from_record(record)
    if acting and not _same_meaning(entry.identity, found):
        return 0.0  # a stand-in for an action must be named as the agent saw it
    return compare(entry.identity, found)


def _same_meaning(registered: Identity, found: Identity) -> bool:
    """An element that stands in for a ref's own, for an action, has the role and accessible
    name the ref was seen with: the same id or test id under another name is another control
    (a page that swaps "Save" for "Delete my account" under one id)."""
    return registered.role == found.role and registered.name == found.name


async def _recover(ctx: CommandContext, entry: RegistryEntry, *, acting: bool) -> Resolved:
    snap, records, refs = await observe_page(ctx)
    registry = registry_for(ctx)
    ranked = registry.candidates(entry, records, source="dom", min_confidence=0.5)
    top: list[Candidate] = [
        {
            "ref": refs[i],
            "role": records[i].get("role"),
            "name": records[i].get("name"),
            "confidence": round(c, 3),
        }
        for i, c in ranked[:3]
    ]
    if acting and entry.carried_over:
        # Recovery never crosses a document for an action: the agent saw the ref in a page
        # that is gone, and what the new one holds under it is the page's to choose.
        raise ResolutionError(
            f"{entry.ref} named an element of a document that is gone (the page navigated or "
            "replaced itself); reins does not carry a ref into another document for an action"
            + _closest(top),
            code="ref_stale",
            details={"candidates": top},
        )
    if acting:
        ranked = [
            (i, c)
            for i, c in ranked
            if _same_meaning(entry.identity, Identity.from_record(records[i]))
        ]
    if ranked:
        best_i, best = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
        if best >= MATCH_THRESHOLD and best - runner_up >= RECOVERY_MARGIN:
            resolved = await handle_for_record(ctx, snap.homes[best_i], via="ref", ref=entry.ref)
            recovered: Recovery = {
                "via": "identity",
                "confidence": round(best, 3),
                "ref": refs[best_i],
            }
            ctx.note("ref_recovered")
            return replace(resolved, recovered=recovered)
    raise ResolutionError(
        f"{entry.ref} is stale: its element is gone and no single element matches it well enough"
        + (" under the same role and name" if acting else "")
        + _closest(top),
        code="ref_stale",
        details={"candidates": top},
    )


def _closest(top: list[Candidate]) -> str:
    """The closest candidate, named in the message (its role and name are the page's words)."""
    if not top:
        return ""
    best = top[0]
    return (
        f"; the closest now is {quote_ref(str(best['ref']))} {word(str(best.get('role') or ''))} "
        f"{quote(str(best.get('name') or ''), 80)}"
    )


async def resolve_ref(
    ctx: CommandContext,
    target: Target,
    *,
    probe: bool = False,
    press: Press | None = None,
    acting: bool = False,
) -> Resolved:
    """The element ``target`` (a ref) names now. ``probe``: an action that starts with
    ``actionable_point`` follows; its first probe rides along with the same-node lookup.
    ``press``: that action's input may ride along too (what it did: ``Resolved.pressed``, kept
    on whichever element is answered).
    ``acting``: the element is to be pressed, filled or typed into: a stand-in for the ref's own
    element must have its role and name, and none is taken from another document."""
    state = ctx.part(ObserveState)
    if state.registry is None:  # a host restart: load from disk
        state.registry_url = await current_url(ctx)
    registry = registry_for(ctx, state.registry_url)
    entry = registry.lookup(target.value)
    pressed: PressResult | None = None
    if not entry.carried_over:
        # A hash ref's locator is positional or text-based: after a re-render it can land on a
        # look-alike (another row's "Edit") that verifies at full confidence. Only the identity
        # search, which refuses ties, may pick among look-alikes.
        same = await _by_last_snapshot(ctx, entry, probe=probe, press=press)
        pressed = same[0].pressed if same is not None else None
        if same is not None and pressed is not None and pressed.given:
            # The input went to this node on the page's word that its identity fields are the
            # ones checked here: it is the answer, never resolved again (nor given twice).
            return same[0]
        if same is not None and await _verified(ctx, entry, *same) >= MATCH_THRESHOLD:
            return same[0]
        attempts = (_by_backend,) if entry.signal == "hash" else (_by_backend, _by_locator)
        for attempt in attempts:
            resolved = await attempt(ctx, entry)
            if resolved is None:
                continue
            confidence = await _verified(
                ctx, entry, resolved, acting=acting and attempt is _by_locator
            )
            if confidence >= MATCH_THRESHOLD:
                if attempt is _by_locator:  # the registered node is gone: say who stood in
                    ctx.note("ref_recovered")
                    recovered: Recovery = {"via": "locator", "confidence": round(confidence, 3)}
                    return replace(resolved, recovered=recovered, pressed=pressed)
                return replace(resolved, pressed=pressed)
    resolved = await _recover(ctx, entry, acting=acting)
    if entry.carried_over and resolved.recovered is not None:
        again: Recovery = {**resolved.recovered, "via": "reidentified_after_navigation"}
        resolved = replace(resolved, recovered=again)
    # A press the lookup only checked goes on from the element answered (act/pointer.py).
    return replace(resolved, pressed=pressed)
