"""Element identity: the signals that name an element, the stable ref drawn from them, and how
alike two identities are.

Refs
----
``ref_for(identity)`` takes the first signal that normalizes to something non-empty:

    1. data-testid   ``data-testid="submit-btn"``  -> ``@submitbtn``
    2. id            ``id="email-field"``          -> ``@emailfield``
    3. aria-label    ``aria-label="Close dialog"`` -> ``@closedialog``
    4. hash          ``@e`` + 5 base36 digits of sha256(role, name, tag, parent_role, sibling_index)

Normalization lowercases, keeps only ``[a-z0-9]`` and truncates to 12 characters; a signal that
normalizes to nothing (``id="입력"``) falls through to the next one. The hash uses ``hashlib``, so a
ref is the same in every process (``hash()`` is salted per process).

Two elements with the same ref in one observation are told apart in document order: the first keeps
``@save``, the next gets ``@save2``, then ``@save3``, skipping any name already taken.

Comparison
----------
``compare(a, b)`` returns a confidence in [0, 1]::

    score = sum(w_s for s in S if a.s == b.s) / sum(w_s for s in S)

where ``S`` is the set of signals present (not None) on at least one side, so a signal present on
one side only counts as a mismatch, and the weights are ``WEIGHTS`` (testid 3, id 3, aria_label 2,
role 2, name 2, tag 1, parent_role 1, sibling_index 1). Strings are compared exactly, as
``Identity.from_record`` leaves them (whitespace collapsed, tag lowercased). If ``testid`` or ``id``
is present on both sides and differs, the score is capped at ``STRONG_MISMATCH_CAP`` (0.49): a
contradicting developer-given name means a different element, however alike the rest. With no
signal on either side the score is 0.0 (no evidence).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Final, Literal

from reins.observe.pickling import by_fields

__all__ = [
    "MATCH_THRESHOLD",
    "STRONG_MISMATCH_CAP",
    "WEIGHTS",
    "Identity",
    "RefSignal",
    "assign_refs",
    "compare",
    "forget_normalized",
    "normalize_ref_text",
    "ref_for",
    "ref_signal",
    "resolve_collisions",
]

RefSignal = Literal["testid", "id", "aria_label", "hash"]

WEIGHTS: Final[Mapping[str, int]] = {
    "testid": 3,
    "id": 3,
    "aria_label": 2,
    "role": 2,
    "name": 2,
    "tag": 1,
    "parent_role": 1,
    "sibling_index": 1,
}
STRONG_SIGNALS: Final[tuple[str, ...]] = ("testid", "id")
STRONG_MISMATCH_CAP: Final = 0.49
# Two identities at or above this are taken for the same element.
MATCH_THRESHOLD: Final = 0.75

REF_PREFIX: Final = "@"
MAX_REF_TEXT: Final = 12
HASH_DIGITS: Final = 5
# Accessible names can be paragraphs; identity needs only enough to tell elements apart.
MAX_NAME_CHARS: Final = 100

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _text(value: object) -> str | None:
    """A string signal, whitespace-collapsed; None for absent, empty or non-string values."""
    if value is None or not isinstance(value, str):
        return None
    collapsed = " ".join(value.split())
    return collapsed or None


def _index(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


@by_fields
@dataclass(frozen=True, slots=True)
class Identity:
    """The identity signals of one element. Absent signals are None."""

    testid: str | None = None
    id: str | None = None
    aria_label: str | None = None
    role: str | None = None
    name: str | None = None
    tag: str | None = None
    parent_role: str | None = None
    sibling_index: int | None = None
    name_attr: str | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Identity:
        """Build from an element record (docs/element-record.md) or an AX-source record.

        Missing keys and values of the wrong type read as absent, so a record the page script
        produced oddly never raises here.
        """
        get = record.get
        name = _text(get("name"))
        tag = _text(get("tag"))
        # Positionally, in field order: once per element of every first look.
        return cls(
            _text(get("testid")),
            _text(get("id")),
            _text(get("aria_label")),
            _text(get("role")),
            name[:MAX_NAME_CHARS] if name else None,
            tag.lower() if tag else None,
            _text(get("parent_role")),
            _index(get("sibling_index")),
            _text(get("name_attr")),
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Identity:
        return cls.from_record(data)

    def to_json(self) -> dict[str, Any]:
        # By hand, not dataclasses.asdict: registries of 20,000 entries are saved after each look.
        return {
            "testid": self.testid,
            "id": self.id,
            "aria_label": self.aria_label,
            "role": self.role,
            "name": self.name,
            "tag": self.tag,
            "parent_role": self.parent_role,
            "sibling_index": self.sibling_index,
            "name_attr": self.name_attr,
        }

    def filled_from(self, other: Identity) -> Identity:
        """This identity with its absent signals taken from ``other``."""
        values = {
            f.name: (
                getattr(self, f.name)
                if getattr(self, f.name) is not None
                else getattr(other, f.name)
            )
            for f in fields(self)
        }
        return Identity(**values)


def normalize_ref_text(value: str | None) -> str:
    """Lowercase, keep ``[a-z0-9]``, truncate to 12 characters. May return ``""``."""
    if not value:
        return ""
    return _normalized(value)


@functools.lru_cache(maxsize=1 << 16)
def _normalized(value: str) -> str:
    # Each observation normalizes every element's testid, id and aria-label several times; the
    # same strings come back observation after observation.
    return _NON_ALNUM.sub("", value.lower())[:MAX_REF_TEXT]


def forget_normalized() -> None:
    """Empty the normalization cache: its strings are a left document's, and they hold on to the
    memory that document's observations used."""
    _normalized.cache_clear()


def _hash_ref_text(identity: Identity) -> str:
    payload = json.dumps(
        [identity.role, identity.name, identity.tag, identity.parent_role, identity.sibling_index],
        ensure_ascii=True,
        separators=(",", ":"),
    )
    number = int.from_bytes(hashlib.sha256(payload.encode("ascii")).digest()[:8], "big")
    digits = []
    for _ in range(HASH_DIGITS):
        number, digit = divmod(number, 36)
        digits.append(_BASE36[digit])
    return "e" + "".join(reversed(digits))


def _strong_ref(identity: Identity) -> tuple[RefSignal, str] | None:
    for signal, value in (
        ("testid", identity.testid),
        ("id", identity.id),
        ("aria_label", identity.aria_label),
    ):
        text = normalize_ref_text(value)
        if text:
            return signal, text  # type: ignore[return-value]
    return None


def ref_signal(identity: Identity) -> RefSignal:
    """Which signal ``ref_for`` draws the ref from."""
    strong = _strong_ref(identity)
    return strong[0] if strong else "hash"


def ref_for(identity: Identity) -> str:
    """The stable ref of an identity, with its ``@`` prefix, before collision resolution."""
    strong = _strong_ref(identity)
    return REF_PREFIX + (strong[1] if strong else _hash_ref_text(identity))


def resolve_collisions(bases: list[str], taken: Iterable[str] = ()) -> list[str]:
    """Make ``bases`` unique in order, avoiding ``taken``.

    Each distinct base goes to its first occurrence unless ``taken`` holds it; later occurrences get
    the lowest suffix 2, 3, ... whose name is neither taken nor any base of this list (so an element
    whose own id is ``save2`` keeps ``@save2``).
    """
    used = set(taken)
    out: list[str | None] = [None] * len(bases)
    for i, base in enumerate(bases):
        if base not in used:
            used.add(base)
            out[i] = base
    reserved = used | set(bases)
    for i, base in enumerate(bases):
        if out[i] is not None:
            continue
        n = 2
        while f"{base}{n}" in reserved:
            n += 1
        out[i] = f"{base}{n}"
        reserved.add(f"{base}{n}")
    return [ref for ref in out if ref is not None]


def assign_refs(identities: list[Identity]) -> list[str]:
    """Refs for one observation's identities, in document order, unique."""
    return resolve_collisions([ref_for(identity) for identity in identities])


def compare(a: Identity, b: Identity) -> float:
    """How likely ``a`` and ``b`` are the same element, in [0, 1]; see the module docstring."""
    total = 0
    matched = 0
    for signal, weight in WEIGHTS.items():
        left = getattr(a, signal)
        right = getattr(b, signal)
        if left is None and right is None:
            continue
        total += weight
        if left == right:
            matched += weight
    if total == 0:
        return 0.0
    score = matched / total
    for signal in STRONG_SIGNALS:
        left = getattr(a, signal)
        right = getattr(b, signal)
        if left is not None and right is not None and left != right:
            return min(score, STRONG_MISMATCH_CAP)
    return score
