"""The native-messaging port on the real stdio, driven from asyncio.

nativemessaging-ng does the blocking frame reads and writes; they run in two threads (a reader
feeding the event loop, a writer draining a queue) so the loop never blocks on a pipe. Outgoing
messages are sized by ``encode_frame`` first: Chrome closes the port on a frame over 1 MiB, so such
a message fails with ``message_too_large`` instead.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
from collections.abc import Callable
from typing import Any

import nativemessaging

from reins.bridge.framing import MAX_TO_BROWSER, encode_frame

__all__ = ["NativePort"]


class NativePort:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_message: Callable[[Any], None],
        on_eof: Callable[[], None],
        *,
        max_to_browser: int = MAX_TO_BROWSER,
    ) -> None:
        self._loop = loop
        self._on_message = on_message
        self._on_eof = on_eof
        self._max = max_to_browser
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_loop, name="reins-stdin", daemon=True)
        self._writer = threading.Thread(target=self._write_loop, name="reins-stdout", daemon=True)

    def start(self) -> None:
        self._reader.start()
        self._writer.start()

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message for the browser; raises ``message_too_large`` before queueing."""
        frame = encode_frame(message, max_size=self._max)
        self._outbox.put(frame[4:].decode("utf-8"))

    def close(self) -> None:
        self._outbox.put(None)

    def _read_loop(self) -> None:
        try:
            while True:
                try:
                    text = nativemessaging.get_message_raw()
                except UnicodeDecodeError:
                    continue  # the frame was read whole; only its body was bad
                if not text:  # EOF: the browser closed the port
                    break
                try:
                    message = json.loads(text)
                except json.JSONDecodeError:
                    continue
                self._loop.call_soon_threadsafe(self._on_message, message)
        except (OSError, ValueError, UnicodeDecodeError):
            pass
        finally:
            try:
                self._loop.call_soon_threadsafe(self._on_eof)
            except RuntimeError:  # loop already closed
                pass

    def _write_loop(self) -> None:
        while True:
            text = self._outbox.get()
            if text is None:
                return
            try:
                nativemessaging.send_message_raw(text)
            except (OSError, ValueError):
                return

