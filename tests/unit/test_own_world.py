"""reins's own world, host side (page/world.py) without a browser: the world asked of the
extension per frame and session, an element handed over by Chrome's node id into the world of
the frame that holds it, a stale world asked for once more, and the request's shape on the link."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import BrowserError, from_cdp_error
from reins.bridge.context import CommandContext
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink
from reins.page.call import evaluate
from reins.page.world import (
    RawContexts,
    in_own_world,
    note_raw_answer,
    own_world,
    reaches_own_world,
)

from tests.unit.fakes import FakeChrome, make_context


def _ctx(
    worlds: dict[str | None, list[int]], features: tuple[str, ...], *answers: Any
) -> tuple[CommandContext, FakeChrome]:
    """A command context on tab 7 whose CDP calls get ``answers`` in order; the extension
    answers reins's world per frame (None: the top frame) with the ids ``worlds`` lists."""
    chrome = FakeChrome(replies=list(answers), worlds=worlds, features=features)
    return make_context(chrome, budget_ms=5_000), chrome


DESCRIBED = {"node": {"backendNodeId": 42}}
NOT_HERE = from_cdp_error("DOM.resolveNode", {"code": "cdp_error", "message": "does not belong"})
GONE = from_cdp_error(
    "DOM.resolveNode",
    {"code": "cdp_error", "message": "gone", "transient": True, "chrome": "context_gone"},
)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_an_element_of_the_top_document_is_resolved_in_one_call() -> None:
    ctx, chrome = _ctx({None: [5]}, ("ownWorld",), DESCRIBED, {"object": {"objectId": "w-1"}})
    assert run(in_own_world(ctx, "page-1", session_id="S")) == "w-1"
    assert chrome.sent[0] == ("DOM.describeNode", {"objectId": "page-1"}, "S")
    # The extension names reins's world of the session's top frame itself (OWN_WORLD).
    assert chrome.sent[1] == (
        "DOM.resolveNode",
        {"backendNodeId": 42, "executionContextId": "reins", "objectGroup": "reins"},
        "S",
    )
    assert chrome.asked_worlds == []


def test_an_element_is_resolved_in_reins_world_of_the_top_frame_by_number() -> None:
    ctx, chrome = _ctx(
        {None: [5]}, ("ownWorld",), DESCRIBED, NOT_HERE, {"object": {"objectId": "w-1"}}
    )
    assert run(in_own_world(ctx, "page-1", session_id="S")) == "w-1"
    assert chrome.sent[2] == (
        "DOM.resolveNode",
        {"backendNodeId": 42, "executionContextId": 5, "objectGroup": "reins"},
        "S",
    )
    assert chrome.asked_worlds == [("S", None)]


def test_a_node_of_an_in_process_frame_is_resolved_in_that_frame_s_world() -> None:
    tree = {"frameTree": {"frame": {"id": "TOP"}, "childFrames": [{"frame": {"id": "CHILD"}}]}}
    ctx, chrome = _ctx(
        {None: [5], "CHILD": [9]},
        ("ownWorld",),
        DESCRIBED,
        NOT_HERE,
        NOT_HERE,
        tree,
        {"object": {"objectId": "w-9"}},
    )
    assert run(in_own_world(ctx, "page-1")) == "w-9"
    assert chrome.asked_worlds == [(None, None), (None, "CHILD")]
    assert chrome.sent[-1][1]["executionContextId"] == 9


def test_a_stale_world_is_asked_for_once_more() -> None:
    ctx, chrome = _ctx(
        {None: [5, 6]}, ("ownWorld",), DESCRIBED, NOT_HERE, GONE, {"object": {"objectId": "w-6"}}
    )
    assert run(in_own_world(ctx, "page-1")) == "w-6"
    contexts = [p["executionContextId"] for m, p, _ in chrome.sent if m == "DOM.resolveNode"]
    assert contexts == ["reins", 5, 6]


def test_no_frame_holding_the_node_is_ref_stale() -> None:
    ctx, chrome = _ctx(
        {None: [5]},
        ("ownWorld",),
        DESCRIBED,
        NOT_HERE,
        NOT_HERE,
        {"frameTree": {"frame": {"id": "TOP"}}},
    )
    with pytest.raises(BrowserError) as caught:
        run(in_own_world(ctx, "page-1"))
    assert caught.value.code == "ref_stale"


def test_an_extension_without_the_world_says_so() -> None:
    ctx, chrome = _ctx({}, ())
    with pytest.raises(BrowserError) as caught:
        run(own_world(ctx))
    assert caught.value.code == "cdp_blocked"


def test_evaluate_runs_in_the_world_it_is_given() -> None:
    ctx, chrome = _ctx({}, (), {"result": {"type": "number", "value": 1}})
    assert run(evaluate(ctx, "1", context_id=5)) == 1
    assert chrome.sent[0][1]["contextId"] == 5
    ctx, chrome = _ctx({}, (), {"result": {"type": "number", "value": 1}})
    run(evaluate(ctx, "1"))
    assert chrome.sent[0][1]["contextId"] == "reins"  # reins's world of the top frame: the default
    ctx, chrome = _ctx({}, (), {"result": {"type": "number", "value": 1}})
    run(evaluate(ctx, "1", main_world=True))
    assert "contextId" not in chrome.sent[0][1]


def test_the_world_request_on_the_link() -> None:
    sent: list[dict[str, Any]] = []

    async def ask() -> Any:
        link = ExtensionLink(send=sent.append)
        task = asyncio.ensure_future(
            link.world(7, deadline=Deadline.after_ms(1_000), session_id="S", frame_id="F")
        )
        await asyncio.sleep(0)
        link.receive({"id": sent[0]["id"], "ok": True, "result": {"executionContextId": 3}})
        return await task

    assert run(ask()) == {"executionContextId": 3}
    assert sent[0] == {"id": 1, "type": "world", "tabId": 7, "sessionId": "S", "frameId": "F"}


def test_raw_cdp_names_only_objects_of_contexts_it_was_handed() -> None:
    class Parts:
        def __init__(self) -> None:
            self.kept = RawContexts()

        def part(self, kind: type[RawContexts]) -> RawContexts:
            return self.kept

    ctx = Parts()
    # Nothing handed out yet: any object id is refused (reins's worlds have numbers the
    # extension picks, so a guess is never let through).
    assert reaches_own_world(ctx, {"objectId": "99.3.1"})  # type: ignore[arg-type]
    note_raw_answer(ctx, {"result": {"objectId": "99.1.7"}}, None)  # type: ignore[arg-type]
    assert not reaches_own_world(ctx, {"objectId": "99.1.1"})  # type: ignore[arg-type]
    assert reaches_own_world(ctx, {"objectId": "99.3.1"})  # type: ignore[arg-type]
    assert reaches_own_world(ctx, {"objectId": "x", "arguments": []})  # type: ignore[arg-type]
    assert reaches_own_world(
        ctx,  # type: ignore[arg-type]
        {"objectId": "99.1.1", "arguments": [{"value": 1}, {"objectId": "99.3.2"}]},
    )
    # Per session: the same numbers in an out-of-process frame's session are other contexts.
    assert reaches_own_world(ctx, {"objectId": "99.1.1"}, "S")  # type: ignore[arg-type]
    note_raw_answer(ctx, {"result": [{"value": {"objectId": "88.2.1"}}]}, "S")  # type: ignore[arg-type]
    assert not reaches_own_world(ctx, {"objectId": "88.2.5"}, "S")  # type: ignore[arg-type]
    assert not reaches_own_world(ctx, {"expression": "1"})  # type: ignore[arg-type]
    ctx.kept.on_detach()
    assert reaches_own_world(ctx, {"objectId": "99.1.1"})  # type: ignore[arg-type]
