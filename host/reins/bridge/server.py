"""The control socket: a Unix domain socket, JSON lines, many clients at once. No TCP, ever."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from reins._errors import ReinsError, UsageError
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
    ):
        self.path = path
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
        if len(os.fsencode(self.path)) >= 104:
            raise UsageError(
                f"socket path {self.path} is too long for a Unix socket; set REINS_HOME to a shorter path"
            )
        await self._listen()
        self._watch = asyncio.get_running_loop().create_task(self._keep_path())

    async def _keep_path(self) -> None:
        """A socket file deleted while the host runs (a cleaner of /run or ~/.local/state, a user
        tidying up) would leave the host unreachable for good: listen again at the path. A path
        that holds another socket belongs to a newer host of the profile: left alone."""
        while True:
            await asyncio.sleep(self._watch_every)
            try:
                os.stat(self.path)
                continue
            except FileNotFoundError:
                pass
            except OSError:
                continue
            log.warning("control socket %s was deleted: listening there again", self.path)
            old = self._server
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                await self._listen()
            except OSError as exc:
                log.warning("cannot listen at %s again: %s", self.path, exc)
                continue
            if old is not None:
                old.close()

    async def _listen(self) -> None:
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

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        if self._server is not None:
            self._server.close()
        # Only our own socket file: a newer host of the same profile may have taken the path over.
        try:
            info = os.stat(self.path)
            if (info.st_dev, info.st_ino) == self._inode:
                self.path.unlink()
        except FileNotFoundError:
            pass

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            uid = peer_uid(sock)
            if uid is not None and uid != os.getuid():
                log.warning("refused a client of uid %s", uid)
                writer.close()
                return
        splitter = LineSplitter(self._max_request)
        lock = asyncio.Lock()
        tasks: set[asyncio.Task[None]] = set()
        try:
            while True:
                data = await reader.read(256 * 1024)
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
