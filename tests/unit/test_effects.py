"""What an action changed (reins.act.effects.effect_of), from two hand-built state reads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from reins.act.answers import Instead, Navigated, TabClosed, Unknown
from reins.act.effects import effect_of

URL = "http://app.test/form"


def read(**changes: Any) -> dict[str, Any]:
    """One state read as the page's observer returns it (counts only in the "after" read)."""
    state: dict[str, Any] = {
        "connected": True,
        "value": "",
        "checked": None,
        "selected": None,
        "expanded": None,
        "focus": None,
        "url": URL,
        "document": 1234.5,
        "counts": None,
    }
    state.update(changes)
    return state


def effect_wire(
    before: dict[str, Any] | None, after: dict[str, Any] | None, instead: Instead | None = None
) -> tuple[dict[str, Any], list[str]]:
    """``effect_of``'s effect as the wire has it, and its warnings."""
    effect, warnings = effect_of(before, after, instead)
    return effect.to_wire(), warnings


def test_no_before_read_means_unknown() -> None:
    assert effect_wire(None, read(), None) == ({"unknown": True}, ["effect_unknown"])
    assert effect_wire(None, None, Navigated("http://elsewhere.test/")) == (
        {"unknown": True},
        ["effect_unknown"],
    )


def test_a_confirmed_navigation_reports_the_new_url() -> None:
    assert effect_wire(read(), None, Navigated("http://app.test/done")) == (
        {"navigated": True, "url": {"from": URL, "to": "http://app.test/done"}},
        [],
    )


def test_a_navigation_whose_url_is_not_known_yet() -> None:
    assert effect_wire(read(), None, Navigated(None)) == ({"navigated": True}, [])


def test_navigation_to_the_same_url_still_reports_both() -> None:
    assert effect_wire(read(), None, Navigated(URL)) == (
        {"navigated": True, "url": {"from": URL, "to": URL}},
        [],
    )


def test_a_closed_tab_is_said_so() -> None:
    assert effect_wire(read(), None, TabClosed()) == ({"tab_closed": True}, [])


@pytest.mark.parametrize("instead", [None, Unknown("the page did not answer (timeout)")])
def test_a_failed_after_read_is_unknown_never_a_navigation(instead: Unknown | None) -> None:
    effect, warnings = effect_wire(read(), None, instead)
    assert effect["unknown"] is True and "navigated" not in effect
    assert warnings == ["effect_unknown"]
    if instead:
        assert effect["reason"] == instead.reason


@pytest.mark.parametrize(
    ("key", "old", "new"),
    [
        ("value", "", "hello"),
        ("value", "a", None),
        ("checked", False, True),
        ("checked", True, "mixed"),
        ("selected", ["One"], ["Two"]),
        ("expanded", False, True),
        ("expanded", None, False),
        ("focus", None, "input#name[email]"),
        ("url", URL, URL + "#step-2"),
    ],
)
def test_each_changed_key_is_reported_from_to(key: str, old: Any, new: Any) -> None:
    effect, warnings = effect_wire(read(**{key: old}), read(**{key: new}), None)
    assert effect == {key: {"from": old, "to": new}}
    assert warnings == []


def test_several_changes_at_once() -> None:
    effect, warnings = effect_wire(read(), read(value="x", focus="input#q", url=URL + "?q=x"), None)
    assert effect == {
        "value": {"from": "", "to": "x"},
        "focus": {"from": None, "to": "input#q"},
        "url": {"from": URL, "to": URL + "?q=x"},
    }
    assert list(effect) == ["value", "focus", "url"]  # in the order the keys are read
    assert warnings == []


def test_a_missing_key_counts_as_none() -> None:
    before = read()
    del before["checked"]
    assert effect_wire(before, read(checked=None), None) == ({}, ["no_effect"])
    assert effect_wire(before, read(checked=True), None)[0] == {
        "checked": {"from": None, "to": True}
    }


def test_the_document_marker_is_not_an_effect() -> None:
    assert effect_wire(read(document=1.0), read(document=2.0), None) == ({}, ["no_effect"])


def test_a_target_removed_from_the_page_is_detached() -> None:
    assert effect_wire(read(), read(connected=False), None) == ({"target_detached": True}, [])


def test_connected_defaults_to_true() -> None:
    after = read()
    del after["connected"]
    assert effect_wire(read(), after, None) == ({}, ["no_effect"])


def test_dom_changes_in_the_target_and_elsewhere_are_counted() -> None:
    effect, warnings = effect_wire(read(), read(counts={"inside": 3, "elsewhere": 2}), None)
    assert effect == {"dom_changed_in_target": 3, "dom_changed_elsewhere": 2}
    assert warnings == []


@pytest.mark.parametrize(
    ("counts", "want"),
    [
        ({"inside": 1, "elsewhere": 0}, {"dom_changed_in_target": 1}),
        ({"inside": 0, "elsewhere": 7}, {"dom_changed_elsewhere": 7}),
        ({"inside": 2.0}, {"dom_changed_in_target": 2}),
    ],
)
def test_zero_counts_are_left_out(counts: dict[str, Any], want: dict[str, int]) -> None:
    effect, _ = effect_wire(read(), read(counts=counts), None)
    assert effect == want
    assert all(type(v) is int for v in effect.values())


@pytest.mark.parametrize("counts", [None, {}, {"inside": 0, "elsewhere": 0}])
def test_nothing_changed_warns_no_effect(counts: dict[str, int] | None) -> None:
    assert effect_wire(read(), read(counts=counts), None) == ({}, ["no_effect"])


def test_instead_is_ignored_when_the_after_read_exists() -> None:
    assert effect_wire(read(), read(), Navigated("http://elsewhere.test/")) == ({}, ["no_effect"])


def test_everything_together_in_report_order() -> None:
    after = read(value="v", checked=True, connected=False, counts={"inside": 1, "elsewhere": 4})
    effect, warnings = effect_wire(read(checked=False), after, None)
    assert list(effect) == [
        "value",
        "checked",
        "target_detached",
        "dom_changed_in_target",
        "dom_changed_elsewhere",
    ]
    assert warnings == []


def test_elements_that_became_visible_are_an_effect() -> None:
    # a CSS :hover menu: no DOM change, no state change, only what renders
    shown = ['ul#menu "Pricing Docs"']
    assert effect_wire(read(), read(counts={}, shown=shown)) == ({"shown": shown}, [])
    assert effect_wire(read(), read(counts={}, shown=[])) == ({}, ["no_effect"])


def test_a_navigation_that_had_not_arrived_is_reported_as_started() -> None:
    to = "http://app.test/next"
    assert effect_wire(read(), read(counts={}, navigating=to)) == ({"navigation_started": to}, [])


def test_a_date_goes_into_a_segmented_field_in_the_field_s_order() -> None:
    from reins.act.forms import segment_keys

    assert segment_keys("2026-03-15", ["Month", "Day", "Year"]) == "03152026"
    assert segment_keys("2026-03-15", ["Day", "Month", "Year"]) == "15032026"
    assert segment_keys("2026-03-15T14:05", ["Year", "Month", "Day", "Hours", "Minutes"]) == (
        "202603151405"
    )
    assert segment_keys("14:05", ["Hours", "Minutes"]) == "1405"
    # Not ISO, or a part the value does not name: typed as written, letters and digits only.
    assert segment_keys("03/15/2026", ["Month", "Day", "Year"]) == "03152026"
    assert segment_keys("2026-03-15", ["Month", "Day", "Year", "Hours"]) == "20260315"
    assert segment_keys("2026-03-15", ["Mes", "Día", "Año"]) == "20260315"


def test_an_answer_writes_the_keys_in_the_order_the_wire_has_them() -> None:
    """The answers no recorded scenario reaches (tests/unit/wire): a dialog, a tab let go of, a
    download, written as effects.py wrote them before they were types."""
    from reins.act.answers import ActionAnswer, Change, Changed, Detached, DialogShown

    dialog = {"type": "alert", "message": "Saved"}
    answer = ActionAnswer(DialogShown(dialog), ("dialog_open",), ref="@e1")
    assert json.dumps(answer.to_wire()) == json.dumps(
        {"effect": {"dialog": dialog}, "warnings": ["dialog_open"], "ref": "@e1"}
    )
    detached = ActionAnswer(Detached(), ("detached_during_action",), frame={"id": "F"})
    assert json.dumps(detached.to_wire()) == json.dumps(
        {
            "effect": {"detached": True, "tab_open": True},
            "warnings": ["detached_during_action"],
            "frame": {"id": "F"},
        }
    )
    saved = {"file": "a.csv", "state": "complete"}
    changed = Changed((("focus", Change(None, "a#get")),), dom_changed_elsewhere=1)
    both = ActionAnswer(
        changed,
        (),
        downloads=(saved,),
        fields={"method": "cdp", "point": [1.0, 2.0]},
        recovered={"via": "locator", "confidence": 0.9},
        ref="@e2",
    )
    assert json.dumps(both.to_wire()) == json.dumps(
        {
            "effect": {
                "focus": {"from": None, "to": "a#get"},
                "dom_changed_elsewhere": 1,
                "downloads": [saved],
            },
            "warnings": [],
            "method": "cdp",
            "point": [1.0, 2.0],
            "recovered": {"via": "locator", "confidence": 0.9},
            "ref": "@e2",
        }
    )
    assert Unknown().to_wire() == {"unknown": True}
