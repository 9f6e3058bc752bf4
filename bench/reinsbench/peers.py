"""The tools side by side: reins and agent-browser as whole CLI processes, Playwright in this
process; and how each one's observation names its references."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from .harness import CHROMIUM, CHROMIUM_FLAGS, ROOT, Run, in_process, timed

PROFILE = "bench"

# What the installed `reins` console script runs (pyproject's entry point), here on this checkout's
# code: worktrees share one .venv, whose script may point at another checkout or entry point.
CONSOLE_SCRIPT = "import sys; from reins.cli import console; sys.exit(console())"


class Reins:
    name = "reins"

    def __init__(self, home: Path) -> None:
        self.python = str(ROOT / ".venv" / "bin" / "python")
        # The console script (`reins-py`), and `reins` as an install with a C compiler has it:
        # the compiled client (host/reins/cli/warmclient.c) beside it, handing each command to
        # the warm CLI. Both built here from this checkout.
        self.console = [self.python, "-c", CONSOLE_SCRIPT]
        self.client = self._build_client(home / "bin")
        self.exe = [self.client] if self.client else self.console
        self.env = {
            **os.environ,
            "REINS_HOME": str(home),
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT / "host"), os.environ.get("PYTHONPATH")])
            ),
            "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ.get('PATH', '')}",
        }
        self.env.pop("REINS_PROFILE", None)

    def _build_client(self, folder: Path) -> str | None:
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        source = ROOT / "host" / "reins" / "cli" / "warmclient.c"
        built = subprocess.run(
            [cc, "-O2", "-o", str(folder / "reins"), str(source)], capture_output=True, check=False
        )
        if built.returncode != 0:
            return None
        script = folder / "reins-py"
        script.write_text(f"#!/bin/sh\nexec {self.python} -c '{CONSOLE_SCRIPT}' \"$@\"\n")
        script.chmod(0o755)
        return str(folder / "reins")

    def cli_console(self, *args: str) -> Run:
        """The same command through the console script (`reins-py`): no warm CLI."""
        return timed([*self.console, "--profile", PROFILE, *args], self.env)

    def compile(self) -> str:
        """Write reins's bytecode before timing anything, as pip does for a regular install: an
        editable install leaves it to the first run, and a shell with PYTHONDONTWRITEBYTECODE set
        never writes it, so each timed start would compile the CLI's modules again (~30 ms)."""
        subprocess.run(
            [self.python, "-m", "compileall", "-q", str(ROOT / "host" / "reins")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        flag = os.environ.get("PYTHONDONTWRITEBYTECODE")
        return "compiled at start" + (
            f" (PYTHONDONTWRITEBYTECODE={flag} in this shell)" if flag else ""
        )

    def cli(self, *args: str, stdin: str | None = None) -> Run:
        return timed([*self.exe, "--profile", PROFILE, *args], self.env, stdin)

    def launch(self) -> None:
        run = timed(
            [*self.exe, "--profile", PROFILE, "launch", "--headless", "--browser", CHROMIUM],
            self.env,
            timeout=90,
        )
        if not run.ok:
            raise SystemExit(f"bench: reins launch failed: {run.error}")

    def shutdown(self) -> None:
        timed([*self.exe, "--profile", PROFILE, "shutdown"], self.env, timeout=30)

    def open(self, url: str) -> Run:
        run = self.cli("navigate", url)
        if not run.ok and run.error == "tab_unresponsive":
            run = self.cli("tab", "new", url)  # a wedged tab cannot be navigated: take a new one
        return run

    def eval(self, expression: str) -> Any:
        run = self.cli("--json", "eval", expression)
        return json.loads(run.out).get("value") if run.ok else None

    def host_pid(self) -> int | None:
        run = self.cli("--json", "status")
        return int(json.loads(run.out)["host"]["pid"]) if run.ok else None


class AgentBrowser:
    name = "agent-browser"

    def __init__(self, exe: str, sockets: Path) -> None:
        self.exe = exe
        self.env = {
            **os.environ,
            "AGENT_BROWSER_EXECUTABLE_PATH": CHROMIUM,
            "AGENT_BROWSER_ARGS": ",".join(CHROMIUM_FLAGS),
            "AGENT_BROWSER_SOCKET_DIR": str(sockets),
            "AGENT_BROWSER_SESSION": "reins-bench",
        }

    @staticmethod
    def find() -> str | None:
        if os.environ.get("AGENT_BROWSER_BIN"):
            return os.environ["AGENT_BROWSER_BIN"]
        arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
        # The native binary the npm package ships (its node wrapper would add a node start-up).
        native = (
            ROOT
            / "bench"
            / "agent-browser"
            / "node_modules"
            / "agent-browser"
            / "bin"
            / f"agent-browser-linux-{arch}"
        )
        if native.exists():
            return str(native)
        return shutil.which("agent-browser")

    def cli(self, *args: str) -> Run:
        return timed([self.exe, *args], self.env)

    def version(self) -> str:
        return self.cli("--version").out.strip().removeprefix("agent-browser ")

    def open(self, url: str) -> Run:
        return self.cli("open", url)

    def eval(self, expression: str) -> Any:
        run = self.cli("--json", "eval", expression)
        if not run.ok:
            return None
        data = json.loads(run.out).get("data") or {}
        return data.get("result")

    def close(self) -> None:
        timed([self.exe, "close"], self.env, timeout=30)


class PlaywrightPeer:
    name = "playwright"

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True
        )
        self.page = self.browser.new_page()
        self.page.set_default_timeout(120_000)

    @staticmethod
    def available() -> bool:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            return False
        return True

    def open(self, url: str) -> Run:
        return in_process(lambda: str(self.page.goto(url)))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.browser.close()
        with contextlib.suppress(Exception):
            self._pw.stop()


AB_LINE = re.compile(r'^\s*- (\w+) "((?:[^"\\]|\\.)*)".*?ref=(\w+)')


def ab_refs(snapshot: str) -> dict[tuple[str, str], str]:
    refs: dict[tuple[str, str], str] = {}
    for line in snapshot.splitlines():
        m = AB_LINE.match(line)
        if m:
            refs.setdefault((m.group(1), m.group(2)), m.group(3))
    return refs


REINS_LINE = re.compile(r'^(@\S+) (\w+) "((?:[^"\\]|\\.)*)"')


def reins_refs(state: str) -> dict[tuple[str, str], str]:
    refs: dict[tuple[str, str], str] = {}
    for line in state.splitlines():
        m = REINS_LINE.match(line)
        if m:
            refs.setdefault((m.group(2), m.group(3)), m.group(1))
    return refs


def count_refs(tool: str, text: str) -> int:
    if tool.startswith("reins"):
        return sum(1 for line in text.splitlines() if line.startswith("@"))
    return len(re.findall(r"\bref=\w+", text))
