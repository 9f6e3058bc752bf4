"""Element resolution: TARGET (act/targets.py) -> an element handle in the right frame context.

Failures are classed as the resolution design says: zero matches after the settle window and bad
syntax are permanent (``not_found``, ``invalid_selector``); several matches are ``ambiguous``;
a ref whose element is gone is re-identified by its identity signals and used only when the best
candidate is unambiguous with confidence ≥ 0.75, else ``ref_stale`` with the candidates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from reins._errors import ReinsError, ResolutionError, UsageError
from reins.act.targets import Target, parse_target
from reins.bridge.context import CommandContext
from reins.observe.collect import install_expression
from reins.observe.identity import MATCH_THRESHOLD, Identity, compare
from reins.observe.page import find_elements, observe_page
from reins.observe.registry import RegistryEntry
from reins.observe.store import ObserveState, current_url, registry_for, seen_for
from reins.page.call import call_function, evaluate, evaluate_handle, page_call
from reins.page.frames import session_for_iframe
from reins.page.poll import poll_until

__all__ = [
    "Resolved",
    "find_text",
    "handle_for_record",
    "resolve_for_action",
    "resolve_target",
    "text_only",
]

# How long a target that is not there yet is waited for (menus render asynchronously).
SETTLE_WINDOW_S = 1.5
# A recovered candidate must beat the runner-up by this much to count as unambiguous.
RECOVERY_MARGIN = 0.05


@dataclass
class Resolved:
    """An element handle and where it lives."""

    object_id: str
    session_id: str | None = None
    backend_node_id: int | None = None
    via: str = "css"
    ref: str | None = None
    recovered: dict[str, Any] | None = None
    # For an element of an out-of-process frame: its iframe's backend node id, once looked up.
    frame_owner: int | None = None


# ---- page-side helpers -------------------------------------------------------------------------


async def _ensure_api(ctx: CommandContext, session: str | None) -> None:
    installed = await evaluate(ctx, page_call("hasApi"), session_id=session, what="api check")
    if not installed:
        await evaluate(ctx, install_expression(), session_id=session, what="install page api")


async def describe(ctx: CommandContext, resolved: Resolved) -> dict[str, Any]:
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


async def _match_handle(ctx: CommandContext, index: int, session: str | None) -> str:
    handle = await evaluate_handle(
        ctx, page_call("matchAt", index), session_id=session, what="match handle"
    )
    if handle is None:
        raise ResolutionError("the element went away while being resolved", transient=True)
    return handle


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

    Returns (match count, session); the matches are parked page-side for ``_match_handle``.
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
        answer = await evaluate(
            ctx, page_call("findMatches", spec), session_id=session, what="find"
        )
        if not isinstance(answer, dict):
            raise ResolutionError("the page did not answer the query", transient=True)
        if "error" in answer:
            code = str(answer["error"])
            if code == "invalid_selector":
                raise UsageError(f"{value!r}: {answer.get('message')}", code="invalid_selector")
            raise ResolutionError(str(answer.get("message")), code=code)
        if "frame" in answer:
            iframe = await _match_handle(ctx, 0, session)
            session = await session_for_iframe(ctx, iframe, session_id=session)
            remaining = remaining[int(answer["frame"]) + 1 :]
            continue
        return int(answer["count"]), session


async def _resolve_query(ctx: CommandContext, target: Target) -> Resolved:
    frames = (target.frame,) if target.frame else ()
    count, session = await find_all(
        ctx, target.kind, target.value, frames=frames, pierce=target.kind == "css"
    )
    if count == 0:
        raise ResolutionError(f"nothing matches {target.value!r}", code="not_found", transient=True)
    if count > 1:
        raise ResolutionError(
            f"{count} elements match {target.value!r}",
            code="ambiguous",
            hint="make it unique: a ref from `reins state`, a tighter selector, or (xpath)[n]",
        )
    return Resolved(await _match_handle(ctx, 0, session), session, via=target.kind)


def _norm(text: str | None, *, exact: bool = False) -> str:
    shown = " ".join((text or "").split())
    return shown if exact else shown.casefold()


async def _resolve_by_records(ctx: CommandContext, target: Target) -> Resolved:
    """role= and text= go through the page script's records (role and accessible name)."""
    snap, records, refs = await observe_page(ctx)
    exact = target.exact
    wanted = _norm(target.name if target.kind == "role" else target.value, exact=exact)

    def name_ok(record: dict[str, Any]) -> bool:
        names = [_norm(record.get("name"), exact=exact), _norm(record.get("text"), exact=exact)]
        if target.kind == "role" and target.name is None:
            return True
        if exact:  # text="…" and role=…[name="…" s]: the whole text, case included
            return wanted in names
        return any(wanted in n for n in names)

    pool = [
        i
        for i, r in enumerate(records)
        if (target.kind != "role" or r.get("role") == target.value) and name_ok(r)
    ]
    if len(pool) > 1 and not target.exact:  # prefer whole-name matches over substrings
        whole = [
            i
            for i in pool
            if wanted in (_norm(records[i].get("name")), _norm(records[i].get("text")))
        ]
        pool = whole or pool
    if not pool and target.kind == "text":  # no interactive element: any visible one
        return await _resolve_by_text(ctx, target.value, exact=target.exact)
    if not pool:
        raise ResolutionError(
            f"no element with {target.kind} {target.value!r}"
            + (f" named {target.name!r}" if target.name else ""),
            transient=True,
        )
    if len(pool) > 1:
        listed = ", ".join(refs[i] for i in pool[:8])
        raise ResolutionError(
            f"{len(pool)} elements match ({listed})",
            code="ambiguous",
            details={"candidates": [refs[i] for i in pool[:8]]},
        )
    i = pool[0]
    return await handle_for_record(ctx, snap.homes[i], via=target.kind, ref=refs[i])


async def find_text(ctx: CommandContext, text: str, *, exact: bool) -> list[dict[str, Any]]:
    """The visible elements of the page whose text matches (js textmatch.js: the smallest
    element holding the text, Playwright's text rules), parked page-side for ``_match_handle``;
    answers each one's tag, text and box."""
    answer = await evaluate(
        ctx, page_call("findText", {"text": text, "exact": exact}), what="find text"
    )
    if not isinstance(answer, dict):
        raise ResolutionError("the page did not answer the text search", transient=True)
    matches = answer.get("matches")
    return list(matches) if isinstance(matches, list) else []


async def _resolve_by_text(ctx: CommandContext, text: str, *, exact: bool) -> Resolved:
    matches = await find_text(ctx, text, exact=exact)
    if not matches:
        raise ResolutionError(f"no visible element with text {text!r}", transient=True)
    if len(matches) > 1:
        shown = "; ".join(f"{m.get('tag')} {m.get('text')!r}" for m in matches[:5])
        raise ResolutionError(
            f"{len(matches)} visible elements hold the text {text!r} ({shown})",
            code="ambiguous",
            hint='quote it for the exact text (text="…"), or use CSS or a ref from `reins state`',
            details={"candidates": matches[:8]},
        )
    return Resolved(await _match_handle(ctx, 0, None), None, via="text")


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


# ---- refs ---------------------------------------------------------------------------------------


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
    return Resolved(await _match_handle(ctx, 0, session), session, via="ref", ref=entry.ref)


async def _by_last_snapshot(ctx: CommandContext, entry: RegistryEntry) -> Resolved | None:
    """The very node the tab's latest observation showed under this ref, if it is still attached.

    DOM-source records carry no backend node id; the page script keeps the observed nodes with a
    generation mark, so this is the same-node fast path for them — also after a host restart,
    through the positions saved beside the registry (a re-render detaches the node: None).
    """
    seen = seen_for(ctx, ctx.part(ObserveState).registry_url)
    if seen is None or seen.document_id != entry.document_id or entry.ref not in seen.homes:
        return None
    session, index = seen.homes[entry.ref]
    gen = seen.gens.get(session or "main")
    try:
        handle = await evaluate_handle(
            ctx, page_call("sameNode", gen, index), session_id=session, what="same node"
        )
    except ReinsError:
        return None
    return Resolved(handle, session, via="ref", ref=entry.ref) if handle else None


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


async def _verified(ctx: CommandContext, entry: RegistryEntry, resolved: Resolved) -> float:
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


async def _resolve_ref(ctx: CommandContext, target: Target) -> Resolved:
    state = ctx.part(ObserveState)
    if state.registry is None:  # a host restart: load from disk
        state.registry_url = await current_url(ctx)
    registry = registry_for(ctx, state.registry_url)
    entry = registry.lookup(target.value)
    if not entry.carried_over:
        # A hash ref's locator is positional or text-based: after a re-render it can land on a
        # look-alike (another row's "Edit") that verifies at full confidence. Only the identity
        # search, which refuses ties, may pick among look-alikes.
        attempts = (
            (_by_last_snapshot, _by_backend)
            if entry.signal == "hash"
            else (_by_last_snapshot, _by_backend, _by_locator)
        )
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


# ---- entry point ------------------------------------------------------------------------------


async def resolve_target(
    ctx: CommandContext, target: str, *, frame: str | None = None, settle: bool = True
) -> Resolved:
    """Resolve TARGET, waiting up to the settle window for a target that is not there yet."""
    parsed = parse_target(target, frame=frame)

    async def resolved() -> Resolved:
        if parsed.kind == "ref":
            return await _resolve_ref(ctx, parsed)
        if parsed.kind in ("role", "text"):
            return await _resolve_by_records(ctx, parsed)
        return await _resolve_query(ctx, parsed)

    def not_there_yet(exc: ReinsError) -> bool:
        return settle and exc.transient and exc.code == "not_found"

    try:
        return await poll_until(
            ctx.deadline.child(int(SETTLE_WINDOW_S * 1000)),
            resolved,
            interval=0.1,
            retry=not_there_yet,
        )
    except ResolutionError as exc:
        if exc.code == "not_found":  # waited for as long as it is waited for: final
            exc.transient = False
        raise


def text_only(smart: dict[str, Any]) -> bool:
    """A --text query (maybe with --index) that the page's visible text can answer too."""
    return bool(smart.get("text")) and not ({k for k, v in smart.items() if v} - {"text", "index"})


async def _smart_by_text(ctx: CommandContext, smart: dict[str, Any]) -> Resolved:
    """--text that no interactive element holds: the visible element that does (text=)."""
    index = smart.get("index")
    if index is None:
        return await _resolve_by_text(ctx, str(smart["text"]), exact=False)
    matches = await find_text(ctx, str(smart["text"]), exact=False)
    if not 1 <= int(index) <= len(matches):
        raise ResolutionError(
            f"--index {index}: {len(matches)} visible elements hold the text {smart['text']!r}",
            code="not_found",
        )
    return Resolved(await _match_handle(ctx, int(index) - 1, None), None, via="text")


async def resolve_for_action(
    ctx: CommandContext, target: str | None, frame: str | None, smart: dict[str, Any] | None
) -> Resolved:
    """An action's element, from TARGET or from smart-mode options (--text/--index/--type)."""
    if smart:
        try:
            matches, _stage = await find_elements(ctx, smart)
        except ResolutionError as exc:
            if exc.code != "not_found" or not text_only(smart):
                raise
            return await _smart_by_text(ctx, smart)
        if len(matches) > 1 and smart.get("index") is None:
            raise ResolutionError(
                f"{len(matches)} elements match {json.dumps(smart, ensure_ascii=False)}",
                code="ambiguous",
                hint="add --index N (1-based) or --type",
                details={"candidates": [m.get("ref") for m in matches[:8]]},
            )
        chosen = matches[0]
        seen = ctx.part(ObserveState).seen
        # The map may be a cached one from an earlier observation than the latest (a `state` since
        # then renumbers elements): go by the chosen element's ref, not by its index.
        ref = chosen.get("ref")
        if seen is None or ref not in seen.homes:
            raise ResolutionError(
                f"{ref} left the page since the map was built",
                code="ref_stale",
                transient=True,
                hint="run `reins map --force` or `reins state`",
            )
        return await handle_for_record(ctx, seen.homes[ref], via="smart", ref=ref)
    if not target:
        raise UsageError(
            "give a TARGET (@ref, CSS, XPath, role=…, text=…) or --text", code="bad_request"
        )
    return await resolve_target(ctx, target, frame=frame)
