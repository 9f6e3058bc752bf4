"""The native-messaging port on the real stdio, driven from asyncio.

Two threads move bytes so the event loop never blocks on a pipe: a reader feeding the sans-I/O
``FrameDecoder`` from file descriptor 0, and a writer draining a queue of frames made by
``encode_frame`` (Chrome closes the port on a frame over 1 MiB, so such a message fails with
``message_too_large`` before it is queued). Both use the raw descriptors, not ``sys.stdin.buffer``:
a thread blocked inside a buffered reader makes the interpreter abort at exit (SIGABRT,
``_enter_buffered_busy``), which is what a SIGTERM used to end in. The threads are also what
makes the port work on Windows: asyncio's Proactor loop there reads pipes it opened itself with
overlapped I/O, not an inherited anonymous pipe, and a blocking read in a thread needs neither;
the descriptors are put in binary mode there first (``_platform.binary_stdio``).

A bad frame (empty, not JSON, a 5,000-digit number, nested too deep) is logged and dropped; only
end-of-file ends the port. nativemessaging-ng (whose reader treats an empty frame as end-of-file
and reads through the buffered stdin) remains what ``reins install`` uses for Chrome's manifest
locations.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

from reins import _platform
from reins._errors import ReinsError
from reins.bridge.framing import MAX_TO_BROWSER, FrameDecoder, encode_frame

__all__ = ["NativePort"]

log = logging.getLogger("reins.native")

_READ_CHUNK = 1 << 16


class NativePort:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_message: Callable[[Any], None],
        on_eof: Callable[[], None],
        *,
        max_to_browser: int = MAX_TO_BROWSER,
        fd_in: int = 0,
        fd_out: int = 1,
    ) -> None:
        self._loop = loop
        self._on_message = on_message
        self._on_eof = on_eof
        self._max = max_to_browser
        self._fd_in = fd_in
        self._fd_out = fd_out
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_loop, name="reins-stdin", daemon=True)
        self._writer = threading.Thread(target=self._write_loop, name="reins-stdout", daemon=True)

    def start(self) -> None:
        _platform.binary_stdio(self._fd_in, self._fd_out)
        self._reader.start()
        self._writer.start()

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message for the browser; raises ``message_too_large`` before queueing."""
        self._outbox.put(encode_frame(message, max_size=self._max))

    def close(self) -> None:
        self._outbox.put(None)

    def _read_loop(self) -> None:
        decoder = FrameDecoder()
        try:
            while True:
                data = os.read(self._fd_in, _READ_CHUNK)
                if not data:  # EOF: the browser closed the port
                    break
                for message in self._decode(decoder, data):
                    self._loop.call_soon_threadsafe(self._on_message, message)
        except OSError:
            pass
        finally:
            try:
                self._loop.call_soon_threadsafe(self._on_eof)
            except RuntimeError:  # loop already closed
                pass

    @staticmethod
    def _decode(decoder: FrameDecoder, data: bytes) -> list[Any]:
        """Every good message in ``data``; each bad frame is logged and skipped."""
        out: list[Any] = []
        while True:
            try:
                out += decoder.feed(data)
                return out
            except ReinsError as exc:
                log.warning("dropped a frame from the browser: %s", exc.message)
                data = b""  # the bad frame is gone from the decoder; go on with what follows

    def _write_loop(self) -> None:
        while True:
            frame = self._outbox.get()
            if frame is None:
                return
            try:
                view = memoryview(frame)
                while view:
                    written = os.write(self._fd_out, view)
                    view = view[written:]
            except OSError:
                return
