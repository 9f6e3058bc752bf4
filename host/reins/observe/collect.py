"""The DOM source: one page-side collection per frame context, merged into one snapshot.

The page script (_generated/collect.js, bundled from pagescripts/src) runs once per frame context with one
`Runtime.evaluate` and returns compact records. Out-of-process iframes are collected through their
child sessions and spliced in where their iframe is, with their boxes moved into the main viewport.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from reins._errors import BrowserError, ReinsError
from reins.bridge.context import CommandContext
from reins.observe.listeners import handler_hints
from reins.observe.sent import Carried, DeltaMismatch, SentRecords, rebuild
from reins.page.call import call_function, evaluate, evaluate_handle, page_call
from reins.page.frames import (
    BrowserFrame,
    FrameSessions,
    frame_tree,
    owned_frame_id,
    session_for_iframe,
)

__all__ = [
    "AxCoverage",
    "ElementRecord",
    "PageSnapshot",
    "collect_expression",
    "collect_source",
    "install_expression",
    "snapshot_page",
]

# One element's record as the page script hands it (docs/element-record.md: its fields and their
# meaning): the page's JSON, read field by field where it is used.
ElementRecord = dict[str, Any]

# Enough for 20,000-element pages while keeping one answer well under the 64 MiB port limit.
MAX_ELEMENTS = 50_000
# Scrolling regions named in `state` (the page and the elements that scroll, in view first).
SCROLL_REGIONS = 6


@functools.cache
def collect_source() -> str:
    return (resources.files("reins") / "_generated" / "collect.js").read_text(encoding="utf-8")


@functools.cache
def collect_version() -> str:
    """Names this build of the collection: a world holding another build's is given this one."""
    return hashlib.sha256(collect_source().encode()).hexdigest()[:16]


# The Symbol.for key of the helpers the collection installs in reins's world (pagescripts/src/
# symbols.js API; tests/unit/test_collect_installed.py checks the two agree).
API_KEY = "reins.api"


def collect_expression(options: dict[str, Any]) -> str:
    """The collection with these options, answered as one JSON string (``asText``: CDP and the
    extension move a string of megabytes about four times faster than the same object tree).
    The whole bundle: it installs itself in the world for ``installed_collect_expression``."""
    given = {**options, "asText": True, "version": collect_version()}
    return collect_source().replace("__REINS_OPTIONS__", json.dumps(given))


def installed_collect_expression(options: dict[str, Any]) -> str:
    """The collection the world holds (installed by an earlier ``collect_expression`` there),
    called with these options; answers null where it holds none of this build. A few hundred
    bytes instead of the bundle, whose source differs with each call's options, so V8 compiled
    all of it again every time."""
    given = json.dumps({**options, "asText": True, "version": collect_version()})
    return (
        f"(() => {{ const api = globalThis[Symbol.for({json.dumps(API_KEY)})]; "
        f"return api && api.version === {json.dumps(collect_version())} && "
        f"typeof api.collect === 'function' ? api.collect({given}) : null; }})()"
    )


def install_expression() -> str:
    """Installs the collection's helpers (``describe``, the collection) without collecting."""
    given = {"install": True, "version": collect_version()}
    return collect_source().replace("__REINS_OPTIONS__", json.dumps(given))


async def _collect(
    ctx: CommandContext,
    options: dict[str, Any],
    *,
    session_id: str | None = None,
    what: str = "collect",
) -> dict[str, Any]:
    if options.get("install") is not True:
        options = {**options, **await handler_hints(ctx, session_id=session_id)}
    text = await evaluate(
        ctx, installed_collect_expression(options), session_id=session_id, what=what
    )
    if text is None:  # the world holds no collection of this build yet: the bundle installs it
        ctx.note("collect_bundle")
        text = await evaluate(ctx, collect_expression(options), session_id=session_id, what=what)
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise BrowserError(
            "the collection answered in a form reins cannot read (is this a page reins can read?)",
            code="page_answer_invalid",
            transient=True,
        )
    return value


async def _collect_main(
    ctx: CommandContext, options: dict[str, Any]
) -> tuple[dict[str, Any], Carried | None]:
    """The main context's collection; a compact one in the delta form (``observe.sent``): only
    the records that changed since the collection this tab holds cross from the page."""
    if not options.get("compact"):
        return await _collect(ctx, options), None
    held = ctx.part(SentRecords)
    for since in (held.gen, None) if held.gen is not None else (None,):
        value = await _collect(ctx, {**options, "delta": True, "since": since})
        try:
            value["elements"], carried = rebuild(value, held)
        except DeltaMismatch:
            ctx.note("collect_delta_refused")
            continue  # held is empty now: the next try asks for everything
        ctx.note("collect_delta" if value["delta"].get("base") is not None else "collect_full")
        value.pop("delta", None)
        return value, carried
    raise BrowserError(
        "the page answered the collection in a form reins cannot read", code="page_answer_invalid"
    )


@dataclass
class AxCoverage:
    """How many candidates Chrome's accessibility tree was asked about within the budget."""

    asked: int = 0
    total: int = 0

    @property
    def complete(self) -> bool:
        return self.asked >= self.total


@dataclass
class PageSnapshot:
    url: str
    title: str
    viewport: dict[str, Any]
    frames: list[dict[str, Any]]
    elements: list[ElementRecord]
    truncated: bool
    document_id: str
    timestamp: float
    elapsed_ms: int = 0
    # Where each element lives: (session id or None for the main target, index in that context).
    homes: list[tuple[str | None, int]] = field(default_factory=list)
    # The page-side collection generation of each context ("main" or a session id).
    gens: dict[str, str] = field(default_factory=dict)
    # For the AX source: how many candidates Chrome's tree was asked about.
    ax_coverage: AxCoverage | None = None
    # What the main context's records repeat of the collection before (``observe.sent``).
    carried: Carried | None = None
    # The main document's scrolling regions ({target, label, below, above}), from the walk.
    scrollable: list[dict[str, Any]] = field(default_factory=list)
    # With ``truncated``: about how many elements were never read (the walk stopped at
    # MAX_ELEMENTS), or found in view but not listed (``viewport_only``).
    unread: int = 0

    def collected(self) -> dict[str, Any]:
        """In the page script's own shape (for the interaction map)."""
        return {
            "url": self.url,
            "title": self.title,
            "timestamp": self.timestamp,
            "viewport": self.viewport,
            "frames": self.frames,
            "elements": self.elements,
            "truncated": self.truncated,
        }


async def _oopif_origin(
    ctx: CommandContext, frame: dict[str, Any], frames: dict[str, dict[str, Any]]
) -> tuple[str, float, float]:
    """Session and main-viewport content origin of a cross-origin iframe."""
    chain: list[str] = []
    cursor: dict[str, Any] | None = frame
    while cursor is not None and cursor.get("selector"):
        chain.insert(0, str(cursor["selector"]))
        parent = cursor.get("parent")
        cursor = frames.get(str(parent)) if parent else None
    object_id = await evaluate_handle(
        ctx, page_call("frameElementByChain", chain), what="frame lookup"
    )
    if object_id is None:
        raise ReinsError("the iframe element is gone", code="frame_unreachable")
    session = await session_for_iframe(ctx, object_id)
    origin = await call_function(ctx, object_id, "contentOrigin", what="frame origin")
    return session, float(origin[0]), float(origin[1])


async def snapshot_page(
    ctx: CommandContext, *, viewport_only: bool = False, full: bool = False
) -> PageSnapshot:
    """Collect the page. ``full`` keeps every field of the record (the interaction map needs
    them); otherwise the page sends the compact record (docs/element-record.md)."""
    started = time.monotonic()
    options = {
        "viewportOnly": viewport_only,
        "maxElements": MAX_ELEMENTS,
        "withSelectors": True,
        "compact": not full,
        # The main document's scrolling regions, found by the walk (the state's scroll line).
        "scrollRegions": SCROLL_REGIONS,
    }
    main, carried = await _collect_main(ctx, options)
    elements: list[dict[str, Any]] = list(main.get("elements") or [])
    homes: list[tuple[str | None, int]] = [(None, i) for i in range(len(elements))]
    frames: list[dict[str, Any]] = [dict(f) for f in main.get("frames") or []]
    by_id = {str(f["id"]): f for f in frames}
    gens = {"main": str(main.get("gen", ""))}
    # (position in the main list, records, homes) of each cross-origin frame read on its own.
    splices: list[tuple[int, list[dict[str, Any]], list[tuple[str | None, int]]]] = []
    for frame in list(frames):
        if frame.get("status") != "cross_origin":
            continue
        try:
            session, ox, oy = await _oopif_origin(ctx, frame, by_id)
            child = await _collect(ctx, options, session_id=session, what="collect in frame")
        except ReinsError as exc:
            frame["status"] = "unreachable"
            frame["reason"] = _unreachable_reason(exc)
            continue
        frame["status"] = "ok"
        frame["session_id"] = session
        gens[session] = str(child.get("gen", ""))
        frame["url"] = frame.get("url") or child.get("url") or ""
        at = frame.pop("at", None)
        splice: tuple[int, list[dict[str, Any]], list[tuple[str | None, int]]] = (
            at if isinstance(at, int) else len(elements),
            [],
            [],
        )
        splices.append(splice)
        prefix = str(frame["id"])
        remap = {"f0": prefix}
        for sub in child.get("frames") or []:
            if sub["id"] == "f0":
                continue
            remap[sub["id"]] = f"{prefix}.{sub['id'][1:]}"
            sub = dict(
                sub, id=remap[sub["id"]], parent=remap.get(sub.get("parent") or "f0", prefix)
            )
            frames.append(sub)
        for local, record in enumerate(child.get("elements") or []):
            record["frame"] = remap.get(record.get("frame", "f0"), prefix)
            box = record.get("box")
            if isinstance(box, list) and len(box) == 4:
                record["box"] = [box[0] + ox, box[1] + oy, box[2], box[3]]
            splice[1].append(record)
            splice[2].append((session, local))
    elements, homes = _spliced(elements, homes, splices)
    for frame in frames:
        frame.pop("at", None)
        if frame.get("status") == "cross_origin":  # could not be reached
            frame["status"] = "unreachable"
            frame.setdefault("reason", "cross-origin frame without a session")
    for i, record in enumerate(elements):
        record["i"] = i
    if len(frames) > 1:
        await _name_frames(ctx, frames)
    return PageSnapshot(
        url=str(main.get("url", "")),
        title=str(main.get("title", "")),
        viewport=dict(main.get("viewport") or {}),
        frames=frames,
        elements=elements,
        truncated=bool(main.get("truncated")),
        document_id=repr(main.get("origin")),
        timestamp=float(main.get("timestamp") or time.time() * 1000),
        elapsed_ms=int((time.monotonic() - started) * 1000),
        homes=homes,
        gens=gens,
        carried=carried,
        scrollable=[r for r in main.get("scrollable") or [] if isinstance(r, dict)],
        unread=_count(main.get("unread")),
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


async def _name_frames(ctx: CommandContext, frames: list[dict[str, Any]]) -> None:
    """Each frame's ``url`` and ``origin`` from Chrome's frame tree, in place of what the page
    script said (a page answers its own ``src`` and ``URL`` getters, and could label its collector
    frame with a payment provider's address). The frame is the one Chrome says its ``<iframe>``
    element shows (``DOM.describeNode``); one that cannot be named so gets no URL at all."""
    by_id = {str(f["id"]): f for f in frames}
    trees: dict[str | None, dict[str, BrowserFrame]] = {}

    async def tree(session: str | None) -> dict[str, BrowserFrame]:
        if session not in trees:
            trees[session] = await frame_tree(ctx, session)
        return trees[session]

    for frame in frames:
        if not frame.get("parent"):
            continue  # the main frame: its URL is location.href, which no page can redefine
        frame.pop("url", None)
        frame.pop("origin", None)
        named: BrowserFrame | None = None
        try:
            if frame.get("session_id"):  # read through its own session: that target's root
                named = next(iter((await tree(str(frame["session_id"]))).values()), None)
            else:
                owner, session = await _owner_handle(ctx, frame, by_id)
                frame_id = await owned_frame_id(ctx, owner, session_id=session) if owner else None
                if frame_id:
                    named = (await tree(session)).get(frame_id) or _attached(ctx, frame_id)
        except ReinsError:
            named = None
        if named is not None:
            frame["url"], frame["origin"] = named.url, named.origin


def _attached(ctx: CommandContext, frame_id: str) -> BrowserFrame | None:
    """An out-of-process frame reins holds no session for: the URL Chrome gave when it attached."""
    url = ctx.part(FrameSessions).urls.get(frame_id)
    if not url:
        return None
    scheme, _, rest = url.partition("://")
    return BrowserFrame(url, f"{scheme}://{rest.split('/', 1)[0]}" if rest else "null")


async def _owner_handle(
    ctx: CommandContext, frame: dict[str, Any], by_id: dict[str, dict[str, Any]]
) -> tuple[str | None, str | None]:
    """A handle on the ``<iframe>`` element of a frame, and the session it lives in (None: the
    main target): the selectors from the nearest frame reins reads through a session of its own."""
    chain: list[str] = []
    session: str | None = None
    cursor: dict[str, Any] | None = frame
    while cursor is not None and cursor.get("selector"):
        chain.insert(0, str(cursor["selector"]))
        parent = by_id.get(str(cursor.get("parent"))) if cursor.get("parent") else None
        if parent is not None and parent.get("session_id"):
            session = str(parent["session_id"])
            break
        cursor = parent
    if not chain:
        return None, None
    owner = await evaluate_handle(
        ctx, page_call("frameElementByChain", chain), session_id=session, what="frame lookup"
    )
    return owner, session


def _unreachable_reason(exc: ReinsError) -> str:
    """Why a frame could not be read, short enough for its section header."""
    # A frame_unreachable message says what was missing (the iframe, its frame, a session); the
    # code alone would print "frame_unreachable: frame_unreachable". Without the generic hint.
    if exc.code in ("frame_unreachable", "cdp_error") and exc.args:
        return str(exc.args[0])
    return exc.code


def _spliced(
    elements: list[dict[str, Any]],
    homes: list[tuple[str | None, int]],
    splices: list[tuple[int, list[dict[str, Any]], list[tuple[str | None, int]]]],
) -> tuple[list[dict[str, Any]], list[tuple[str | None, int]]]:
    """The main list with each cross-origin frame's records inserted where its iframe is."""
    out_elements: list[dict[str, Any]] = []
    out_homes: list[tuple[str | None, int]] = []
    start = 0
    for at, records, record_homes in sorted(splices, key=lambda s: s[0]):  # stable: frame order
        at = max(start, min(at, len(elements)))
        out_elements += elements[start:at] + records
        out_homes += homes[start:at] + record_homes
        start = at
    return out_elements + elements[start:], out_homes + homes[start:]
