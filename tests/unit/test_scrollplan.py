"""Where `scroll --until` goes next (act/scrollplan.py), on hand-built looks: a `role=` target's
name proves a row absent by the list's order only while every element of its role that a look
showed is named by the text it shows; one named otherwise (an aria-label the rows do not show)
leaves the proof to the sweep of the whole list."""

from __future__ import annotations

from reins.act.listsearch import ListSearch, Sweep
from reins.act.scrollplan import Look, Plan, TargetSpec


def _look(*, named_by_text: bool | None) -> Look:
    look: Look = {
        "x": 60,
        "y": 200,
        "height": 400,
        "scroller": "div#list",
        "scroll_top": 0,
        "max": 4000,
        "at_end": False,
        "at_top": True,
        "rows": [f"Item {i:02d}" for i in range(10)],
        "seen": [[0, 400]],
    }
    if named_by_text is not None:
        look["named_by_text"] = named_by_text
    return look


def _plan(first: Look) -> Plan:
    spec: TargetSpec = {"role": "row", "name": "Item 99", "exact": False}
    search = ListSearch.for_text("Item 99", proves=True)
    return Plan(spec, search, Sweep.starting_at(0.0), first)


def test_a_role_named_by_its_text_may_be_proved_absent_by_the_order() -> None:
    plan = _plan(_look(named_by_text=True))
    plan.took([_look(named_by_text=True)])
    assert plan.search is not None and plan.search.proves


def test_a_role_named_otherwise_at_any_look_proves_nothing() -> None:
    plan = _plan(_look(named_by_text=True))
    plan.took([_look(named_by_text=False), _look(named_by_text=True)])
    assert plan.search is not None and not plan.search.proves
    assert not _plan(_look(named_by_text=False)).search.proves  # type: ignore[union-attr]


def test_a_look_that_says_nothing_of_names_leaves_a_text_target_s_proof() -> None:
    plan = _plan(_look(named_by_text=None))
    assert plan.search is not None and plan.search.proves
