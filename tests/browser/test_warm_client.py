"""The compiled `reins` client through the warm CLI, against the real host and browser: the page's
own click log is the oracle, and each answer is the console script's for the same command.

The client is built from its source (host/reins/cli/warmclient.c) into a folder beside a
`reins-py` that runs the console script, as an install lays them out (tests/unit/test_warm_client.py
covers its parsing, signals and staleness without a browser).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser
from .support import PROFILE

SOURCE = Path(__file__).resolve().parents[2] / "host" / "reins" / "cli" / "warmclient.c"


@pytest.fixture
def bins(tmp_path: Path, browser: Browser) -> Iterator[Path]:
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "no C compiler: scripts/bootstrap installs gcc"
    subprocess.run([cc, "-O2", "-o", str(tmp_path / "reins"), str(SOURCE)], check=True)
    console = tmp_path / "reins-py"
    marker = tmp_path / "console-runs"
    console.write_text(
        f'#!/bin/sh\necho run >> "{marker}"\nexec "{sys.executable}" -m reins.cli "$@"\n'
    )
    console.chmod(0o755)
    yield tmp_path
    # The warm CLI this test started (its socket folder is in the session's REINS_HOME).
    for sock in (browser.home / "warm").glob("*.sock"):
        sock.unlink()


def _run(bins: Path, browser: Browser, exe: str, *args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REINS_")}
    env["REINS_HOME"] = str(browser.home)
    done = subprocess.run(
        [str(bins / exe), "--profile", PROFILE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    return done.returncode, done.stdout, done.stderr


def test_commands_through_the_warm_cli_act_and_answer_as_the_console_script(
    bins: Path, browser: Browser, page: Any
) -> None:
    tab, _url = page("static/eval.html")
    where = ["--tab", str(tab)]
    _run(bins, browser, "reins", "--json", "status")  # starts the warm CLI
    for _ in range(100):
        if list((browser.home / "warm").glob("*.sock")):
            break
        time.sleep(0.05)
    assert list((browser.home / "warm").glob("*.sock")), "no warm CLI started"

    code, out, err = _run(bins, browser, "reins", "--json", "click", "#press", *where)
    assert code == 0, err
    assert json.loads(out)["ok"] is True
    clicks = browser.ok("eval", "window.__clicks", "--tab", str(tab))["value"]
    assert len(clicks) == 1 and clicks[0]["trusted"] is True

    lines = (
        ["eval", "document.title", *where],
        ["--json", "eval", "window.__clicks.length", *where],
        ["state", *where],
        ["eval", "throw new Error('x')", *where],
        ["click", "#nosuch", "--timeout-ms", "300", *where],
    )
    for line in lines:
        warm = _run(bins, browser, "reins", *line)
        plain = _run(bins, browser, "reins-py", *line)
        assert warm == plain, line
    assert browser.ok("eval", "window.__clicks.length", "--tab", str(tab))["value"] == 1
    # The console script ran for the first command (which started the warm CLI) and for the
    # plain runs only: every other answer came from the warm CLI.
    assert (bins / "console-runs").read_text().count("run") == 1 + len(lines)
