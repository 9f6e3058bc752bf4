"""The control channel: JSON lines, many clients at once, on one of two transports.

- ``unix`` (Linux, macOS): a Unix socket, 0600 in a 0700 folder, the peer's uid checked.
- ``tcp`` (Windows, whose Python has no AF_UNIX; ``REINS_TRANSPORT=tcp`` on POSIX): a loopback
  port (``127.0.0.1`` only, exclusive on Windows) published with a fresh secret in the endpoint
  file where the socket would be; a connection is read only after its hello proved the secret
  (bridge/handshake.py), and anything else is closed without a byte. docs/security.md argues it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from reins import _platform
from reins._errors import ReinsError, UsageError
from reins._paths import write_private
from reins.bridge import handshake
from reins.bridge.client import peer_uid
from reins.bridge.jsonwire import dump_line
from reins.bridge.lines import OVERSIZED, LineSplitter
from reins.bridge.protocol import MAX_REQUEST_BYTES, Request, parse_request

__all__ = ["ControlServer"]

log = logging.getLogger("reins.server")

Dispatch = Callable[[Request], Awaitable[dict[str, Any]]]


class ControlServer:
    def __init__(
        self,
        path: Path,
        dispatch: Dispatch,
        *,
        max_request: int = MAX_REQUEST_BYTES,
        answered: Callable[[Request | None], None] | None = None,
        watch_every: float = 2.0,
        transport: _platform.Transport = "unix",
        hello_wait: float = 5.0,
        max_pending_hellos: int = 64,
    ):
        """``path`` is the Unix socket, or on the tcp transport the endpoint file."""
        self.path = path
        self.transport = transport
        self._secret = handshake.new_secret()
        self._endpoint: bytes | None = None
        self._book = handshake.NonceBook()
        self._hello_wait = hello_wait
        self._max_pending = max_pending_hellos
        self._pending = 0
        self._dispatch = dispatch
        # Called with its request (None for a line that was none) once each answer has been
        # written, or its client is gone.
        self._answered = answered
        self._max_request = max_request
        self._server: asyncio.Server | None = None
        self._inode: tuple[int, int] | None = None
        self._watch_every = watch_every
        self._watch: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.transport == "unix" and len(os.fsencode(self.path)) >= 104:
            raise UsageError(
                f"socket path {self.path} is too long for a Unix socket; set REINS_HOME to a shorter path"
            )
        await self._listen()
        self._watch = asyncio.get_running_loop().create_task(self._keep_path())

    async def _keep_path(self) -> None:
        """A socket file deleted while the host runs (a cleaner of /run or ~/.local/state, a user
        tidying up) would leave the host unreachable for good: listen again at the path (a tcp
        host writes its endpoint file again: same port, same secret). A path that holds another
        socket or endpoint belongs to a newer host of the profile: left alone."""
        while True:
            await asyncio.sleep(self._watch_every)
            try:
                os.stat(self.path)
                continue
            except FileNotFoundError:
                pass
            except OSError:
                continue
            log.warning("control file %s was deleted: putting it back", self.path)
            old = self._server
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                if self.transport == "tcp" and self._endpoint is not None:
                    await self._publish(self._endpoint)  # the same port and secret
                    continue
                await self._listen()
            except OSError as exc:
                log.warning("cannot listen at %s again: %s", self.path, exc)
                continue
            if old is not None:
                old.close()

    async def _listen(self) -> None:
        if self.transport == "tcp":
            await self._listen_tcp()
            return
        if sys.platform == "win32":
            raise UsageError("Windows Python has no Unix sockets", code="platform_unsupported")
        # Bound and listening under a temporary name, 0600 from the start, then renamed into
        # place: whoever sees the path can connect, and nobody ever sees it wider than 0600.
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        tmp.unlink(missing_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            sock.bind(str(tmp))
        finally:
            os.umask(old_umask)
        sock.listen(64)
        os.replace(tmp, self.path)
        info = os.stat(self.path)
        self._inode = (info.st_dev, info.st_ino)
        self._server = await asyncio.start_unix_server(self._client, sock=sock)

    async def _listen_tcp(self) -> None:
        # Loopback only, never a wildcard address; on Windows no other process can bind the port
        # while it is ours. The endpoint file appears (atomically, 0600) once the port listens.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        _platform.exclusive_address(sock)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self._server = await asyncio.start_server(self._client, sock=sock)
        port = sock.getsockname()[1]
        self._endpoint = handshake.endpoint_bytes(
            handshake.Endpoint(port, os.getpid(), self._secret)
        )
        await self._publish(self._endpoint)

    async def _publish(self, endpoint: bytes) -> None:
        # On Windows a rename over a file another process has open fails: a client reading the
        # previous host's endpoint at that instant. It has it open for microseconds: try again.
        for _ in range(40):
            try:
                write_private(self.path, endpoint)
                return
            except PermissionError:
                await asyncio.sleep(0.05)
        write_private(self.path, endpoint)

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        if self._server is not None:
            self._server.close()
        # Only our own file: a newer host of the same profile may have taken the path over.
        try:
            if self.transport == "tcp":
                with open(self.path, "rb") as fh:
                    ours = fh.read() == self._endpoint
            else:
                info = os.stat(self.path)
                ours = (info.st_dev, info.st_ino) == self._inode
            if ours:
                self.path.unlink()
        except FileNotFoundError:
            pass

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = b""
        if self.transport == "tcp":
            proved = await self._proved(reader, writer)
            if proved is None:
                writer.close()  # not a word to a client that did not prove itself
                return
            first = proved
        else:
            sock = writer.get_extra_info("socket")
            uid = peer_uid(sock) if sock is not None else None
            if uid is not None and uid != _platform.user_id():
                log.warning("refused a client of uid %s", uid)
                writer.close()
                return
        splitter = LineSplitter(self._max_request)
        lock = asyncio.Lock()
        tasks: set[asyncio.Task[None]] = set()
        try:
            while True:
                data = first or await reader.read(256 * 1024)
                first = b""
                if not data:
                    break
                for line in splitter.feed(data):
                    task = asyncio.create_task(self._answer(line, writer, lock))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
        except (ConnectionError, OSError):
            pass
        finally:
            # The client is gone: abort what it asked for, so its CDP calls stop waiting.
            for task in tasks:
                task.cancel()
            writer.close()

    async def _proved(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bytes | None:
        """Read the hello, answer the host's proof: what the client sent after its hello, or
        None when it did not prove it knows the secret within the wait (bridge/handshake.py)."""
        if self._pending >= self._max_pending:
            log.warning("refused a connection: %d hellos already pending", self._pending)
            return None
        self._pending += 1
        buffer = b""
        try:
            async with asyncio.timeout(self._hello_wait):
                while (split := handshake.split_hello(buffer)) is None:
                    data = await reader.read(handshake.MAX_HELLO + 1)
                    if not data:
                        return None
                    buffer += data
            line, rest = split
            nonce = handshake.verify_hello(self._secret, line, self._book, time.time())
            writer.write(handshake.host_reply(self._secret, nonce))
            await writer.drain()
            return rest
        except handshake.HelloRefused as exc:
            log.warning("%s", exc.message)
            return None
        except (TimeoutError, ConnectionError, OSError):
            return None
        finally:
            self._pending -= 1

    async def _answer(
        self, line: bytes | object, writer: asyncio.StreamWriter, lock: asyncio.Lock
    ) -> None:
        request: Request | None = None
        request_id: Any = None
        try:
            try:
                if line is OVERSIZED:
                    raise UsageError(
                        f"request line exceeds {self._max_request} bytes", code="message_too_large"
                    )
                assert isinstance(line, bytes)
                request = parse_request(line)
                request_id = request.id
                body = await self._dispatch(request)
                answer: dict[str, Any] = {**body, "request_id": request_id, "ok": True}
            except ReinsError as exc:
                request_id = (
                    request_id if request_id is not None else exc.details.pop("request_id", None)
                )
                answer = {"request_id": request_id, "ok": False, "error": exc.to_wire()}
            except Exception as exc:  # a bug must still answer, once, and keep the server up
                log.exception("request failed unexpectedly")
                answer = {
                    "request_id": request_id,
                    "ok": False,
                    "error": ReinsError(f"internal error {type(exc).__name__}: {exc}").to_wire(),
                }
            data = _encoded(answer, request_id)
            async with lock:
                try:
                    writer.write(data)
                    await writer.drain()
                except (ConnectionError, OSError):
                    pass
        finally:
            # Also when the client left and took its command with it (cancelled): what that
            # command held for its answer is not kept waiting for one that will not come.
            if self._answered is not None:
                self._answered(request)


def _encoded(answer: dict[str, Any], request_id: Any) -> bytes:
    """The answer as one line; a result that is not JSON is still one answer, an error."""
    try:
        return dump_line(answer)
    except (TypeError, ValueError) as exc:
        log.exception("answer could not be encoded")
        return dump_line(
            {
                "request_id": request_id if isinstance(request_id, str | int) else None,
                "ok": False,
                "error": ReinsError(
                    f"internal error: the answer could not be encoded ({exc})"
                ).to_wire(),
            }
        )
