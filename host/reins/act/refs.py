"""Refs to elements: the very node the latest observation showed, else the same backend node,
else the ref's locator (strong refs only), each verified against the registered identity; else the
element re-identified by its identity signals, used only when unambiguous (confidence ≥ 0.75 and
a margin over the runner-up), else ``ref_stale`` with the candidates."""

from __future__ import annotations

from typing import Any

from reins._errors import ReinsError, ResolutionError
from reins.act.handles import Resolved, describe, find_all, handle_for_record, match_handle
from reins.act.targets import Target
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.observe.identity import MATCH_THRESHOLD, Identity, compare
from reins.observe.page import observe_page
from reins.observe.registry import RegistryEntry
from reins.observe.store import ObserveState, current_url, registry_for, seen_for
from reins.page.call import call_value, evaluate_params, page_call

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


async def _by_last_snapshot(
    ctx: CommandContext, entry: RegistryEntry, *, probe: bool
) -> tuple[Resolved, dict[str, Any]] | None:
    """The very node the tab's latest observation showed under this ref, if it is still attached,
    and its record now (for the identity check) — with ``probe``, also the actionability probe an
    action would start with (``Resolved.probed``): one round trip.

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
    options = {"scroll": True, "align": 0, "seen": seen_box} if probe and session is None else None
    try:
        answers = await ctx.cdp_batch(
            [
                (
                    "Runtime.evaluate",
                    evaluate_params(
                        page_call("sameNode", gen, index),
                        timeout,
                        by_value=False,
                        object_group="reins",
                    ),
                ),
                (
                    "Runtime.evaluate",
                    evaluate_params(
                        page_call("probeSame", gen, index, options), timeout, await_promise=True
                    ),
                ),
            ],
            session_id=session,
            sequential=True,
        )
        if len(answers) != 2 or isinstance(answers[0], ReinsError):
            return None
        remote = call_value(answers[0], what="same node", by_value=False)
        found = (
            None if isinstance(answers[1], ReinsError) else call_value(answers[1], what="describe")
        )
    except ReinsError:
        return None
    handle = remote.get("objectId") if isinstance(remote, dict) else None
    record = found.get("record") if isinstance(found, dict) else None
    if not handle or remote.get("subtype") == "null" or not isinstance(record, dict):
        return None
    resolved = Resolved(str(handle), session, via="ref", ref=entry.ref, seen_box=seen_box)
    if options is not None and isinstance(found, dict) and isinstance(found.get("probe"), dict):
        resolved.probed = found["probe"]
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
        node = await ctx.cdp(
            "DOM.resolveNode",
            {"backendNodeId": entry.backend_node_id, "objectGroup": "reins"},
            session_id=session,
        )
    except ReinsError:
        return None
    object_id = (node.get("object") or {}).get("objectId")
    if not object_id:
        return None
    return Resolved(
        str(object_id), session, backend_node_id=entry.backend_node_id, via="ref", ref=entry.ref
    )


async def _verified(
    ctx: CommandContext,
    entry: RegistryEntry,
    resolved: Resolved,
    record: dict[str, Any] | None = None,
) -> float:
    if record is None:
        record = await describe(ctx, resolved)
    if not record.get("connected", True):
        return 0.0
    return compare(entry.identity, Identity.from_record(record))


async def _recover(ctx: CommandContext, entry: RegistryEntry) -> Resolved:
    snap, records, refs = await observe_page(ctx)
    registry = registry_for(ctx)
    ranked = registry.candidates(entry, records, source="dom", min_confidence=0.5)
    top = [
        {
            "ref": refs[i],
            "role": records[i].get("role"),
            "name": records[i].get("name"),
            "confidence": round(c, 3),
        }
        for i, c in ranked[:3]
    ]
    if ranked:
        best_i, best = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
        if best >= MATCH_THRESHOLD and best - runner_up >= RECOVERY_MARGIN:
            resolved = await handle_for_record(ctx, snap.homes[best_i], via="ref", ref=entry.ref)
            resolved.recovered = {
                "via": "identity",
                "confidence": round(best, 3),
                "ref": refs[best_i],
            }
            ctx.note("ref_recovered")
            return resolved
    raise ResolutionError(
        f"{entry.ref} is stale: its element is gone and no single element matches it well enough",
        code="ref_stale",
        details={"candidates": top},
    )


async def resolve_ref(ctx: CommandContext, target: Target, *, probe: bool = False) -> Resolved:
    """The element ``target`` (a ref) names now. ``probe``: an action that starts with
    ``actionable_point`` follows; its first probe rides along with the same-node lookup."""
    state = ctx.part(ObserveState)
    if state.registry is None:  # a host restart: load from disk
        state.registry_url = await current_url(ctx)
    registry = registry_for(ctx, state.registry_url)
    entry = registry.lookup(target.value)
    if not entry.carried_over:
        # A hash ref's locator is positional or text-based: after a re-render it can land on a
        # look-alike (another row's "Edit") that verifies at full confidence. Only the identity
        # search, which refuses ties, may pick among look-alikes.
        same = await _by_last_snapshot(ctx, entry, probe=probe)
        if same is not None and await _verified(ctx, entry, *same) >= MATCH_THRESHOLD:
            return same[0]
        attempts = (_by_backend,) if entry.signal == "hash" else (_by_backend, _by_locator)
        for attempt in attempts:
            resolved = await attempt(ctx, entry)
            if resolved is None:
                continue
            confidence = await _verified(ctx, entry, resolved)
            if confidence >= MATCH_THRESHOLD:
                if attempt is _by_locator:  # the registered node is gone: say who stood in
                    resolved.recovered = {"via": "locator", "confidence": round(confidence, 3)}
                    ctx.note("ref_recovered")
                return resolved
    resolved = await _recover(ctx, entry)
    if entry.carried_over and resolved.recovered is not None:
        resolved.recovered["via"] = "reidentified_after_navigation"
    return resolved
