"""Element resolution: TARGET (act/targets.py) -> an element handle in the right frame context.

Failures are classed as the resolution design says: zero matches after the settle window and bad
syntax are permanent (``not_found``, ``invalid_selector``); several matches are ``ambiguous``;
a ref whose element is gone is re-identified by its identity signals and used only when the best
candidate is unambiguous with confidence ≥ 0.75, else ``ref_stale`` with the candidates.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypedDict

from reins._errors import BrowserError, ReinsError, ResolutionError, UsageError
from reins.act.handles import (
    FrameNamed,
    Press,
    ProbeOptions,
    Resolved,
    find_all,
    find_one,
    handle_for_record,
    match_handle,
    refuse_frame_owner,
)
from reins.act.refs import resolve_ref
from reins.act.targets import Target, normalized_text, parse_target
from reins.bridge.context import CommandContext
from reins.bridge.protocol import HIT_GUARD
from reins.observe.collect import ElementRecord
from reins.observe.evidence import redact_url
from reins.observe.page import MapQuery, find_elements, observe_page
from reins.observe.store import ObserveState
from reins.page.call import (
    call_function,
    call_params,
    call_value,
    evaluate,
    evaluate_handle,
    page_call,
)
from reins.page.frames import frame_tree, owned_frame_id, session_for_frame
from reins.page.poll import poll_until

__all__ = [
    "Resolved",
    "TextMatch",
    "count_matches",
    "find_text",
    "handle_for_record",
    "resolve_for_action",
    "resolve_target",
    "text_only",
]

# How long a target that is not there yet is waited for (menus render asynchronously).
SETTLE_WINDOW_S = 1.5


async def _resolve_query(
    ctx: CommandContext, target: Target, *, control: bool, probe: ProbeOptions | None
) -> Resolved:
    pierce = target.kind == "css"
    if not target.frame and ctx.host.link.has(HIT_GUARD):  # the extension fills in handles
        one = await find_one(
            ctx, target.kind, target.value, pierce=pierce, control=control, probe=probe
        )
        if one is not None:
            count, found = one
            if found is not None:
                return found
            _one_match(count, target)
    frames = (target.frame,) if target.frame else ()
    count, session = await find_all(ctx, target.kind, target.value, frames=frames, pierce=pierce)
    _one_match(count, target)
    resolved = Resolved(await match_handle(ctx, 0, session), session, via=target.kind)
    if target.frame:
        return replace(resolved, frame=await frame_by_browser(ctx, target.frame))
    return resolved


def _one_match(count: int, target: Target) -> None:
    """Raises unless ``count`` is one: ``not_found`` (transient: it may appear) or ``ambiguous``."""
    if count == 0:
        raise ResolutionError(f"nothing matches {target.value!r}", code="not_found", transient=True)
    if count > 1:
        raise ResolutionError(
            f"{count} elements match {target.value!r}",
            code="ambiguous",
            hint="make it unique: a ref from `reins state`, a tighter selector, or (xpath)[n]",
        )


async def frame_by_browser(ctx: CommandContext, selector: str) -> FrameNamed | None:
    """The frame ``--frame SELECTOR`` names, as the browser knows it: the <iframe> found in
    reins's world, its frame id from Chrome's DOM, its URL and origin from Chrome's frame tree
    (the out-of-process frame's own session when the tab's tree does not hold it)."""
    owner = await evaluate_handle(
        ctx, page_call("frameElementByChain", [selector]), what="frame lookup"
    )
    if owner is None:
        return None
    frame_id = await owned_frame_id(ctx, owner)
    if frame_id is None:
        return None
    frame = (await frame_tree(ctx)).get(frame_id)
    if frame is None:
        try:
            session = await session_for_frame(ctx, frame_id)
            frame = (await frame_tree(ctx, session)).get(frame_id)
        except ReinsError:
            frame = None
    if frame is None:
        return {"id": frame_id}
    out: FrameNamed = {"id": frame_id, "url": redact_url(frame.url)}
    # Chrome names no origin of its own for an about:srcdoc or about:blank frame ("://"): it is
    # its parent's, which the answer does not guess at.
    if "://" in frame.origin and frame.origin != "://":
        out["origin"] = frame.origin
    return out


def _name_matcher(target: Target) -> Callable[[ElementRecord], bool]:
    """Does a record's name or text match a role=/text= target's? (pure)"""
    exact = target.exact
    wanted = normalized_text(target.name if target.kind == "role" else target.value, exact=exact)

    def name_ok(record: ElementRecord) -> bool:
        names = [
            normalized_text(record.get("name"), exact=exact),
            normalized_text(record.get("text"), exact=exact),
        ]
        if target.kind == "role" and target.name is None:
            return True
        if exact:  # text="…" and role=…[name="…" s]: the whole text, case included
            return wanted in names
        return any(wanted in n for n in names)

    return name_ok


def _record_pool(records: list[ElementRecord], target: Target) -> list[int]:
    """The records a role=/text= target names, by index (pure)."""
    name_ok = _name_matcher(target)
    return [
        i
        for i, r in enumerate(records)
        if (target.kind != "role" or r.get("role") == target.value) and name_ok(r)
    ]


async def _resolve_by_records(ctx: CommandContext, target: Target) -> Resolved:
    """role= and text= go through the page script's records (role and accessible name)."""
    snap, records, refs = await observe_page(ctx)
    wanted = normalized_text(
        target.name if target.kind == "role" else target.value, exact=target.exact
    )
    name_ok = _name_matcher(target)
    pool = _record_pool(records, target)
    if len(pool) > 1 and not target.exact:  # prefer whole-name matches over substrings
        whole = [
            i
            for i in pool
            if wanted
            in (normalized_text(records[i].get("name")), normalized_text(records[i].get("text")))
        ]
        pool = whole or pool
    if not pool and target.kind == "text":  # no interactive element: any visible one
        return await _resolve_by_text(ctx, target.value, exact=target.exact)
    if not pool and target.kind == "role" and target.name is not None:
        # The control the agent means is a frame the page dressed as one (issue 43): say so.
        frames = [i for i, r in enumerate(records) if r.get("role") == "frame" and name_ok(r)]
        if frames:
            listed = ", ".join(refs[i] for i in frames[:8])
            raise ResolutionError(
                f"no {target.value} named {target.name!r}: what is named so is a frame ({listed})",
                code="target_is_frame",
                details={"candidates": [refs[i] for i in frames[:8]]},
            )
    if not pool and target.kind == "role" and target.value == "option" and target.name:
        listed_option = await _list_box_option(ctx, target.name, exact=target.exact)
        if listed_option is not None:
            return listed_option
    if not pool:
        raise ResolutionError(
            f"no element with {target.kind} {target.value!r}"
            + (f" named {target.name!r}" if target.name else ""),
            transient=True,
        )
    handles: dict[int, Resolved] = {}
    if len(pool) > 1 and target.kind == "text":  # the deepest holding the text (Playwright's)
        pool, handles = await _innermost(ctx, snap, refs, pool)
    if len(pool) > 1:
        listed = ", ".join(refs[i] for i in pool[:8])
        raise ResolutionError(
            f"{len(pool)} elements match ({listed})",
            code="ambiguous",
            details={"candidates": [refs[i] for i in pool[:8]]},
        )
    i = pool[0]
    found = handles.get(i) or await handle_for_record(
        ctx, snap.homes[i], via=target.kind, ref=refs[i]
    )
    if target.kind == "text" and records[i].get("role") not in _CONTROL_ROLES:
        found = await _where_the_text_is(ctx, found, target)
    return found


async def _list_box_option(ctx: CommandContext, name: str, *, exact: bool) -> Resolved | None:
    """`role=option[name=…]` on an <option> of a list box (<select multiple>, Django's
    filter_horizontal): the state lists the list box, not its options, yet they are options to
    Chrome and to Playwright's role engine, and a double-click on one is how such lists move
    items. The one visible <option> showing the name; None when there is none; several are
    ``ambiguous``."""
    matches = await find_text(ctx, name, exact=exact)
    options = [k for k, m in enumerate(matches) if m.get("tag") == "option"]
    if len(options) > 1:
        raise ResolutionError(
            f"{len(options)} options of list boxes are named {name!r}",
            code="ambiguous",
            hint="use CSS (`#list option[value=…]`), or `reins select` on the list box",
        )
    if not options:
        return None
    return Resolved(await match_handle(ctx, options[0], None), None, via="role")


async def _innermost(
    ctx: CommandContext, snap: Any, refs: list[str], pool: list[int]
) -> tuple[list[int], dict[int, Resolved]]:
    """Of a text target's matches (at most eight looked at), those holding none of the others,
    asked of reins's world (``innermostOf``), with their handles; the pool as it is when they are
    not all in one document."""
    if len(pool) > 8:
        return pool, {}
    handles = {
        i: await handle_for_record(ctx, snap.homes[i], via="text", ref=refs[i]) for i in pool
    }
    if len({h.session_id for h in handles.values()}) != 1:
        return pool, {}
    first, *rest = (handles[i] for i in pool)
    params = call_params(first.object_id, "innermostOf")
    params["arguments"].extend({"objectId": h.object_id} for h in rest)
    try:
        answer = await ctx.cdp("Runtime.callFunctionOn", params, session_id=first.session_id)
        kept = call_value(answer, what="text target")
    except ReinsError:
        return pool, {}
    if not isinstance(kept, list) or not kept:
        return pool, {}
    inner = [pool[k] for k in kept if isinstance(k, int) and 0 <= k < len(pool)]
    return (inner or pool), handles


# Roles whose element is itself the control to press: a text target on one presses it whole.
_CONTROL_ROLES = frozenset(
    """button link checkbox radio switch textbox searchbox combobox option menuitem
    menuitemcheckbox menuitemradio tab slider spinbutton treeitem""".split()
)


async def _where_the_text_is(ctx: CommandContext, found: Resolved, target: Target) -> Resolved:
    """A text target that resolved to a clickable container (a row, a card): the element inside
    it that shows the text, so the press lands on the text and not on the container's middle,
    which may be another control (a row's mail link). The click still reaches the container."""
    inner = await call_function(
        ctx,
        found.object_id,
        "textInside",
        {"text": target.value, "exact": target.exact},
        session_id=found.session_id,
        by_value=False,
        what="text target",
    )
    object_id = inner.get("objectId")
    if not object_id:
        return found
    return Resolved(str(object_id), found.session_id, via=found.via, ref=found.ref)


class TextMatch(TypedDict):
    """A visible element that holds a text (pagescripts/src/textmatch.js ``findText``): its
    tag, its text (at most 100 characters) and its box (x, y, width, height)."""

    tag: str
    text: str
    box: list[int]


async def find_text(ctx: CommandContext, text: str, *, exact: bool) -> list[TextMatch]:
    """The visible elements of the page whose text matches (js textmatch.js: the smallest
    element holding the text, Playwright's text rules), parked page-side for ``match_handle``;
    answers each one's tag, text and box."""
    answer = await evaluate(
        ctx, page_call("findText", {"text": text, "exact": exact}), what="find text"
    )
    if not isinstance(answer, dict):
        raise BrowserError(
            "the page answered the text search in a form reins cannot read",
            code="page_answer_invalid",
            transient=True,
        )
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
    return Resolved(await match_handle(ctx, 0, None), None, via="text")


# ---- entry point ------------------------------------------------------------------------------


async def resolve_target(
    ctx: CommandContext,
    target: str,
    *,
    frame: str | None = None,
    settle: bool = True,
    probe: bool = False,
    press: Press | None = None,
    control: bool = False,
    first_probe: ProbeOptions | None = None,
) -> Resolved:
    """Resolve TARGET, waiting up to the settle window for a target that is not there yet.
    ``probe``: the caller's next step is ``actionable_point`` (a ref may bring its first probe;
    a CSS/XPath lookup brings it when told what the action asks it: ``first_probe``);
    ``press``: the input that follows it, which a ref's lookup may give at once (``Press``);
    ``control``: the target is to be pressed, filled or typed into, so a frame owner is refused
    (``target_is_frame``)."""
    parsed = parse_target(target, frame=frame)

    async def resolved() -> Resolved:
        if parsed.kind == "ref":
            return await resolve_ref(ctx, parsed, probe=probe, press=press, acting=control)
        if parsed.kind in ("role", "text"):
            return await _resolve_by_records(ctx, parsed)
        return await _resolve_query(
            ctx, parsed, control=control, probe=first_probe if probe else None
        )

    def not_there_yet(exc: ReinsError) -> bool:
        return settle and exc.transient and exc.code == "not_found"

    try:
        found = await poll_until(
            ctx.deadline.child(int(SETTLE_WINDOW_S * 1000)),
            resolved,
            interval=0.1,
            retry=not_there_yet,
        )
    except ResolutionError as exc:
        if exc.code == "not_found":  # waited for as long as it is waited for: final
            exc.transient = False
        raise
    if control:
        await _refuse_frame_owner(ctx, found)
    return found


async def _refuse_frame_owner(ctx: CommandContext, found: Resolved) -> None:
    # A press that rode with its ref's lookup has been given (act/refs.py never lets one ride for
    # a record listed as a frame): there is no handle, nor anything left to refuse.
    # A CSS/XPath lookup may have asked the browser in its own round trip (find_one).
    if (found.pressed is None or not found.pressed.given) and not found.owner_checked:
        await refuse_frame_owner(ctx, found)


async def count_matches(ctx: CommandContext, target: str, *, frame: str | None = None) -> int:
    """How many elements TARGET names now, without waiting: CSS/XPath every match (in open
    shadow roots too), role= the page script's records, text= the visible elements holding the
    text (the smallest, by the text rules), a ref 1 while its element is there, else 0."""
    parsed = parse_target(target, frame=frame)
    if parsed.kind == "ref":
        try:
            await resolve_ref(ctx, parsed, probe=False, press=None)
        except ResolutionError as exc:
            if exc.code in ("not_found", "ref_stale"):
                return 0
            raise
        return 1
    if parsed.kind == "role":
        _snap, records, _refs = await observe_page(ctx)
        return len(_record_pool(records, parsed))
    if parsed.kind == "text":
        answer = await evaluate(
            ctx,
            page_call("findText", {"text": parsed.value, "exact": parsed.exact}),
            what="find text",
        )
        return int(answer.get("count") or 0) if isinstance(answer, dict) else 0
    frames = (parsed.frame,) if parsed.frame else ()
    count, _session = await find_all(
        ctx, parsed.kind, parsed.value, frames=frames, pierce=parsed.kind == "css"
    )
    return count


def text_only(smart: MapQuery) -> bool:
    """A --text query (maybe with --index) that the page's visible text can answer too."""
    return bool(smart.get("text")) and not ({k for k, v in smart.items() if v} - {"text", "index"})


async def _smart_by_text(ctx: CommandContext, smart: MapQuery) -> Resolved:
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
    return Resolved(await match_handle(ctx, int(index) - 1, None), None, via="text")


async def resolve_for_action(
    ctx: CommandContext,
    target: str | None,
    frame: str | None,
    smart: MapQuery | None,
    *,
    probe: bool = False,
    press: Press | None = None,
    control: bool = False,
    first_probe: ProbeOptions | None = None,
) -> Resolved:
    """An action's element, from TARGET or from smart-mode options (--text/--index/--type);
    ``probe``, ``press``, ``control`` and ``first_probe`` (which implies ``probe``) as for
    ``resolve_target``."""
    probe = probe or first_probe is not None
    if not smart:
        if not target:
            raise UsageError(
                "give a TARGET (@ref, CSS, XPath, role=…, text=…) or --text", code="bad_request"
            )
        return await resolve_target(
            ctx,
            target,
            frame=frame,
            probe=probe,
            press=press,
            control=control,
            first_probe=first_probe,
        )
    found = await _resolve_smart(ctx, smart)
    if control:
        await refuse_frame_owner(ctx, found)
    return found


async def _resolve_smart(ctx: CommandContext, smart: MapQuery) -> Resolved:
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
