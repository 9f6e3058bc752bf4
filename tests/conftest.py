"""The suite's two tiers, drawn by where a test lives.

- fast (``-m "not browser"``): ``tests/unit`` and anything else that needs no browser.
- browser (``-m browser``): ``tests/browser`` (real Chromium with the extension and host) and
  ``tests/pagescript`` (Chromium through selenium, no extension).

The ``browser`` marker is added here by location because ``pytestmark`` in a conftest.py is
ignored (it only applies in test modules). ``tests/unit/test_tiers.py`` proves the split.

``bench`` tests run the benchmark script; they are left out unless the ``-m`` expression names
``bench`` (``pytest -m bench``, or ``-m "bench or not bench"`` as ``scripts/test`` does) or the
test file is named on the command line. A default ``-m "not bench"`` in addopts would not do:
a later ``-m browser`` replaces an earlier ``-m`` instead of combining with it.

With pytest-timeout installed, every test gets a time limit, so a hang fails that one test
instead of stalling the run until CI gives up.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
BROWSER_DIRS = (TESTS / "browser", TESTS / "pagescript")

# Seconds. A browser test's own waits are at most 60 s (the CLI runner's default); the first one
# also starts the session's browser. A fast-tier test takes well under a second. The bench test
# gives scripts/bench 240 s of its own.
BROWSER_TIMEOUT_S = 120
FAST_TIMEOUT_S = 60
BENCH_TIMEOUT_S = 300


def needs_browser(path: Path) -> bool:
    return any(path.is_relative_to(folder) for folder in BROWSER_DIRS)


def _time_limit(item: pytest.Item) -> int:
    if item.get_closest_marker("bench"):
        return BENCH_TIMEOUT_S
    return BROWSER_TIMEOUT_S if needs_browser(item.path) else FAST_TIMEOUT_S


def _bench_requested(config: pytest.Config) -> bool:
    return re.search(r"\bbench\b", config.option.markexpr or "") is not None


def _named_on_command_line(item: pytest.Item, config: pytest.Config) -> bool:
    base = config.invocation_params.dir
    return any((base / arg.split("::")[0]).resolve() == item.path for arg in config.args)


@pytest.hookimpl(tryfirst=True)  # before pytest applies -m
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    timeouts = config.pluginmanager.hasplugin("timeout")
    for item in items:
        if needs_browser(item.path):
            item.add_marker(pytest.mark.browser)
        # Only when the plugin is there: without it `timeout` is an unknown marker.
        if timeouts and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(_time_limit(item)))
    if _bench_requested(config):
        return
    keep, drop = [], []
    for item in items:
        benched = item.get_closest_marker("bench") and not _named_on_command_line(item, config)
        (drop if benched else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
