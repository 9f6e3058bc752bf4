"""Hostile bytes at both boundaries: every input gives one typed answer, and the host lives.

Property tests (hypothesis) feed arbitrary bytes to the request parser and the native-messaging
decoder; process tests send the findings of the trust review to a real host process.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reins._errors import ReinsError, UsageError
from reins.bridge.framing import FrameDecoder
from reins.bridge.jsonwire import MAX_DEPTH, dump_line, load
from reins.bridge.protocol import Request, parse_request

from tests.unit.fakes import Client, FakeExtension, connect_extension

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix domain sockets")

HOSTILE_LINES = {
    "lone surrogate id": b'{"id": "\\ud800", "cmd": "ping"}',
    "5000-digit id": b'{"id": ' + b"9" * 5000 + b', "cmd": "ping"}',
    "5000-digit timeout": b'{"id": 1, "cmd": "ping", "timeout_ms": ' + b"9" * 5000 + b"}",
    "100000-deep args": b'{"id": 1, "cmd": "ping", "args": {"a": '
    + b"[" * 100_000
    + b"]" * 100_000
    + b"}}",
    "5000-deep args": b'{"id": 1, "cmd": "ping", "args": {"a": '
    + b"[" * 5000
    + b"]" * 5000
    + b"}}",
    "huge float": b'{"id": 1, "cmd": "ping", "args": {"x": 1' + b"0" * 5000 + b".5}}",
    "surrogate key": b'{"id": 1, "cmd": "ping", "args": {"\\udfff": 1}}',
}


@pytest.mark.parametrize("line", HOSTILE_LINES.values(), ids=HOSTILE_LINES.keys())
def test_hostile_request_lines_are_bad_requests(line: bytes) -> None:
    with pytest.raises(UsageError) as caught:
        parse_request(line)
    assert caught.value.code == "bad_request"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2048))
def test_any_bytes_parse_to_a_request_or_a_typed_error(data: bytes) -> None:
    try:
        assert isinstance(parse_request(data), Request)
    except ReinsError as exc:
        assert exc.code == "bad_request"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {
            "id": st.integers(-(10**12), 10**12) | st.text(max_size=20),
            "cmd": st.text(min_size=1, max_size=10),
        },
        optional={"args": st.dictionaries(st.text(), json_values, max_size=3)},
    )
)
def test_any_wellformed_request_either_validates_or_is_typed(raw: dict[str, Any]) -> None:
    try:
        request = parse_request(json.dumps(raw).encode())
    except ReinsError as exc:
        assert exc.code == "bad_request"
    else:
        assert request.id == raw["id"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=64), max_size=8))
def test_any_frame_bytes_decode_to_messages_or_typed_errors(chunks: list[bytes]) -> None:
    decoder = FrameDecoder(max_size=1 << 16)
    for chunk in chunks:
        try:
            decoder.feed(chunk)
        except ReinsError as exc:
            assert exc.code in ("bad_request", "message_too_large")


@pytest.mark.parametrize("body", [b"", b"9" * 5000, b"[" * 5000 + b"]" * 5000, b'"\\ud800"'])
def test_hostile_frames_are_dropped_typed(body: bytes) -> None:
    decoder = FrameDecoder()
    good = json.dumps({"type": "hello"}).encode()
    frames = struct.pack("=I", len(body)) + body + struct.pack("=I", len(good)) + good
    with pytest.raises(UsageError):
        decoder.feed(frames)
    assert decoder.feed(b"") == [{"type": "hello"}]  # what followed the bad frame survives


def test_depth_limit_counts_containers() -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load(ok) is not None
    with pytest.raises(UsageError):
        load("[" + ok + "]")


def test_an_answer_with_a_surrogate_is_still_one_line() -> None:
    line = dump_line({"text": "\ud800"})
    assert line.endswith(b"\n") and json.loads(line) == {"text": "\ud800"}


# ---- against a real host process ---------------------------------------------------------------


@pytest.mark.parametrize("line", HOSTILE_LINES.values(), ids=HOSTILE_LINES.keys())
def test_every_hostile_line_gets_one_answer_and_the_host_lives(
    host: FakeExtension, client: Client, line: bytes
) -> None:
    client.send_raw(line + b"\n")
    answer = client.answer()
    assert answer["ok"] is False and answer["error"]["code"] == "bad_request"
    assert client.call({"id": "after", "cmd": "ping"})["ok"] is True
    assert host.proc.poll() is None


@pytest.mark.parametrize(
    "body",
    [b"", b"9" * 5000, b"[" * 5000 + b"]" * 5000, b"\xff\xfe", b'{"type": "event"}'],
    ids=["empty", "5000 digits", "5000 deep", "not utf-8", "bad shape"],
)
def test_no_bad_native_frame_ends_the_host(
    host: FakeExtension, client: Client, body: bytes
) -> None:
    connect_extension(host, client)
    assert host.proc.stdin is not None
    host.proc.stdin.write(struct.pack("=I", len(body)) + body)
    host.proc.stdin.flush()
    time.sleep(0.2)
    assert host.proc.poll() is None
    assert client.call({"id": "after", "cmd": "ping"}) == {
        "request_id": "after",
        "ok": True,
        "pong": True,
        "connected": True,
    }


def test_sigterm_exits_cleanly_and_removes_the_socket(host: FakeExtension) -> None:
    host.next_frame()  # the host is up and its stdin reader is blocked in a read
    host.proc.send_signal(signal.SIGTERM)
    assert host.proc.wait(timeout=10) == 0  # not -SIGABRT (the buffered-stdin abort)
    assert not host.socket_path.exists()


# ---- the CLI facing a garbage answer --------------------------------------------------------


def _garbage_host(path: Path, reply: bytes) -> threading.Thread:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def serve() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(reply)
        conn.close()
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("json_flag", [True, False])
@pytest.mark.parametrize("reply", [b"garbage\n", b"[1, 2]\n", b'"\xff"\n'])
def test_cli_turns_a_garbage_answer_into_a_typed_error(
    short_home: Path, json_flag: bool, reply: bytes
) -> None:
    run = short_home / "run"
    run.mkdir(mode=0o700)
    _garbage_host(run / "g.sock", reply)
    args = [sys.executable, "-m", "reins.cli", "--profile", "g", "status"]
    if json_flag:
        args.append("--json")
    proc = subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(os.environ, REINS_HOME=str(short_home)),
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    if json_flag:
        body = json.loads(proc.stdout)
        assert body["ok"] is False and body["error"]["code"] == "internal"
    else:
        assert proc.stderr.startswith("error [internal]")
