"""Windows's control channel run end to end on Linux: Chromium (with REINS_TRANSPORT=tcp in its
environment, which its native host inherits) starts the real host through native messaging; the
host listens on a loopback port with a secret instead of its Unix socket; the real CLI finds it
and drives the page, which is the oracle. Its own browser and REINS_HOME: the session browser
(conftest.py) stays on the Unix socket."""

from __future__ import annotations

import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reins.bridge.handshake import read_endpoint

from .conftest import Site, browser_of_its_own
from .support import PROFILE, run_cli

TCP = {"REINS_TRANSPORT": "tcp"}


@pytest.fixture
def tcp_browser() -> Iterator[tuple[Any, Path]]:
    # Its host is waited for by the CLI below: the session's wait knows the Unix socket only.
    with browser_of_its_own("rtcp-", env=TCP, wait=False) as b:
        yield b.driver, b.home


def _connected(home: Path, within: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + within
    answer: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = run_cli(home, "status", env=TCP, timeout=10)
        answer = run.json()
        if run.code == 0 and answer.get("connected"):
            return answer
        time.sleep(0.2)
    raise AssertionError(f"the tcp host did not connect: {answer}")


def test_the_host_and_cli_run_over_the_tcp_transport(
    tcp_browser: tuple[Any, Path], site: Site
) -> None:
    driver, home = tcp_browser
    status = _connected(home)
    run = home / "run"
    endpoint_file = run / f"{PROFILE}.tcp"
    endpoint = read_endpoint(str(endpoint_file))
    assert endpoint is not None and endpoint.pid == status["host"]["pid"]
    assert stat.S_IMODE(endpoint_file.stat().st_mode) == 0o600
    assert not list(run.glob("*.sock")), "the tcp host made a Unix socket too"

    # A CLI without the variable finds the tcp host all the same (profile discovery).
    plain = run_cli(home, "status", profile=None, env={"REINS_TRANSPORT": ""}, timeout=10)
    assert plain.code == 0 and plain.json()["host"]["pid"] == endpoint.pid

    url = site.url("static/actions.html")
    opened = run_cli(home, "tab", "new", url, env=TCP).json()
    assert opened.get("ok"), opened
    tab = str(opened["id"])
    evaluated = run_cli(home, "eval", "document.title + ' ' + location.port", "--tab", tab, env=TCP)
    assert evaluated.code == 0, evaluated.stderr
    assert evaluated.json()["value"] == f"Actions playground {site.port}"

    clicked = run_cli(home, "click", "#covered", "--tab", tab, env=TCP)
    assert clicked.code == 0 and clicked.json()["ok"], clicked.stdout + clicked.stderr
    marker = url.rsplit("t=", 1)[-1]
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if marker in driver.current_url:
            break
    assert driver.execute_script("return window.__log.slice()") == ["covered:click"]
    assert not list(run.glob("*.sock"))
