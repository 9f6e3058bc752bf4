"""REINS_HOME like ssh's StrictModes: the user's own, no symlinks, closed to others; the CLI
talks only to a host of its own uid."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from reins._errors import ConnectionFailure, UsageError
from reins._paths import ensure_private_dir, open_private_append, write_private
from reins.bridge.client import Connection

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "getuid"), reason="Unix permissions"
)
OTHER_UID = 65534  # nobody
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


def test_missing_levels_are_created_0700(tmp_path: Path) -> None:
    home = tmp_path / "home"
    made = ensure_private_dir(home / "registries" / "p", root=home)
    for level in (home, home / "registries", made):
        assert stat.S_IMODE(level.stat().st_mode) == 0o700


def test_a_wide_home_of_ours_is_tightened(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o777)
    ensure_private_dir(home / "run", root=home)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_a_symlinked_home_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = tmp_path / "home"
    home.symlink_to(elsewhere)
    with pytest.raises(UsageError) as caught:
        ensure_private_dir(home / "run", root=home)
    assert caught.value.code == "unsafe_home" and "symlink" in caught.value.message


def test_a_symlinked_subdirectory_is_refused(tmp_path: Path) -> None:
    home = ensure_private_dir(tmp_path / "home")
    (tmp_path / "theirs").mkdir()
    (home / "logs").symlink_to(tmp_path / "theirs")
    with pytest.raises(UsageError, match="symlink"):
        ensure_private_dir(home / "logs", root=home)


@needs_root
def test_a_subdirectory_another_user_made_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o777)
    (home / "run").mkdir()
    os.chown(home / "run", OTHER_UID, OTHER_UID)
    with pytest.raises(UsageError) as caught:
        ensure_private_dir(home / "run", root=home)
    assert f"uid {OTHER_UID}" in caught.value.message


def test_a_parent_open_to_others_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # world-writable, not sticky: anyone could swap our home
    with pytest.raises(UsageError, match="parent"):
        ensure_private_dir(shared / "home" / "run", root=shared / "home")


def test_sticky_tmp_is_a_fine_parent(tmp_path: Path) -> None:
    ensure_private_dir(Path("/tmp") / f"rh-test-{os.getpid()}", root=None).rmdir()


def test_writes_replace_a_planted_symlink_instead_of_following_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    launcher = tmp_path / "reins-host"
    launcher.symlink_to(victim)
    write_private(launcher, b"#!/bin/sh\n", mode=0o700)
    assert victim.read_text() == "keep"
    assert not launcher.is_symlink() and launcher.read_bytes() == b"#!/bin/sh\n"
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o700


def test_the_log_is_never_opened_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "host.log").symlink_to(tmp_path / "elsewhere.log")
    with pytest.raises(OSError):
        open_private_append(tmp_path / "host.log")
    assert not (tmp_path / "elsewhere.log").exists()


def test_the_host_refuses_an_unsafe_home(short_home: Path) -> None:
    target = short_home / "target"
    target.mkdir()
    home = short_home / "home"
    home.symlink_to(target)
    proc = subprocess.run(
        [sys.executable, "-m", "reins._host", "chrome-extension://x/"],
        env=dict(os.environ, REINS_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode != 0
    assert not (target / "run").exists() and not (target / "logs").exists()


@needs_root
def test_the_cli_never_talks_to_a_socket_of_another_uid(short_home: Path) -> None:
    """An impostor (another local user) bound the socket path: the CLI sends it nothing."""
    run = short_home / "run"
    run.mkdir()
    run.chmod(0o777)
    os.chmod(short_home, 0o777)  # the impostor may write where this test reads its catch
    path = run / "x.sock"
    received = short_home / "received"
    impostor = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import os, socket
os.setgid({OTHER_UID}); os.setuid({OTHER_UID})
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind({str(path)!r}); os.chmod({str(path)!r}, 0o777); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); c.settimeout(2)
try:
    data = c.recv(65536)
except OSError:
    data = b""
open({str(received)!r}, "wb").write(data)
if data: c.sendall(b'{{"ok": true, "value": "stolen"}}\\n')
""",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert impostor.stdout is not None and impostor.stdout.readline().strip() == "ready"
        with pytest.raises(ConnectionFailure) as caught:
            Connection(path)
        assert f"uid {OTHER_UID}" in caught.value.message
        impostor.wait(timeout=10)
        assert received.read_bytes() == b""
    finally:
        impostor.kill()
        os.chmod(short_home, 0o700)


def test_the_cli_talks_to_its_own_host(short_home: Path) -> None:
    path = short_home / "own.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    with Connection(path) as conn:
        peer, _ = server.accept()
        peer.settimeout(5)
        conn._sock.sendall(b"{}\n")  # the connection is usable
        assert peer.recv(16) == b"{}\n"
        peer.close()
    server.close()
