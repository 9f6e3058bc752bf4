"""The interaction map: the page script's element records, keyed and indexed for lookup by text.

Pure functions over plain data, no I/O:

    build_map(collected)        the page script's output (docs/element-record.md) -> the map
    query_map(map, text=...)    elements matching text / type / tag / id, optional 1-based index
    find_with_fallback(...)     query with the 3-stage fallback: by type, then by tag, then on a
                                regenerated map (the caller supplies ``regenerate``)

Text matching is tiered: elements whose whitespace-normalized text equals the query, else those
whose text contains it (both case-sensitive), else a fuzzy pass (case-insensitive containment,
Unicode-normalized, so "menu" finds "Main Menu" and "돌아가기" finds "메뉴로 돌아가기").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from reins._errors import ResolutionError, UsageError

__all__ = [
    "GENERIC_TYPES",
    "Lookup",
    "build_map",
    "find_with_fallback",
    "query_map",
    "tag_for_type",
]

# A generic type matches itself and every subtype: "input" -> input, input-text, input-search, ...
GENERIC_TYPES: frozenset[str] = frozenset({"input", "button"})

# Selector kinds carried into the map as plain strings, in the record's key order.
_SELECTOR_KINDS = ("byText", "byId", "byCSS", "byRole", "byAriaLabel", "byTestId", "byPath")

# Types whose suffix is not the tag's own: "input-datetime-local" is an <input>.
_PREFIXED_TAGS = ("input", "button")

MAX_REGENERATIONS = 3

Stage = Literal["type", "tag", "regenerate"]


def build_map(collected: Mapping[str, Any]) -> dict[str, Any]:
    """Turn the page script's output into the interaction map (elements keyed ``elem_N``)."""
    records = collected.get("elements")
    if not isinstance(records, list):
        raise UsageError("collected data has no `elements` list; pass the page script's output")
    timestamp = collected.get("timestamp")
    if not isinstance(timestamp, int | float) or isinstance(timestamp, bool):
        raise UsageError("collected data has no numeric `timestamp` (ms since the epoch)")

    elements: dict[str, dict[str, Any]] = {}
    by_text: dict[str, list[str]] = {}
    by_type: dict[str, list[str]] = {}
    in_viewport: list[str] = []
    for n, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise UsageError(f"element {n} of the collected data is not an object")
        key = f"elem_{n}"
        element = _map_element(key, record)
        elements[key] = element
        if element["text"]:
            by_text.setdefault(element["text"], []).append(key)
        by_type.setdefault(element["type"], []).append(key)
        if element["visibility"]["inViewport"]:
            in_viewport.append(key)

    viewport = collected.get("viewport") or {}
    return {
        "url": collected.get("url", ""),
        "timestamp": datetime.fromtimestamp(timestamp / 1000, tz=UTC).isoformat(
            timespec="milliseconds"
        ),
        "viewport": dict(viewport),
        "elements": elements,
        "indexes": {"byText": by_text, "byType": by_type, "inViewport": in_viewport},
        "statistics": {
            "total": len(elements),
            "byType": {kind: len(keys) for kind, keys in by_type.items()},
            "duplicates": sum(1 for keys in by_text.values() if len(keys) > 1),
        },
    }


def _map_element(key: str, record: Mapping[str, Any]) -> dict[str, Any]:
    raw_selectors = record.get("selectors") or {}
    selectors: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for kind in _SELECTOR_KINDS:
        entry = raw_selectors.get(kind)
        if isinstance(entry, Mapping):
            selectors[kind] = entry.get("sel")
            counts[kind] = int(entry.get("count", 0))
        elif kind in ("byText", "byId", "byCSS", "byRole", "byAriaLabel"):
            selectors[kind] = None
    best_kind = record.get("best")
    selectors["matchCounts"] = counts
    selectors["best"] = selectors.get(best_kind) if isinstance(best_kind, str) else None

    box = record.get("box") or [0, 0, 0, 0]
    x, y, width, height = (float(v) for v in box)
    text = _normalize(str(record.get("text") or "")) or _normalize(str(record.get("name") or ""))
    return {
        "id": key,
        "i": record.get("i"),
        "type": str(record.get("type") or record.get("tag") or ""),
        "tag": str(record.get("tag") or ""),
        "role": record.get("role"),
        "text": text,
        "value": record.get("value"),
        "selectors": selectors,
        "attributes": dict(record.get("attributes") or {}),
        "position": {"x": round(x + width / 2), "y": round(y + height / 2)},
        "visibility": {
            "inViewport": bool(record.get("in_viewport")),
            "visible": bool(record.get("visible")),
            "obscured": bool(record.get("obscured")),
        },
        "context": dict(record.get("context") or {}),
        "frame": record.get("frame", "f0"),
        "shadow": list(record.get("shadow") or []),
    }


def query_map(
    imap: Mapping[str, Any],
    *,
    text: str | None = None,
    type: str | None = None,
    tag: str | None = None,
    index: int | None = None,
    viewport_only: bool = False,
    id: str | None = None,
) -> list[dict[str, Any]]:
    """Elements of the map matching every given filter, in document order.

    ``type`` expands generic types (``GENERIC_TYPES``); ``index`` (1-based) picks one match.
    """
    if index is not None and index < 1:
        raise UsageError(f"index is 1-based; got {index}")
    elements: Mapping[str, dict[str, Any]] = imap.get("elements") or {}
    if id is not None:
        candidates: Iterable[dict[str, Any]] = [elements[id]] if id in elements else []
    else:
        candidates = elements.values()

    pool = [
        element
        for element in candidates
        if (type is None or _type_matches(type, element["type"]))
        and (tag is None or element["tag"] == tag.lower())
        and (not viewport_only or element["visibility"]["inViewport"])
    ]
    matches = pool if text is None else _match_text(pool, text)
    if index is None:
        return matches
    return matches[index - 1 : index]


def _type_matches(wanted: str, actual: str) -> bool:
    if wanted in GENERIC_TYPES:
        return actual == wanted or actual.startswith(wanted + "-")
    return actual == wanted


def _match_text(pool: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    wanted = _normalize(query)
    if not wanted:
        return pool
    equal = [e for e in pool if e["text"] == wanted]
    if equal:
        return equal
    containing = [e for e in pool if wanted in e["text"]]
    if containing:
        return containing
    folded = _fold(wanted)
    return [e for e in pool if folded in _fold(e["text"])]


def _normalize(text: str) -> str:
    return " ".join(text.split())


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def tag_for_type(kind: str) -> str:
    """The HTML tag an interaction-map type is made from: input-text -> input, div-tab -> div."""
    for prefix in _PREFIXED_TAGS:
        if kind == prefix or kind.startswith(prefix + "-"):
            return prefix
    return kind.rsplit("-", 1)[0] if "-" in kind else kind


@dataclass(frozen=True)
class Lookup:
    """What ``find_with_fallback`` found, where, and on which map (a regenerated one, maybe)."""

    matches: list[dict[str, Any]]
    stage: Stage
    regenerations: int
    imap: dict[str, Any] = field(repr=False)


def find_with_fallback(
    imap: dict[str, Any],
    regenerate: Callable[[], dict[str, Any]],
    *,
    text: str | None = None,
    type: str | None = None,
    tag: str | None = None,
    index: int | None = None,
    viewport_only: bool = False,
    id: str | None = None,
    max_regenerations: int = MAX_REGENERATIONS,
) -> Lookup:
    """Query with the 3-stage fallback.

    1. by type (aliases expanded) and the other filters;
    2. if a type was given, by its tag instead (``tag_for_type``), so an element the map typed
       differently (a ``button-submit`` asked for as ``button-reset``) is still found;
    3. ``regenerate()`` the map (the page may have changed) and retry 1 and 2, up to
       ``max_regenerations`` times.

    Raises ``ResolutionError(code="not_found")`` when every stage comes back empty.
    """
    filters: dict[str, Any] = {
        "text": text,
        "index": index,
        "viewport_only": viewport_only,
        "id": id,
    }

    def by_type_then_tag(current: dict[str, Any]) -> tuple[list[dict[str, Any]], Stage] | None:
        found = query_map(current, type=type, tag=tag, **filters)
        if found:
            return found, "type"
        if type is not None:
            found = query_map(current, tag=tag or tag_for_type(type), **filters)
            if found:
                return found, "tag"
        return None

    hit = by_type_then_tag(imap)
    if hit is not None:
        return Lookup(hit[0], hit[1], 0, imap)
    current = imap
    for attempt in range(1, max_regenerations + 1):
        current = regenerate()
        hit = by_type_then_tag(current)
        if hit is not None:
            return Lookup(hit[0], "regenerate", attempt, current)
    query = {
        name: value
        for name, value in (
            ("text", text),
            ("type", type),
            ("tag", tag),
            ("index", index),
            ("id", id),
        )
        if value is not None
    }
    wanted = ", ".join(f"{name}={value!r}" for name, value in query.items()) or "the query"
    raise ResolutionError(
        f"no element matches {wanted} (also after {max_regenerations} new maps)",
        code="not_found",
        details={"query": query},
    )
