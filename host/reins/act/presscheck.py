"""The host's side of a press checked with its ref's lookup (``pressSame``, refcheck.js): what
the page must still show, how the press rides in the lookup's batch (``PressPlan``), and what
the batch's answers say."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any, TypedDict, cast

from reins._errors import ReinsError
from reins.act.handles import Press, Probe
from reins.bridge.context import CommandContext
from reins.bridge.link import BatchAnswer, BatchStep, CdpCommand, CdpResult
from reins.observe.collect import ElementRecord
from reins.observe.identity import MATCH_THRESHOLD, MAX_NAME_CHARS, Identity, compare
from reins.observe.registry import RegistryEntry
from reins.observe.sent import SentRecords
from reins.observe.store import SeenAt
from reins.page.call import (
    HeldFunctions,
    call_value,
    define_params,
    evaluate_params,
    held_call_params,
    page_call,
)

__all__ = [
    "HELD",
    "PressPlan",
    "expected_identity",
    "findings",
    "held_plan",
    "keep_defined",
    "remote_handle",
]

# The record fields Identity.from_record reads (named as its fields): the page compares them for a
# Press (refcheck.js, pressSame, goes by the keys it is given).
_IDENTITY_FIELDS = tuple(f.name for f in fields(Identity))
# The page functions a Press calls, held by handle once a document has had one (page/call.py).
HELD = ("pressSame", "readHeld")


def expected_identity(
    ctx: CommandContext, entry: RegistryEntry, gen: str | None, index: int
) -> dict[str, IdentityValue] | None:
    """The identity fields of the record the latest collection sent for this index, when that
    record passes the ref's identity check: what the page must still show for a Press.

    After a host restart (or a detach) the records sent are gone (what the page holds and where
    the ref was seen are not: ``SeenAt`` is saved): the ref's own identity from the registry is then
    what the page must show, field for field — stricter than the check, never looser. A name cut
    to the identity's length would never match the page's: no Press then."""
    if gen is None:
        return None
    held = ctx.part(SentRecords)
    if held.gen is None:  # none held since the host started (or the tab was detached)
        identity = entry.identity
        if entry.source != "dom":  # Chrome's role and name, not what the page script reads
            return None
        if identity.name is not None and len(identity.name) >= MAX_NAME_CHARS:
            return None
        return {key: getattr(identity, key) for key in _IDENTITY_FIELDS}
    if held.gen != gen or not 0 <= index < len(held.records):
        return None
    record = held.records[index]
    if compare(entry.identity, Identity.from_record(record)) < MATCH_THRESHOLD:
        return None
    return {key: record.get(key) for key in _IDENTITY_FIELDS}


def keep_defined(held: HeldFunctions, document_id: str, answers: list[BatchAnswer]) -> None:
    """Keep the handles the end of a press batch compiled (``HELD``, in order), if all came."""
    handles: dict[str, str] = {}
    for name, answer in zip(HELD, answers, strict=False):
        if isinstance(answer, ReinsError):
            return
        try:
            remote = call_value(answer, what="define", by_value=False)
        except ReinsError:
            return
        if not isinstance(remote, dict) or remote.get("type") != "function":
            return
        handles[name] = str(remote.get("objectId") or "")
    if len(handles) == len(HELD) and all(handles.values()):
        held.keep(document_id, handles)


def remote_handle(answer: BatchAnswer | None) -> str | None:
    """The objectId of a by-reference answer naming an element (None: no element)."""
    if answer is None or isinstance(answer, ReinsError):
        return None
    try:
        remote = call_value(answer, what="same node", by_value=False)
    except ReinsError:
        return None
    if not isinstance(remote, dict) or remote.get("subtype") == "null":
        return None
    handle = remote.get("objectId")
    return str(handle) if handle else None


def findings(answer: CdpResult) -> Findings | None:
    """What ``pressSame`` found when it refused to let the input go: the JSON text it threw."""
    thrown = ((answer.get("exceptionDetails") or {}).get("exception") or {}).get("value")
    try:
        found = json.loads(thrown) if isinstance(thrown, str) else None
    except ValueError:
        return None
    return cast(Findings, found) if isinstance(found, dict) and "why" in found else None


# An identity field's value, as the record and the registry hold it (observe/identity.py).
IdentityValue = str | int | None


class Findings(TypedDict, total=False):
    """What ``pressSame`` found when it refused the input (pagescripts/src/refcheck.js): why,
    the element's record now and the probe it took (the action goes on from them)."""

    why: str
    record: ElementRecord
    probe: Probe


@dataclass
class PressPlan:
    """How a Press rides in the lookup batch: where its input goes, and what the batch holds
    after the check (``pressSame``, the batch's second command)."""

    point: tuple[float, float]
    events: list[CdpCommand]
    check: CdpCommand
    after: CdpCommand
    after_ms: int
    # The first press in this document: the batch ends by compiling ``HELD`` to be held.
    defining: bool
    # A press: the element's handle after the check, then the move, Chrome's hit test and the
    # press with the extension as the guard (``guarded``: act/guarded.py), or without such an
    # extension nothing more (they follow in act/pointer.py).
    handle: CdpCommand | None = None
    guarded: tuple[list[CdpCommand], list[BatchStep]] | None = None

    @property
    def defs_at(self) -> int:
        """Where the definitions start among the commands after the check."""
        if self.handle is not None:
            return 1 + (len(self.guarded[0]) if self.guarded is not None else 0)
        return len(self.events) + 1

    def tail(self) -> tuple[list[CdpCommand], list[BatchStep]]:
        """The commands after the check (the input and the read after, or the handle; the
        definitions), and what each of them adds to its command."""
        each: list[BatchStep]
        if self.handle is not None:
            commands, each = [self.handle], [BatchStep()]
            if self.guarded is not None:
                commands, each = commands + self.guarded[0], each + self.guarded[1]
        else:
            commands = [*self.events, self.after]
            each = [*(BatchStep(noWait=True) for _ in self.events[:-1]), {}, {}]
        if self.defining:
            commands += [("Runtime.evaluate", define_params(name)) for name in HELD]
            each += [BatchStep(noWait=True), {}]
        return commands, each


def held_plan(
    ctx: CommandContext,
    press: Press,
    seen: SeenAt,
    point: tuple[float, float],
    check_args: tuple[Any, ...],
    after_args: tuple[Any, ...],
    after_ms: int,
    timeout: int,
) -> PressPlan:
    """The check and the read after, by the functions held in the document when they are."""
    held = ctx.part(HeldFunctions)
    if held.held(seen.document_id, *HELD):
        return PressPlan(
            point,
            press.events(*point),
            (
                "Runtime.callFunctionOn",
                held_call_params(held.handles["pressSame"], *check_args, await_promise=True),
            ),
            (
                "Runtime.callFunctionOn",
                held_call_params(held.handles["readHeld"], *after_args, await_promise=True),
            ),
            after_ms,
            defining=False,
        )
    return PressPlan(  # the first in this document: sent whole, then compiled to be held
        point,
        press.events(*point),
        (
            "Runtime.evaluate",
            evaluate_params(page_call("pressSame", *check_args), timeout, await_promise=True),
        ),
        (
            "Runtime.evaluate",
            evaluate_params(page_call("readHeld", *after_args), after_ms, await_promise=True),
        ),
        after_ms,
        defining=True,
    )
