"""What the registry keeps per element: where to find it (Locator), where it was (Bounds), and
the entry or tombstone itself, with their JSON forms (saved state is read defensively: a damaged
file is an ``internal`` error that says to discard it, never a crash)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from reins._errors import ReinsError, UsageError
from reins.observe.identity import REF_PREFIX, Identity, RefSignal, ref_signal
from reins.observe.pickling import by_fields

__all__ = [
    "SOURCES",
    "Bounds",
    "Locator",
    "RegistryEntry",
    "Source",
    "Tombstone",
    "frame_chains",
    "normalize_ref",
]

Source = Literal["dom", "ax"]
SOURCES: Final[tuple[Source, ...]] = ("dom", "ax")


@by_fields
@dataclass(frozen=True, slots=True)
class Locator:
    """Where to find an element again: a selector unique in its root, inside shadow hosts and
    iframes given from the main document inward."""

    selector: str | None = None
    strategy: str | None = None  # the key of the record's ``selectors`` it came from ("byId", ...)
    shadow: tuple[str, ...] = ()
    frames: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        return self.selector is not None

    @classmethod
    def from_record(
        cls, record: Mapping[str, Any], frame_chains: Mapping[str, tuple[str, ...]]
    ) -> Locator:
        selector: str | None = None
        strategy = record.get("best")
        selectors = record.get("selectors")
        if isinstance(strategy, str) and isinstance(selectors, Mapping):
            chosen = selectors.get(strategy)
            if isinstance(chosen, Mapping) and isinstance(chosen.get("sel"), str):
                selector = chosen["sel"]
        shadow = record.get("shadow")
        frame = record.get("frame")
        return cls(
            selector=selector,
            strategy=strategy if selector is not None else None,
            shadow=tuple(s for s in shadow if isinstance(s, str))
            if isinstance(shadow, list)
            else (),
            frames=frame_chains.get(frame, ()) if isinstance(frame, str) else (),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "selector": self.selector,
            "strategy": self.strategy,
            "shadow": list(self.shadow),
            "frames": list(self.frames),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Locator:
        return cls(
            selector=read_opt_str(data.get("selector")),
            strategy=read_opt_str(data.get("strategy")),
            shadow=tuple(read_str_list(data.get("shadow"))),
            frames=tuple(read_str_list(data.get("frames"))),
        )


@by_fields
@dataclass(frozen=True, slots=True)
class Bounds:
    """A box in CSS pixels of the main frame's viewport."""

    x: float
    y: float
    width: float
    height: float

    @classmethod
    def from_box(cls, box: object) -> Bounds | None:
        if not isinstance(box, (list, tuple)) or len(box) != 4:
            return None
        x, y, width, height = box
        # type(), not isinstance(): a bool is not a coordinate; one check per value, as this runs
        # for every element of every observation.
        for value in (x, y, width, height):
            if type(value) is not float and type(value) is not int:
                return None
        return cls(float(x), float(y), float(width), float(height))

    def to_json(self) -> list[float]:
        return [self.x, self.y, self.width, self.height]


@by_fields
@dataclass(slots=True)
class RegistryEntry:
    """What the registry knows of one ref. Replaced whole (``dataclasses.replace``) whenever
    anything about it changes, except by ``seen``: an observation that saw the element again
    unchanged moves its time and box in place, once per element of every observation."""

    ref: str
    identity: Identity
    source: Source  # the source whose record last defined the identity
    frame: str | None
    locator: Locator
    backend_node_id: int | None
    bounds: Bounds | None
    first_seen: float
    last_seen: float
    document_id: str
    # True after a navigation until an element of the new document claims the ref: locator and
    # identity are from the old document, so resolve by identity rather than trust them.
    carried_over: bool = False
    # True once a carried-over entry was claimed in the new document: same ref, new element.
    reidentified: bool = False
    signal: RefSignal = "hash"

    def seen(self, now: float, bounds: Bounds | None) -> None:
        """Seen again unchanged (``unchanged``) at ``now``, with this box if given.

        In place: a new entry per element of every look cost ~2.5 µs each, an eighth of a
        20,000-element look's Python. Whoever holds the entry then reads the latest time and
        box, which is what a lookup would give them."""
        self.last_seen = now
        if bounds is not None:
            self.bounds = bounds

    def carried(self) -> RegistryEntry:
        """This entry carried over into a new document: no node there yet, not yet claimed.

        Built directly rather than by ``dataclasses.replace``, which reads the fields by name
        and cost ≈ 14 µs an entry: a navigation from a big page carries over thousands."""
        return RegistryEntry(
            self.ref,
            self.identity,
            self.source,
            self.frame,
            self.locator,
            None,
            self.bounds,
            self.first_seen,
            self.last_seen,
            self.document_id,
            True,
            False,
            self.signal,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "identity": self.identity.to_json(),
            "source": self.source,
            "frame": self.frame,
            "locator": self.locator.to_json(),
            "backend_node_id": self.backend_node_id,
            "bounds": self.bounds.to_json() if self.bounds else None,
            "first_seen": self.first_seen,
            "last_seen": self.last_seen,
            "document_id": self.document_id,
            "carried_over": self.carried_over,
            "reidentified": self.reidentified,
            "signal": self.signal,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RegistryEntry:
        identity = Identity.from_json(read_mapping(data.get("identity"), "identity"))
        signal = data.get("signal")
        return cls(
            ref=read_ref_field(data.get("ref")),
            identity=identity,
            source=read_source(data.get("source")),
            frame=read_opt_str(data.get("frame")),
            locator=Locator.from_json(read_mapping(data.get("locator"), "locator")),
            backend_node_id=read_opt_int(data.get("backend_node_id")),
            bounds=Bounds.from_box(data.get("bounds")),
            first_seen=read_number(data.get("first_seen"), "first_seen"),
            last_seen=read_number(data.get("last_seen"), "last_seen"),
            document_id=read_str_field(data.get("document_id"), "document_id"),
            carried_over=bool(data.get("carried_over", False)),
            reidentified=bool(data.get("reidentified", False)),
            signal=(
                cast(RefSignal, signal)
                if signal in ("testid", "id", "aria_label", "hash")
                else ref_signal(identity)
            ),
        )


@by_fields
@dataclass(frozen=True, slots=True)
class Tombstone:
    """A ref that named an element reins no longer tracks."""

    ref: str
    reason: Literal["navigated", "evicted"]
    document_id: str
    last_seen: float
    since: float

    def to_json(self) -> dict[str, Any]:
        # By hand: dataclasses.asdict deep-copies field by field, for every tombstone of every save.
        return {
            "ref": self.ref,
            "reason": self.reason,
            "document_id": self.document_id,
            "last_seen": self.last_seen,
            "since": self.since,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tombstone:
        reason = data.get("reason")
        if reason not in ("navigated", "evicted"):
            raise unreadable(f"tombstone reason {reason!r}")
        return cls(
            ref=read_ref_field(data.get("ref")),
            reason=cast(Literal["navigated", "evicted"], reason),
            document_id=read_str_field(data.get("document_id"), "document_id"),
            last_seen=read_number(data.get("last_seen"), "last_seen"),
            since=read_number(data.get("since"), "since"),
        )


def frame_chains(frames: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
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


def normalize_ref(ref: str) -> str:
    """``submitBtn`` / ``@submitbtn`` -> ``@submitbtn``; UsageError if it cannot be a ref."""
    text = ref.strip().lower() if isinstance(ref, str) else ""
    body = text[1:] if text.startswith(REF_PREFIX) else text
    if not body or not body.isascii() or not body.isalnum():
        raise UsageError(
            f"{ref!r} is not a ref: refs look like @submitbtn or @e7f3a2",
            code="invalid_selector",
            details={"ref": ref},
        )
    return REF_PREFIX + body


# -- reading saved state ---------------------------------------------------------------------------


def unreadable(what: str) -> ReinsError:
    return ReinsError(
        f"saved registry state is unreadable ({what}); discard it and start a new registry",
        code="internal",
    )


def read_opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def read_opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_str_field(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise unreadable(f"{what} is not a string")
    return value


def read_ref_field(value: object) -> str:
    try:
        return normalize_ref(read_str_field(value, "ref"))
    except UsageError as exc:
        raise unreadable(f"bad ref {value!r}") from exc


def read_number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise unreadable(f"{what} is not a number")
    return float(value)


def read_mapping(value: object, what: str) -> Mapping[str, Any]:
    if type(value) is dict:  # what JSON gives: no ABC check for each of 20,000 entries
        return value
    if not isinstance(value, Mapping):
        raise unreadable(f"{what} is not an object")
    return value


def read_list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise unreadable(f"{what} is not a list")
    return value


def read_str_list(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def read_source(value: object) -> Source:
    if value == "dom" or value == "ax":
        return value
    raise unreadable(f"source {value!r}")
