"""How the CLI's client picks a host and connects: one connection to the only live host, never a
probe and then a second connect; dead sockets skipped; several live hosts refused."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from reins._errors import ConnectionFailure
from reins.bridge.client import connect, live_profiles


class Listener:
    """A host's socket that counts its connections and answers each request line with ok."""

    def __init__(self, path: str) -> None:
        self.accepted = 0
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(8)
        self.server.settimeout(10)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            with conn:
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                if b"\n" in data:
                    request = json.loads(data.split(b"\n", 1)[0])
                    conn.sendall(
                        json.dumps({"request_id": request["id"], "ok": True}).encode() + b"\n"
                    )

    def close(self) -> None:
        self.server.close()


def _run_dir(home: Path) -> Path:
    run = home / "run"
    run.mkdir(parents=True, mode=0o700, exist_ok=True)
    return run


def test_the_only_live_host_is_reached_with_one_connection(tmp_path: Path) -> None:
    run = _run_dir(tmp_path)
    host = Listener(str(run / "default.sock"))
    # A socket file a dead host left: nothing listens there.
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(run / "gone.sock"))
    dead.close()
    try:
        with connect(None, tmp_path) as conn:
            assert conn.call("ping")["ok"] is True
        host.thread.join(0.2)
        assert host.accepted == 1  # the connection that found the host is the one used
    finally:
        host.close()


def test_several_live_hosts_are_refused_and_each_probe_is_closed(tmp_path: Path) -> None:
    run = _run_dir(tmp_path)
    hosts = [Listener(str(run / f"{name}.sock")) for name in ("a", "b")]
    try:
        with pytest.raises(ConnectionFailure) as several:
            connect(None, tmp_path)
        assert several.value.code == "ambiguous_profile"
        assert several.value.details["profiles"] == ["a", "b"]
        assert live_profiles(tmp_path) == ["a", "b"]
        with connect("b", tmp_path) as conn:  # a profile named: its socket, directly
            assert conn.call("ping")["ok"] is True
    finally:
        for host in hosts:
            host.close()


def test_no_live_host_is_no_host(tmp_path: Path) -> None:
    _run_dir(tmp_path)
    with pytest.raises(ConnectionFailure) as nothing:
        connect(None, tmp_path)
    assert nothing.value.code == "no_host"
