"""A CSS/XPath target of the top document in one round trip (act/handles.py ``find_one``): the
matches, the first one's handle and the browser's word on whether it owns a frame go down as one
sequential batch, the handle handed on by the extension (``fill``). The host runs for real; the
extension and Chrome are the one fake (tests/unit/fakes.py), which fills in handles as the
extension does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import ResolutionError, UsageError
from reins.act.actionability import actionable_point, probe_options
from reins.act.locate import resolve_target

from tests.unit.fakes import FakeChrome, make_context

BUTTON = {"node": {"nodeName": "BUTTON", "backendNodeId": 5}}


def _chrome(count: Any, described: Any = BUTTON, *, guard: bool = True) -> FakeChrome:
    return FakeChrome(
        functions={"findMatches": count, "matchAt": None},
        cdp={"DOM.describeNode": described},
        features=("stopIfThrown", "hitGuard") if guard else ("stopIfThrown",),
    )


def _resolve(chrome: FakeChrome, target: str = "#save", *, control: bool = True) -> Any:
    return asyncio.run(resolve_target(make_context(chrome), target, settle=False, control=control))


def test_one_match_its_handle_and_the_owner_check_are_one_round_trip() -> None:
    chrome = _chrome({"count": 1})
    found = _resolve(chrome)
    assert found.object_id == "matchAt-handle" and found.owner_checked
    [batch] = chrome.batches
    assert [c["method"] for c in batch] == [
        "Runtime.evaluate",
        "Runtime.evaluate",
        "DOM.describeNode",
    ]
    assert batch[2]["fill"] == {"objectId": [1, "result", "objectId"]}
    assert [c.function for c in chrome.calls[:2]] == ["findMatches", "matchAt"]
    assert chrome.calls[2].params["objectId"] == "matchAt-handle"  # the extension filled it in
    assert chrome.singles == []  # nothing else was asked


def test_a_frame_owner_found_so_is_refused_from_the_same_round_trip() -> None:
    chrome = _chrome({"count": 1}, {"node": {"nodeName": "IFRAME", "frameId": "F1"}})
    with pytest.raises(ResolutionError) as refused:
        _resolve(chrome, "#pay")
    assert refused.value.code == "target_is_frame"
    assert len(chrome.batches) == 1 and chrome.singles == []


@pytest.mark.parametrize(("count", "code"), [(0, "not_found"), (3, "ambiguous")])
def test_not_one_match_is_answered_from_the_count(count: int, code: str) -> None:
    chrome = _chrome({"count": count})
    with pytest.raises(ResolutionError) as failed:
        _resolve(chrome)
    assert failed.value.code == code


def test_a_bad_selector_is_a_usage_error() -> None:
    chrome = _chrome({"error": "invalid_selector", "message": "not a selector"})
    with pytest.raises(UsageError) as bad:
        _resolve(chrome, "#(")
    assert bad.value.code == "invalid_selector"


def test_without_the_extensions_fill_the_lookup_goes_step_by_step() -> None:
    chrome = _chrome({"count": 1}, guard=False)
    found = _resolve(chrome)
    assert not found.owner_checked and chrome.batches == []
    assert [c.method for c in chrome.calls] == [
        "Runtime.evaluate",
        "Runtime.evaluate",
        "DOM.describeNode",
    ]


def test_no_owner_check_is_asked_for_what_is_not_pressed() -> None:
    chrome = _chrome({"count": 1})
    found = _resolve(chrome, control=False)
    assert not found.owner_checked
    [batch] = chrome.batches
    assert [c["method"] for c in batch] == ["Runtime.evaluate", "Runtime.evaluate"]


_PROBED = {"state": "ok", "visible": True, "stable": None, "x": 40.5, "y": 12.0}
_FIELD = probe_options(0, None, defer=False, stable=False)


def _probing(*, defer_stable: bool) -> tuple[FakeChrome, Any, Any]:
    """A lookup of "#name" told the field's first probe, then the action's actionable_point
    (``defer_stable`` as the action asks): the fake, the element and the point."""
    chrome = FakeChrome(
        functions={"findMatches": {"count": 1}, "matchAt": None, "probe": _PROBED},
        cdp={"DOM.describeNode": BUTTON},
        features=("stopIfThrown", "hitGuard"),
    )
    ctx = make_context(chrome)

    async def run() -> Any:
        found = await resolve_target(
            ctx, "#name", settle=False, probe=True, control=True, first_probe=_FIELD
        )
        point = await actionable_point(
            ctx, found, need_stable=False, defer_stable=defer_stable, first_probe=found.probed
        )
        return found, point

    found, point = asyncio.run(run())
    return chrome, found, point


def test_the_actions_first_probe_rides_in_the_lookups_round_trip() -> None:
    """Told what the action's first probe asks, the lookup sends it too, on the handle the
    extension fills in; the action then takes it instead of probing again."""
    chrome, found, point = _probing(defer_stable=False)
    [batch] = chrome.batches
    assert [c["method"] for c in batch][-1] == "Runtime.callFunctionOn"
    assert batch[-1]["fill"] == {
        "objectId": [1, "result", "objectId"],
        "arguments.0.objectId": [1, "result", "objectId"],
    }
    sole = next(c for c in chrome.calls if c.function == "matchAt")
    assert "true" in sole.params["expression"]  # only the one match: never the first of several
    assert found.probed == _PROBED and found.probed_with == _FIELD
    assert (point.x, point.y) == (40.5, 12.0)
    assert [c.function for c in chrome.calls].count("probe") == 1  # no second probe


def test_a_probe_asked_otherwise_than_the_action_asks_is_not_taken() -> None:
    chrome, _found, _point = _probing(defer_stable=True)
    probes = [c for c in chrome.calls if c.function == "probe"]
    assert len(probes) == 2  # the lookup's, then the action's own with defer asked
    assert probes[1].params["arguments"][1]["value"]["defer"] is True


def test_a_lookup_not_told_sends_no_probe() -> None:
    chrome = _chrome({"count": 1})
    _resolve(chrome)
    assert "probe" not in [c.function for c in chrome.calls]
