"""JSON-lines splitting without I/O, with a size limit that skips an oversized line whole."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["OVERSIZED", "LineSplitter"]


class _Oversized:
    def __repr__(self) -> str:
        return "OVERSIZED"


OVERSIZED = _Oversized()


@dataclass
class LineSplitter:
    """Feed bytes, get complete lines (without the newline) or ``OVERSIZED`` for a line too long.

    An oversized line is dropped as it streams in (its bytes are never held), and reported once
    when its newline arrives, so the connection stays usable for the next line.
    """

    max_size: int
    _buffer: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def feed(self, data: bytes) -> list[bytes | _Oversized]:
        out: list[bytes | _Oversized] = []
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                break
            chunk = data[start:newline]
            if self._skipping or len(self._buffer) + len(chunk) > self.max_size:
                out.append(OVERSIZED)
            else:
                line = bytes(self._buffer + chunk)
                if line.strip():
                    out.append(line)
            self._buffer.clear()
            self._skipping = False
            start = newline + 1
        rest = data[start:]
        if not self._skipping:
            if len(self._buffer) + len(rest) > self.max_size:
                self._buffer.clear()
                self._skipping = True
            else:
                self._buffer += rest
        return out
