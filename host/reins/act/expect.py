"""What `reins expect` reads of the page and how it judges it.

The read is one function, ``read_element``: an element's value, checked state, text and
visibility, read the way fill and check verify what they did (``fieldValue``, ``checkedState`` in
pagescripts/src/actions.js) in one page call (``elementReading``). It reads in reins's own world
(``page/world.py``), where the page's replaced getters and built-ins are not: the element is handed
over by Chrome's node id. (An extension too old to make that world: the page's world, as before.)

The judgements are pure: text by the one text rule (``act/targets.text_matches``), a value whole,
a URL by glob as `wait --url` takes it, a status class such as ``2xx``, and the evidence an
expectation about requests and errors looks at.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

from reins._errors import ExpectationFailure, UsageError
from reins.act.handles import Resolved
from reins.act.targets import text_query
from reins.bridge.context import CommandContext
from reins.observe.evidence import EvidenceEntry
from reins.page.call import call_function
from reins.page.world import has_own_world, in_own_world

__all__ = [
    "ElementReading",
    "matching_requests",
    "read_element",
    "request_matches",
    "status_matches",
    "Unmet",
    "url_matches",
    "value_matches",
]


@dataclass(frozen=True)
class ElementReading:
    """An element as `expect` sees it: ``value`` None when it is no field, ``checked`` None when
    it is no checkbox, radio or switch."""

    value: str | None
    checked: bool | None
    text: str
    visible: bool


async def read_element(ctx: CommandContext, el: Resolved) -> ElementReading:
    """The one read of an element `expect` judges (see the module's docstring)."""
    object_id = el.object_id
    if has_own_world(ctx):
        object_id = await in_own_world(ctx, object_id, session_id=el.session_id)
    raw = await call_function(
        ctx, object_id, "elementReading", session_id=el.session_id, what="read element"
    )
    raw = raw if isinstance(raw, dict) else {}
    state = raw.get("checked")
    kind = state.get("kind") if isinstance(state, dict) else None
    value = raw.get("value")
    return ElementReading(
        value=None if value is None else str(value),
        checked=bool(state.get("checked")) if kind and isinstance(state, dict) else None,
        text=str(raw.get("text") or ""),
        visible=bool(raw.get("visible")),
    )


class Evidence(TypedDict):
    """What an unmet expectation saw that proves it: the console errors and failed requests."""

    console: list[EvidenceEntry]
    network: list[EvidenceEntry]


class Unmet(ExpectationFailure):
    """An expectation that does not hold (yet): transient while its budget lasts."""

    def __init__(
        self,
        what: str,
        expected: Any,
        seen: Any,
        *,
        message: str,
        transient: bool = True,
        evidence: Evidence | None = None,
    ) -> None:
        claim = "" if isinstance(expected, bool) else f" {expected!r}"
        super().__init__(
            f"expect {what}{claim} did not hold: {message}",
            transient=transient,
            details={"expectation": what, "expected": expected, "seen": seen, **(evidence or {})},
        )


def value_matches(seen: str | None, raw: str) -> bool:
    """A field's value is compared whole, as fill verifies what the field kept; quotes around
    ``raw`` are taken off as the text rule takes them (pure)."""
    wanted, _exact = text_query(raw)
    return seen is not None and seen == wanted


def url_matches(href: str, pattern: str) -> bool:
    """A URL against a glob (``*/done``, ``https://app.example.com/*``) or the whole URL, as
    `wait --url` takes it (pure)."""
    return fnmatch.fnmatchcase(href, pattern) or href == pattern


_STATUS = re.compile(r"^([1-5])xx$|^([1-5]\d\d)$")


def status_matches(status: Any, spec: str) -> bool:
    """A status against ``2xx`` (a class) or ``201`` (one status); raises ``bad_request`` for
    anything else (pure)."""
    match = _STATUS.match(spec.strip().lower())
    if match is None:
        raise UsageError(
            f"--status {spec!r}: give a class (2xx, 4xx) or a status (200, 404)",
            code="bad_request",
        )
    if not isinstance(status, int) or isinstance(status, bool):
        return False
    if match.group(1):
        return status // 100 == int(match.group(1))
    return status == int(match.group(2))


def request_matches(url: str, pattern: str) -> bool:
    """A request's URL (as the evidence keeps it: query values hidden) against a glob when the
    pattern has ``*``, else as a part of it (``/api/save``) (pure)."""
    if "*" in pattern:
        return fnmatch.fnmatchcase(url, pattern)
    return pattern in url


def matching_requests(entries: Iterable[EvidenceEntry], pattern: str) -> list[EvidenceEntry]:
    """The network evidence entries whose URL matches ``pattern`` (pure)."""
    return [e for e in entries if request_matches(str(e.get("url") or ""), pattern)]
