"""The element registry of one tab: stable refs mapped to what reins knows about each element.

One ``Registry`` per tab. Its entries belong to the tab's current document; a navigation (an
``observe`` with a new ``document_id``) starts a new generation:

* entries whose ref comes from a strong signal (data-testid, id, aria-label) are carried over, marked
  ``carried_over=True`` and without a backend node id, until an element of the new document claims
  them (then ``reidentified=True``). A lookup of a carried-over ref returns the entry so the caller
  can resolve it by identity in the new document (``candidates``);
* hash-ref entries become tombstones: ``lookup`` raises ``ResolutionError(code="ref_stale")``.

Matching an observed element to an existing entry, strongest evidence first, each pass over the
whole observation so a weak match never takes an entry a stronger one would have claimed:

    1. same document and same backend node id (the same node, whichever source saw it);
       then same frame and tag and the same data-testid (else id), unique on both sides, in
       this document or carried over from the previous one;
    2. same document, same unique locator, and identity similarity >= MATCH_THRESHOLD;
    3. same ref (``ref_for``) and similarity >= MATCH_THRESHOLD (also across documents, which is how
       carried-over entries are re-identified);
    4. same document, same role and name, similarity >= MATCH_THRESHOLD.

Ties go to the entry registered first. Records matched to nothing get new refs, made unique against
the live entries in document order (``resolve_collisions``).

The DOM source is authoritative on identity: a DOM record replaces an entry's identity, while an AX
record (which lacks attributes such as data-testid) only fills what it carries over the entry's
identity. Records from different sources are compared on the signals both sides have.

Bounds: at most ``max_entries`` (2,000) entries; an entry unseen for ``stale_after`` (60 s) is
evicted, and past the cap the least recently seen go first. Entries shown in the latest observation
of each source are never evicted, so a 20,000-element page keeps 20,000 live refs. Evicted refs
leave tombstones (bounded likewise) so a lookup says "stale" rather than "not found".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from reins._errors import ReinsError, ResolutionError, UsageError
from reins.observe.entries import (
    SOURCES,
    Bounds,
    Locator,
    RegistryEntry,
    Source,
    Tombstone,
    normalize_ref,
    read_list,
    read_mapping,
    read_number,
    read_opt_int,
    read_opt_str,
    read_source,
    read_str_list,
)
from reins.observe.identity import (
    MATCH_THRESHOLD,
    Identity,
    compare,
    ref_for,
    ref_signal,
    resolve_collisions,
)

__all__ = [
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_STALE_AFTER",
    "Bounds",
    "Locator",
    "Registry",
    "RegistryEntry",
    "Source",
    "Tombstone",
    "normalize_ref",
]


DEFAULT_MAX_ENTRIES: Final = 2000
DEFAULT_STALE_AFTER: Final = 60.0
MIN_CANDIDATE_CONFIDENCE: Final = 0.5
STATE_VERSION: Final = 1

_STRONG_SIGNALS: Final[frozenset[str]] = frozenset({"testid", "id", "aria_label"})


class Registry:
    """Stable refs of one tab's elements, across observations from the DOM and AX sources."""

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        stale_after: float = DEFAULT_STALE_AFTER,
        max_tombstones: int | None = None,
    ) -> None:
        if max_entries < 1 or stale_after <= 0:
            raise UsageError("max_entries must be >= 1 and stale_after > 0")
        self.max_entries = max_entries
        self.stale_after = stale_after
        self.max_tombstones = max_entries if max_tombstones is None else max_tombstones
        self.document_id: str | None = None
        self.generation = 0
        # Insertion order is registration order, which ties are broken by.
        self._entries: dict[str, RegistryEntry] = {}
        self._tombstones: dict[str, Tombstone] = {}
        self._latest: dict[Source, frozenset[str]] = {}

    # -- reading ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and ref in self._entries

    def entries(self) -> list[RegistryEntry]:
        """Live entries in registration order."""
        return list(self._entries.values())

    def latest_refs(self, source: Source = "dom") -> frozenset[str]:
        """The refs the latest observation from ``source`` in this document showed."""
        return self._latest.get(source, frozenset())

    def lookup(self, ref: str) -> RegistryEntry:
        """The entry for ``ref`` (with or without ``@``).

        A carried-over entry (``carried_over=True``) names an element of the previous document that
        this one has not shown yet: re-identify it with ``candidates`` instead of its locator.
        Raises ``ResolutionError`` with code ``ref_stale`` for a ref from before a navigation or
        evicted for age, ``not_found`` for a ref this tab never had.
        """
        key = normalize_ref(ref)
        entry = self._entries.get(key)
        if entry is not None:
            return entry
        tomb = self._tombstones.get(key)
        if tomb is not None:
            why = (
                "the page has navigated since"
                if tomb.reason == "navigated"
                else "the element has not been on the page since"
            )
            raise ResolutionError(
                f"{key} is from an earlier snapshot and {why}",
                code="ref_stale",
                details={"ref": key, "reason": tomb.reason, "document_id": tomb.document_id},
            )
        raise ResolutionError(
            f"no element with ref {key} in this tab",
            code="not_found",
            details={"ref": key},
        )

    def candidates(
        self,
        entry: RegistryEntry,
        records: Sequence[Mapping[str, Any]],
        *,
        source: Source = "dom",
        min_confidence: float = MIN_CANDIDATE_CONFIDENCE,
    ) -> list[tuple[int, float]]:
        """Records that may be ``entry``'s element now, as ``(index in records, confidence)``.

        Best first; the same backend node in the same document scores 1.0 and comes first; equal
        confidences otherwise go in document order, so the n-th of several look-alikes maps to the
        n-th.
        """
        same_document = entry.document_id == self.document_id and not entry.carried_over
        scored: list[tuple[float, bool, int]] = []
        for index, record in enumerate(records):
            backend = read_opt_int(record.get("backend_node_id"))
            same_node = same_document and backend is not None and backend == entry.backend_node_id
            confidence = (
                1.0 if same_node else _similarity(Identity.from_record(record), source, entry)
            )
            if confidence >= min_confidence:
                scored.append((-confidence, not same_node, index))
        scored.sort()
        return [(index, -negated) for negated, _, index in scored]

    # -- observing -------------------------------------------------------------------------------

    def observe(
        self,
        records: Sequence[Mapping[str, Any]],
        *,
        now: float,
        document_id: str,
        source: Source = "dom",
        frames: Sequence[Mapping[str, Any]] = (),
    ) -> list[str]:
        """Register one whole observation; return each record's ref, in record order.

        ``records`` are element records (docs/element-record.md) or AX records with the same keys;
        ``frames`` is the observation's frame list, for the iframe selector chain of locators.
        ``now`` is in seconds on any clock that only moves forward.
        """
        if source not in SOURCES:
            raise UsageError(f"unknown observation source {source!r}; use 'dom' or 'ax'")
        if self.document_id is None:
            self.document_id = document_id
        elif document_id != self.document_id:
            self._start_document(document_id, now)

        chains = _frame_chains(frames)
        identities = [Identity.from_record(r) for r in records]
        locators = [Locator.from_record(r, chains) for r in records]
        backends = [read_opt_int(r.get("backend_node_id")) for r in records]
        refs: list[str | None] = [None] * len(records)
        claimed: set[str] = set()

        current = [e for e in self._entries.values() if e.document_id == document_id]

        def claim_best(index: int, options: list[RegistryEntry] | None) -> None:
            best: RegistryEntry | None = None
            best_score = MATCH_THRESHOLD
            for entry in options or ():
                if entry.ref in claimed:
                    continue
                score = _similarity(identities[index], source, entry)
                if score >= best_score and (best is None or score > best_score):
                    best, best_score = entry, score
                    if score == 1.0:  # nothing can beat it, and ties go to the first
                        break
            if best is not None:
                refs[index] = best.ref
                claimed.add(best.ref)

        # 1. backend node id
        by_backend = {e.backend_node_id: e for e in current if e.backend_node_id is not None}
        for i, backend in enumerate(backends):
            entry = by_backend.get(backend) if backend is not None else None
            if entry is not None and entry.ref not in claimed:
                refs[i] = entry.ref
                claimed.add(entry.ref)

        # 1b. a developer-given name (data-testid, else id) unique on both sides, same frame
        # and tag: the same element whatever its text or position became (a renamed button whose
        # sibling went away scores under the threshold on the weighted signals alone).
        def strong_key(frame: object, identity: Identity) -> tuple[object, ...] | None:
            if identity.testid is not None:
                return (frame, identity.tag, "testid", identity.testid)
            if identity.id is not None:
                return (frame, identity.tag, "id", identity.id)
            return None

        entry_keys: dict[tuple[object, ...], list[RegistryEntry]] = {}
        carried_keys: dict[tuple[object, ...], list[RegistryEntry]] = {}
        for e in self._entries.values():
            key = strong_key(e.frame, e.identity)
            if key is not None and (e.document_id == document_id or e.carried_over):
                (carried_keys if e.carried_over else entry_keys).setdefault(key, []).append(e)
        record_keys = [
            strong_key(read_opt_str(r.get("frame")), identities[i]) for i, r in enumerate(records)
        ]
        counts: dict[tuple[object, ...], int] = {}
        for key in record_keys:
            if key is not None:
                counts[key] = counts.get(key, 0) + 1
        for i, key in enumerate(record_keys):
            if refs[i] is not None or key is None or counts[key] != 1:
                continue
            owners = entry_keys.get(key) or carried_keys.get(key)
            if owners is not None and len(owners) == 1 and owners[0].ref not in claimed:
                refs[i] = owners[0].ref
                claimed.add(owners[0].ref)

        # 2. locator
        by_locator: dict[Locator, list[RegistryEntry]] = {}
        for e in current:
            if e.locator.usable:
                by_locator.setdefault(e.locator, []).append(e)
        for i, locator in enumerate(locators):
            if refs[i] is None and locator.usable:
                claim_best(i, by_locator.get(locator))

        # 3. ref
        bases = [ref_for(identity) for identity in identities]
        by_base: dict[str, list[RegistryEntry]] = {}
        for e in self._entries.values():
            base = ref_for(e.identity)
            by_base.setdefault(base, []).append(e)
            if e.ref != base:
                by_base.setdefault(e.ref, []).append(e)
        for i, base in enumerate(bases):
            if refs[i] is None:
                claim_best(i, by_base.get(base))

        # 4. role and name
        by_role_name: dict[tuple[str | None, str | None], list[RegistryEntry]] = {}
        for e in current:
            by_role_name.setdefault((e.identity.role, e.identity.name), []).append(e)
        for i, identity in enumerate(identities):
            if refs[i] is None:
                claim_best(i, by_role_name.get((identity.role, identity.name)))

        # New elements.
        fresh = [i for i, ref in enumerate(refs) if ref is None]
        new_refs = resolve_collisions([bases[i] for i in fresh], taken=self._entries.keys())
        for i, ref in zip(fresh, new_refs, strict=True):
            refs[i] = ref

        result = [ref for ref in refs if ref is not None]
        for i, ref in enumerate(result):
            self._record(
                ref,
                records[i],
                identities[i],
                locators[i],
                backends[i],
                source=source,
                now=now,
                document_id=document_id,
            )
        self._latest[source] = frozenset(result)
        self.prune(now)
        return result

    def prune(self, now: float) -> list[str]:
        """Evict entries unseen for ``stale_after``, then the least recently seen past
        ``max_entries``; never one the latest observation showed. Returns the evicted refs."""
        protected: set[str] = set()
        for refs in self._latest.values():
            protected |= refs
        evicted = [
            ref
            for ref, e in self._entries.items()
            if ref not in protected and now - e.last_seen > self.stale_after
        ]
        for ref in evicted:
            self._bury(ref, "evicted", now)
        excess = len(self._entries) - self.max_entries
        if excess > 0:
            order = sorted(
                (
                    (e.last_seen, e.first_seen, position, ref)
                    for position, (ref, e) in enumerate(self._entries.items())
                    if ref not in protected
                ),
            )
            for *_, ref in order[:excess]:
                self._bury(ref, "evicted", now)
                evicted.append(ref)
        return evicted

    # -- persistence -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Plain-data state, for the host to save under its state dir."""
        return {
            "version": STATE_VERSION,
            "document_id": self.document_id,
            "generation": self.generation,
            "max_entries": self.max_entries,
            "stale_after": self.stale_after,
            "max_tombstones": self.max_tombstones,
            "entries": [e.to_json() for e in self._entries.values()],
            "tombstones": [t.to_json() for t in self._tombstones.values()],
            "latest": {source: sorted(refs) for source, refs in self._latest.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Registry:
        """Restore what ``to_json`` saved. Raises ``ReinsError(code="internal")`` for state it
        cannot read: discard it and start a new ``Registry``."""
        if not isinstance(data, Mapping) or data.get("version") != STATE_VERSION:
            raise ReinsError(
                "saved registry state is unreadable (unknown version); discard it "
                "and start a new registry",
                code="internal",
            )
        registry = cls(
            max_entries=int(read_number(data.get("max_entries"), "max_entries")),
            stale_after=read_number(data.get("stale_after"), "stale_after"),
            max_tombstones=int(read_number(data.get("max_tombstones"), "max_tombstones")),
        )
        registry.document_id = read_opt_str(data.get("document_id"))
        registry.generation = int(read_number(data.get("generation"), "generation"))
        for raw in read_list(data.get("entries"), "entries"):
            entry = RegistryEntry.from_json(read_mapping(raw, "entry"))
            registry._entries[entry.ref] = entry
        for raw in read_list(data.get("tombstones"), "tombstones"):
            tomb = Tombstone.from_json(read_mapping(raw, "tombstone"))
            registry._tombstones[tomb.ref] = tomb
        latest = read_mapping(data.get("latest", {}), "latest")
        for source, refs in latest.items():
            registry._latest[read_source(source)] = (
                frozenset(read_str_list(refs)) & registry._entries.keys()
            )
        return registry

    # -- internals -------------------------------------------------------------------------------

    def _start_document(self, document_id: str, now: float) -> None:
        self.generation += 1
        self._latest = {}
        for ref, entry in list(self._entries.items()):
            if entry.signal in _STRONG_SIGNALS:
                self._entries[ref] = dataclasses.replace(
                    entry, carried_over=True, reidentified=False, backend_node_id=None
                )
            else:
                self._bury(ref, "navigated", now)
        self.document_id = document_id

    def _record(
        self,
        ref: str,
        record: Mapping[str, Any],
        identity: Identity,
        locator: Locator,
        backend: int | None,
        *,
        source: Source,
        now: float,
        document_id: str,
    ) -> None:
        old = self._entries.get(ref)
        bounds = Bounds.from_box(record.get("box"))
        frame = read_opt_str(record.get("frame"))
        if old is None:
            self._tombstones.pop(ref, None)
            self._entries[ref] = RegistryEntry(
                ref=ref,
                identity=identity,
                source=source,
                frame=frame,
                locator=locator,
                backend_node_id=backend,
                bounds=bounds,
                first_seen=now,
                last_seen=now,
                document_id=document_id,
                signal=ref_signal(identity),
            )
            return
        if source == "dom" or old.source == "ax":
            new_identity, new_source = identity, source
        else:
            new_identity, new_source = identity.filled_from(old.identity), old.source
        same_document = old.document_id == document_id and not old.carried_over
        self._entries[ref] = dataclasses.replace(
            old,
            identity=new_identity,
            source=new_source,
            frame=frame if frame is not None else old.frame,
            locator=locator if (locator.usable or source == "dom") else old.locator,
            backend_node_id=(
                backend if backend is not None else (old.backend_node_id if same_document else None)
            ),
            bounds=bounds if bounds is not None else old.bounds,
            last_seen=now,
            document_id=document_id,
            carried_over=False,
            reidentified=old.reidentified or old.carried_over,
            signal=ref_signal(new_identity),
        )

    def _bury(self, ref: str, reason: Literal["navigated", "evicted"], now: float) -> None:
        entry = self._entries.pop(ref)
        self._tombstones.pop(ref, None)
        self._tombstones[ref] = Tombstone(
            ref=ref,
            reason=reason,
            document_id=entry.document_id,
            last_seen=entry.last_seen,
            since=now,
        )
        while len(self._tombstones) > self.max_tombstones:
            del self._tombstones[next(iter(self._tombstones))]


def _similarity(identity: Identity, source: Source, entry: RegistryEntry) -> float:
    """compare() for same-source pairs; across sources, only on the signals both sides carry."""
    if source == entry.source:
        return compare(identity, entry.identity)
    return compare(identity.filled_from(entry.identity), entry.identity.filled_from(identity))


def _frame_chains(frames: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Frame id -> the iframe selectors leading to it from the main document."""
    by_id = {f["id"]: f for f in frames if isinstance(f, Mapping) and isinstance(f.get("id"), str)}
    chains: dict[str, tuple[str, ...]] = {}
    for frame_id in by_id:
        chain: list[str] = []
        seen: set[str] = set()
        current: str | None = frame_id
        while current is not None and current in by_id and current not in seen:
            seen.add(current)
            selector = by_id[current].get("selector")
            if isinstance(selector, str):
                chain.append(selector)
            parent = by_id[current].get("parent")
            current = parent if isinstance(parent, str) else None
        chains[frame_id] = tuple(reversed(chain))
    return chains
