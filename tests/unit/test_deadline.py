"""Deadline arithmetic with an explicit clock."""

from __future__ import annotations

import time

import pytest
from reins._errors import DeadlineExceeded, ReinsError
from reins.bridge.deadline import HEADROOM_MS, Deadline


def test_after_ms_places_the_deadline() -> None:
    deadline = Deadline.after_ms(1500, now=100.0)
    assert deadline.at == 101.5
    assert deadline.started == 100.0
    assert deadline.budget_ms == 1500


def test_remaining_counts_down() -> None:
    deadline = Deadline.after_ms(1000, now=10.0)
    assert deadline.remaining(now=10.0) == 1.0
    assert deadline.remaining(now=10.25) == 0.75
    assert deadline.remaining(now=11.0) == 0.0


def test_remaining_is_never_negative() -> None:
    deadline = Deadline.after_ms(1000, now=10.0)
    assert deadline.remaining(now=50.0) == 0.0
    assert deadline.remaining_ms(now=50.0) == 0
    assert deadline.remaining_ms(now=50.0, headroom_ms=HEADROOM_MS) == 0


def test_remaining_ms_keeps_headroom_back() -> None:
    deadline = Deadline.after_ms(1000, now=0.0)
    assert deadline.remaining_ms(now=0.5) == 500
    assert deadline.remaining_ms(now=0.5, headroom_ms=50) == 450
    assert deadline.remaining_ms(now=0.0, headroom_ms=HEADROOM_MS) == 1000 - HEADROOM_MS


def test_headroom_larger_than_what_is_left_gives_zero() -> None:
    deadline = Deadline.after_ms(1000, now=0.0)
    assert deadline.remaining_ms(now=0.96875, headroom_ms=50) == 0  # 31 ms left
    assert deadline.remaining_ms(now=0.9375, headroom_ms=50) == 12  # 62 ms left


def test_remaining_ms_is_whole_milliseconds() -> None:
    deadline = Deadline.after_ms(1000, now=0.0)
    value = deadline.remaining_ms(now=0.0001)
    assert isinstance(value, int)
    assert value == 999


def test_expired() -> None:
    deadline = Deadline.after_ms(200, now=5.0)
    assert not deadline.expired(now=5.0)
    assert not deadline.expired(now=5.125)
    assert deadline.expired(now=5.2)
    assert deadline.expired(now=6.0)


def test_zero_and_negative_budgets_are_already_expired() -> None:
    assert Deadline.after_ms(0, now=1.0).expired(now=1.0)
    negative = Deadline.after_ms(-500, now=1.0)
    assert negative.at == 1.0
    assert negative.expired(now=1.0)
    assert negative.remaining(now=0.0) == 1.0  # clamped to the start, not half a second before it


def test_elapsed_ms() -> None:
    deadline = Deadline.after_ms(1000, now=2.0)
    assert deadline.elapsed_ms(now=2.25) == 250


def test_check_passes_with_time_left() -> None:
    Deadline.after_ms(60_000).check("navigate")


def test_check_raises_typed_transient_timeout() -> None:
    spent = Deadline(at=time.monotonic() - 1.0, budget_ms=750, started=time.monotonic() - 1.75)
    with pytest.raises(DeadlineExceeded) as info:
        spent.check("Page.navigate")
    error = info.value
    assert isinstance(error, ReinsError)
    assert error.code == "timeout"
    assert error.transient is True
    assert "Page.navigate" in str(error)
    assert "750" in str(error)
    wire = error.to_wire()
    assert wire["code"] == "timeout" and wire["transient"] is True


def test_child_is_never_later_than_its_parent() -> None:
    parent = Deadline.after_ms(100)
    child = parent.child(60_000)
    assert child.at == parent.at
    assert child.budget_ms == 60_000


def test_shorter_child_ends_first() -> None:
    before = time.monotonic()
    parent = Deadline.after_ms(60_000)
    child = parent.child(500)
    after = time.monotonic()
    assert child.at < parent.at
    assert before + 0.5 <= child.at <= after + 0.5
    assert child.budget_ms == 500


def test_child_of_an_expired_parent_is_expired() -> None:
    parent = Deadline(at=time.monotonic() - 1.0, budget_ms=10)
    child = parent.child(5_000)
    assert child.expired()
    with pytest.raises(DeadlineExceeded):
        child.check("inner")


def test_deadline_is_immutable() -> None:
    deadline = Deadline.after_ms(100, now=0.0)
    with pytest.raises(AttributeError):
        deadline.at = 5.0  # type: ignore[misc]
