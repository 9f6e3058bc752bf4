"""`scroll --until text=…`'s bisection over a long sorted list (act/listsearch.py), on hand-built
looks: it halves the span known to hold the target while the rows read as sorted, hands over to
screen-sized turns once the span is a screen or anything contradicts the order, and never
searches a list whose rows are not of the target's kind."""

from __future__ import annotations

from reins.act.listsearch import ListSearch, Sweep, natural_key

ROW = 40.0
HEIGHT = 400.0
END = 10_000 * ROW - HEIGHT


def _rows(top: float, name: str = "Vendor") -> list[str]:
    first = int(top // ROW)
    return [f"{name} {i:04d}" for i in range(first, first + int(HEIGHT // ROW))]


def _reach(text: str, *, start: float = 0.0) -> tuple[float, int]:
    """Where the search leaves the scroller, and in how many looks."""
    search, top, looks = ListSearch.for_text(text), start, 0
    while search.on and looks < 50:
        looks += 1
        ahead = search.next_position(top, HEIGHT, END, _rows(top), at_end=top >= END)
        if ahead is None:
            break
        top = max(0.0, min(END, ahead))
    return top, looks


def test_numbers_sort_by_value_and_letters_by_any_case() -> None:
    assert natural_key("Vendor 0742") < natural_key("vendor 742 B") < natural_key("Vendor 1000")
    assert natural_key("Item 9") < natural_key("item 10")


def test_a_row_far_down_a_sorted_list_is_reached_in_a_few_looks() -> None:
    for wanted in (742, 6000, 9999, 3):
        top, looks = _reach(f"Vendor {wanted:04d}")
        assert top <= wanted * ROW < top + HEIGHT + HEIGHT, (wanted, top)
        assert looks <= 16, (wanted, looks)


def test_a_row_above_the_start_is_reached_too() -> None:
    top, _ = _reach("Vendor 0100", start=8000 * ROW)
    assert top <= 100 * ROW < top + 2 * HEIGHT


def test_rows_not_sorted_or_not_of_the_target_s_kind_hand_over_at_once() -> None:
    search = ListSearch.for_text("Vendor 0742")
    shuffled = ["Vendor 0009", "Vendor 0003", "Vendor 0005"]
    assert search.next_position(0, HEIGHT, END, shuffled, at_end=False) is None
    assert not search.on
    other = ListSearch.for_text("Vendor 0742")
    assert other.next_position(0, HEIGHT, END, _rows(0, "Merchant"), at_end=False) is None
    alone = ListSearch.for_text("Vendor 0742")
    assert alone.next_position(0, HEIGHT, END, ["Vendor 0001"], at_end=False) is None


def test_a_text_inside_the_range_shown_but_not_a_row_hands_over_where_it_is() -> None:
    search = ListSearch.for_text("Vendor 0005 extra")
    assert search.next_position(0, HEIGHT, END, _rows(0), at_end=False) is None


def test_at_the_end_of_a_list_that_may_grow_it_hands_over() -> None:
    search = ListSearch.for_text("Vendor 12000")
    assert search.next_position(END, HEIGHT, END, _rows(END), at_end=True) is None
    assert search.lo == END


def test_a_sweep_goes_down_from_where_it_began_then_from_the_top() -> None:
    sweep = Sweep.starting_at(4000)
    sweep.add([(3960, 4440)])
    assert sweep.next_top(10_000) == 4440
    sweep.add([(4440, 10_000)])
    assert sweep.next_top(10_000) == 0  # the end reached: from the top down to where it began
    sweep.add([(0, 3000)])
    assert sweep.next_top(10_000) == 3000
    assert 0.6 < sweep.share_seen(10_000) < 1
    sweep.add([(2999.5, 3961)])
    assert sweep.next_top(10_000) is None and sweep.share_seen(10_000) == 1


def test_a_gap_a_turn_left_behind_is_looked_at_before_the_sweep_moves_on() -> None:
    sweep = Sweep.starting_at(0)
    sweep.add([(0, 440), (900, 1340)])  # a turn went further than what was rendered
    assert sweep.next_top(10_000) == 440
    sweep.add([(440, 880)])
    assert sweep.next_top(10_000) == 880  # 880..900 still not looked at
    sweep.add([(870, 905)])
    assert sweep.next_top(10_000) == 1340


def test_a_list_that_grows_at_its_end_is_not_seen_whole_any_more() -> None:
    sweep = Sweep.starting_at(0)
    sweep.add([(0, 2000)])
    assert sweep.next_top(2000) is None
    assert sweep.next_top(2600) == 2000
