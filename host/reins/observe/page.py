"""Observing a page: collect it, register what it shows, remember where each ref was seen.

Everything that needs the page's elements goes through here: `state`, `map`, `find`, the
annotated screenshot, and the resolution of `role=`/`text=` targets and stale refs.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from reins._errors import ResolutionError
from reins._paths import ensure_private_dir, write_private
from reins.bridge.context import CommandContext, Host, HostPart
from reins.bridge.memory import gc_paused
from reins.observe.ax import ax_records
from reins.observe.collect import PageSnapshot, snapshot_page
from reins.observe.imap import build_map, find_with_fallback
from reins.observe.sent import SentRecords, keys_for
from reins.observe.store import (
    BIG_OBSERVATION,
    MapCache,
    ObserveState,
    SeenAt,
    give_memory_back,
    left_big_document,
    let_big_document_go,
    registry_for,
    save_registry,
)
from reins.page.call import evaluate, page_call
from reins.page.poll import poll_until

__all__ = [
    "DEFAULT_SOURCE",
    "MAP_TTL_S",
    "MapQuery",
    "current_map",
    "find_elements",
    "observe_page",
]

DEFAULT_SOURCE: Literal["dom", "ax"] = "dom"
MAP_TTL_S = 600.0


async def observe_page(
    ctx: CommandContext,
    *,
    source: str = DEFAULT_SOURCE,
    viewport_only: bool = False,
    full: bool = False,
) -> tuple[PageSnapshot, list[dict[str, Any]], list[str]]:
    """Collect the page, register what it shows, and return (snapshot, records, refs)."""
    # Tens of thousands of records, and no garbage cycles among them (``bridge.memory``); not
    # paused across the AX source's questions to Chrome, which may take the whole budget.
    with gc_paused():
        snap = await snapshot_page(ctx, viewport_only=viewport_only, full=full)
    records = snap.elements
    if source == "ax":
        records, snap.ax_coverage = await ax_records(ctx, snap)
    with gc_paused():
        return _register(ctx, snap, records, source)


def _register(
    ctx: CommandContext, snap: PageSnapshot, records: list[dict[str, Any]], source: str
) -> tuple[PageSnapshot, list[dict[str, Any]], list[str]]:
    state = ctx.part(ObserveState)
    dropped = state.forget_document(snap.document_id)
    registry = registry_for(ctx, snap.url)
    before = len(registry)
    new_document = registry.document_id not in (None, snap.document_id)
    keys = (
        keys_for(records, snap.homes, snap.frames, snap.carried, ctx.part(SentRecords))
        if source != "ax"
        else None
    )
    refs = registry.observe(
        records,
        now=time.monotonic(),
        document_id=snap.document_id,
        source="ax" if source == "ax" else "dom",
        frames=snap.frames,
        keys=keys,
    )
    seen = state.seen = SeenAt.of(snap, refs)
    save_registry(ctx, registry, snap.url, seen)
    if dropped or max(before, len(records)) >= BIG_OBSERVATION:
        loop = asyncio.get_running_loop()
        if new_document and let_big_document_go(before, len(registry)):
            # Once the answer is out and the command's garbage gone (copies made while it lives
            # would land among it): on the loop, right after the answering task has ended.
            ctx.after_answer(("compact", ctx.tab), _compact, state, snap.document_id, on_loop=True)
        ctx.host.part(_Release).after_quiet(loop, ctx.host)
    return snap, records, refs


def _compact(state: ObserveState, document_id: str) -> None:
    # By the document, not the registry object: nothing but the tab may hold the registry then,
    # or its big document's memory could not go.
    if state.registry is not None and state.registry.document_id == document_id:
        left_big_document(state)


# How long after the last big observation the host collects and trims (``give_memory_back``):
# a collection of a 20,000-element heap holds the GIL for ~150 ms, which back-to-back
# observations would otherwise pay inside the next one.
RELEASE_AFTER_S = 0.5


@dataclass
class _Release(HostPart):
    handle: asyncio.TimerHandle | None = None

    def after_quiet(self, loop: asyncio.AbstractEventLoop, host: Host) -> None:
        """Give memory back once no big observation came for ``RELEASE_AFTER_S`` (on the I/O
        worker, after the registry's write)."""
        if self.handle is not None:
            self.handle.cancel()
        self.handle = loop.call_later(RELEASE_AFTER_S, host.in_background, give_memory_back)


async def current_map(ctx: CommandContext, *, force: bool = False) -> dict[str, Any]:
    """The tab's interaction map: cached 10 minutes, dropped on a new document or another URL."""
    state = ctx.part(ObserveState)
    cached = state.map
    if not force and cached is not None:
        now_doc = await evaluate(ctx, page_call("documentIdentity"), what="doc")
        fresh = time.monotonic() - cached.created < MAP_TTL_S
        same = (
            isinstance(now_doc, list)
            and repr(now_doc[0]) == cached.document_id
            and now_doc[1] == cached.url
        )
        if fresh and same:
            return dict(cached.map, cached=True)
    snap, records, refs = await observe_page(ctx, full=True)
    imap = build_map(snap.collected())
    for key, ref in zip(imap["elements"], refs, strict=True):
        imap["elements"][key]["ref"] = ref
    state.map = MapCache(imap, time.monotonic(), snap.document_id, snap.url)
    folder = ensure_private_dir(ctx.host.home / "maps" / ctx.host.profile, root=ctx.host.home)
    write_private(folder / f"tab-{ctx.tab}.json", json.dumps(imap, ensure_ascii=False).encode())
    return dict(imap, cached=False)


class MapQuery(TypedDict, total=False):
    """A query of the interaction map (`reins find`, an action's --text/--index/--type): the
    text an element shows, its map type or tag, which match (1-based), in the viewport only, or
    its map id (``elem_N``)."""

    text: str
    type: str
    tag: str
    index: int
    viewport_only: bool
    id: str


async def find_elements(
    ctx: CommandContext,
    query: MapQuery,
) -> tuple[list[dict[str, Any]], str]:
    """Query the interaction map with the 3-stage fallback (type, tag, regenerate up to 3 times).

    ``query`` holds the map query's fields (text, type, tag, index, viewport_only, id)."""
    tries = 0

    async def matches() -> tuple[list[dict[str, Any]], str]:
        nonlocal tries
        tries += 1
        imap = await current_map(ctx, force=tries > 1)
        found = find_with_fallback(imap, dict, max_regenerations=0, **query)
        return found.matches, found.stage if tries == 1 else "regenerate"

    # No match: the page may still be rendering it; regenerate the map up to three times.
    return await poll_until(
        ctx.deadline,
        matches,
        interval=0.15,
        backoff=0.15,
        attempts=4,
        retry=lambda exc: isinstance(exc, ResolutionError) and exc.code == "not_found",
    )
