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

    0. a record unchanged since the latest observation of this document from this source (the
       same fields its identity, locator and node are drawn from, unique on both sides) keeps
       the entry it got then, without an identity being built (``unchanged``); on a big page
       that is nearly every element, at a tenth of the cost of the passes below
       (``matching``), which run over the rest:
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

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, TypeVar

from reins._errors import ReinsError, ResolutionError, UsageError
from reins.observe.entries import (
    SOURCES,
    Bounds,
    Locator,
    RegistryEntry,
    Source,
    Tombstone,
    frame_chains,
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
    Identity,
    ref_for,
    ref_signal,
    resolve_collisions,
)
from reins.observe.matching import Pending, known, match_pending, similarity
from reins.observe.unchanged import LastSeen, RecordKey, record_key, unique_keys

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
_T = TypeVar("_T")


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
        # Per source: the latest observation's record keys, for step 0 (``unchanged``).
        self._last_seen: dict[Source, LastSeen] = {}
        # Whether anything but the time and box of entries seen again changed since the last
        # ``take_changed`` (what is saved need not be written again otherwise).
        self._changed = True

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
                1.0 if same_node else similarity(Identity.from_record(record), source, entry)
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
        keys: Sequence[RecordKey | None] | None = None,
    ) -> list[str]:
        """Register one whole observation; return each record's ref, in record order.

        ``records`` are element records (docs/element-record.md) or AX records with the same keys;
        ``frames`` is the observation's frame list, for the iframe selector chain of locators.
        ``now`` is in seconds on any clock that only moves forward. ``keys``, when given, are
        the records' ``record_key``s already worked out (``observe.sent.keys_for``).
        """
        if source not in SOURCES:
            raise UsageError(f"unknown observation source {source!r}; use 'dom' or 'ax'")
        if self.document_id is None:
            self.document_id = document_id
        elif document_id != self.document_id:
            self._start_document(document_id, now)

        chains = frame_chains(frames)
        count = len(records)
        refs: list[str | None] = [None] * count
        claimed: set[str] = set()

        # 0. unchanged since the latest observation of this document (module ``unchanged``)
        if keys is None or len(keys) != count:
            keys = [record_key(r, chains) for r in records]
        unique = unique_keys(keys)
        last = self._last_seen.get(source)
        identities_kept: list[Identity | None] = [None] * count
        if last is not None and last.document_id == document_id:
            for key, i in unique.items():
                entry = last.reusable(key, self._entries, source)
                if entry is None or entry.ref in claimed:
                    continue
                refs[i] = entry.ref
                claimed.add(entry.ref)
                identities_kept[i] = entry.identity
                box, was = records[i].get("box"), entry.bounds
                same_box = (
                    was is not None
                    and type(box) is list
                    and len(box) == 4
                    and box[0] == was.x
                    and box[1] == was.y
                    and box[2] == was.width
                    and box[3] == was.height
                )  # what an element that did not move has: no new Bounds for it
                entry.seen(now, None if same_box else Bounds.from_box(box))
        # The rest are identified in full (kept records have their entry's identity, equal to
        # what their record gives, for the uniqueness counts of step 1b).
        pending = Pending.of(
            records, [i for i in range(count) if refs[i] is None], identities_kept, chains
        )
        if pending.indexes:
            match_pending(
                self._entries,
                pending,
                records,
                refs,
                claimed,
                source=source,
                document_id=document_id,
            )

        # New elements.
        fresh = [i for i, ref in enumerate(refs) if ref is None]
        bases = [ref_for(known(pending.identities[i])) for i in fresh]
        for i, ref in zip(
            fresh, resolve_collisions(bases, taken=self._entries.keys()), strict=True
        ):
            refs[i] = ref

        result = [ref for ref in refs if ref is not None]
        for i in pending.indexes:
            self._record(
                result[i],
                records[i],
                known(pending.identities[i]),
                known(pending.locators[i]),
                pending.backends[i],
                source=source,
                now=now,
                document_id=document_id,
            )
        self._last_seen[source] = LastSeen.of(document_id, unique, result, self._entries)
        latest = frozenset(result)
        if latest != self._latest.get(source):
            self._changed = True
        self._latest[source] = latest
        self.prune(now)
        return result

    def take_changed(self) -> bool:
        """Whether the registry changed beyond the time and box of entries seen again since the
        last call (a new, redefined, evicted or carried-over entry, another set of latest refs)."""
        changed, self._changed = self._changed, False
        return changed

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
        self._changed = True
        self.generation += 1
        self._latest = {}
        self._last_seen = {}
        for ref, entry in list(self._entries.items()):
            if entry.signal in _STRONG_SIGNALS:
                self._entries[ref] = entry.carried()
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
        self._changed = True
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
        if same_document and new_identity == old.identity:
            # The very object kept: an entry another source only saw again stays what the
            # latest observation of its own source left (step 0, ``unchanged``, checks by `is`).
            new_identity = old.identity
        # Built whole, not by dataclasses.replace (≈ 14 µs an entry: a reload re-identifies all).
        self._entries[ref] = RegistryEntry(
            ref=old.ref,
            identity=new_identity,
            source=new_source,
            frame=frame if frame is not None else old.frame,
            locator=locator if (locator.usable or source == "dom") else old.locator,
            backend_node_id=(
                backend if backend is not None else (old.backend_node_id if same_document else None)
            ),
            bounds=bounds if bounds is not None else old.bounds,
            first_seen=old.first_seen,
            last_seen=now,
            document_id=document_id,
            carried_over=False,
            reidentified=old.reidentified or old.carried_over,
            signal=ref_signal(new_identity),
        )

    def _bury(self, ref: str, reason: Literal["navigated", "evicted"], now: float) -> None:
        self._changed = True
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
