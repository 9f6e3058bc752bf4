"""What a value the page computed looks like in an answer (pure: CDP RemoteObjects in, JSON out).

* a JSON value: ``{"value": V}``. Objects and arrays go through the page's ``JSON.stringify``
  first (``serializeParked``, pagescripts/src/evaluate.js), so ``toJSON`` is honoured;
* larger than ``MAX_RESULT_BYTES`` of UTF-8: ``value`` is a string holding the first bytes of the
  value's JSON text (of the string itself, for a string), with ``"truncated": true`` and ``"size"``;
* not representable as JSON: no ``value``; ``type``, ``subtype`` when there is one, ``class_name``
  and ``description`` (CDP's description, e.g. ``"12n"``, ``"div#main.card"``), plus ``reason``
  when ``JSON.stringify`` refused the object.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, TypedDict

__all__ = ["MAX_RESULT_BYTES", "Shown", "describe_remote", "from_serialized"]

# Results larger than this (UTF-8 bytes of their JSON text) are cut, with a marker.
MAX_RESULT_BYTES = 256 * 1024

# JSON-safe values pass through `JSON.stringify`; everything else is described instead.
_SERIALIZED_SUBTYPES = frozenset({None, "array"})


class Shown(TypedDict, total=False):
    """A JSON value (``value``), or what the value is when it is no JSON (``type`` …)."""

    # A value as an answer shows it (`eval` answers it: commands/answers.py names it ``Evaluated``).
    value: Annotated[Any, "the value, as JSON"]
    truncated: Annotated[bool, "value holds the first 256 KiB of its JSON text"]
    size: Annotated[int, "with truncated: the whole value's size in bytes"]
    type: Annotated[str, "not JSON: its type (undefined, bigint, function, object …)"]
    subtype: Annotated[str, "not JSON: its subtype (node, map, date …)"]
    class_name: Annotated[str, "not JSON: its class"]
    description: Annotated[str, "not JSON: Chrome's description of it"]
    reason: Annotated[str, "not JSON: why JSON.stringify refused it"]


def _cut_text(text: str, limit: int) -> tuple[str, int, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, len(data), False
    return data[:limit].decode("utf-8", "ignore"), len(data), True


def _described(remote: dict[str, Any], limit: int, description: str | None = None) -> Shown:
    kind = str(remote.get("type") or "object")
    text = description if description is not None else remote.get("description")
    if text is None:
        text = str(remote.get("unserializableValue") or kind)
    cut, size, truncated = _cut_text(str(text), limit)
    out: Shown = {"type": kind, "description": cut}
    if remote.get("subtype") and remote.get("subtype") != "null":
        out["subtype"] = remote["subtype"]
    if remote.get("className"):
        out["class_name"] = remote["className"]
    if truncated:
        out["truncated"] = True
        out["size"] = size
    return out


def describe_remote(remote: dict[str, Any], *, limit: int = MAX_RESULT_BYTES) -> Shown | None:
    """The answer for a CDP RemoteObject, or None when the page must serialize it first (a plain
    object or an array, which has an ``objectId`` to serialize)."""
    kind = remote.get("type")
    subtype = remote.get("subtype")
    if "unserializableValue" in remote:  # NaN, Infinity, -Infinity, -0, BigInt
        return _described(remote, limit)
    if kind == "undefined":
        return _described(remote, limit, "undefined")
    if kind == "string":
        text, size, truncated = _cut_text(str(remote.get("value", "")), limit)
        return {"value": text, "truncated": True, "size": size} if truncated else {"value": text}
    if kind in ("number", "boolean"):
        return {"value": remote.get("value")}
    if kind == "object" and subtype == "null":
        return {"value": None}
    if kind == "object" and subtype in _SERIALIZED_SUBTYPES and remote.get("objectId"):
        return None
    if kind == "object" and subtype in _SERIALIZED_SUBTYPES and "value" in remote:
        return {"value": remote["value"]}  # already by value
    return _described(remote, limit)


def from_serialized(
    payload: dict[str, Any], remote: dict[str, Any], *, limit: int = MAX_RESULT_BYTES
) -> Shown:
    """The answer for an object the page ran through ``JSON.stringify`` (``serializeParked``)."""
    if not payload.get("ok"):
        out = _described(remote, limit)
        out["reason"] = str(payload.get("reason") or "not representable as JSON")
        return out
    text = str(payload.get("text", ""))
    if payload.get("truncated"):
        return {"value": text, "truncated": True, "size": int(payload.get("size") or 0)}
    return {"value": json.loads(text)}
