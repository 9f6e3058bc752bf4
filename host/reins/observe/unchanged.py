"""Elements unchanged since the last observation keep their ref without being identified again.

An observation of a big page mostly shows the elements the previous one showed, with the same
records. Building an identity and a locator for each of them and matching them pass by pass costs
tens of microseconds of Python per element; comparing one tuple of the record's fields costs one.

``record_key`` is that tuple: every field that ``Identity.from_record`` and ``Locator.from_record``
read, the frame's iframe chain and the backend node id — so two records with the same key give
equal identities, equal locators and the same node. The box is not in it (scrolling moves every
box); the registry takes the new box as the slow path would.

``LastSeen`` remembers, for one source, which key gave which entry in the latest observation of
the document, with the very identity and locator objects the entry then held. A record whose key
was unique there and is unique now reuses that entry when the entry still holds those objects
(nothing else has redefined it since), is of this document and not carried over, and came from
the same source — the cases in which the full matching would give it the same entry and leave
the entry as it was, but for the time it was seen and its box. Everything else takes the full
matching (``registry.Registry.observe``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reins.observe.entries import Locator, RegistryEntry
from reins.observe.identity import Identity

__all__ = ["LastSeen", "RecordKey", "record_key", "unique_keys"]

RecordKey = tuple[object, ...]


def record_key(
    record: Mapping[str, Any], frame_chains: Mapping[str, tuple[str, ...]]
) -> RecordKey | None:
    """The fields a record's identity, locator and node are drawn from; None when the record is
    not plain enough to be keyed (it is then identified the long way).

    Equal keys must mean equal identities and locators: values that compare equal across types
    (``1 == 1.0 == True``) are read alike by both builders (absent where a string belongs), except
    the two integers, which are kept only when they are ints, as the builders keep them."""
    if type(record) is not dict:
        return None
    get = record.get
    frame = get("frame")
    selectors = get("selectors")
    best = get("best")
    selector: object = None
    if type(selectors) is dict and type(best) is str:
        chosen = selectors.get(best)
        selector = chosen.get("sel") if type(chosen) is dict else None
    shadow = get("shadow")
    sibling = get("sibling_index")
    backend = get("backend_node_id")
    key = (
        frame,
        frame_chains.get(frame) if type(frame) is str else None,
        get("tag"),
        get("role"),
        get("name"),
        get("testid"),
        get("id"),
        get("aria_label"),
        get("parent_role"),
        sibling if type(sibling) is int else None,
        get("name_attr"),
        best,
        selector,
        tuple(shadow) if type(shadow) is list else None,
        backend if type(backend) is int else None,
    )
    try:
        hash(key)
    except TypeError:  # a list or an object where a string belongs
        return None
    return key


def unique_keys(keys: Sequence[RecordKey | None]) -> dict[RecordKey, int]:
    """Each key that occurs once in ``keys``, with its index."""
    first: dict[RecordKey, int] = {}
    repeated: set[RecordKey] = set()
    for index, key in enumerate(keys):
        if key is None:
            continue
        if key in first:
            repeated.add(key)
        else:
            first[key] = index
    for key in repeated:
        del first[key]
    return first


@dataclass
class LastSeen:
    """For one source: which entry each (unique) record key named in the latest observation."""

    document_id: str
    by_key: dict[RecordKey, tuple[str, Identity, Locator]] = field(default_factory=dict)

    def reusable(
        self, key: RecordKey, entries: Mapping[str, RegistryEntry], source: str
    ) -> RegistryEntry | None:
        """The entry a record with this key may keep without being identified again, or None."""
        seen = self.by_key.get(key)
        if seen is None:
            return None
        ref, identity, locator = seen
        entry = entries.get(ref)
        if (
            entry is None
            or entry.identity is not identity
            or entry.locator is not locator
            or entry.document_id != self.document_id
            or entry.carried_over
            or entry.source != source
        ):
            return None
        return entry

    @classmethod
    def of(
        cls,
        document_id: str,
        keys: Mapping[RecordKey, int],
        refs: Sequence[str],
        entries: Mapping[str, RegistryEntry],
    ) -> LastSeen:
        """What an observation leaves for the next: its unique keys and the entries they got."""
        by_key: dict[RecordKey, tuple[str, Identity, Locator]] = {}
        for key, index in keys.items():
            entry = entries.get(refs[index])
            if entry is not None:
                by_key[key] = (entry.ref, entry.identity, entry.locator)
        return cls(document_id, by_key)
