"""The input an action gives with its ref's lookup (act/refs.py, ``Press``): what the host sends.

Input rides in the lookup's batch only behind a page-side check the extension stops at
(``stopIfThrown``): never with an extension that did not say it has that, never without the
record the identity check passed, and never twice. The host runs for real (Host, ExtensionLink,
CommandContext); the extension and Chrome are the one fake (tests/unit/fakes.py).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import fields, replace
from typing import Any

import pytest
from reins._errors import ReinsError
from reins.act.handles import Press, PressResult
from reins.act.refs import _by_last_snapshot
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Hello, parse_extension_message
from reins.observe.entries import Bounds, Locator, RegistryEntry
from reins.observe.identity import MAX_NAME_CHARS, Identity
from reins.observe.sent import SentRecords
from reins.observe.store import ObserveState, SeenAt
from reins.page.call import HeldFunctions, page_function

from tests.unit.fakes import Call, FakeChrome, make_context, make_host

RECORD = {"tag": "button", "role": "button", "name": "Save", "id": "save", "sibling_index": 0}


def _chrome(
    features: list[str], second: dict[str, Any], fail: dict[str, Any] | None = None, **cdp: Any
) -> FakeChrome:
    """Chrome as the lookup meets it: a handle for sameNode (node-1 in a batch; node-2 alone,
    the handle asked for after a refusal), ``second`` for the check (probeSame, or pressSame
    where the batch stops if it threw), the read after, the rest ok; ``fail``: every message
    answered with this error; ``cdp``: answers by method."""

    def same_node(call: Call) -> dict[str, Any]:
        handle = "node-1" if call.batch is not None else "node-2"
        return {"result": {"type": "object", "objectId": handle}}

    return FakeChrome(
        functions={
            "sameNode": same_node,
            "probeSame": second,
            "pressSame": second,
            "readHeld": {"url": "u"},
            "readState": {"url": "u"},
        },
        cdp=cdp,
        features=tuple(features),
        fail_whole=fail,
    )


def _entry() -> RegistryEntry:
    return RegistryEntry(
        ref="@save",
        identity=Identity.from_record(RECORD),
        source="dom",
        frame=None,
        locator=Locator("#save", "byId"),
        backend_node_id=None,
        bounds=Bounds(10, 20, 100, 30),
        first_seen=0.0,
        last_seen=0.0,
        document_id="doc-1",
    )


def _press() -> Press:
    return Press(
        lambda x, y: [("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})]
    )


def _lookup(
    ext: FakeChrome,
    press: Press,
    *,
    held: list[dict[str, Any]] | None,
    times: int = 1,
    entry: RegistryEntry | None = None,
    kept: list[HeldFunctions] | None = None,
) -> Any:
    """``times`` lookups in one host, each with ``press``: the last answer, and what its lookup
    did with the press (``kept``: gets the functions the tab holds after them)."""

    async def main() -> tuple[Any, PressResult]:
        host = make_host(ext)
        answer = None
        for _ in range(times):
            ctx = make_context(ext, host=host)
            ctx.part(ObserveState).seen = SeenAt("doc-1", {"main": "g1"}, {"@save": (None, 0)})
            if held is not None:
                ctx.part(SentRecords).gen, ctx.part(SentRecords).records = "g1", held
            answer = await _by_last_snapshot(ctx, entry or _entry(), probe=True, press=press)
            if kept is not None:
                kept.append(ctx.part(HeldFunctions))
        pressed = answer[0].pressed if answer is not None else None
        return answer, pressed or PressResult()

    return asyncio.run(main())


_READY = {"result": {"value": {"record": RECORD, "probe": {"state": "ok"}, "before": {"u": 1}}}}


def test_the_input_rides_with_the_lookup_at_the_middle_of_the_seen_box() -> None:
    ext, press = _chrome(["stopIfThrown"], _READY), _press()
    (resolved, record), pressed = _lookup(ext, press, held=[RECORD])
    [batch] = ext.batches
    assert [c["method"] for c in batch] == [
        "Runtime.evaluate",
        "Input.dispatchMouseEvent",
        "Runtime.evaluate",
        "Runtime.evaluate",  # the two functions compiled, to be held for the next press
        "Runtime.evaluate",
    ]
    # The check comes first: no sameNode script runs in front of it (no handle is needed for an
    # input given), and nothing else is asked of the page.
    assert batch[0].get("stopIfThrown") is True
    assert page_function("pressSame") in batch[0]["params"]["expression"]
    assert page_function("readHeld") in batch[2]["params"]["expression"]
    assert not any(page_function("sameNode") in json.dumps(c) for c in batch)
    assert batch[1]["params"]["x"] == 60 and batch[1]["params"]["y"] == 35
    assert pressed.point == (60, 35) and pressed.before == {"u": 1} and pressed.count == 1
    assert len(pressed.answers or []) == 2  # the event and the read after, not the definitions
    assert record == RECORD and not ext.singles


def test_the_next_press_in_the_document_calls_the_held_functions_by_handle() -> None:
    ext, press, kept = _chrome(["stopIfThrown"], _READY), _press(), []
    _, pressed = _lookup(ext, press, held=[RECORD], times=2, kept=kept)
    first, second = ext.batches
    assert kept and kept[-1].held("doc-1", "pressSame", "readHeld")
    assert [c["method"] for c in second] == [
        "Runtime.callFunctionOn",
        "Input.dispatchMouseEvent",
        "Runtime.callFunctionOn",
    ]
    assert second[0]["params"]["objectId"] == "fn-3" and second[0].get("stopIfThrown") is True
    assert second[2]["params"]["objectId"] == "fn-4"
    # A few hundred bytes instead of the declarations.
    assert len(json.dumps(second)) * 5 < len(json.dumps(first))
    assert pressed.given and pressed.before == {"u": 1}


def test_no_input_rides_with_an_extension_that_cannot_stop_the_batch() -> None:
    ext, press = _chrome([], {"result": {"value": {"record": RECORD, "probe": None}}}), _press()
    _, pressed = _lookup(ext, press, held=[RECORD])
    [batch] = ext.batches
    assert [c["method"] for c in batch] == ["Runtime.evaluate", "Runtime.evaluate"]
    assert page_function("probeSame") in batch[1]["params"]["expression"] and not pressed.given


def test_no_input_rides_without_a_record_that_passes_the_identity_check() -> None:
    probe_only = {"result": {"value": {"record": RECORD, "probe": None}}}
    for held in ([], [{**RECORD, "name": "Delete", "id": "delete", "role": "link"}]):
        ext, press = _chrome(["stopIfThrown"], probe_only), _press()
        _, pressed = _lookup(ext, press, held=held)
        assert [c["method"] for c in ext.batches[0]] == ["Runtime.evaluate"] * 2, held
        assert not pressed.given


def test_no_input_rides_for_a_record_listed_as_a_frame() -> None:
    """A frame owner is never pressed (issue 43): its ref goes the way that asks the browser
    what the node is (act/locate.py, refuse_frame_owner) before any input."""
    frame = {**RECORD, "tag": "iframe", "role": "frame", "name": "Save draft"}
    entry = replace(_entry(), identity=Identity.from_record(frame))
    ext = _chrome(["stopIfThrown"], {"result": {"value": {"record": frame, "probe": None}}})
    press = _press()
    _, pressed = _lookup(ext, press, held=[frame], entry=entry)
    [batch] = ext.batches
    assert [c["method"] for c in batch] == ["Runtime.evaluate"] * 2
    assert page_function("probeSame") in batch[1]["params"]["expression"] and not pressed.given


def _expected_in(batch: list[dict[str, Any]]) -> dict[str, Any]:
    """The identity fields the batch's pressSame must find (its fourth argument)."""
    expression = batch[0]["params"]["expression"]
    call = f"({page_function('pressSame')})("
    assert expression.startswith(call) and expression.endswith(")")
    args = json.loads("[" + expression[len(call) : -1] + "]")
    return dict(args[3])


def test_after_a_host_restart_the_input_rides_on_the_saved_identity() -> None:
    """A new host holds none of the records the page sent (SentRecords empty): the ref's own
    identity from the saved registry is what the page must show, field for field."""
    ext, press = _chrome(["stopIfThrown"], _READY), _press()
    _, pressed = _lookup(ext, press, held=None)
    [batch] = ext.batches
    assert [c["method"] for c in batch][:2] == ["Runtime.evaluate", "Input.dispatchMouseEvent"]
    expect = _expected_in(batch)
    assert expect == {f.name: getattr(_entry().identity, f.name) for f in fields(Identity)}
    assert expect["name"] == "Save" and expect["id"] == "save" and expect["testid"] is None
    assert pressed.given


def test_after_a_host_restart_an_ax_or_cut_identity_gives_no_input() -> None:
    """Chrome's role and name (an AX-source entry) are not what the page reads, and a name cut
    to the identity's length never equals the page's: the usual lookup then."""
    probe_only = {"result": {"value": {"record": RECORD, "probe": None}}}
    long_name = "Save " + "x" * MAX_NAME_CHARS
    for entry in (
        replace(_entry(), source="ax"),
        replace(_entry(), identity=Identity.from_record({**RECORD, "name": long_name})),
    ):
        ext, press = _chrome(["stopIfThrown"], probe_only), _press()
        _, pressed = _lookup(ext, press, held=None, entry=entry)
        assert [c["method"] for c in ext.batches[0]] == ["Runtime.evaluate"] * 2, entry
        assert not pressed.given


def test_a_refusal_hands_back_what_the_page_found_and_no_input_is_counted() -> None:
    found = {"record": RECORD, "probe": {"state": "ok", "cover": "div#veil"}, "why": "covered"}
    thrown = {"exceptionDetails": {"exception": {"type": "string", "value": json.dumps(found)}}}
    ext, press = _chrome(["stopIfThrown"], thrown), _press()
    (resolved, record), pressed = _lookup(ext, press, held=[RECORD])
    assert not pressed.given and not pressed.answers
    assert record == RECORD and resolved.probed == found["probe"]
    # The batch (which the extension stopped at the check) asked for no handle; the handle the
    # action goes on with is asked for after it.
    [batch] = ext.batches
    assert page_function("pressSame") in batch[0]["params"]["expression"]
    assert not any(page_function("sameNode") in json.dumps(c) for c in batch)
    [single] = ext.singles
    assert single["method"] == "Runtime.evaluate"
    assert page_function("sameNode") in single["params"]["expression"]
    assert resolved.object_id == "node-2"


def test_a_refusal_that_is_not_the_checks_own_findings_is_no_lookup() -> None:
    thrown = {"exceptionDetails": {"exception": {"type": "string", "value": "not json"}}}
    ext, press = _chrome(["stopIfThrown"], thrown), _press()
    answer, pressed = _lookup(ext, press, held=[RECORD])
    assert answer is None and not pressed.given
    assert not ext.singles  # nothing to go on from: no handle asked for


def test_hello_features_are_read_and_bounded() -> None:
    hello = parse_extension_message({"type": "hello", "features": ["stopIfThrown"]})
    assert isinstance(hello, Hello) and hello.features == ["stopIfThrown"]
    older = parse_extension_message({"type": "hello"})
    assert isinstance(older, Hello) and older.features == []
    link = ExtensionLink(send=lambda message: None)
    assert not link.has("stopIfThrown")
    link.hello = older
    assert not link.has("stopIfThrown")


def test_an_input_given_is_the_answer_whatever_the_check_answered() -> None:
    # pressSame did not throw, so the extension went on with the input: even an odd value is no
    # reason to look the ref up (and click) again.
    ext, press = _chrome(["stopIfThrown"], {"result": {"value": "odd"}}), _press()
    (resolved, record), pressed = _lookup(ext, press, held=[RECORD])
    assert pressed.given and pressed.before is None and record == {}
    assert resolved.ref == "@save" and len(ext.batches) == 1 and not ext.singles


def test_a_press_batch_that_fails_whole_is_not_looked_up_again() -> None:
    failure = {"code": "cdp_error", "message": "the extension lost the batch"}
    ext, press = _chrome(["stopIfThrown"], _READY, fail=failure), _press()
    with pytest.raises(ReinsError) as raised:
        _lookup(ext, press, held=[RECORD])
    assert raised.value.code == "cdp_error" and len(ext.batches) == 1
    closed = {"code": "target_closed", "message": "No tab with id"}
    ext, press = _chrome(["stopIfThrown"], _READY, fail=closed), _press()
    _, pressed = _lookup(ext, press, held=[RECORD])
    assert pressed.given and isinstance((pressed.answers or (None,))[0], ReinsError)
