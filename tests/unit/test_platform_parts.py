"""The OS-specific parts `_platform` keeps for the host and the CLI: file locks, descriptors, stop
signals, processes. Run here as POSIX; their Windows branches are type-checked for win32
(scripts/check_platform_types.py), not run — but for `taskkill`'s command line, simulated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reins import _platform

# Run as POSIX: on a Windows runner these would exercise the POSIX branches' expectations.
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the POSIX branches, run here")

_HOLD = """
import os, sys, time
from reins import _platform
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
_platform.lock_exclusive(fd)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_an_exclusive_lock_waits_for_the_process_that_holds_it(tmp_path: Path) -> None:
    lock = tmp_path / "profiles.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(lock), "1.0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        fd = os.open(lock, os.O_RDWR)
        try:
            _platform.lock_exclusive(fd)  # waits until the holder exits
            waited = time.monotonic() - started
        finally:
            os.close(fd)
        assert 0.5 < waited < 10
    finally:
        holder.wait(10)


def test_a_descriptor_moves_above_the_low_ones_and_closes_on_exec() -> None:
    read_end, write_end = os.pipe()
    moved = _platform.move_fd_above(read_end, 10)
    try:
        assert moved >= 10 and not os.get_inheritable(moved)
        os.write(write_end, b"x")
        assert os.read(moved, 1) == b"x"
    finally:
        os.close(moved)
        os.close(write_end)


def test_the_host_stops_on_term_int_and_hup_here() -> None:
    assert set(_platform.stop_signals()) == {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
    _platform.binary_stdio(0, 1)  # nothing to do on POSIX, and no error


def test_a_browser_group_is_asked_to_end_then_forced() -> None:
    """A process group as `reins launch` starts a browser's (its children with it): asked to
    end (SIGTERM), and one that ignores that, forced (SIGKILL)."""
    for ignores_term, force in ((False, False), (True, True)):
        code = "import signal, subprocess, sys, time\n"
        if ignores_term:
            code += "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        code += "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        code += "print('up', flush=True); time.sleep(60)\n"
        leader = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, **_platform.detached()
        )
        assert leader.stdout and leader.stdout.readline() == "up\n"
        assert _platform.process_alive(leader.pid)
        assert _platform.stop_process_group(leader.pid)
        if ignores_term:
            time.sleep(0.5)
            assert leader.poll() is None  # asked, not ended
            assert _platform.stop_process_group(leader.pid, force=force)
        leader.wait(timeout=10)
        assert leader.returncode == (-signal.SIGKILL if force else -signal.SIGTERM)
        # the whole group went: nothing is left in it
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.killpg(leader.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the group's child outlived it")
        assert not _platform.process_alive(leader.pid)
        assert not _platform.stop_process_group(leader.pid)


def test_on_windows_a_browser_tree_is_ended_by_taskkill(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated: `sys.platform` says win32 and `taskkill` is recorded, not run."""
    ran: list[list[str]] = []

    def fake_run(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        ran.append(argv)
        return subprocess.CompletedProcess(argv, 0 if argv[2] == "41" else 128)

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(subprocess, "run", fake_run)
    assert _platform.stop_process_group(41)
    assert _platform.stop_process_group(41, force=True)
    assert not _platform.stop_process_group(42)
    assert ran == [
        ["taskkill", "/PID", "41", "/T"],
        ["taskkill", "/PID", "41", "/T", "/F"],
        ["taskkill", "/PID", "42", "/T"],
    ]
    assert _platform.detached() == {"creationflags": 0x200}  # CREATE_NEW_PROCESS_GROUP
