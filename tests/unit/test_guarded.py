"""A click's move, hit test and press in one round trip (act/guarded.py): what the host sends for
the extension to guard, and what it makes of the answers.

The batch's part names the hit test's and the tree's answers for the extension's guard by their
place in the batch, takes the element's handle from the lookup's answer when it has none, and a
batch that the extension held back is never read as a press given. A ref's lookup carries the
whole of it only with an extension that says ``hitGuard``. The host runs for real; the extension
and Chrome are the one fake (tests/unit/fakes.py), which holds a press back as the extension's
guard does.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import BrowserError, ReinsError, ResolutionError
from reins.act.guarded import (
    ARM,
    EVENTS,
    HIT,
    METRICS,
    TREE,
    HeldBack,
    Pressed,
    guarded_part,
    read_guarded,
    took_press,
)
from reins.act.handles import Press, PressResult
from reins.act.hittest import ScrollSeen
from reins.act.refs import _by_last_snapshot
from reins.bridge.context import CommandContext
from reins.observe.store import ObserveState, SeenAt
from reins.page.call import page_constant

from tests.unit.fakes import FakeChrome, make_context

from .test_press import RECORD, _chrome, _entry

MOVE = ("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 60.0, "y": 35.0})
PRESS = [
    ("Input.dispatchMouseEvent", {"type": "mousePressed", "x": 60.0, "y": 35.0}),
    ("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": 60.0, "y": 35.0}),
]
AFTER = ("Runtime.callFunctionOn", {"objectId": "fn-read", "arguments": []})


# Chrome's answers around the press: the target's tree, the hit test at the point, the metrics.
TREE_ANSWER = {"node": {"backendNodeId": 5, "nodeName": "BUTTON"}}
METRICS_ANSWER = {"cssLayoutViewport": {"pageX": 0, "pageY": 0}}


def _browser(features: list[str], second: dict[str, Any], *, hit: int = 5) -> FakeChrome:
    """The lookup's Chrome (tests/unit/test_press.py's) with the press's answers; the
    extension's guard holds the press back when the hit (a backend node id) is not the target."""
    return _chrome(
        features,
        second,
        **{
            "DOM.describeNode": TREE_ANSWER,
            "DOM.getNodeForLocation": {"backendNodeId": hit},
            "Page.getLayoutMetrics": METRICS_ANSWER,
        },
    )


def _ctx(ext: FakeChrome | None = None) -> CommandContext:
    return make_context(ext or _browser(["stopIfThrown", "hitGuard"], {}))


def test_the_part_names_its_answers_by_their_place_in_the_whole_batch() -> None:
    async def main() -> None:
        ctx = _ctx()
        ctx.part(ScrollSeen).y = 100.0
        commands, each = guarded_part(ctx, MOVE, PRESS, handle="node-7", after=AFTER, at=2)
        assert [m for m, _ in commands] == [
            "DOM.describeNode",
            "Input.dispatchMouseEvent",
            "DOM.getNodeForLocation",
            "Page.getLayoutMetrics",
            "Runtime.callFunctionOn",  # the receipt guard, sent only if the guard holds
            "Input.dispatchMouseEvent",
            "Input.dispatchMouseEvent",
            "Runtime.callFunctionOn",
        ]
        assert commands[TREE][1] == {"objectId": "node-7", "depth": -1, "pierce": True}
        # The hit test asks at the point in document coordinates (the scroll offset guessed).
        assert (commands[HIT][1]["x"], commands[HIT][1]["y"]) == (60, 135)
        assert each[ARM]["onlyIf"] == {
            "tree": 2 + TREE,
            "hit": 2 + HIT,
            "metrics": 2 + METRICS,
            "scroll": [0.0, 100.0],
            "noDialog": True,
        }
        assert "fill" not in each[TREE] and "fill" not in each[ARM]
        assert each[EVENTS] == {"noWait": True} and each[-2] == {} and each[-1] == {}
        assert sum("onlyIf" in e for e in each) == 1

    asyncio.run(main())


def test_a_handle_from_an_earlier_answer_is_filled_in_by_the_extension() -> None:
    async def main() -> None:
        commands, each = guarded_part(_ctx(), MOVE, PRESS, handle=1, after=AFTER, at=2)
        path = [1, "result", "objectId"]
        assert each[TREE]["fill"] == {"objectId": path}
        assert each[ARM]["fill"] == {"objectId": path, "arguments.0.objectId": path}
        assert commands[TREE][1]["objectId"] == "" and commands[ARM][1]["objectId"] == ""

    asyncio.run(main())


def _answers(arm: Any, *rest: Any) -> list[Any]:
    tree = {"node": {"backendNodeId": 5, "nodeName": "BUTTON"}}
    metrics = {"cssLayoutViewport": {"pageX": 0, "pageY": 0}}
    return [{"lead": 1}, tree, {}, {"backendNodeId": 5}, metrics, arm, *rest]


def test_a_batch_held_back_is_never_read_as_a_press() -> None:
    held = BrowserError("not sent", code="cdp_error")
    held.chrome = "held_back"

    async def main() -> None:
        ctx = _ctx()
        outcome = read_guarded(ctx, _answers(held), 1)
        assert isinstance(outcome, HeldBack)
        assert outcome.tree["backendNodeId"] == 5 and outcome.at == 1 + HIT
        # Cut short after the hit test (no arm answer at all): held back too.
        assert isinstance(read_guarded(ctx, _answers(held)[:5], 1), HeldBack)

    asyncio.run(main())


def test_a_press_given_answers_from_its_first_event_and_says_if_the_receipt_was_armed() -> None:
    async def main() -> None:
        ctx = _ctx()
        outcome = read_guarded(ctx, _answers({"result": {}}, {}, {}, {"after": 1}), 1)
        assert outcome == Pressed(True, [{}, {}, {"after": 1}])
        gone = BrowserError("object gone", code="cdp_error")  # not held back: the press went on
        outcome = read_guarded(ctx, _answers(gone, {}, {}, {"after": 1}), 1)
        assert isinstance(outcome, Pressed) and not outcome.armed

    asyncio.run(main())


def test_a_steady_arm_takes_the_second_look_and_ends_the_batch_if_the_element_moved() -> None:
    """A probe that left its second look of "stable" to the press (act/actionability.py,
    ``defer_stable``): the arm awaits it, the batch ends where it threw, and that answer is
    ``not_stable``, transient (a new probe follows), never a press given."""

    async def main() -> None:
        ctx = _ctx()
        commands, each = guarded_part(ctx, MOVE, PRESS, handle="n", after=AFTER, at=0, steady=True)
        arm = commands[ARM][1]
        assert arm["awaitPromise"] is True and arm["arguments"][1:] == [{"value": True}]
        assert each[ARM]["stopIfThrown"] is True and "onlyIf" in each[ARM]
        plain, plain_each = guarded_part(ctx, MOVE, PRESS, handle="n", after=AFTER, at=0)
        assert plain[ARM][1]["arguments"][1:] == [] and "stopIfThrown" not in plain_each[ARM]

        moved = {
            "result": {"type": "object"},
            "exceptionDetails": {
                "text": "Uncaught (in promise)",
                "exception": {"description": f"Error: {page_constant('MOVING')}"},
            },
        }
        with pytest.raises(ResolutionError) as refused:
            read_guarded(ctx, _answers(moved), 1)
        assert refused.value.code == "not_stable" and refused.value.transient
        other = {"exceptionDetails": {"text": "Uncaught", "exception": {"description": "x"}}}
        with pytest.raises(ReinsError) as failed:
            read_guarded(ctx, _answers(other), 1)
        assert failed.value.code != "not_stable"

    asyncio.run(main())


def test_a_failure_before_the_hit_test_is_raised_and_nothing_was_pressed() -> None:
    async def main() -> None:
        ctx = _ctx()
        stale = ResolutionError("gone", code="ref_stale")
        answers = _answers({})
        answers[1] = stale
        with pytest.raises(ResolutionError):
            read_guarded(ctx, answers, 1)
        with pytest.raises(ReinsError) as cut:
            read_guarded(ctx, _answers({})[:2], 1)  # the move never answered
        assert cut.value.code == "cdp_error" and cut.value.transient

    asyncio.run(main())


def _guarded_lookup(ext: FakeChrome) -> tuple[PressResult, Any]:
    """What the lookup of a click by ref did with its press, and the lookup's answer."""

    async def main() -> tuple[PressResult, Any]:
        ctx = _ctx(ext)
        ctx.part(ObserveState).seen = SeenAt("doc-1", {"main": "g1"}, {"@save": (None, 0)})
        from reins.observe.sent import SentRecords

        ctx.part(SentRecords).gen, ctx.part(SentRecords).records = "g1", [RECORD]
        press = Press(lambda x, y: [MOVE, *PRESS], hit_test=True)
        answer = await _by_last_snapshot(ctx, _entry(), probe=True, press=press)
        pressed = answer[0].pressed if answer is not None else None
        return pressed or PressResult(), answer

    return asyncio.run(main())


_READY = {"result": {"value": {"record": RECORD, "probe": {"state": "ok"}, "before": {"u": 1}}}}


def test_a_refs_click_is_one_round_trip_from_its_lookup_to_the_read_after() -> None:
    ext = _browser(["stopIfThrown", "hitGuard"], _READY)
    pressed, (resolved, _record) = _guarded_lookup(ext)
    [batch] = ext.batches
    assert [c["method"] for c in batch] == [
        "Runtime.evaluate",  # the check, where the batch stops if the page refuses
        "Runtime.evaluate",  # the element's handle
        "DOM.describeNode",
        "Input.dispatchMouseEvent",
        "DOM.getNodeForLocation",
        "Page.getLayoutMetrics",
        "Runtime.callFunctionOn",  # the receipt guard, under the extension's guard
        "Input.dispatchMouseEvent",
        "Input.dispatchMouseEvent",
        "Runtime.evaluate",  # the read after
        "Runtime.evaluate",  # the two functions compiled, to be held for the next press
        "Runtime.evaluate",
    ]
    assert batch[6]["onlyIf"]["hit"] == 4 and batch[6]["onlyIf"]["tree"] == 2
    assert batch[2]["fill"] == {"objectId": [1, "result", "objectId"]}
    assert pressed.given and pressed.armed and pressed.count == 2 and pressed.point == (60, 35)
    assert len(pressed.answers or []) == 3  # the press, the release, the read after
    assert resolved.object_id == ""  # the press was given: no handle goes on


def test_a_press_held_back_goes_on_from_the_handle_and_counts_as_not_given() -> None:
    # The hit test finds another node: the extension's guard holds the press back.
    held_back = _browser(["stopIfThrown", "hitGuard"], _READY, hit=9)
    pressed, (resolved, _record) = _guarded_lookup(held_back)
    assert not pressed.given and not pressed.armed
    assert pressed.checked_at == (60, 35) and resolved.object_id == "node-1"


def test_without_the_guard_the_lookup_gives_no_input() -> None:
    ext = _browser(["stopIfThrown"], _READY)
    pressed, (resolved, _record) = _guarded_lookup(ext)
    assert [c["method"] for c in ext.batches[0][:2]] == ["Runtime.evaluate"] * 2
    assert not any(c["method"].startswith("Input.") for c in ext.batches[0])
    assert not pressed.given and resolved.object_id == "node-1"


def test_took_press_needs_the_point_the_check_set() -> None:
    async def main() -> None:
        assert not took_press(_ctx(), PressResult(), _answers({}, {}, {}, {}), 1, 2)

    asyncio.run(main())
