"""The one fake Chrome (tests/unit/fakes.py) keeps the extension's batch semantics: the cases of
the extension's own tests (tests/extension/sequencer.test.mjs, hitguard.test.mjs) on the same
hand-built trees and answers, so a unit test's batch ends where the extension's would."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from tests.unit.fakes import Fail, FakeChrome, filled, guard_refuses, make_context, value

# <button id=1><span id=2>Save</span><iframe id=3></iframe>#shadow(open id=4 > b id=5)
# #shadow(closed id=6 > button id=7)</button>   (hitguard.test.mjs's tree)
TREE: dict[str, Any] = {
    "backendNodeId": 1,
    "nodeName": "BUTTON",
    "children": [
        {"backendNodeId": 2, "nodeName": "SPAN", "children": [{"backendNodeId": 20}]},
        {
            "backendNodeId": 3,
            "nodeName": "IFRAME",
            "contentDocument": {"backendNodeId": 30, "nodeName": "#document"},
        },
    ],
    "shadowRoots": [
        {
            "backendNodeId": 4,
            "shadowRootType": "open",
            "children": [{"backendNodeId": 5, "nodeName": "B"}],
        },
        {
            "backendNodeId": 6,
            "shadowRootType": "closed",
            "children": [{"backendNodeId": 7, "nodeName": "BUTTON"}],
        },
    ],
    "pseudoElements": [{"backendNodeId": 8, "nodeName": "::before"}],
}
GUARD = {"tree": 0, "hit": 2, "metrics": 3, "scroll": [0, 100], "noDialog": True}


def _ok(result: Any) -> dict[str, Any]:
    return {"ok": True, "result": result}


def _answers(hit: Any, viewport: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    metrics = {"cssLayoutViewport": viewport or {"pageX": 0, "pageY": 100}}
    return [_ok({"node": TREE}), _ok({}), _ok({"backendNodeId": hit}), _ok(metrics)]


@pytest.mark.parametrize("hit", [1, 2, 20, 4, 5, 8])
def test_a_hit_on_the_target_inside_it_open_shadow_or_pseudo_element_holds(hit: int) -> None:
    assert guard_refuses(GUARD, _answers(hit)) is None


@pytest.mark.parametrize("hit", [99, 3, 30, 6, 7, None])
def test_a_hit_outside_on_a_frame_owner_or_in_a_closed_tree_is_refused(hit: Any) -> None:
    assert "another node" in str(guard_refuses(GUARD, _answers(hit)))


def test_a_scroll_that_moved_a_dialog_a_frame_target_or_no_tree_is_refused() -> None:
    assert "scrolled" in str(guard_refuses(GUARD, _answers(5, {"pageX": 0, "pageY": 140})))
    assert "dialog" in str(guard_refuses(GUARD, _answers(5), 1))
    frame = [_ok({"node": {"backendNodeId": 3, "nodeName": "IFRAME"}}), *_answers(3)[1:]]
    assert "frame" in str(guard_refuses(GUARD, frame))
    failed = [{"ok": False, "error": {}}, *_answers(5)[1:]]
    assert "not known" in str(guard_refuses(GUARD, failed))
    assert "scrolled" in str(guard_refuses({**GUARD, "scroll": None}, _answers(5)))
    assert guard_refuses(None, []) is None


def test_filled_takes_a_handle_from_an_earlier_answer_into_its_place() -> None:
    out = [_ok({"result": {"objectId": "h-1"}})]
    command = {
        "method": "Runtime.callFunctionOn",
        "params": {"objectId": "", "arguments": [{"objectId": ""}]},
        "fill": {
            "objectId": [0, "result", "objectId"],
            "arguments.0.objectId": [0, "result", "objectId"],
        },
    }
    before = copy.deepcopy(command)
    done = filled(command, out)
    assert done["params"] == {"objectId": "h-1", "arguments": [{"objectId": "h-1"}]}
    assert command == before  # the command sent is a copy
    with pytest.raises(KeyError):
        filled({**command, "fill": {"objectId": [0, "result", "nothing"]}}, out)


def _batch(chrome: FakeChrome, commands: list[dict[str, Any]]) -> list[Any]:
    async def run() -> list[Any]:
        ctx = make_context(chrome)
        return await ctx.cdp_batch(
            [(c["method"], c.get("params", {})) for c in commands],
            sequential=True,
            each=[{k: v for k, v in c.items() if k not in ("method", "params")} for c in commands],
        )

    return asyncio.run(run())


def test_a_sequential_batch_stops_at_its_first_failure_and_sends_nothing_after() -> None:
    chrome = FakeChrome(cdp={"B": Fail({"code": "cdp_error", "message": "no"})})
    answers = _batch(chrome, [{"method": "A"}, {"method": "B"}, {"method": "C"}])
    assert len(answers) == 2 and [c.method for c in chrome.calls] == ["A", "B"]


def test_stop_if_thrown_ends_the_batch_at_a_check_that_threw_and_only_then() -> None:
    thrown = {"exceptionDetails": {"exception": {"type": "string", "value": "no"}}}
    check = {"method": "Runtime.evaluate", "params": {"expression": "check"}, "stopIfThrown": True}
    chrome = FakeChrome(cdp={"Runtime.evaluate": thrown})
    assert len(_batch(chrome, [check, {"method": "Input.x"}])) == 1
    chrome = FakeChrome(cdp={"Runtime.evaluate": value(True)})
    assert len(_batch(chrome, [check, {"method": "Input.x"}])) == 2
    unmarked = {k: v for k, v in check.items() if k != "stopIfThrown"}
    chrome = FakeChrome(cdp={"Runtime.evaluate": thrown})
    assert len(_batch(chrome, [unmarked, {"method": "Input.x"}])) == 2


@pytest.mark.parametrize(("hit", "pressed"), [(5, True), (99, False)])
def test_a_guarded_press_is_sent_only_when_the_hit_reaches_the_target(
    hit: int, pressed: bool
) -> None:
    chrome = FakeChrome(
        cdp={
            "DOM.describeNode": {"node": TREE},
            "DOM.getNodeForLocation": {"backendNodeId": hit},
            "Page.getLayoutMetrics": {"cssLayoutViewport": {"pageX": 0, "pageY": 100}},
        }
    )
    commands = [
        {"method": "DOM.describeNode"},
        {"method": "Input.dispatchMouseEvent", "params": {"type": "mouseMoved"}},
        {"method": "DOM.getNodeForLocation"},
        {"method": "Page.getLayoutMetrics"},
        {"method": "Input.dispatchMouseEvent", "params": {"type": "mousePressed"}, "onlyIf": GUARD},
    ]
    answers = _batch(chrome, commands)
    sent = [c.params.get("type") for c in chrome.calls if c.method == "Input.dispatchMouseEvent"]
    assert sent == (["mouseMoved", "mousePressed"] if pressed else ["mouseMoved"])
    assert len(answers) == 5
    if not pressed:
        assert getattr(answers[-1], "chrome", None) == "held_back"
