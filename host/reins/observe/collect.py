"""Observation: one page-side collection per frame context, the per-tab registry, and the AX source.

The DOM source is the page script (js/collect.js): one `Runtime.evaluate` per frame context returning
compact records. Out-of-process iframes are collected through their child sessions and merged in
with their boxes moved into the main viewport. The AX source asks Chrome's accessibility tree only
about those candidates (`Accessibility.getPartialAXTree` per element, batched), never for the whole
tree, so its cost grows with the number of interactive elements, not with the document.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reins._errors import ReinsError
from reins.page.frames import call_function, evaluate_handle, evaluate_value, session_for_iframe
from reins._paths import ensure_private_dir
from reins.observe.registry import Registry

if TYPE_CHECKING:
    from reins._host import CommandContext

__all__ = ["PageSnapshot", "ax_records", "registry_for", "save_registry", "snapshot_page"]

STORE = 'window[Symbol.for("reins.elements")]'
# Enough for 20,000-element pages while keeping one answer well under the 64 MiB port limit.
MAX_ELEMENTS = 50_000


@functools.cache
def collect_source() -> str:
    return (resources.files("reins") / "js" / "collect.js").read_text(encoding="utf-8")


def collect_expression(options: dict[str, Any]) -> str:
    body = collect_source().strip().rstrip(";")
    # The document's identity rides along: performance.timeOrigin is unique per document. The
    # result travels as one JSON string: CDP and the extension move a string of megabytes about
    # four times faster than the same data as an object tree (measured: 5,000 elements, 3.9 MB,
    # ~0.4 s against ~1.6 s).
    return ("(() => { const r = " + body.replace("__REINS_OPTIONS__", json.dumps(options))
            + "; r.origin = performance.timeOrigin; return JSON.stringify(r); })()")


async def _collect(ctx: CommandContext, options: dict[str, Any], *, session_id: str | None = None,
                   what: str = "collect") -> dict[str, Any]:
    text = await evaluate_value(ctx, collect_expression(options), session_id=session_id, what=what)
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ReinsError("the page script returned nothing (is this a page reins can read?)",
                         code="cdp_error", transient=True)
    return value


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
    elements: list[dict[str, Any]]
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

    def collected(self) -> dict[str, Any]:
        """In the page script's own shape (for the interaction map)."""
        return {"url": self.url, "title": self.title, "timestamp": self.timestamp,
                "viewport": self.viewport, "frames": self.frames, "elements": self.elements,
                "truncated": self.truncated}


async def _oopif_origin(ctx: CommandContext, frame: dict[str, Any],
                        frames: dict[str, dict[str, Any]]) -> tuple[str, float, float]:
    """Session and main-viewport content origin of a cross-origin iframe."""
    chain: list[str] = []
    cursor: dict[str, Any] | None = frame
    while cursor is not None and cursor.get("selector"):
        chain.insert(0, str(cursor["selector"]))
        parent = cursor.get("parent")
        cursor = frames.get(str(parent)) if parent else None
    expression = (
        "(() => { let doc = document; let el = null; const chain = " + json.dumps(chain) + ";"
        " for (const sel of chain) { el = doc.querySelector(sel); if (!el) return null;"
        " if (el.contentDocument) doc = el.contentDocument; } return el; })()"
    )
    object_id = await evaluate_handle(ctx, expression, what="frame lookup")
    if object_id is None:
        raise ReinsError("the iframe element is gone", code="frame_unreachable")
    session = await session_for_iframe(ctx, object_id)
    origin = await call_function(ctx, object_id, _CONTENT_ORIGIN, what="frame origin")
    return session, float(origin[0]), float(origin[1])


# The content-box origin of an element (an iframe) in the top viewport of this context.
_CONTENT_ORIGIN = """function() {
  const cs = getComputedStyle(this); const r = this.getBoundingClientRect();
  let x = r.x + this.clientLeft + parseFloat(cs.paddingLeft), y = r.y + this.clientTop + parseFloat(cs.paddingTop);
  let w = this.ownerDocument.defaultView;
  while (w && w.frameElement) { const f = w.frameElement; const fr = f.getBoundingClientRect(); const fs = getComputedStyle(f);
    x += fr.x + f.clientLeft + parseFloat(fs.paddingLeft); y += fr.y + f.clientTop + parseFloat(fs.paddingTop); w = w.parent; }
  return [x, y];
}"""


async def snapshot_page(ctx: CommandContext, *, viewport_only: bool = False,
                        full: bool = False) -> PageSnapshot:
    """Collect the page. ``full`` keeps every field of the record (the interaction map needs
    them); otherwise the page sends the compact record (docs/element-record.md)."""
    started = time.monotonic()
    options = {"viewportOnly": viewport_only, "maxElements": MAX_ELEMENTS, "withSelectors": True,
               "compact": not full}
    main = await _collect(ctx, options)
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
            at if isinstance(at, int) else len(elements), [], [])
        splices.append(splice)
        prefix = str(frame["id"])
        remap = {"f0": prefix}
        for sub in child.get("frames") or []:
            if sub["id"] == "f0":
                continue
            remap[sub["id"]] = f"{prefix}.{sub['id'][1:]}"
            sub = dict(sub, id=remap[sub["id"]], parent=remap.get(sub.get("parent") or "f0", prefix))
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
    return PageSnapshot(
        url=str(main.get("url", "")), title=str(main.get("title", "")),
        viewport=dict(main.get("viewport") or {}), frames=frames, elements=elements,
        truncated=bool(main.get("truncated")), document_id=repr(main.get("origin")),
        timestamp=float(main.get("timestamp") or time.time() * 1000),
        elapsed_ms=int((time.monotonic() - started) * 1000), homes=homes, gens=gens)


def _unreachable_reason(exc: ReinsError) -> str:
    """Why a frame could not be read, short enough for its section header."""
    # A frame_unreachable message says what was missing (the iframe, its frame, a session); the
    # code alone would print "frame_unreachable: frame_unreachable". Without the generic hint.
    if exc.code in ("frame_unreachable", "cdp_error") and exc.args:
        return str(exc.args[0])
    return exc.code


def _spliced(
    elements: list[dict[str, Any]], homes: list[tuple[str | None, int]],
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


# ---- the AX source --------------------------------------------------------------------------


async def _object_ids(ctx: CommandContext, session: str | None) -> list[str]:
    array_id = await evaluate_handle(ctx, STORE, session_id=session, what="element handles")
    if array_id is None:
        return []
    props = await ctx.cdp("Runtime.getProperties", {"objectId": array_id, "ownProperties": True},
                          session_id=session)
    ids: dict[int, str] = {}
    for prop in props.get("result") or []:
        name = str(prop.get("name", ""))
        value = prop.get("value") or {}
        if name.isdigit() and value.get("objectId"):
            ids[int(name)] = str(value["objectId"])
    return [ids[i] for i in sorted(ids)]


def _ax_value(node: dict[str, Any], key: str) -> Any:
    return (node.get(key) or {}).get("value")


def _ax_states(node: dict[str, Any]) -> dict[str, Any]:
    states: dict[str, Any] = {}
    for prop in node.get("properties") or []:
        name = prop.get("name")
        value = (prop.get("value") or {}).get("value")
        if name in ("disabled", "expanded", "selected", "focused", "checked", "readonly", "required"):
            states[name] = value if name != "checked" else (
                True if value == "true" else False if value == "false" else value)
    return states


# Kept back from the budget for what follows the AX queries (registry, rendering, the answer).
AX_RESERVE_S = 1.5
AX_CHUNK = 200


async def ax_records(ctx: CommandContext, snap: PageSnapshot,
                     ) -> tuple[list[dict[str, Any]], AxCoverage]:
    """The snapshot's candidates as Chrome's accessibility tree sees them (role, name, states,
    backend node id), asked element by element in batches, viewport first.

    Each `Accessibility.getPartialAXTree` costs Chrome time that grows with the document (about
    0.4 ms per call at 1,000 elements, 4-6 ms at 20,000, measured here), so the queries stop when
    the budget would not cover another batch: the remaining elements keep the page script's
    role and name, and the coverage says how many were asked.
    """
    records = [dict(r) for r in snap.elements]
    coverage = AxCoverage(total=len(records))
    order = sorted(range(len(records)),
                   key=lambda i: (not records[i].get("in_viewport"), i))
    tab = ctx.host.tab(ctx.tab)
    handles: dict[str | None, list[str]] = {}
    loop = asyncio.get_running_loop()
    per_call = 0.002  # seconds; refined from each batch
    for k in range(0, len(order), AX_CHUNK):
        chunk = order[k:k + AX_CHUNK]
        if ctx.deadline.remaining() < AX_RESERVE_S + per_call * len(chunk):
            break
        by_session: dict[str | None, list[int]] = {}
        for i in chunk:
            by_session.setdefault(snap.homes[i][0], []).append(i)
        started = loop.time()
        for session, indexes in by_session.items():
            if session not in handles:
                # With the domain enabled Chrome keeps its tree between calls.
                enabled: set[str | None] = tab.extra.setdefault("ax_enabled", set())
                if session not in enabled:
                    await ctx.cdp("Accessibility.enable", {}, session_id=session)
                    enabled.add(session)
                handles[session] = await _object_ids(ctx, session)
            ids = handles[session]
            pairs = [(i, ids[snap.homes[i][1]]) for i in indexes if snap.homes[i][1] < len(ids)]
            answers = await ctx.host.link.cdp_batch(
                ctx.tab, [("Accessibility.getPartialAXTree",
                           {"objectId": oid, "fetchRelatives": False}) for _, oid in pairs],
                deadline=ctx.deadline, session_id=session)
            for (i, _), answer in zip(pairs, answers, strict=False):
                _merge_ax(records[i], answer)
        coverage.asked += len(chunk)
        per_call = max(per_call, (loop.time() - started) / max(1, len(chunk)))
    for session in handles:
        await ctx.cdp("Runtime.releaseObjectGroup", {"objectGroup": "reins"}, session_id=session)
    return records, coverage


def _merge_ax(record: dict[str, Any], answer: dict[str, Any] | ReinsError) -> None:
    if isinstance(answer, ReinsError):
        record["ax_error"] = answer.code
        return
    nodes = answer.get("nodes") or []
    node = next((n for n in nodes if not n.get("ignored")), nodes[0] if nodes else None)
    if node is None:
        return
    record["backend_node_id"] = node.get("backendDOMNodeId")
    role = _ax_value(node, "role")
    if node.get("ignored"):
        record["ax_ignored"] = True
    elif isinstance(role, str) and role not in ("", "none"):
        record["role"] = role
    name = _ax_value(node, "name")
    if isinstance(name, str) and name.strip():
        record["name"] = name.strip()
    states = dict(record.get("states") or {})
    states.update(_ax_states(node))
    record["states"] = states


# ---- the registry of each tab, persisted so refs survive a host restart ---------------------


def _registry_file(ctx: CommandContext, url: str) -> Path:
    key = hashlib.sha256(url.split("#", 1)[0].encode()).hexdigest()[:24]
    folder = ensure_private_dir(ctx.host.home / "registries" / ctx.host.profile)
    return folder / f"{key}.json"


def registry_for(ctx: CommandContext, url: str | None = None) -> Registry:
    """The tab's registry; after a host restart, the one saved for this page is restored."""
    state = ctx.host.tab(ctx.tab)
    registry = state.extra.get("registry")
    if isinstance(registry, Registry):
        return registry
    registry = Registry()
    if url:
        path = _registry_file(ctx, url)
        try:
            registry = Registry.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, ReinsError):
            registry = Registry()
    state.extra["registry"] = registry
    return registry


@dataclass(frozen=True)
class SeenAt:
    """Where the latest observation saw each ref: its page-side context and index there.

    With the context's collection generation, a ref reaches the very node it was given to while
    the page still holds that collection — also after a host restart (main-context refs; a child
    frame's session does not outlive the host).
    """

    document_id: str
    gens: dict[str, str]
    homes: dict[str, tuple[str | None, int]]

    @classmethod
    def of(cls, snap: PageSnapshot, refs: list[str]) -> SeenAt:
        return cls(snap.document_id, dict(snap.gens), dict(zip(refs, snap.homes, strict=True)))

    def to_json(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "gen": self.gens.get("main", ""),
                "homes": {ref: home[1] for ref, home in self.homes.items() if home[0] is None}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeenAt:
        homes: dict[str, tuple[str | None, int]] = {
            str(ref): (None, int(i)) for ref, i in dict(data.get("homes") or {}).items()}
        return cls(str(data["document_id"]), {"main": str(data["gen"])}, homes)


def save_registry(ctx: CommandContext, registry: Registry, url: str, seen: SeenAt | None = None,
                  ) -> None:
    """Persist the tab's registry (and where refs were seen) under REINS_HOME.

    The plain data is taken here, on the event loop; the encoding and the writes run on the
    host's I/O worker, so the answer does not wait for them and the registry is never read while
    the next observation changes it.
    """
    path = _registry_file(ctx, url)
    payloads = [(path, registry.to_json())]
    if seen is not None:
        payloads.append((path.with_suffix(".seen.json"), seen.to_json()))
    ctx.host.tab(ctx.tab).extra["registry_url"] = url
    ctx.host.in_background(_write_json, payloads)


def _write_json(payloads: list[tuple[Path, dict[str, Any]]]) -> None:
    for path, data in payloads:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")))
        tmp.replace(path)


def seen_for(ctx: CommandContext, url: str | None) -> SeenAt | None:
    """The latest observation's positions: from memory, else (after a restart) from disk."""
    state = ctx.host.tab(ctx.tab)
    seen = state.extra.get("seen")
    if isinstance(seen, SeenAt):
        return seen
    if not url:
        return None
    try:
        seen = SeenAt.from_json(json.loads(
            _registry_file(ctx, url).with_suffix(".seen.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    state.extra["seen"] = seen
    return seen


async def current_url(ctx: CommandContext) -> str:
    value = await evaluate_value(ctx, "location.href", what="url")
    return str(value or "")
