"""Native-messaging framing without I/O: a 4-byte native-order length, then UTF-8 JSON.

Chrome closes the port when the host sends a frame over 1 MiB, so the encoder refuses such a frame
with ``message_too_large`` before anything is written. The decoder is fed raw bytes in any split and
hands back whole messages.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from reins._errors import UsageError
from reins.bridge.jsonwire import load

__all__ = ["MAX_FROM_BROWSER", "MAX_TO_BROWSER", "FrameDecoder", "encode_frame"]

MAX_TO_BROWSER = 1024 * 1024  # Chrome's limit for host -> browser frames
MAX_FROM_BROWSER = 64 * 1024 * 1024  # Chrome's limit for browser -> host frames

_HEADER = struct.Struct("=I")  # native byte order, as Chrome writes it


def encode_frame(message: Any, *, max_size: int = MAX_TO_BROWSER) -> bytes:
    """Serialize one message; raise ``message_too_large`` rather than produce an oversized frame."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(body) > max_size:
        raise UsageError(
            f"message of {len(body)} bytes exceeds the {max_size}-byte native-messaging limit",
            code="message_too_large",
        )
    return _HEADER.pack(len(body)) + body


class FrameDecoder:
    """Feed bytes in, get decoded messages out."""

    def __init__(self, *, max_size: int = MAX_FROM_BROWSER) -> None:
        self._max_size = max_size
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Any]:
        self._buffer += data
        messages: list[Any] = []
        while len(self._buffer) >= _HEADER.size:
            (length,) = _HEADER.unpack_from(self._buffer)
            if length > self._max_size:
                self._buffer.clear()
                raise UsageError(
                    f"incoming frame announces {length} bytes, over the {self._max_size}-byte limit",
                    code="message_too_large",
                )
            end = _HEADER.size + length
            if len(self._buffer) < end:
                break
            body = bytes(self._buffer[_HEADER.size : end])
            try:
                message = decode_body(body)
            except UsageError:
                if messages:
                    return messages  # hand out the good ones; the bad frame raises next time
                del self._buffer[:end]
                raise
            del self._buffer[:end]
            messages.append(message)
        return messages

    @property
    def pending(self) -> int:
        """Bytes held for an incomplete frame."""
        return len(self._buffer)


def decode_body(body: bytes | str) -> Any:
    try:
        return load(body)
    except UsageError as exc:
        raise UsageError(f"frame dropped: {exc.args[0]}", code="bad_request") from None
