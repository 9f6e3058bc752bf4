"""The lean socket client the CLI (and `reins mcp`) uses: standard library only, no pydantic, no
host modules."""

from __future__ import annotations

import itertools
import json
import os
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reins._errors import ConnectionFailure, ReinsError
from reins._paths import socket_dir, socket_path

__all__ = ["Connection", "find_socket", "live_profiles", "peer_uid", "request", "socket_alive"]

# The host answers `timeout` itself; the client waits this much longer before giving up on it.
_SOCKET_MARGIN_S = 5.0


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a connected Unix socket (Linux SO_PEERCRED)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None  # macOS and others: the 0700 directory is the guard there
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def socket_alive(path: Path) -> bool:
    """Does a host answer on this socket (as opposed to a file left by one that died)?"""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def live_profiles(home: Path | None = None) -> list[str]:
    directory = socket_dir(home)
    if not directory.is_dir():
        return []
    return sorted(p.stem for p in directory.glob("*.sock") if socket_alive(p))


def find_socket(profile: str | None, home: Path | None = None) -> Path:
    if profile:
        path = socket_path(profile, home)
        if not path.exists():
            raise ConnectionFailure(f"no reins host for profile {profile!r}", code="no_host")
        return path
    names = live_profiles(home)
    if not names:
        raise ConnectionFailure("no reins host is running", code="no_host")
    if len(names) > 1:
        raise ConnectionFailure(
            f"several browsers are connected ({', '.join(names)}); pick one with --profile NAME",
            code="ambiguous_profile",
            details={"profiles": names},
        )
    return socket_path(names[0], home)


class Connection:
    """One socket connection; several requests may go over it in turn (``reins batch``)."""

    def __init__(self, path: Path) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(str(path))
        except OSError as exc:
            self._sock.close()
            raise ConnectionFailure(f"cannot reach the host at {path}: {exc.strerror}",
                                    code="no_host") from exc
        uid = peer_uid(self._sock)
        if uid is not None and uid != os.getuid():
            # Not our host: another user's process bound this path. Send it nothing.
            self._sock.close()
            raise ConnectionFailure(
                f"the socket {path} belongs to a process of uid {uid}, not to you; refusing to "
                "talk to it", code="no_host",
                hint=f"remove it and check who can write to {path.parent} (it must be yours, 0700)")
        self._buffer = b""
        self._ids: Iterator[int] = itertools.count(1)

    def close(self) -> None:
        self._sock.close()

    def abort(self) -> None:
        """End a call waiting in another thread (a cancelled MCP request): its recv returns at
        once, and the host, seeing the disconnect, cancels the command."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed, or never connected further than this
        self._sock.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(
        self, cmd: str, args: dict[str, Any] | None = None, *, tab: int | None = None,
        timeout_ms: int | None = None,
    ) -> dict[str, Any]:
        request_id = next(self._ids)
        message: dict[str, Any] = {"id": request_id, "cmd": cmd, "args": args or {}}
        if tab is not None:
            message["tab"] = tab
        if timeout_ms is not None:
            message["timeout_ms"] = timeout_ms
        wait_s = (timeout_ms / 1000.0 if timeout_ms is not None else 60.0) + _SOCKET_MARGIN_S
        self._sock.settimeout(wait_s)
        try:
            self._sock.sendall(json.dumps(message).encode() + b"\n")
            while b"\n" not in self._buffer:
                chunk = self._sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionFailure("the host closed the connection", code="no_host")
                self._buffer += chunk
        except TimeoutError as exc:
            raise ReinsError(f"{cmd}: the host did not answer", code="timeout",
                             transient=True) from exc
        except OSError as exc:
            raise ConnectionFailure(f"{cmd}: lost the host: {exc}", code="no_host") from exc
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict):
            raise ReinsError(f"{cmd}: the host answered something that is not a JSON object "
                             f"({line[:80]!r})", code="internal")
        return answer


def request(
    cmd: str, args: dict[str, Any] | None = None, *, profile: str | None = None,
    tab: int | None = None, timeout_ms: int | None = None,
) -> dict[str, Any]:
    """Send one request to the chosen host and return its answer object."""
    path = find_socket(profile or os.environ.get("REINS_PROFILE") or None)
    with Connection(path) as conn:
        return conn.call(cmd, args, tab=tab, timeout_ms=timeout_ms)
