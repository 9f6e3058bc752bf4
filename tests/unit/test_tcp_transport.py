"""The tcp transport (Windows's control channel; ``REINS_TRANSPORT=tcp`` runs it here): the mutual
proof as bytes, then a real ControlServer on a loopback port with the real client, and what a
stranger, a replayer and a squatter get (nothing). Tests named ``simulated_windows`` run the
Windows code paths on Linux by replacing ``_platform.os_name``: no Windows was run."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from reins import _paths, _platform
from reins._errors import ConnectionFailure, UsageError
from reins.bridge import client, handshake
from reins.bridge.protocol import Request
from reins.bridge.server import ControlServer

SECRET = bytes(range(32))
NOW_MS = 1_700_000_000_000


# ---- the proof as bytes ---------------------------------------------------------------------


def test_a_good_hello_and_the_hosts_answer_verify_both_ways() -> None:
    nonce, hello = client_hello()
    line, rest = handshake.split_hello(hello) or (b"", b"")
    assert rest == b""
    book = handshake.NonceBook()
    assert handshake.verify_hello(SECRET, line, book, NOW_MS / 1000) == nonce
    reply = handshake.host_reply(SECRET, nonce)
    assert handshake.host_verified(SECRET, nonce, reply.rstrip(b"\n"))
    # The host's answer is bound to this nonce and this secret.
    assert not handshake.host_verified(SECRET, "0" * 32, reply.rstrip(b"\n"))
    assert not handshake.host_verified(bytes(32), nonce, reply.rstrip(b"\n"))


def client_hello(secret: bytes = SECRET, nonce: str | None = None) -> tuple[str, bytes]:
    return handshake.client_hello(secret, NOW_MS, nonce)


@pytest.mark.parametrize(
    "why, line",
    [
        ("another secret", client_hello(bytes(32))[1]),
        ("not JSON (an HTTP request line)", b"GET / HTTP/1.1\r"),
        ("a request, not a hello", b'{"id": 1, "cmd": "eval", "args": {}}'),
        ("a proof of the wrong side", b""),
        ("no nonce", json.dumps({"hello": 1, "time": NOW_MS, "proof": "00"}).encode()),
        ("a bool as time", b""),
    ],
)
def test_a_bad_first_line_is_refused(why: str, line: bytes) -> None:
    if why == "a proof of the wrong side":  # the host's answer sent back as a client's hello
        nonce = "ab" * 16
        proof = json.loads(handshake.host_reply(SECRET, nonce))["proof"]
        line = json.dumps({"hello": 1, "nonce": nonce, "time": NOW_MS, "proof": proof}).encode()
    if why == "a bool as time":
        hello = json.loads(client_hello()[1])
        line = json.dumps({**hello, "time": True}).encode()
    with pytest.raises(handshake.HelloRefused):
        handshake.verify_hello(SECRET, line.rstrip(b"\n"), handshake.NonceBook(), NOW_MS / 1000)


def test_a_hello_is_good_once_and_only_within_the_time_window() -> None:
    book = handshake.NonceBook(window_s=60)
    _nonce, hello = client_hello()
    handshake.verify_hello(SECRET, hello.rstrip(b"\n"), book, NOW_MS / 1000)
    with pytest.raises(handshake.HelloRefused, match="replayed"):
        handshake.verify_hello(SECRET, hello.rstrip(b"\n"), book, NOW_MS / 1000 + 1)
    # Once the window is over, the book forgets the nonce: its time alone refuses it now.
    with pytest.raises(handshake.HelloRefused, match="time window"):
        handshake.verify_hello(SECRET, hello.rstrip(b"\n"), book, NOW_MS / 1000 + 61)
    _other, fresh = handshake.client_hello(SECRET, NOW_MS + 200_000)
    handshake.verify_hello(SECRET, fresh.rstrip(b"\n"), book, NOW_MS / 1000 + 200)
    assert len(book._seen) == 1  # the first nonce forgotten: the book stays small


def test_the_first_line_is_split_within_its_limit() -> None:
    assert handshake.split_hello(b"") is None
    assert handshake.split_hello(b'{"hello"') is None
    assert handshake.split_hello(b'{"a": 1}\nb\n') == (b'{"a": 1}', b"b\n")
    with pytest.raises(handshake.HelloRefused):
        handshake.split_hello(b"{" + b" " * handshake.MAX_HELLO)
    with pytest.raises(handshake.HelloRefused):
        handshake.split_hello(b"{" + b" " * handshake.MAX_HELLO + b"\n")


@pytest.mark.parametrize(
    "start", [b"G", b"GET / HTTP/1.1\r\n", b"\x00\xff", b'{"hello": "\xc3\xa9', b"{\t"]
)
def test_what_cannot_become_a_hello_is_refused_at_once(start: bytes) -> None:
    """Not a JSON object of ASCII text: refused on its first bytes, not at the end of the wait
    (a stranger's garbage held the hello slot for the whole wait before)."""
    with pytest.raises(handshake.HelloRefused):
        handshake.split_hello(start)


def test_an_endpoint_file_that_is_not_one_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "p.tcp"
    good = handshake.Endpoint(4242, 7, SECRET)
    path.write_bytes(handshake.endpoint_bytes(good))
    assert handshake.read_endpoint(str(path)) == good
    for body in (b"", b"[]", b'{"port": 0, "pid": 1, "secret": "00"}', b'{"port": true}'):
        path.write_bytes(body)
        assert handshake.read_endpoint(str(path)) is None
    assert handshake.read_endpoint(str(tmp_path / "missing.tcp")) is None


# ---- a real host's server on a loopback port ---------------------------------------------------


@asynccontextmanager
async def tcp_server(path: Path, seen: list[str], **kw: Any) -> AsyncIterator[ControlServer]:
    async def dispatch(request: Request) -> dict[str, Any]:
        seen.append(request.cmd)
        return {"echo": request.cmd}

    server = ControlServer(path, dispatch, transport="tcp", **kw)
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def run_with_server(
    tmp_path: Path, body: Callable[[Path], Any], **kw: Any
) -> tuple[Any, list[str]]:
    """Run ``body(endpoint_path)`` in a thread (it is sync, like the CLI) against a tcp server."""
    seen: list[str] = []
    path = tmp_path / "p.tcp"

    async def scenario() -> Any:
        async with tcp_server(path, seen, **kw):
            return await asyncio.to_thread(body, path)

    return asyncio.run(scenario()), seen


def _raw(port: int, data: bytes, *, lines: int = 0, wait: float = 5.0) -> tuple[bytes, float]:
    """Send ``data`` on a new connection; what the host answered until it hung up (or until
    ``lines`` lines came), and how long that took."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        if data:
            sock.sendall(data)
        got = b""
        while not lines or got.count(b"\n") < lines:
            chunk = sock.recv(4096)
            if not chunk:
                break
            got += chunk
    return got, time.monotonic() - started


def _port(path: Path) -> int:
    endpoint = handshake.read_endpoint(str(path))
    assert endpoint is not None
    return endpoint.port


def test_the_real_client_proves_itself_and_talks_to_the_host(tmp_path: Path) -> None:
    def body(path: Path) -> list[dict[str, Any]]:
        with client.Connection(path) as conn:
            return [conn.call("ping"), conn.call("status")]

    answers, seen = run_with_server(tmp_path, body)
    assert [a["echo"] for a in answers] == ["ping", "status"] and seen == ["ping", "status"]


def test_the_endpoint_file_is_private_new_each_start_and_removed_at_close(tmp_path: Path) -> None:
    def body(path: Path) -> tuple[int, handshake.Endpoint | None]:
        return os.stat(path).st_mode, handshake.read_endpoint(str(path))

    (mode, first), _ = run_with_server(tmp_path, body)
    (_, second), _ = run_with_server(tmp_path, body)
    assert stat.S_IMODE(mode) == 0o600
    assert first is not None and second is not None and first.pid == os.getpid()
    assert first.secret != second.secret  # a new secret every start
    assert not (tmp_path / "p.tcp").exists()


def test_a_newer_hosts_endpoint_file_is_left_alone_at_close(tmp_path: Path) -> None:
    newer = handshake.endpoint_bytes(handshake.Endpoint(1234, 1, bytes(32)))

    def body(path: Path) -> None:
        path.write_bytes(newer)

    run_with_server(tmp_path, body)
    assert (tmp_path / "p.tcp").read_bytes() == newer


@pytest.mark.parametrize(
    "what, data",
    [
        ("a request without a hello", b'{"id": 1, "cmd": "eval", "args": {}}\n'),
        ("a web page's fetch", b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("a POST with a request as body", b'POST / HTTP/1.1\r\n\r\n{"id":1,"cmd":"eval"}\n'),
        ("garbage", b"\x00\xff" * 100),
        ("an oversized first line", b"{" + b" " * 4096),
        ("a hello with another secret", client_hello(bytes(32))[1] + b'{"id":1,"cmd":"x"}\n'),
    ],
)
def test_a_connection_that_does_not_prove_itself_gets_not_a_byte(
    tmp_path: Path, what: str, data: bytes
) -> None:
    (got, _), seen = run_with_server(tmp_path, lambda path: _raw(_port(path), data))
    assert got == b"", what
    assert seen == []  # and nothing it sent was run


def test_a_replayed_hello_gets_not_a_byte(tmp_path: Path) -> None:
    def body(path: Path) -> tuple[bytes, bytes]:
        endpoint = handshake.read_endpoint(str(path))
        assert endpoint is not None
        _nonce, hello = handshake.client_hello(endpoint.secret, int(time.time() * 1000))
        request = b'{"id": 1, "cmd": "eval"}\n'
        first, _ = _raw(endpoint.port, hello + request, lines=2)
        again, _ = _raw(endpoint.port, hello + request)
        return first, again

    (first, again), seen = run_with_server(tmp_path, body)
    assert first.count(b"\n") == 2 and b'"proof"' in first  # the host's proof, then the answer
    assert again == b""
    assert seen == ["eval"]  # once, not twice


def test_a_client_that_never_sends_is_dropped_after_the_wait(tmp_path: Path) -> None:
    (result, seen) = run_with_server(tmp_path, lambda path: _raw(_port(path), b""), hello_wait=0.3)
    got, took = result
    assert got == b"" and 0.25 < took < 3
    assert seen == []


def test_pending_hellos_are_capped(tmp_path: Path) -> None:
    """Strangers holding connections open cannot make the host keep unbounded hellos waiting;
    a proved client still gets in once they are dropped."""

    def body(path: Path) -> tuple[bytes, dict[str, Any]]:
        port = _port(path)
        holders = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        time.sleep(0.2)
        refused, _ = _raw(port, b"")  # the third waits for nothing: closed at once
        for holder in holders:
            holder.close()
        time.sleep(0.2)
        with client.Connection(path) as conn:
            return refused, conn.call("ping")

    (refused, answer), _ = run_with_server(tmp_path, body, max_pending_hellos=2)
    assert refused == b"" and answer["echo"] == "ping"


class Squatter:
    """A process that took a dead host's port: it reads what comes and answers ``reply``."""

    def __init__(self, reply: Callable[[bytes], bytes]) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self._reply = reply
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(2)
            try:
                while b"\n" not in self.received:
                    self.received += conn.recv(4096)
                conn.sendall(self._reply(self.received))
                while chunk := conn.recv(4096):  # whatever the client sends after
                    self.received += chunk
            except OSError:
                pass

    def close(self) -> None:
        self._thread.join(5)
        self.sock.close()


@pytest.mark.parametrize(
    "answer",
    [
        lambda hello: b'{"hello": 1, "proof": "' + b"0" * 64 + b'"}\n',  # a made-up proof
        lambda hello: hello,  # the client's own hello echoed back
        lambda hello: b'{"request_id": 1, "ok": true}\n',  # an answer straight away
    ],
)
def test_a_squatter_on_a_dead_hosts_port_never_gets_the_request(
    tmp_path: Path, answer: Callable[[bytes], bytes]
) -> None:
    squatter = Squatter(answer)
    path = tmp_path / "p.tcp"
    path.write_bytes(handshake.endpoint_bytes(handshake.Endpoint(squatter.port, 1, SECRET)))
    with pytest.raises(ConnectionFailure, match="did not prove") as caught:
        with client.Connection(path) as conn:
            conn.call("fill", {"target": "#password", "value": "hunter2"})
    squatter.close()
    assert caught.value.code == "no_host"
    assert squatter.received.count(b"\n") == 1 and b"hunter2" not in squatter.received
    assert json.loads(squatter.received)["hello"] == 1  # its hello alone, nothing else


def test_a_squatter_relaying_the_hello_to_a_live_host_gets_it_refused(tmp_path: Path) -> None:
    """A live host has its own fresh secret: a hello proved with a dead host's secret (the file
    the client read was stale) is refused by it, and nothing is run."""

    def body(path: Path) -> bytes:
        _nonce, stale_hello = handshake.client_hello(SECRET, int(time.time() * 1000))
        got, _ = _raw(_port(path), stale_hello + b'{"id": 1, "cmd": "eval"}\n')
        return got

    got, seen = run_with_server(tmp_path, body)
    assert got == b"" and seen == []


# ---- finding hosts, and the Windows paths (simulated) -----------------------------------------


def test_live_hosts_are_found_on_the_tcp_transport(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REINS_TRANSPORT", "tcp")
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    # a dead host's file beside the live one: not listed
    (run / "gone.tcp").write_bytes(handshake.endpoint_bytes(handshake.Endpoint(9, 1, SECRET)))

    def body(path: Path) -> tuple[list[str], dict[str, Any], dict[str, Any], bool]:
        listed = client.live_profiles(tmp_path)
        with client.connect(None, tmp_path) as conn:
            anyone = conn.call("ping")
        with client.connect("p", tmp_path) as conn:
            named = conn.call("ping")
        return listed, anyone, named, client.host_alive("gone", tmp_path)

    seen: list[str] = []

    async def scenario() -> Any:
        async with tcp_server(run / "p.tcp", seen):
            return await asyncio.to_thread(body, run / "p.tcp")

    listed, anyone, named, gone_alive = asyncio.run(scenario())
    assert listed == ["p"] and anyone["echo"] == named["echo"] == "ping"
    assert not gone_alive


def test_the_transport_is_unix_on_posix_and_tcp_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REINS_TRANSPORT", raising=False)
    assert _platform.transport() == "unix"
    monkeypatch.setenv("REINS_TRANSPORT", "tcp")
    assert _platform.transport() == "tcp"
    assert _paths.control_file("p", "/h").endswith(os.path.join("run", "p.tcp"))
    monkeypatch.setenv("REINS_TRANSPORT", "pipe")
    with pytest.raises(UsageError, match="not a transport"):
        _platform.transport()


def test_simulated_windows_uses_the_tcp_transport_in_localappdata(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Simulation: os_name() says win32 on this Linux machine."""
    monkeypatch.setattr(_platform, "os_name", lambda: "win32")
    monkeypatch.delenv("REINS_HOME", raising=False)
    monkeypatch.delenv("REINS_TRANSPORT", raising=False)
    monkeypatch.setenv("LOCALAPPDATA", "/users/ann/AppData/Local")
    assert _platform.transport() == "tcp"
    assert _paths.control_file("work") == os.path.join(
        "/users/ann/AppData/Local", "reins", "run", "work.tcp"
    )
    assert _platform.user_id() is None
    monkeypatch.setenv("REINS_TRANSPORT", "unix")
    with pytest.raises(UsageError) as caught:
        _platform.transport()
    assert caught.value.code == "platform_unsupported"


def test_simulated_windows_host_serves_tcp_and_makes_no_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulation: the host's choice of transport and path with os_name() saying win32; the
    server and client then run for real over loopback here."""
    monkeypatch.setattr(_platform, "os_name", lambda: "win32")
    monkeypatch.delenv("REINS_TRANSPORT", raising=False)
    path = _paths.control_path("p", tmp_path)
    path.parent.mkdir()
    seen: list[str] = []

    def ping() -> dict[str, Any]:
        with client.Connection(path) as conn:
            return conn.call("ping")

    async def scenario() -> dict[str, Any]:
        async with tcp_server(path, seen):
            return await asyncio.to_thread(ping)

    assert asyncio.run(scenario())["echo"] == "ping"
    assert path.suffix == ".tcp" and not list(path.parent.glob("*.sock"))


def test_a_deleted_endpoint_file_is_put_back_with_the_same_port_and_secret(
    tmp_path: Path,
) -> None:
    def body(path: Path) -> tuple[bytes, bytes, dict[str, Any]]:
        before = path.read_bytes()
        path.unlink()
        deadline = time.monotonic() + 5
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with client.Connection(path) as conn:
            return before, path.read_bytes(), conn.call("ping")

    (before, after, answer), _ = run_with_server(tmp_path, body, watch_every=0.05)
    assert after == before and answer["echo"] == "ping"


def test_the_real_host_process_on_the_tcp_transport(tmp_path: Path) -> None:
    """`python -m reins._host` with REINS_TRANSPORT=tcp, its extension played on stdio: the
    endpoint file 0600 in the 0700 folder and no socket, the real client's ping answered, the
    file gone after SIGTERM."""
    import subprocess
    import sys

    from reins.bridge.framing import MAX_FROM_BROWSER, encode_frame

    env = dict(os.environ, REINS_HOME=str(tmp_path), REINS_TRANSPORT="tcp", REINS_PROFILE="p")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reins._host", "chrome-extension://x/"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        assert proc.stdin is not None
        hello = {"type": "hello", "version": "t", "session": "s", "instance": "i"}
        proc.stdin.write(encode_frame(hello, max_size=MAX_FROM_BROWSER))
        proc.stdin.flush()
        path = tmp_path / "run" / "p.tcp"
        deadline = time.monotonic() + 15
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert not list(path.parent.glob("*.sock"))
        with client.Connection(path) as conn:
            assert conn.call("ping", timeout_ms=2000)["pong"] is True
        assert client.live_profiles(tmp_path) == ["p"]
        proc.terminate()
        assert proc.wait(10) == 0
        assert not path.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def test_simulated_windows_a_hung_tcp_host_is_named_by_its_endpoints_pid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulation (os_name() says win32) for the hint's wording; the hang is real: a command
    that never answers, over the real tcp transport."""
    monkeypatch.setattr(_platform, "os_name", lambda: "win32")
    path = tmp_path / "p.tcp"

    async def dispatch(request: Request) -> dict[str, Any]:
        await asyncio.sleep(60)
        return {}

    def call() -> ConnectionFailure:
        with client.Connection(path) as conn, pytest.raises(ConnectionFailure) as caught:
            conn.call("eval", timeout_ms=1)
        return caught.value

    async def scenario() -> ConnectionFailure:
        server = ControlServer(path, dispatch, transport="tcp")
        await server.start()
        try:
            return await asyncio.to_thread(call)
        finally:
            await server.close()

    failure = asyncio.run(scenario())
    assert failure.code == "host_unresponsive"
    assert f"taskkill /F /PID {os.getpid()}" in (failure.hint or "")
