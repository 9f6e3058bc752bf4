"""What observation keeps about a tab between commands, and on disk across host restarts.

The tab's registry (refs), where the latest observation saw each ref (``SeenAt``), the cached
interaction map, the lines the latest ``state`` printed (for ``state --diff``), and which sessions
have the accessibility domain enabled. An observation of a new document drops what belonged to
the old one (``forget_document``). Registries and positions
are persisted under ``REINS_HOME/registries/PROFILE/`` by URL, written on the host's I/O worker.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reins._errors import ReinsError
from reins._paths import ensure_private_dir, write_private
from reins.bridge.context import CommandContext, TabPart
from reins.bridge.memory import give_memory_back
from reins.observe.collect import PageSnapshot
from reins.observe.diff import Lines
from reins.observe.identity import forget_normalized
from reins.observe.registry import Registry
from reins.page.call import evaluate, page_call

__all__ = [
    "BIG_OBSERVATION",
    "MapCache",
    "ObserveState",
    "SeenAt",
    "current_url",
    "give_memory_back",
    "left_big_document",
    "let_big_document_go",
    "registry_for",
    "saved_by",
    "save_registry",
    "seen_for",
]


@dataclass
class MapCache:
    """The tab's interaction map and what it was built from."""

    map: dict[str, Any]
    created: float
    document_id: str
    url: str


@dataclass
class ObserveState(TabPart):
    registry: Registry | None = None
    # The URL the registry belongs to (its file name on disk).
    registry_url: str | None = None
    seen: SeenAt | None = None
    map: MapCache | None = None
    # The lines the latest `state` printed, for the next `state --diff` (bounded: diff.MAX_KEPT).
    lines: Lines | None = None
    # Sessions (None: the main target) with the Accessibility domain enabled.
    ax_enabled: set[str | None] = field(default_factory=set)

    def on_detach(self) -> None:
        self.ax_enabled.clear()

    def forget_document(self, document_id: str) -> bool:
        """An observation of ``document_id``: drop what was kept of another document (the
        interaction map, the lines for ``state --diff``). The registry starts its new generation
        itself (``Registry.observe``). Returns whether anything was dropped."""
        dropped = False
        if self.map is not None and self.map.document_id != document_id:
            self.map, dropped = None, True
        if self.lines is not None and self.lines.document_id != document_id:
            self.lines, dropped = None, True
        return dropped


# From this many elements an observation's garbage is worth handing back to the system.
BIG_OBSERVATION = 2_000


def let_big_document_go(before: int, after: int) -> bool:
    """Whether an observation of a new document left the registry with most of a big one gone
    (``before`` and ``after`` are its sizes around the observation): then what survived is worth
    compacting (``left_big_document``). Not after a reload of the same big page, whose elements
    all claim their refs again: nothing was let go, and compacting 20,000 entries would hold the
    event loop for half a second for no memory back."""
    return before >= BIG_OBSERVATION and after * 2 <= before


def left_big_document(state: ObserveState) -> None:
    """The tab has left a big document: keep what the registry carries over as fresh copies.

    What outlives a big document (carried-over entries, tombstones, their strings) was allocated
    among its tens of thousands of records; left in place, a few survivors per memory page keep
    every page of it (CPython frees an arena of its allocator only when all of it is free). So the
    registry is written out as one pickle (a single block, outside those pages), let go — with
    nothing else holding it, its objects and the pages only they kept are freed at once — and
    read back, packing into pages that stay in use anyway; ``give_memory_back``, which the caller
    runs once the answer is out, returns the rest to the system."""
    registry = state.registry
    if registry is None:
        return
    saved = pickle.dumps(registry, protocol=pickle.HIGHEST_PROTOCOL)
    state.registry = registry = None
    forget_normalized()
    state.registry = pickle.loads(saved)  # the host's own bytes, made just above


def _registry_file(ctx: CommandContext, url: str) -> Path:
    key = hashlib.sha256(url.split("#", 1)[0].encode()).hexdigest()[:24]
    folder = ensure_private_dir(ctx.host.home / "registries" / ctx.host.profile, root=ctx.host.home)
    return folder / f"{key}.json"


def registry_for(ctx: CommandContext, url: str | None = None) -> Registry:
    """The tab's registry; after a host restart, the one this tab saved for this page is
    restored. A tab that saved none starts its own: another tab's registry on the same URL
    (20,000 entries: ≈ 1 s to read) would only give it that tab's refs and tombstones. After a
    browser restart tab ids start again, so a registry saved in an earlier run of the browser goes
    to the tab that looks at its page first (most often that page's tab, restored)."""
    state = ctx.part(ObserveState)
    if state.registry is not None:
        return state.registry
    registry = Registry()
    if url:
        path = _registry_file(ctx, url)
        try:
            if saved_by(path, ctx.tab_id, ctx.host.link.browser_run):
                registry = Registry.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, ReinsError):
            registry = Registry()
    state.registry = registry
    return registry


# What a saved file begins with: the tab that wrote it and the run of the browser it was in
# (``save_registry`` puts them first).
_OWNER = re.compile(rb'\{"tab":(\d+|null)(?:,"session":"([A-Za-z0-9_-]{1,64})")?[,}]')
_OWNER_BYTES = 128


def saved_by(path: Path, tab: int | None, session: str | None = None) -> bool:
    """Whether the registry or positions file at ``path`` is for ``tab`` of the browser's run
    ``session``, read from its first bytes (not the megabytes after them): saved by that tab in
    this run, or saved in another run of the browser (whose tab ids mean nothing now). A file that
    names no tab (saved before the tab was recorded) counts as this tab's, as all files did then.
    Raises ``OSError`` if unreadable."""
    with path.open("rb") as saved:
        head = saved.read(_OWNER_BYTES)
    owner = _OWNER.match(head)
    if owner is None:
        return True
    saved_run = owner.group(2)
    if saved_run is not None and session is not None and saved_run.decode() != session:
        return True
    return owner.group(1) == (b"null" if tab is None else str(tab).encode())


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
        return {
            "document_id": self.document_id,
            "gen": self.gens.get("main", ""),
            "homes": {ref: home[1] for ref, home in self.homes.items() if home[0] is None},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeenAt:
        homes: dict[str, tuple[str | None, int]] = {
            str(ref): (None, int(i)) for ref, i in dict(data.get("homes") or {}).items()
        }
        return cls(str(data["document_id"]), {"main": str(data["gen"])}, homes)


def save_registry(
    ctx: CommandContext,
    registry: Registry,
    url: str,
    seen: SeenAt | None = None,
) -> None:
    """Persist the tab's registry (and where refs were seen) under REINS_HOME; the registry only
    when it changed beyond the times and boxes of entries seen again (``Registry.take_changed``).

    The plain data is taken here, on the event loop, so the registry is never read while the
    next observation changes it; the encoding and the writes run on the host's I/O worker once
    the command's answer is out (``CommandContext.after_answer``).
    """
    path = _registry_file(ctx, url)
    state = ctx.part(ObserveState)
    payloads: list[tuple[Path, dict[str, Any]]] = []  # (file, its data)
    # A look that only saw the same elements again (new times and boxes) leaves the saved
    # registry as it is: re-encoding 20,000 entries after every look cost more than the look.
    # The tab and the browser's run first, so that a reader can tell whose file it is from its
    # first bytes (saved_by).
    owner: dict[str, Any] = {"tab": ctx.tab_id}
    run = ctx.host.link.browser_run
    if run is not None:
        owner["session"] = run
    if registry.take_changed() or state.registry_url != url:
        payloads.append((path, {**owner, **registry.to_json()}))
    if seen is not None:
        payloads.append((path.with_suffix(".seen.json"), {**owner, **seen.to_json()}))
    state.registry_url = url
    # Encoded and written once the command's answer is out: encoding a big registry holds the
    # GIL for all of its 0.2-0.4 s (at 20,000), which, begun earlier, held the answer back. Per
    # file, the latest data wins (a batch of looks writes once).
    for file, data in payloads:
        ctx.after_answer(("registry", file), _write_json, file, data)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_private(path, json.dumps(data, separators=(",", ":")).encode())


def seen_for(ctx: CommandContext, url: str | None) -> SeenAt | None:
    """The latest observation's positions: from memory, else (after a restart) from what this
    tab saved."""
    state = ctx.part(ObserveState)
    if state.seen is not None:
        return state.seen
    if not url:
        return None
    path = _registry_file(ctx, url).with_suffix(".seen.json")
    try:
        if not saved_by(path, ctx.tab_id, ctx.host.link.browser_run):
            return None
        seen = SeenAt.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    state.seen = seen
    return seen


async def current_url(ctx: CommandContext) -> str:
    value = await evaluate(ctx, page_call("documentUrl"), what="url")
    return str(value or "")
