"""Native-messaging framing, fed bytes: no pipes, no browser."""

from __future__ import annotations

import json
import struct
import sys

import pytest
from reins._errors import ReinsError, UsageError
from reins.bridge.framing import MAX_FROM_BROWSER, MAX_TO_BROWSER, FrameDecoder, encode_frame

MESSAGES = [
    {"id": 1, "type": "cdp", "method": "Runtime.evaluate", "params": {"expression": "1+1"}},
    {"type": "hello", "version": "0.1.0", "paused": False},
    {"text": "héllo → 世界 😀", "nested": [1, 2.5, None, True, {"k": "v"}]},
    [],
    "just a string",
]


def _frame_of_body(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def test_limits_are_chromes() -> None:
    assert MAX_TO_BROWSER == 1024 * 1024
    assert MAX_FROM_BROWSER == 64 * 1024 * 1024


@pytest.mark.parametrize("message", MESSAGES)
def test_round_trip(message: object) -> None:
    frame = encode_frame(message)
    decoder = FrameDecoder()
    assert decoder.feed(frame) == [message]
    assert decoder.pending == 0


def test_body_is_compact_utf8_json() -> None:
    frame = encode_frame({"a": "é", "b": [1, 2]})
    body = frame[4:]
    assert body == '{"a":"é","b":[1,2]}'.encode()


def test_header_is_native_byte_order_length() -> None:
    frame = encode_frame({"x": 1})
    body = frame[4:]
    (length,) = struct.unpack("=I", frame[:4])
    assert length == len(body)
    assert frame[:4] == len(body).to_bytes(4, sys.byteorder)


def test_decoder_reads_native_byte_order() -> None:
    body = b'{"ok":true}'
    frame = len(body).to_bytes(4, sys.byteorder) + body
    assert FrameDecoder().feed(frame) == [{"ok": True}]


def test_frame_split_at_every_byte_boundary_decodes_once() -> None:
    message = {"id": 7, "result": {"text": "ünïcödé 😀", "items": list(range(20))}}
    frame = encode_frame(message)
    for cut in range(len(frame) + 1):
        decoder = FrameDecoder()
        first = decoder.feed(frame[:cut])
        second = decoder.feed(frame[cut:])
        assert first + second == [message], f"split at byte {cut}"
        assert first == ([message] if cut == len(frame) else [])
        assert decoder.pending == 0


def test_frame_fed_one_byte_at_a_time() -> None:
    message = {"id": 3, "ok": True, "result": "x" * 300}
    frame = encode_frame(message)
    decoder = FrameDecoder()
    out: list[object] = []
    for i in range(len(frame)):
        out += decoder.feed(frame[i : i + 1])
        if i < len(frame) - 1:
            assert out == []
            assert decoder.pending == i + 1
    assert out == [message]


def test_several_frames_in_one_feed() -> None:
    data = b"".join(encode_frame(m) for m in MESSAGES)
    assert FrameDecoder().feed(data) == MESSAGES


def test_several_frames_with_a_partial_tail() -> None:
    frames = [encode_frame(m) for m in MESSAGES]
    data = b"".join(frames)
    cut = len(data) - 3
    decoder = FrameDecoder()
    assert decoder.feed(data[:cut]) == MESSAGES[:-1]
    assert decoder.pending == len(frames[-1]) - 3
    assert decoder.feed(data[cut:]) == MESSAGES[-1:]


def test_empty_feed_is_harmless() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"") == []
    assert decoder.pending == 0


# ---- host -> browser limit -------------------------------------------------------------------


def _message_with_body_size(size: int) -> str:
    # A JSON string of n ASCII letters serializes to n + 2 bytes (the quotes).
    message = "a" * (size - 2)
    assert len(json.dumps(message).encode()) == size
    return message


def test_exactly_one_mebibyte_body_passes() -> None:
    message = _message_with_body_size(MAX_TO_BROWSER)
    frame = encode_frame(message)
    assert len(frame) == 4 + 1_048_576
    assert struct.unpack("=I", frame[:4])[0] == 1_048_576


def test_one_byte_over_the_limit_is_message_too_large() -> None:
    message = _message_with_body_size(MAX_TO_BROWSER + 1)
    with pytest.raises(UsageError) as info:
        encode_frame(message)
    assert info.value.code == "message_too_large"
    assert isinstance(info.value, ReinsError)
    assert info.value.transient is False


def test_limit_counts_utf8_bytes_not_characters() -> None:
    # 3 bytes per character in UTF-8: under the limit in characters, over it in bytes.
    message = "€" * (MAX_TO_BROWSER // 3 + 1)
    assert len(json.dumps(message, ensure_ascii=False)) < MAX_TO_BROWSER
    with pytest.raises(UsageError) as info:
        encode_frame(message)
    assert info.value.code == "message_too_large"


def test_encode_max_size_is_an_argument() -> None:
    assert encode_frame("abcd", max_size=6)[4:] == b'"abcd"'
    with pytest.raises(UsageError) as info:
        encode_frame("abcde", max_size=6)
    assert info.value.code == "message_too_large"


# ---- browser -> host limit -------------------------------------------------------------------


def test_decoder_refuses_an_announced_length_over_its_limit() -> None:
    decoder = FrameDecoder(max_size=100)
    with pytest.raises(UsageError) as info:
        decoder.feed(struct.pack("=I", 101))  # only the header: refused before the body arrives
    assert info.value.code == "message_too_large"


def test_decoder_accepts_a_frame_exactly_at_its_limit() -> None:
    body = json.dumps("a" * 98).encode()
    assert len(body) == 100
    assert FrameDecoder(max_size=100).feed(_frame_of_body(body)) == ["a" * 98]


def test_default_decoder_limit_is_64_mib() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(struct.pack("=I", MAX_FROM_BROWSER)) == []  # announced, waiting for body
    with pytest.raises(UsageError) as info:
        FrameDecoder().feed(struct.pack("=I", MAX_FROM_BROWSER + 1))
    assert info.value.code == "message_too_large"


# ---- bad bodies ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"\xff\xfe\xfd", b'"\xc3\x28"', b"{not json}", b"", b'{"a":1', b"\xed\xa0\x80"],
    ids=["not-utf8", "bad-utf8-in-string", "not-json", "empty", "truncated", "surrogate"],
)
def test_bad_body_is_typed_bad_request(body: bytes) -> None:
    with pytest.raises(UsageError) as info:
        FrameDecoder().feed(_frame_of_body(body))
    assert info.value.code == "bad_request"


def test_decoder_keeps_going_after_a_bad_body() -> None:
    decoder = FrameDecoder()
    with pytest.raises(UsageError):
        decoder.feed(_frame_of_body(b"{nope"))
    assert decoder.pending == 0
    assert decoder.feed(encode_frame({"after": 1})) == [{"after": 1}]


def test_good_frame_before_a_bad_one_in_the_same_feed_is_not_lost() -> None:
    decoder = FrameDecoder()
    data = encode_frame({"first": 1}) + _frame_of_body(b"{nope") + encode_frame({"third": 3})
    # The good frame comes out first; the bad one raises on the next feed; the rest follows.
    assert decoder.feed(data) == [{"first": 1}]
    with pytest.raises(UsageError) as bad:
        decoder.feed(b"")
    assert bad.value.code == "bad_request"
    assert decoder.feed(b"") == [{"third": 3}]
