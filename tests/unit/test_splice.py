"""Cross-origin frames' records spliced into the main list where their iframes are
(reins.observe.collect._spliced), on hand-built records."""

from __future__ import annotations

from typing import Any

from reins.observe.collect import _spliced

Home = tuple[str | None, int]


def main(*names: str) -> tuple[list[dict[str, Any]], list[Home]]:
    return [{"name": n} for n in names], [(None, i) for i in range(len(names))]


def frame(session: str, *names: str) -> tuple[list[dict[str, Any]], list[Home]]:
    return [{"name": n} for n in names], [(session, i) for i in range(len(names))]


def splice(at: int, session: str, *names: str) -> tuple[int, list[dict[str, Any]], list[Home]]:
    records, homes = frame(session, *names)
    return at, records, homes


def names(elements: list[dict[str, Any]]) -> list[str]:
    return [e["name"] for e in elements]


def test_no_splices_keeps_the_main_list() -> None:
    elements, homes = main("a", "b")
    assert _spliced(elements, homes, []) == (elements, homes)


def test_a_frame_goes_where_its_iframe_is() -> None:
    elements, homes = main("a", "b", "c")
    out, out_homes = _spliced(elements, homes, [splice(1, "S1", "x", "y")])
    assert names(out) == ["a", "x", "y", "b", "c"]
    assert out_homes == [(None, 0), ("S1", 0), ("S1", 1), (None, 1), (None, 2)]


def test_at_the_start_and_at_the_end() -> None:
    elements, homes = main("a", "b")
    out, out_homes = _spliced(elements, homes, [splice(0, "S1", "x"), splice(2, "S2", "y")])
    assert names(out) == ["x", "a", "b", "y"]
    assert out_homes == [("S1", 0), (None, 0), (None, 1), ("S2", 0)]


def test_splices_are_placed_by_position_whatever_their_order() -> None:
    elements, homes = main("a", "b", "c")
    out, out_homes = _spliced(elements, homes, [splice(2, "S2", "y"), splice(1, "S1", "x")])
    assert names(out) == ["a", "x", "b", "y", "c"]
    assert out_homes == [(None, 0), ("S1", 0), (None, 1), ("S2", 0), (None, 2)]


def test_frames_at_the_same_position_keep_their_frame_order() -> None:
    elements, homes = main("a", "b")
    out, out_homes = _spliced(elements, homes, [splice(1, "S2", "y1", "y2"), splice(1, "S1", "x")])
    assert names(out) == ["a", "y1", "y2", "x", "b"]
    assert out_homes == [(None, 0), ("S2", 0), ("S2", 1), ("S1", 0), (None, 1)]


def test_positions_past_the_end_are_clamped_to_the_end() -> None:
    elements, homes = main("a", "b")
    out, out_homes = _spliced(elements, homes, [splice(99, "S1", "x"), splice(5, "S2", "y")])
    assert names(out) == ["a", "b", "y", "x"]
    assert out_homes == [(None, 0), (None, 1), ("S2", 0), ("S1", 0)]


def test_negative_positions_are_clamped_to_the_start() -> None:
    elements, homes = main("a", "b")
    out, out_homes = _spliced(elements, homes, [splice(-3, "S1", "x")])
    assert names(out) == ["x", "a", "b"]
    assert out_homes == [("S1", 0), (None, 0), (None, 1)]


def test_a_frame_without_records_changes_nothing() -> None:
    elements, homes = main("a", "b")
    assert _spliced(elements, homes, [splice(1, "S1")]) == (elements, homes)


def test_an_empty_main_list_holds_the_frames_in_order() -> None:
    out, out_homes = _spliced([], [], [splice(0, "S1", "x"), splice(3, "S2", "y")])
    assert names(out) == ["x", "y"]
    assert out_homes == [("S1", 0), ("S2", 0)]


def test_every_record_and_home_is_kept_once_and_the_inputs_are_untouched() -> None:
    elements, homes = main("a", "b", "c", "d")
    splices = [splice(3, "S2", "y"), splice(1, "S1", "x1", "x2"), splice(9, "S3", "z")]
    before = (list(elements), list(homes), [(at, list(r), list(h)) for at, r, h in splices])
    out, out_homes = _spliced(elements, homes, splices)
    assert len(out) == len(out_homes) == 8
    assert sorted(names(out)) == ["a", "b", "c", "d", "x1", "x2", "y", "z"]
    # each record still stands next to its own home
    assert [(e["name"], h) for e, h in zip(out, out_homes, strict=True)] == [
        ("a", (None, 0)),
        ("x1", ("S1", 0)),
        ("x2", ("S1", 1)),
        ("b", (None, 1)),
        ("c", (None, 2)),
        ("y", ("S2", 0)),
        ("d", (None, 3)),
        ("z", ("S3", 0)),
    ]
    assert (elements, homes, splices) == before
