"""The delta form of a collection (observe/sent.py): what the host rebuilds from the page's answer,
what it refuses, and the registry keys a repeated record carries over."""

from __future__ import annotations

import json
from typing import Any

import pytest
from reins.observe.sent import DeltaMismatch, SentRecords, carry, keys_for, rebuild
from reins.observe.unchanged import record_key


def _answer(gen: str, base: str | None, items: list[Any], boxes: list[float]) -> dict[str, Any]:
    # What the page sends, through the same JSON decoding the host does.
    text = json.dumps(
        {
            "gen": gen,
            "origin": 1.5,
            "elements": None,
            "delta": {"base": base, "boxes": boxes, "items": items},
        }
    )
    value: dict[str, Any] = json.loads(text)
    return value


A = {"frame": "f0", "tag": "button", "role": "button", "name": "Save", "id": "save"}
B = {"frame": "f0", "tag": "a", "role": "link", "name": "Home"}
C = {"frame": "f0", "tag": "input", "role": "textbox", "name": "Email", "value": "x"}


def test_a_first_answer_is_every_record_with_its_box() -> None:
    held = SentRecords()
    records, carried = rebuild(_answer("g1", None, [A, B], [1, 2, 3, 4, 5, 6, 7, 8]), held)
    assert records == [{**A, "box": [1, 2, 3, 4]}, {**B, "box": [5, 6, 7, 8]}]
    assert carried.indexes == [-1, -1]
    assert held.gen == "g1" and held.records == [A, B]


def test_a_repeated_record_is_a_copy_of_the_held_one_with_its_new_box() -> None:
    held = SentRecords()
    rebuild(_answer("g1", None, [A, B], [0] * 8), held)
    records, carried = rebuild(_answer("g2", "g1", [1, C, 0], [9] * 4 + [8] * 4 + [7] * 4), held)
    assert records == [{**B, "box": [9] * 4}, {**C, "box": [8] * 4}, {**A, "box": [7] * 4}]
    assert carried.indexes == [1, -1, 0]
    assert carried.same_node == [True, False, True]
    # A copy: what the host does with a record never reaches the held one.
    records[0]["name"] = "changed"
    assert held.records[0] == B
    assert held.gen == "g2" and held.records == [B, C, A]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (_answer("g2", "g0", [0], [0] * 4), "names a collection the host does not hold"),
        (_answer("g2", "g1", [5], [0] * 4), "index out of range"),
        (_answer("g2", "g1", [-3], [0] * 4), "negative index past the held list"),
        (_answer("g2", "g1", ["x"], [0] * 4), "neither a record nor an index"),
        (_answer("g2", "g1", [True], [0] * 4), "a boolean is not an index"),
        (_answer("g2", "g1", [0, 1], [0] * 4), "boxes of the wrong length"),
        ({"gen": "g2", "elements": []}, "no delta at all"),
    ],
)
def test_an_answer_that_does_not_fit_is_refused_and_the_next_asks_for_everything(
    answer: dict[str, Any], why: str
) -> None:
    held = SentRecords()
    rebuild(_answer("g1", None, [A, B], [0] * 8), held)
    with pytest.raises(DeltaMismatch):
        rebuild(answer, held)
    assert held.gen is None and held.records == [], why


def test_a_base_when_the_host_holds_none_is_refused() -> None:
    with pytest.raises(DeltaMismatch):
        rebuild(_answer("g2", "g1", [], []), SentRecords())


def _homes(n: int) -> list[tuple[str | None, int]]:
    return [(None, i) for i in range(n)]


def test_a_repeated_record_takes_the_key_worked_out_for_the_one_it_repeats() -> None:
    held = SentRecords()
    frames = [{"id": "f0", "parent": None}]
    records, carried = rebuild(_answer("g1", None, [A, B], [0] * 8), held)
    first = keys_for(records, _homes(2), frames, carried, held)
    assert first == [record_key(r, {"f0": ()}) for r in records]
    records, carried = rebuild(_answer("g2", "g1", [1, C], [0] * 8), held)
    second = keys_for(records, _homes(2), frames, carried, held)
    assert second == [record_key(r, {"f0": ()}) for r in records]
    assert second[0] is first[1]  # carried over, not worked out again
    assert held.derived["keys"][1] == second


def test_keys_are_worked_out_again_when_the_frames_changed() -> None:
    held = SentRecords()
    records, carried = rebuild(_answer("g1", None, [A], [0] * 4), held)
    first = keys_for(records, _homes(1), [{"id": "f0"}], carried, held)
    records, carried = rebuild(_answer("g2", "g1", [0], [0] * 4), held)
    frames = [{"id": "f0"}, {"id": "f1", "parent": "f0", "selector": "iframe#pay"}]
    second = keys_for(records, _homes(1), frames, carried, held)
    assert second == first and second[0] is not first[0]


def test_records_of_other_sessions_get_their_own_keys() -> None:
    held = SentRecords()
    records, carried = rebuild(_answer("g1", None, [A], [0] * 4), held)
    child = {**B, "frame": "f1"}
    keys = keys_for([records[0], child], [(None, 0), ("S1", 0)], [{"id": "f0"}], carried, held)
    assert keys[1] == record_key(child, {"f0": ()})
    assert len(held.derived["keys"][1]) == 1


def test_a_carried_value_is_used_only_when_it_still_fits() -> None:
    held = SentRecords()
    records, carried = rebuild(_answer("g1", None, [A, B], [0] * 8), held)
    made: list[int] = []

    def compute(i: int) -> str:
        made.append(i)
        return f"{records[i]['name']}#{i}"

    assert carry("views", "f0", _homes(2), carried, held, compute) == ["Save#0", "Home#1"]
    records, carried = rebuild(_answer("g2", "g1", [1, 0, C], [0] * 12), held)
    made.clear()
    # record 0 repeats B and keeps its value; record 1 repeats A but `same` refuses it
    out = carry("views", "f0", _homes(3), carried, held, compute, lambda v, i: i != 1)
    assert out == ["Home#1", "Save#1", "Email#2"] and made == [1, 2]
    # worked out under other conditions: nothing is carried
    records, carried = rebuild(_answer("g3", "g2", [0, 1, 2], [0] * 12), held)
    made.clear()
    carry("views", "f9", _homes(3), carried, held, compute)
    assert made == [0, 1, 2]


def test_the_same_text_of_another_node_is_carried_as_text_only() -> None:
    held = SentRecords()
    rebuild(_answer("g1", None, [A, B], [0] * 8), held)
    # -1: record 0's text (A) from another node; -2: record 1's (B)
    records, carried = rebuild(_answer("g2", "g1", [-2, -1], [3] * 8), held)
    assert records == [{**B, "box": [3] * 4}, {**A, "box": [3] * 4}]
    assert carried.indexes == [1, 0] and carried.same_node == [False, False]
    values = iter(["kept"])
    held.derived = {}
    records, carried = rebuild(_answer("g3", None, [A], [0] * 4), held)
    carry("ax", None, _homes(1), carried, held, lambda i: next(values))
    records, carried = rebuild(_answer("g4", "g3", [-1], [0] * 4), held)
    fresh = iter(["asked again"])
    # A value derived from the node is not carried to another node; one from the text is.
    assert carry("ax", None, _homes(1), carried, held, lambda i: next(fresh), node=True) == [
        "asked again"
    ]


def test_an_index_below_the_held_list_is_refused() -> None:
    held = SentRecords()
    rebuild(_answer("g1", None, [A], [0] * 4), held)
    with pytest.raises(DeltaMismatch):
        rebuild(_answer("g2", "g1", [-2], [0] * 4), held)
