"""The one way browser tests run the reins CLI: a real `python -m reins.cli` process, as a user
runs it, under a given REINS_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROFILE = "test"  # the session browser's reins profile (conftest.py)


@dataclass(frozen=True)
class CliRun:
    """A finished CLI process."""

    code: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, Any]:
        """The answer on the last stdout line; ``{"stderr": ...}`` when there is no output."""
        out = self.stdout.strip().splitlines()
        return json.loads(out[-1]) if out else {"stderr": self.stderr}  # type: ignore[no-any-return]

    def json_lines(self) -> list[dict[str, Any]]:
        """Every stdout line that is a JSON object (`--json` answers, one per line)."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]


def cli_process_args(
    home: Path,
    *args: str,
    profile: str | None = PROFILE,
    as_json: bool = True,
    env: Mapping[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """argv and environment for one CLI run: ``--profile PROFILE`` unless profile is None,
    ``--json`` when as_json, ARGS as given; REINS_HOME=home plus `env` over os.environ."""
    argv = [sys.executable, "-m", "reins.cli"]
    if profile is not None:
        argv += ["--profile", profile]
    if as_json:
        argv.append("--json")
    return [*argv, *args], {**os.environ, "REINS_HOME": str(home), **(env or {})}


def run_cli(
    home: Path,
    *args: str,
    profile: str | None = PROFILE,
    as_json: bool = True,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> CliRun:
    """Run the CLI to completion (see `cli_process_args`); stdin is the process's input."""
    argv, full_env = cli_process_args(home, *args, profile=profile, as_json=as_json, env=env)
    proc = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=cwd
    )
    return CliRun(proc.returncode, proc.stdout, proc.stderr)


def start_cli(
    home: Path,
    *args: str,
    profile: str | None = PROFILE,
    as_json: bool = True,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[str]:
    """Start the CLI without waiting for it (for a test that signals it mid-command)."""
    argv, full_env = cli_process_args(home, *args, profile=profile, as_json=as_json, env=env)
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env
    )


def mcp_server(home: Path, *args: str, profile: str = PROFILE, cwd: Path | None = None) -> Any:
    """`python -m reins.cli --profile PROFILE mcp ARGS` as an MCP client starts it (the SDK's
    StdioServerParameters), in directory `cwd` (default: this process's): the client passes on
    only a few variables of its own environment, so REINS_HOME (and PYTHONPATH, for a source
    checkout) are given explicitly."""
    from mcp import StdioServerParameters

    env = {"REINS_HOME": str(home)}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "reins.cli", "--profile", profile, "mcp", *args],
        env=env,
        cwd=cwd,
    )


class WaitingCommand:
    """A command that waits on the page forever (a promise that never settles), in a thread:
    what a test interrupts (a crash, a closed tab, Cancel, a refused page) to see how it ends.
    ``answer`` is its one answer and ``at`` when it came."""

    def __init__(self, browser: Any, tab_id: int, *, timeout_ms: int = 20_000) -> None:
        self.answer: dict[str, Any] = {}
        self.at = 0.0
        params = {"expression": "new Promise(() => {})", "awaitPromise": True}

        def run() -> None:
            self.answer = browser.call(
                "cdp",
                {"method": "Runtime.evaluate", "params": params},
                tab=tab_id,
                timeout_ms=timeout_ms,
            )
            self.at = time.monotonic()

        self._thread = threading.Thread(target=run)
        self._thread.start()
        time.sleep(0.5)  # the request is at the page

    def join(self, timeout: float = 10) -> None:
        self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread.is_alive()


def close_every_page(driver: Any) -> None:
    """Close every tab of the browser as its user would, outside reins (chromedriver's CDP)."""
    targets = driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    pages = [t["targetId"] for t in targets if t["type"] == "page"]
    try:
        own = driver.current_window_handle  # chromedriver's window handle is its target id
    except Exception:  # its window is gone already
        own = None
    # chromedriver's own window last: its commands go through it.
    for target_id in sorted(pages, key=lambda t: t == own):
        driver.execute_cdp_cmd("Target.closeTarget", {"targetId": target_id})
