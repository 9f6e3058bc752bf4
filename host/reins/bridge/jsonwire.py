"""JSON from another process, read with limits: every input gives a value or a typed error.

Python's json module raises more than JSONDecodeError on hostile input: ValueError for an integer of
over 4,300 digits, RecursionError for deep nesting; and it accepts lone surrogates, which cannot be
encoded back into UTF-8 when the answer is written. Both boundaries (the control socket and native
messaging) read through ``load``, which turns all of that into ``bad_request``.
"""

from __future__ import annotations

import json
from typing import Any

from reins._errors import UsageError

__all__ = ["MAX_DEPTH", "MAX_NUMBER_CHARS", "dump_line", "load"]

# Deeper than any request or extension message reins makes (CDP params nest a few levels).
MAX_DEPTH = 64
# Longer than any number JSON.stringify writes (doubles: at most ~24 characters).
MAX_NUMBER_CHARS = 40


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise UsageError(f"not JSON reins accepts: a number of {len(text)} digits")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise UsageError(f"not JSON reins accepts: a number of {len(text)} characters")
    return float(text)


def _check(value: Any, max_depth: int) -> None:
    """Depth and strings, iteratively (a recursive walk is what deep input attacks)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict | list):
            if depth > max_depth:
                raise UsageError(f"JSON nested deeper than {max_depth} levels")
            children = item.items() if isinstance(item, dict) else ((None, v) for v in item)
            for key, child in children:
                if key is not None:
                    _check_text(key)
                if isinstance(child, str | dict | list):
                    stack.append((child, depth + 1))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("JSON string holds a lone surrogate (not valid Unicode)") from None


def load(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON text; anything that is not a sane JSON value is ``bad_request``."""
    try:
        value = json.loads(data, parse_int=_int, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise UsageError(f"not JSON: {exc.msg} at position {exc.pos}") from None
    except UnicodeDecodeError:
        raise UsageError("not JSON: the bytes are not UTF-8") from None
    except RecursionError:
        raise UsageError(f"JSON nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise UsageError(f"not JSON reins accepts: {exc}") from None
    _check(value, max_depth)
    return value


def dump_line(value: Any) -> bytes:
    """One JSON line, UTF-8; characters that cannot be encoded are escaped, never fatal."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii") + b"\n"
