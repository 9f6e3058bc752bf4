"""JSON-lines splitting for the control socket, fed bytes."""

from __future__ import annotations

import pytest
from reins.bridge.lines import OVERSIZED, LineSplitter


def feed_all(splitter: LineSplitter, *chunks: bytes) -> list[object]:
    out: list[object] = []
    for chunk in chunks:
        out += splitter.feed(chunk)
    return out


def test_splits_lines_without_newlines() -> None:
    splitter = LineSplitter(max_size=100)
    assert splitter.feed(b'{"id":1}\n{"id":2}\n') == [b'{"id":1}', b'{"id":2}']


def test_partial_line_waits_for_its_newline() -> None:
    splitter = LineSplitter(max_size=100)
    assert splitter.feed(b'{"id":') == []
    assert splitter.feed(b"1,") == []
    assert splitter.feed(b'"cmd":"ping"}\n{"id"') == [b'{"id":1,"cmd":"ping"}']
    assert splitter.feed(b":2}\n") == [b'{"id":2}']


def test_every_split_point_gives_the_same_lines() -> None:
    data = b'{"id":1}\n\n{"id":2,"cmd":"x"}\nabc\n'
    expected = [b'{"id":1}', b'{"id":2,"cmd":"x"}', b"abc"]
    for cut in range(len(data) + 1):
        splitter = LineSplitter(max_size=100)
        assert feed_all(splitter, data[:cut], data[cut:]) == expected, f"split at {cut}"


def test_one_byte_at_a_time() -> None:
    data = b"alpha\nbeta\ngamma\n"
    splitter = LineSplitter(max_size=100)
    assert feed_all(splitter, *(data[i : i + 1] for i in range(len(data)))) == [
        b"alpha",
        b"beta",
        b"gamma",
    ]


def test_blank_lines_are_skipped() -> None:
    splitter = LineSplitter(max_size=100)
    assert splitter.feed(b"\n\n   \n\t\na\n\r\n\nb\n") == [b"a", b"b"]


def test_no_newline_no_line() -> None:
    splitter = LineSplitter(max_size=100)
    assert splitter.feed(b"no newline yet") == []


def test_line_of_exactly_max_size_passes() -> None:
    splitter = LineSplitter(max_size=10)
    assert splitter.feed(b"0123456789\n") == [b"0123456789"]
    assert feed_all(LineSplitter(max_size=10), b"01234", b"56789", b"\n") == [b"0123456789"]


def test_line_one_over_max_size_is_oversized() -> None:
    assert LineSplitter(max_size=10).feed(b"0123456789A\n") == [OVERSIZED]
    assert feed_all(LineSplitter(max_size=10), b"0123456789", b"A\n") == [OVERSIZED]
    assert feed_all(LineSplitter(max_size=10), b"0123456789A", b"\n") == [OVERSIZED]


def test_oversized_line_in_one_feed_then_the_next_line() -> None:
    splitter = LineSplitter(max_size=16)
    assert splitter.feed(b"x" * 100 + b'\n{"id":2}\n') == [OVERSIZED, b'{"id":2}']


def test_oversized_line_streamed_across_many_feeds_is_reported_once() -> None:
    max_size = 1000
    splitter = LineSplitter(max_size=max_size)
    out: list[object] = []
    out += splitter.feed(b'{"id":1}\n' + b"y" * 300)
    for _ in range(500):  # 500 KB of one line, in 1 KB chunks
        out += splitter.feed(b"z" * 1024)
        assert len(splitter._buffer) <= max_size
    out += splitter.feed(b'tail\n{"id":3}\n')
    assert out == [b'{"id":1}', OVERSIZED, b'{"id":3}']
    assert out.count(OVERSIZED) == 1


def test_oversized_then_partial_next_line() -> None:
    splitter = LineSplitter(max_size=8)
    out = feed_all(splitter, b"a" * 20, b"b" * 20, b"\nok", b"ay\n")
    assert out == [OVERSIZED, b"okay"]


def test_two_oversized_lines_are_two_reports() -> None:
    splitter = LineSplitter(max_size=8)
    out = feed_all(splitter, b"a" * 20, b"\n", b"b" * 20 + b"\n", b"c\n")
    assert out == [OVERSIZED, OVERSIZED, b"c"]


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000, 5000])
def test_memory_never_holds_more_than_max_size(chunk: int) -> None:
    max_size = 256
    splitter = LineSplitter(max_size=max_size)
    data = (b"q" * 10_000 + b"\n") * 3 + b"short\n"
    out: list[object] = []
    for i in range(0, len(data), chunk):
        out += splitter.feed(data[i : i + chunk])
        assert len(splitter._buffer) <= max_size
    assert out == [OVERSIZED, OVERSIZED, OVERSIZED, b"short"]


def test_oversized_repr() -> None:
    assert repr(OVERSIZED) == "OVERSIZED"
