"""Fixtures shared by the unit tests: a real host process (no browser) played against from both
ends (fakes.py ``FakeExtension`` and ``Client``), and a host in this process on the one fake
Chrome (fakes.py ``FakeChrome``)."""

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from reins.bridge.context import Host

from tests.unit.fakes import Client, FakeExtension, offline_host

__all__ = ["client", "host", "offline", "short_home"]


@pytest.fixture
def short_home() -> Iterator[Path]:
    """A home for a host process: Unix socket paths are limited to ~104 bytes, and pytest's
    tmp_path can be longer."""
    path = Path(tempfile.mkdtemp(prefix="rh-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def host(short_home: Path) -> Iterator[FakeExtension]:
    """A real host process at ``short_home`` whose extension (the test) said hello."""
    fake = FakeExtension(short_home)
    try:
        fake.wait_for_socket()
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def client(host: FakeExtension) -> Iterator[Client]:
    """A client on that host's control socket."""
    conn = Client(host.socket_path)
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def offline(tmp_path: Path) -> Host:
    """A host in this process at ``tmp_path`` whose extension has not said hello."""
    return offline_host(tmp_path)
