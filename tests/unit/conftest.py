"""Fixtures shared by the unit tests: a real host process (no browser) played against from both
ends (test_host_process.py), and a host in this process on the one fake Chrome (fakes.py)."""

from pathlib import Path

import pytest
from reins.bridge.context import Host

from tests.unit.fakes import offline_host
from tests.unit.test_host_process import client, host, short_home

__all__ = ["client", "host", "offline", "short_home"]


@pytest.fixture
def offline(tmp_path: Path) -> Host:
    """A host in this process at ``tmp_path`` whose extension has not said hello."""
    return offline_host(tmp_path)
