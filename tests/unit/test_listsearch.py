"""`scroll --until text=…`'s bisection over a long sorted list (act/listsearch.py), on hand-built
looks: it halves the span known to hold the target while the rows read as sorted, hands over to
screen-sized turns once the span is a screen or anything contradicts the order, and never
searches a list whose rows are not of the target's kind; and when the order proves a text in no
row (``absent``)."""

from __future__ import annotations

from collections.abc import Callable

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


def _items(top: float, value_of: Callable[[int], int], name: str = "Item") -> list[str]:
    first = int(top // ROW)
    return [f"{name} {value_of(i)}" for i in range(first, first + int(HEIGHT // ROW))]


def _proof(
    text: str, value_of: Callable[[int], int], *, exact: bool = False, proves: bool = True
) -> ListSearch:
    """A search that looked at the top, then wherever ``next_sample`` sent it."""
    name = text.split()[0]
    search = ListSearch.for_text(text, exact=exact, proves=proves)
    search.saw(0, _items(0, value_of, name), at_end=False)
    search.next_position(0, HEIGHT, END, _items(0, value_of, name), at_end=False)
    for _ in range(20):
        at = search.next_sample(END, HEIGHT)
        if at is None:
            break
        search.saw(at, _items(at, value_of, name), at_end=at >= END)
    return search


def test_the_order_proves_a_quoted_text_absent_between_two_rows() -> None:
    search = _proof("Item 7", lambda i: 2 * i, exact=True)
    assert search.absent() == "between its rows 'Item 6' and 'Item 8'"
    assert len(search.spots) == 9


def test_nothing_is_proved_before_the_list_was_looked_at_across() -> None:
    search = ListSearch.for_text("Item 7", exact=True, proves=True)
    search.next_position(0, HEIGHT, END, _items(0, lambda i: 2 * i), at_end=False)
    assert search.gap is not None and search.absent() is None


def test_a_list_sorted_only_a_screen_at_a_time_proves_nothing() -> None:
    """Row i of TanStack's 100k fixture shows Vendor (i * 7919 + 13) mod 100,000: ten rows in a
    look read as sorted, and "Vendor 50013" (row 5,000) would sit between rows 6 and 7 of the
    first look. It answered not_found from that look alone."""
    search = _proof("Vendor 50013", lambda i: (i * 7919 + 13) % 100_000)
    assert search.gap is not None and search.absent() is None


def test_a_row_starting_as_the_text_proves_nothing() -> None:
    search = _proof("Item 6", lambda i: 2 * i, exact=True)
    assert search.gap is None and search.absent() is None


def test_a_text_ending_in_a_number_needs_the_last_row_before_its_longer_numbers() -> None:
    """`text=Item 7` matches "Item 70" and "Item 7123", which sort after "Item 8": the order
    proves it absent only when the last row of the list sorts before "Item 70"."""
    assert _proof("Item 7", lambda i: 2 * i).absent() is None  # the list goes on to Item 19998
    short = _proof("Item 7", lambda i: min(2 * i, 68))
    assert short.absent() == "between its rows 'Item 6' and 'Item 8'"
    zero = _proof("Item 0", lambda i: i + 1)  # "Item 0" is in "Item 07": no bound
    assert zero.absent() is None


def test_a_text_after_every_row_is_looked_for_at_the_very_end() -> None:
    """The span left was a screen short of the end: the search handed over there, and the sweep
    went through the whole list to say the row is in none of it."""
    search, top = ListSearch.for_text("Vendor 10000", proves=True), 0.0
    for _ in range(40):
        search.saw(top, _rows(top), at_end=top >= END)
        ahead = search.next_position(top, HEIGHT, END, _rows(top), at_end=top >= END)
        if ahead is None:
            break
        top = max(0.0, min(END, ahead))
    assert top == END and search.gap_at_end and search.still_after_last()
    while (at := search.next_sample(END, HEIGHT)) is not None:
        search.saw(at, _rows(at), at_end=at >= END)
    assert search.absent() == "after its last row 'Vendor 9999'"


def test_before_the_first_row_of_the_list_the_text_is_absent() -> None:
    search = _proof("Item 1", lambda i: i + 2, exact=True)
    assert search.absent() == "before its first row 'Item 2'"


def test_a_role_s_name_proves_nothing_a_row_s_text_may_not_hold_it() -> None:
    search = _proof("Item 7", lambda i: 2 * i, exact=True, proves=False)
    assert search.gap is not None and search.absent() is None
