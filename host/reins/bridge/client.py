"""The lean client the CLI (and `reins mcp`) uses: standard library only, no pydantic, no host
modules. It reaches a host through its Unix socket, or through its endpoint file on the tcp
transport (Windows; bridge/handshake.py), whichever the host listens on.

It is on the path of every CLI call, so it imports the least it can: `_socket`, the C module the
`socket` module wraps (`socket` itself costs ~5 ms at each start, building its enums), and paths as
strings (pathlib and what it pulls in, urllib.parse and ipaddress, cost ~7 ms more). Paths come in as
`str` or `os.PathLike` and go out as `str`."""

from __future__ import annotations

import _socket
import itertools
import json
import os
import struct
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from reins import _platform
from reins._errors import ConnectionFailure, ReinsError
from reins._paths import StrPath, home_str, socket_dir_str

if TYPE_CHECKING:  # names.py is imported only on the no-host error path: it is not light
    from reins.bridge.names import KnownProfile

__all__ = [
    "Connection",
    "answer_wait_s",
    "connect",
    "host_alive",
    "live_profiles",
    "peer_uid",
    "request",
    "socket_alive",
]

# The budget of a command the client knows nothing about (the host's table decides; it is never
# longer than this unless --timeout-ms says so).
_UNKNOWN_BUDGET_MS = 60_000


def answer_wait_s(budget_ms: int) -> float:
    """How long to wait for an answer to a request with this budget.

    The host answers every request by its deadline (`timeout` at worst, 0.2 s late at most); the
    margin covers a loaded machine. No answer by then means the host is hung, not the page slow:
    a short command finds that out in a few seconds, not in a minute."""
    budget_s = budget_ms / 1000.0
    return budget_s + min(5.0, 1.0 + budget_s / 4)


def _peer_creds(sock: _socket.socket) -> tuple[int, int] | None:
    """(pid, uid) of the process at the other end of a connected Unix socket (Linux SO_PEERCRED)."""
    if not hasattr(_socket, "SO_PEERCRED"):
        return None  # macOS and others: the 0700 directory is the guard there
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", creds)
    return int(pid), int(uid)


def peer_uid(sock: _socket.socket) -> int | None:
    """The uid of the process at the other end of a connected Unix socket (Linux SO_PEERCRED);
    the host's `socket.socket` is one too (a subclass)."""
    creds = _peer_creds(sock)
    return None if creds is None else creds[1]


def _probe(path: str) -> _socket.socket | None:
    """A connection to the host reached through ``path`` (a Unix socket, or a tcp host's endpoint
    file: then the host has proved itself), or None when nothing answers there (a file left by
    a host that died). A socket's connect is the kernel's (0.5 s); a tcp host's proof needs its
    event loop, which a busy host may hold for a moment (2 s: longer is a hung host)."""
    try:
        return _open(path, 2.0 if path.endswith(".tcp") else 0.5)
    except ConnectionFailure:
        return None


def _open(path: str, timeout: float) -> _socket.socket:
    """A connected socket to the host at ``path``, or ConnectionFailure."""
    if path.endswith(".tcp"):
        return _open_tcp(path, timeout)
    if sys.platform == "win32":
        raise ConnectionFailure(f"{path}: Windows Python has no Unix sockets", code="no_host")
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise ConnectionFailure(
            f"cannot reach the host at {path}: {exc.strerror}", code="no_host"
        ) from exc
    return sock


def _open_tcp(path: str, timeout: float) -> _socket.socket:
    """Connect to the loopback port of a tcp host's endpoint file, prove we know its secret and
    check that it knows it too, before anything else is sent (bridge/handshake.py)."""
    import time

    from reins.bridge import handshake

    endpoint = handshake.read_endpoint(path)
    if endpoint is None:
        raise ConnectionFailure(f"no readable reins endpoint at {path}", code="no_host")
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(("127.0.0.1", endpoint.port))
        nonce, hello = handshake.client_hello(endpoint.secret, int(time.time() * 1000))
        sock.sendall(hello)
        reply = b""
        while b"\n" not in reply and len(reply) <= handshake.MAX_HELLO:
            chunk = sock.recv(handshake.MAX_HELLO + 1)
            if not chunk:
                break
            reply += chunk
    except OSError as exc:
        sock.close()
        raise ConnectionFailure(
            f"cannot reach the host of {path} at 127.0.0.1:{endpoint.port}: {exc}", code="no_host"
        ) from exc
    line, newline, rest = reply.partition(b"\n")
    if not newline or rest or not handshake.host_verified(endpoint.secret, nonce, line):
        sock.close()  # a process that does not know the secret: it gets no request
        raise ConnectionFailure(
            f"the process at 127.0.0.1:{endpoint.port} did not prove it is the reins host of "
            f"{path}; refusing to talk to it",
            code="no_host",
            hint="its host has probably exited and another program took the port: start the "
            "browser again (`reins status` lists live hosts)",
        )
    return sock


def _suffixes() -> tuple[str, ...]:
    """The control files to try for a profile, this process's own transport first."""
    if sys.platform == "win32":
        return (".tcp",)
    return (".tcp", ".sock") if _platform.transport() == "tcp" else (".sock", ".tcp")


def socket_alive(path: StrPath) -> bool:
    """Does a host answer through this socket or endpoint file (as opposed to a file left by one
    that died)?"""
    probe = _probe(os.fspath(path))
    if probe is None:
        return False
    probe.close()
    return True


def host_alive(profile: str, home: StrPath | None = None) -> bool:
    """Does a host of this profile answer, on either transport?"""
    directory = socket_dir_str(home)
    return any(socket_alive(os.path.join(directory, profile + s)) for s in _suffixes())


def _live(home: StrPath | None) -> dict[str, tuple[str, _socket.socket]]:
    """The profiles whose host answers, each with its control file and the connection that found
    it out (a Unix socket, or a tcp host's endpoint file)."""
    directory = socket_dir_str(home)
    try:
        names = os.listdir(directory)
    except OSError:  # no such directory (no host ever ran here), or not one
        return {}
    suffixes = _suffixes()
    profiles = {n.rsplit(".", 1)[0] for n in names if n.endswith(suffixes) and n[0] != "."}
    live: dict[str, tuple[str, _socket.socket]] = {}
    for profile in sorted(profiles):
        for suffix in suffixes:
            if profile + suffix in names:
                path = os.path.join(directory, profile + suffix)
                probe = _probe(path)
                if probe is not None:
                    live[profile] = (path, probe)
                    break
    return live


def live_profiles(home: StrPath | None = None) -> list[str]:
    live = _live(home)
    for _path, probe in live.values():
        probe.close()
    return list(live)


def _bring_back(profile: KnownProfile) -> str:
    if profile.launched:
        flag = "" if profile.name == "launch" else f" --profile {profile.name}"
        return f"`reins launch{flag}` starts it again"
    return (
        "it is your own browser profile: open it (the reins extension connects by itself "
        "within seconds) and run the command again; `reins doctor` if it does not connect"
    )


def _how_to_start(home: StrPath, profile: str | None) -> str:
    """What to do when no host answers, for the way that browser is started."""
    from pathlib import Path

    from reins.bridge.names import known_profiles

    known = known_profiles(Path(home))
    if profile is not None and profile in known:
        return f"profile {profile}: {_bring_back(known[profile])}"
    listed = "; ".join(f"profile {p.name}: {_bring_back(p)}" for p in known.values())
    if listed:
        return listed
    return (
        "start a browser for reins with `reins launch`, or open your own Chrome with the reins "
        "extension (set up with `reins install`); `reins doctor` checks each step"
    )


def connect(profile: str | None, home: StrPath | None = None) -> Connection:
    """A connection to the host of ``profile``, or, without one, to the only host that answers.

    Without a profile the control files are tried to tell live hosts from files dead ones left;
    the one that answered is the connection (one connect per call, not a probe and then another).
    """
    if profile:
        directory = socket_dir_str(home)
        paths = [os.path.join(directory, profile + s) for s in _suffixes()]
        present = [p for p in paths if os.path.exists(p)]
        if not present:
            raise ConnectionFailure(
                f"no reins host for profile {profile!r}",
                code="no_host",
                hint=_how_to_start(home or home_str(), profile),
            )
        for path in present[:-1]:  # a file the other transport's host left: the next one
            probe = _probe(path)
            if probe is not None:
                return Connection(path, connected=probe)
        return Connection(present[-1])
    live = _live(home)
    if len(live) == 1:
        [(path, probe)] = live.values()
        return Connection(path, connected=probe)
    for _path, probe in live.values():
        probe.close()
    if not live:
        raise ConnectionFailure(
            "no reins host is running",
            code="no_host",
            hint=_how_to_start(home or home_str(), None),
        )
    names = list(live)
    raise ConnectionFailure(
        f"several browsers are connected ({', '.join(names)}); pick one with --profile NAME "
        "or REINS_PROFILE=NAME",
        code="ambiguous_profile",
        details={"profiles": names},
    )


class Connection:
    """One connection to a host; several requests may go over it in turn (``reins batch``)."""

    def __init__(self, path: StrPath, *, connected: _socket.socket | None = None) -> None:
        """Connect to the host reached through ``path`` (its Unix socket, or its endpoint file on
        the tcp transport), or take ``connected``, already connected to it (and proved)."""
        path = os.fspath(path)
        self._sock = connected if connected is not None else _open(path, 5.0)
        self._peer_pid: int | None = None
        if path.endswith(".tcp"):
            from reins.bridge.handshake import read_endpoint

            endpoint = read_endpoint(path)
            self._peer_pid = endpoint.pid if endpoint else None
        else:
            creds = _peer_creds(self._sock)
            self._peer_pid = creds[0] if creds else None
            uid = creds[1] if creds else None
            if uid is not None and uid != _platform.user_id():
                # Not our host: another user's process bound this path. Send it nothing.
                self._sock.close()
                raise ConnectionFailure(
                    f"the socket {path} belongs to a process of uid {uid}, not to you; refusing "
                    "to talk to it",
                    code="no_host",
                    hint=f"remove it and check who can write to {os.path.dirname(path)} (it must "
                    "be yours, 0700)",
                )
        self._buffer = b""
        self._ids: Iterator[int] = itertools.count(1)

    def close(self) -> None:
        self._sock.close()

    def abort(self) -> None:
        """End a call waiting in another thread (a cancelled MCP request): its recv returns at
        once, and the host, seeing the disconnect, cancels the command."""
        try:
            self._sock.shutdown(_socket.SHUT_RDWR)
        except OSError:
            pass  # already closed, or never connected further than this
        self._sock.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(
        self,
        cmd: str,
        args: dict[str, Any] | None = None,
        *,
        tab: int | None = None,
        timeout_ms: int | None = None,
        default_timeout_ms: int | None = None,
    ) -> dict[str, Any]:
        """Send one request and wait for its answer.

        ``timeout_ms`` is the request's budget, sent to the host; without it the host applies the
        command's own budget, which the caller passes as ``default_timeout_ms`` (from the command
        table's description) so that the wait follows it."""
        request_id = next(self._ids)
        message: dict[str, Any] = {"id": request_id, "cmd": cmd, "args": args or {}}
        if tab is not None:
            message["tab"] = tab
        if timeout_ms is not None:
            message["timeout_ms"] = timeout_ms
        budget_ms = next(
            (b for b in (timeout_ms, default_timeout_ms) if b is not None), _UNKNOWN_BUDGET_MS
        )
        wait_s = answer_wait_s(budget_ms)
        self._sock.settimeout(wait_s)
        try:
            self._sock.sendall(json.dumps(message).encode() + b"\n")
            while b"\n" not in self._buffer:
                chunk = self._sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionFailure("the host closed the connection", code="no_host")
                self._buffer += chunk
        except TimeoutError as exc:
            who = f"the host (pid {self._peer_pid})" if self._peer_pid else "the host"
            kill = "taskkill /F /PID" if _platform.os_name() == "win32" else "kill"
            end = f"`{kill} {self._peer_pid}`" if self._peer_pid else "end the reins host process"
            raise ConnectionFailure(
                f"{cmd}: {who} took the request but did not answer within {wait_s:.1f} s (its "
                f"budget was {budget_ms} ms): it is hung",
                code="host_unresponsive",
                hint=f"{end}: the extension starts a new host within seconds; then `reins status`",
                details={"host_pid": self._peer_pid} if self._peer_pid else None,
            ) from exc
        except OSError as exc:
            raise ConnectionFailure(f"{cmd}: lost the host: {exc}", code="no_host") from exc
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict):
            raise ReinsError(
                f"{cmd}: the host answered something that is not a JSON object ({line[:80]!r})",
                code="internal",
            )
        return answer


def request(
    cmd: str,
    args: dict[str, Any] | None = None,
    *,
    profile: str | None = None,
    tab: int | None = None,
    timeout_ms: int | None = None,
    default_timeout_ms: int | None = None,
) -> dict[str, Any]:
    """Send one request to the chosen host and return its answer object (``Connection.call``)."""
    with connect(profile or os.environ.get("REINS_PROFILE") or None) as conn:
        return conn.call(
            cmd, args, tab=tab, timeout_ms=timeout_ms, default_timeout_ms=default_timeout_ms
        )
