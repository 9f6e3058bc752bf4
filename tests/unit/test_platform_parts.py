"""The OS-specific parts `_platform` keeps for the host and the CLI: file locks, descriptors, stop
signals. Run here as POSIX; their Windows branches are type-checked for win32
(scripts/check_platform_types.py), not run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from reins import _platform

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
