"""Collections that send only what changed since the one the host holds (the delta form).

A repeated `state` of a big page mostly receives the records it received last time. In the delta
form (docs/element-record.md, "Only what changed") the page script sends each record as its JSON
text without its position and box, or, where the collection the host holds had a record with the
very same text, that record's index there; and every box in one flat list of numbers. The host
keeps, per tab, the records of the latest main-context collection it received (``SentRecords``)
and rebuilds the whole list from them: a record the page did not send is a copy of the one it
names, with its new box, so what the rest of the host reads is exactly what a full collection
would have given.

Unchanged records also carry what the host derived from them last time: ``Carried`` says, for
each record, which record of the held collection it repeats (-1: sent anew) and whether it is the
very same node or only the same text, and ``carry`` hands a repeated record what was worked out
for the one it repeats — its registry key (``observe.unchanged``), its view and line
(``observe.state``), and, for the same node, what Chrome's accessibility tree said of it
(``observe.ax``).

The page decides what it sends, and a page is not trusted: an answer that names a collection the
host does not hold, an index outside the held list, or lists of the wrong length is refused
(``DeltaMismatch``), and the caller collects again in full.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reins._errors import ReinsError
from reins.bridge.context import TabPart
from reins.observe.entries import frame_chains
from reins.observe.unchanged import RecordKey, record_key

__all__ = ["Carried", "DeltaMismatch", "SentRecords", "carry", "keys_for", "rebuild"]


class DeltaMismatch(ReinsError):
    """The delta answer does not fit the collection the host holds: collect again in full
    (``collect._collect_main`` does; it never reaches an agent)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="cdp_error", transient=True)


@dataclass
class SentRecords(TabPart):
    """The tab's latest main-context collection in the delta form, as received."""

    gen: str | None = None
    # As the page sent them: without "i" and "box", never handed out (copies are).
    records: list[dict[str, Any]] = field(default_factory=list)
    # What the host derived from each of them (name -> one value per record, with what it was
    # worked out under: the frame chains for keys, the main frame for lines), for ``carry``.
    derived: dict[str, tuple[object, list[Any]]] = field(default_factory=dict)

    def forget(self) -> None:
        self.gen, self.records, self.derived = None, [], {}

    def on_detach(self) -> None:
        # The page keeps its side across a detach; the host starts again with a full collection.
        self.forget()


@dataclass(frozen=True)
class Carried:
    """What a delta collection repeats of the one before it."""

    # Per main-context record: the index of the record it repeats in the collection before, or -1.
    indexes: list[int]
    # Per main-context record: whether it repeats that record's very node (else only its text).
    same_node: list[bool]
    # What the host derived from the collection before (``SentRecords.derived``).
    derived: dict[str, tuple[object, list[Any]]]


def rebuild(value: dict[str, Any], held: SentRecords) -> tuple[list[dict[str, Any]], Carried]:
    """The whole record list of a delta answer (each with its ``box``), and what it carried.

    Updates ``held`` to this collection. Raises ``DeltaMismatch`` for an answer that does not fit
    (``held`` is then emptied, so the next request asks for everything)."""
    delta = value.get("delta")
    if type(delta) is not dict:
        held.forget()
        raise DeltaMismatch("no delta in the answer")
    items, boxes, base = delta.get("items"), delta.get("boxes"), delta.get("base")
    if type(items) is not list or type(boxes) is not list or len(boxes) != 4 * len(items):
        held.forget()
        raise DeltaMismatch("malformed delta answer")
    if base is not None and base != held.gen:
        held.forget()
        raise DeltaMismatch("the page named a collection the host does not hold")
    before = held.records if base is not None else []
    count = len(before)
    received: list[dict[str, Any]] = [{}] * len(items)
    records: list[dict[str, Any]] = [{}] * len(items)
    indexes = [-1] * len(items)
    same_node = [False] * len(items)
    for i, item in enumerate(items):
        kind = type(item)
        if kind is dict:
            got = item
        elif kind is int and 0 <= item < count:
            got = before[item]
            indexes[i], same_node[i] = item, True
        elif kind is int and 0 <= -item - 1 < count:  # the same text, another node
            got = before[-item - 1]
            indexes[i] = -item - 1
        else:
            held.forget()
            raise DeltaMismatch(f"record {i} is neither a record nor an index of the held list")
        received[i] = got
        record = got.copy()
        record["box"] = boxes[4 * i : 4 * i + 4]
        records[i] = record
    carried = Carried(indexes, same_node, held.derived if base is not None else {})
    gen = value.get("gen")
    held.gen = gen if isinstance(gen, str) else None
    held.records, held.derived = received, {}
    return records, carried


_T = TypeVar("_T")


def carry(
    name: str,
    under: object,
    homes: Sequence[tuple[str | None, int]],
    carried: Carried | None,
    held: SentRecords,
    compute: Callable[[int], _T],
    same: Callable[[_T, int], bool] = lambda _value, _i: True,
    *,
    node: bool = False,
) -> list[_T]:
    """One value per record, ``compute(i)``, except that a main-context record repeating one of
    the collection before takes the value worked out for that one — when it was worked out
    ``under`` the same conditions, ``same(value, i)`` holds and, with ``node``, the record is of
    the very same node. The main-context values are kept in ``held`` for the next collection."""
    indexes = carried.indexes if carried is not None else []
    if node and carried is not None:
        indexes = [j if same else -1 for j, same in zip(indexes, carried.same_node, strict=True)]
    kept = carried.derived.get(name) if carried is not None else None
    before = kept[1] if kept is not None and kept[0] == under else None
    main: list[Any] = [None] * len(indexes)
    out: list[_T] = []
    for i, (session, local) in enumerate(homes):
        value: _T | None = None
        own = session is None and local < len(indexes)
        if own and before is not None:
            j = indexes[local]
            if 0 <= j < len(before):
                candidate: _T = before[j]
                if same(candidate, i):
                    value = candidate
        if value is None:
            value = compute(i)
        out.append(value)
        if own:
            main[local] = value
    if carried is not None:
        held.derived[name] = (under, main)
    return out


def keys_for(
    records: Sequence[Mapping[str, Any]],
    homes: Sequence[tuple[str | None, int]],
    frames: Sequence[Mapping[str, Any]],
    carried: Carried | None,
    held: SentRecords,
) -> list[RecordKey | None]:
    """The registry's key of each record (``record_key``); a repeated record's is carried over
    (``carry``) when the frame chains are the same."""
    chains = frame_chains(frames)
    return carry("keys", chains, homes, carried, held, lambda i: record_key(records[i], chains))
