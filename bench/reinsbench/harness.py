"""How the bench measures and prints: a timed run, a cell of runs, the table, the fixture server.

Timing: whole CLI processes are timed with time.perf_counter around subprocess.run, so process
start-up is included for reins and agent-browser alike; Playwright runs in this process and is the
floor (no process start, no socket hop). Within a repetition the tools take turns, so background
load on this shared 2-core machine falls on all of them alike.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("REINS_BENCH_CHROMIUM", "/usr/bin/chromium")
# This machine's flags (root, no GPU, small /dev/shm, no network services), for every browser.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
CMD_TIMEOUT_S = 180.0


@dataclass
class Run:
    seconds: float
    ok: bool
    out: str = ""
    error: str = ""


@dataclass
class Cell:
    """One tool doing one thing, repeated."""

    runs: list[Run] = field(default_factory=list)
    first: Run | None = None  # the untimed first run (e.g. the first snapshot after opening)
    note: str = ""

    def add(self, run: Run) -> Run:
        self.runs.append(run)
        return run

    @property
    def ok_seconds(self) -> list[float]:
        return [r.seconds for r in self.runs if r.ok]

    @property
    def median_ms(self) -> float | None:
        s = self.ok_seconds
        return statistics.median(s) * 1000 if s else None

    def spread(self) -> str:
        s = self.ok_seconds
        return f"{min(s) * 1000:,.0f}–{max(s) * 1000:,.0f}" if s else "—"

    def failures(self) -> str:
        bad = [r for r in self.runs if not r.ok]
        if self.first is not None and not self.first.ok:
            bad = [self.first, *bad]
        total = len(self.runs) + (1 if self.first is not None else 0)
        if not bad:
            return f"0/{total}"
        codes: dict[str, int] = {}
        for r in bad:
            codes[r.error or "?"] = codes.get(r.error or "?", 0) + 1
        return f"{len(bad)}/{total} (" + "; ".join(f"{c}×{n}" for c, n in codes.items()) + ")"

    def last_ok(self) -> Run | None:
        good = [r for r in self.runs if r.ok]
        return good[-1] if good else (self.first if self.first and self.first.ok else None)


def timed(
    argv: list[str], env: dict[str, str], stdin: str | None = None, timeout: float = CMD_TIMEOUT_S
) -> Run:
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            argv, input=stdin, capture_output=True, text=True, env=env, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return Run(time.perf_counter() - start, False, error=f"killed after {timeout:.0f} s")
    seconds = time.perf_counter() - start
    return Run(
        seconds,
        proc.returncode == 0,
        proc.stdout,
        "" if proc.returncode == 0 else _error_code(proc.stdout, proc.stderr, proc.returncode),
    )


def in_process(fn: Callable[[], object]) -> Run:
    start = time.perf_counter()
    try:
        out = str(fn())
    except Exception as exc:  # a peer's failure is data here, not a crash of the benchmark
        return Run(
            time.perf_counter() - start, False, error=type(exc).__name__ + ": " + str(exc)[:80]
        )
    return Run(time.perf_counter() - start, True, out)


def _error_code(out: str, err: str, rc: int) -> str:
    text = err.strip() or out.strip()
    match = re.search(r"error \[([a-z_]+)\]", text) or re.search(r'"code": "([a-z_]+)"', text)
    if match:
        return match.group(1)
    first = text.splitlines()[0] if text else f"exit {rc}"
    return first.lstrip("✗ ").strip()[:70]


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def median_ms(seconds: list[float]) -> float | None:
    """The median of times taken in seconds, in ms."""
    value = median(seconds)
    return None if value is None else value * 1000


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.2f}×"


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


@contextlib.contextmanager
def fixture_server() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "serve-fixtures"), "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def versions(agent_browser: str | None, playwright: bool) -> dict[str, str]:
    """The machine and every tool's version, for the run's header (``agent_browser``: its line)."""

    def out(argv: list[str]) -> str:
        try:
            return subprocess.run(
                argv, capture_output=True, text=True, check=False, cwd=ROOT
            ).stdout.strip()
        except OSError:
            return "?"

    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    dirty = out(
        ["git", "status", "--porcelain", "--untracked-files=no", "host", "extension", "pagescripts"]
    )
    info = {
        "machine": f"{cpu}, {os.cpu_count()} cores, "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB",
        "os": platform.platform(),
        "chromium": out([CHROMIUM, "--version"]),
        "python": platform.python_version(),
        "reins": out(["git", "rev-parse", "--short", "HEAD"])
        + (
            " + uncommitted changes in "
            + ", ".join(sorted({line.split()[-1] for line in dirty.splitlines()}))
            if dirty
            else ""
        ),
    }
    if agent_browser:
        info["agent-browser"] = agent_browser
    if playwright:
        from importlib.metadata import version

        info["playwright"] = version("playwright")
    return info
