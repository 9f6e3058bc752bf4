"""Matching observed records to registry entries: passes 1-4 of ``registry`` (pure).

Each pass runs over the records that no earlier pass (nor step 0, ``unchanged``) settled, so a
weak match never takes an entry a stronger one would have claimed; ties go to the entry
registered first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from reins.observe.entries import Locator, RegistryEntry, Source, read_opt_int, read_opt_str
from reins.observe.identity import MATCH_THRESHOLD, Identity, compare, ref_for

__all__ = ["Pending", "known", "match_pending", "similarity"]

_T = TypeVar("_T")


@dataclass
class Pending:
    """The records still to identify (``indexes``), with what was built for them; the lists run
    over the whole observation (``identities`` also holds the kept records' identities)."""

    indexes: list[int]
    identities: list[Identity | None]
    locators: list[Locator | None]
    backends: list[int | None]

    @classmethod
    def of(
        cls,
        records: Sequence[Mapping[str, Any]],
        indexes: list[int],
        identities: list[Identity | None],
        chains: Mapping[str, tuple[str, ...]],
    ) -> Pending:
        locators: list[Locator | None] = [None] * len(records)
        backends: list[int | None] = [None] * len(records)
        for i in indexes:
            identities[i] = Identity.from_record(records[i])
            locators[i] = Locator.from_record(records[i], chains)
            backends[i] = read_opt_int(records[i].get("backend_node_id"))
        return cls(indexes, identities, locators, backends)


def known(value: _T | None) -> _T:
    """A value every pending record has."""
    assert value is not None
    return value


def similarity(identity: Identity, source: Source, entry: RegistryEntry) -> float:
    """compare() for same-source pairs; across sources, only on the signals both sides carry."""
    if source == entry.source:
        return compare(identity, entry.identity)
    return compare(identity.filled_from(entry.identity), entry.identity.filled_from(identity))


def _strong_key(frame: object, identity: Identity) -> tuple[object, ...] | None:
    if identity.testid is not None:
        return (frame, identity.tag, "testid", identity.testid)
    if identity.id is not None:
        return (frame, identity.tag, "id", identity.id)
    return None


def match_pending(
    entries: Mapping[str, RegistryEntry],
    pending: Pending,
    records: Sequence[Mapping[str, Any]],
    refs: list[str | None],
    claimed: set[str],
    *,
    source: Source,
    document_id: str,
) -> None:
    """Fill ``refs`` for the pending records that match an unclaimed entry (passes 1-4)."""
    if not entries:
        return  # a first look: nothing to match (the passes' indexes alone took ≈ 20 µs a record)
    current = [e for e in entries.values() if e.document_id == document_id]

    def claim(i: int, entry: RegistryEntry) -> None:
        refs[i] = entry.ref
        claimed.add(entry.ref)

    def claim_best(index: int, options: list[RegistryEntry] | None) -> None:
        best: RegistryEntry | None = None
        best_score = MATCH_THRESHOLD
        identity = known(pending.identities[index])
        for entry in options or ():
            if entry.ref in claimed:
                continue
            score = similarity(identity, source, entry)
            if score >= best_score and (best is None or score > best_score):
                best, best_score = entry, score
                if score == 1.0:  # nothing can beat it, and ties go to the first
                    break
        if best is not None:
            claim(index, best)

    # 1. backend node id
    by_backend = {e.backend_node_id: e for e in current if e.backend_node_id is not None}
    for i in pending.indexes:
        backend = pending.backends[i]
        entry = by_backend.get(backend) if backend is not None else None
        if entry is not None and entry.ref not in claimed:
            claim(i, entry)

    # 1b. a developer-given name (data-testid, else id) unique on both sides, same frame
    # and tag: the same element whatever its text or position became (a renamed button whose
    # sibling went away scores under the threshold on the weighted signals alone).
    entry_keys: dict[tuple[object, ...], list[RegistryEntry]] = {}
    carried_keys: dict[tuple[object, ...], list[RegistryEntry]] = {}
    for e in entries.values():
        key = _strong_key(e.frame, e.identity)
        if key is not None and (e.document_id == document_id or e.carried_over):
            (carried_keys if e.carried_over else entry_keys).setdefault(key, []).append(e)
    # Counted over every record: one that step 0 kept still makes a name not unique.
    record_keys = [
        _strong_key(read_opt_str(r.get("frame")), known(pending.identities[i]))
        for i, r in enumerate(records)
    ]
    counts: dict[tuple[object, ...], int] = {}
    for key in record_keys:
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
    for i in pending.indexes:
        key = record_keys[i]
        if refs[i] is not None or key is None or counts[key] != 1:
            continue
        owners = entry_keys.get(key) or carried_keys.get(key)
        if owners is not None and len(owners) == 1 and owners[0].ref not in claimed:
            claim(i, owners[0])

    # 2. locator
    by_locator: dict[Locator, list[RegistryEntry]] = {}
    for e in current:
        if e.locator.usable:
            by_locator.setdefault(e.locator, []).append(e)
    for i in pending.indexes:
        locator = known(pending.locators[i])
        if refs[i] is None and locator.usable:
            claim_best(i, by_locator.get(locator))

    # 3. ref
    by_base: dict[str, list[RegistryEntry]] = {}
    for e in entries.values():
        base = ref_for(e.identity)
        by_base.setdefault(base, []).append(e)
        if e.ref != base:
            by_base.setdefault(e.ref, []).append(e)
    for i in pending.indexes:
        if refs[i] is None:
            claim_best(i, by_base.get(ref_for(known(pending.identities[i]))))

    # 4. role and name
    by_role_name: dict[tuple[str | None, str | None], list[RegistryEntry]] = {}
    for e in current:
        by_role_name.setdefault((e.identity.role, e.identity.name), []).append(e)
    for i in pending.indexes:
        identity = known(pending.identities[i])
        if refs[i] is None:
            claim_best(i, by_role_name.get((identity.role, identity.name)))
