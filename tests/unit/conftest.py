"""Fixtures shared by the unit tests that run a real host process (no browser)."""

from tests.unit.test_host_process import client, host, short_home

__all__ = ["client", "host", "short_home"]
