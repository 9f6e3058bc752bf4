"""reins side by side with agent-browser and Playwright, in one run, on the same Chromium and pages.

Run through `scripts/bench` (it picks the project's .venv). Prints markdown tables: medians over
repetitions, failures counted (never dropped), and ratios reins/peer. Not a test: no timed asserts.
The test suite runs `scripts/bench --quick` only so this script cannot rot.

Timing: whole CLI processes are timed with time.perf_counter around subprocess.run, so process
start-up is included for reins and agent-browser alike; Playwright runs in this process and is the
floor (no process start, no socket hop). Within a repetition the tools take turns, so background
load on this shared 2-core machine falls on all of them alike.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
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
PROFILE = "bench"
SLOW_RUN_S = 20.0  # a cell whose first run takes longer than this gets SLOW_REPS repetitions
SLOW_REPS = 3
CMD_TIMEOUT_S = 180.0
FLOW_OPTION = "Meals"


# ---- measuring --------------------------------------------------------------------------------


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


def in_process(fn: Callable[[], str]) -> Run:
    start = time.perf_counter()
    try:
        out = fn()
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


# ---- the tools --------------------------------------------------------------------------------


# What the installed `reins` console script runs (pyproject's entry point), here on this checkout's
# code: worktrees share one .venv, whose script may point at another checkout or entry point.
CONSOLE_SCRIPT = "import sys; from reins.cli import main; sys.exit(main())"


class Reins:
    name = "reins"

    def __init__(self, home: Path) -> None:
        self.python = str(ROOT / ".venv" / "bin" / "python")
        self.exe = [self.python, "-c", CONSOLE_SCRIPT]
        self.env = {
            **os.environ,
            "REINS_HOME": str(home),
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT / "host"), os.environ.get("PYTHONPATH")])
            ),
            "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ.get('PATH', '')}",
        }
        self.env.pop("REINS_PROFILE", None)

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


# ---- output parsing ---------------------------------------------------------------------------

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


# ---- the benchmark ----------------------------------------------------------------------------


@dataclass
class Bench:
    reps: int
    sizes: list[int]
    small_n: int
    batch_len: int
    flow_reps: int
    base: str
    reins: Reins
    ab: AgentBrowser | None
    pw: PlaywrightPeer | None
    out: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    quiet_verify: list[str] = field(default_factory=list)

    def say(self, text: str = "") -> None:
        print(text, flush=True)
        self.out.append(text)

    def progress(self, text: str) -> None:
        print(f"  … {text}", file=sys.stderr, flush=True)

    def url(self, path: str) -> str:
        return f"{self.base}/{path}"

    # 5. trivial commands ----------------------------------------------------------------------

    def bridge(self) -> None:
        self.progress("trivial commands")
        self.reins.open(self.url(f"static/big.html?n={self.small_n}"))
        py = self.reins.python
        cells: dict[str, Cell] = {
            k: Cell()
            for k in (
                "reins status",
                "reins tabs",
                "reins cdp Runtime.evaluate 1",
                "python -c pass (interpreter start)",
                "python -c 'import reins.cli' (start + CLI imports)",
            )
        }
        ab_cell = Cell() if self.ab else None
        if self.ab:
            self.ab.open(self.url(f"static/big.html?n={self.small_n}"))
        for _ in range(self.reps):
            cells["reins status"].add(self.reins.cli("status"))
            cells["reins tabs"].add(self.reins.cli("tabs"))
            cells["reins cdp Runtime.evaluate 1"].add(
                self.reins.cli("cdp", "Runtime.evaluate", '{"expression":"1"}')
            )
            cells["python -c pass (interpreter start)"].add(
                timed([py, "-c", "pass"], self.reins.env)
            )
            cells["python -c 'import reins.cli' (start + CLI imports)"].add(
                timed([py, "-c", "import reins.cli"], self.reins.env)
            )
            if self.ab and ab_cell is not None:
                ab_cell.add(self.ab.cli("get", "title"))
        rows = [[k, fmt_ms(c.median_ms), c.spread(), c.failures()] for k, c in cells.items()]
        if ab_cell is not None:
            rows.append(
                [
                    "agent-browser get title (for comparison)",
                    fmt_ms(ab_cell.median_ms),
                    ab_cell.spread(),
                    ab_cell.failures(),
                ]
            )
        self.say("## Trivial commands, whole process (issue 2: ≤ 50 ms)\n")
        self.say(table(["command", "median ms", "min–max ms", "failures"], rows))
        self.say()
        self.data["bridge"] = {k: c.median_ms for k, c in cells.items()}
        if ab_cell is not None:
            self.data["bridge"]["agent-browser get title"] = ab_cell.median_ms

    # 4. memory -------------------------------------------------------------------------------

    def rss(self, label: str) -> None:
        pid = self.reins.host_pid()
        fields = {}
        if pid:
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key in ("VmRSS", "VmHWM"):
                        fields[key] = int(value.split()[0]) / 1024
        self.data.setdefault("memory", []).append({"when": label, "pid": pid, **fields})

    def memory_table(self) -> None:
        rows = [
            [m["when"], str(m["pid"]), f"{m.get('VmRSS', 0):.1f}", f"{m.get('VmHWM', 0):.1f}"]
            for m in self.data.get("memory", [])
        ]
        self.say("## reins host memory (RSS of the host process, /proc/PID/status)\n")
        self.say(table(["when", "host pid", "VmRSS MiB", "VmHWM (peak) MiB"], rows))
        self.say()

    # state --diff ------------------------------------------------------------------------------

    def diff(self) -> None:
        """`state --diff` after a small change (one button renamed, one added) next to `state`."""
        rows = []
        for n in self.sizes:
            url = self.url(f"static/big.html?n={n}")
            self.progress(f"state --diff, n={n}")
            self.reins.open(url)
            full, diff = Cell(), Cell()
            full_size = diff_size = 0
            for rep in range(self.reps):
                self.reins.eval(
                    f"(() => {{ const b = document.querySelector('button');"
                    f" b.textContent = 'Renamed {rep}'; const c = document.createElement('button');"
                    f" c.textContent = 'Added {rep}'; document.body.prepend(c); return 1; }})()"
                )
                run = full.add(self.reins.cli("state"))
                full_size = len(run.out) if run.ok else full_size
                self.reins.eval(f"document.querySelector('button').textContent = 'Again {rep}'")
                run = diff.add(self.reins.cli("state", "--diff"))
                diff_size = len(run.out) if run.ok else diff_size
            rows.append(
                [
                    f"{n:,}",
                    fmt_ms(full.median_ms),
                    f"{full_size:,}",
                    f"{-(-full_size // 4):,}",
                    fmt_ms(diff.median_ms),
                    f"{diff_size:,}",
                    f"{-(-diff_size // 4):,}",
                    f"{diff_size / full_size:.1%}" if full_size else "—",
                    f"{full.failures()} / {diff.failures()}",
                ]
            )
            self.data.setdefault("diff", {})[n] = {
                "state_ms": full.median_ms,
                "state_chars": full_size,
                "diff_ms": diff.median_ms,
                "diff_chars": diff_size,
            }
        self.say("## state --diff after a small change, next to state (big.html?n=N)\n")
        self.say(
            "Each repetition renames the first button and adds one, takes `reins state`, renames "
            "the first button again and takes `reins state --diff` (whole processes; text output; "
            "tokens ≈ chars/4).\n"
        )
        self.say(
            table(
                [
                    "N",
                    "state median ms",
                    "state chars",
                    "≈ tokens",
                    "--diff median ms",
                    "--diff chars",
                    "≈ tokens",
                    "size diff/state",
                    "failures state / diff",
                ],
                rows,
            )
        )
        self.say()

    # host memory after a big page ---------------------------------------------------------------

    def memory(self) -> None:
        n = max(self.sizes)
        self.progress(f"memory, n={n}")
        self.reins.open(self.url(f"static/big.html?n={self.small_n}"))
        self.reins.cli("state")
        self.rss("small page, after state")
        self.reins.open(self.url(f"static/big.html?n={n}"))
        for _ in range(2):
            self.reins.cli("state")
        self.rss(f"after 2 states of n={n} (dom)")
        self.reins.cli("find", "--text", "Button 5")
        self.rss(f"after find on n={n} (its interaction map)")
        self.reins.open(self.url(f"static/big.html?n={self.small_n}"))
        self.rss("navigated to the small page, before observing it")
        self.reins.cli("state")
        time.sleep(1.0)  # the host gives memory back just after the answer
        self.rss("small page, 1 s after its state")

    # 1. snapshots ----------------------------------------------------------------------------

    def snapshots(self) -> None:
        # Each reins source observes the page in a tab of its own, as an agent using one source
        # does: taking turns on one tab, each source's look would redefine what the other's
        # registry entries and carried-over records say, which no agent does.
        tabs: dict[str, str] = {}
        tools: list[tuple[str, Callable[[], Run]]] = [
            ("reins state (dom)", lambda: self.reins.cli("--tab", tabs["dom"], "state")),
            (
                "reins state --source ax",
                lambda: self.reins.cli("--tab", tabs["ax"], "state", "--source", "ax"),
            ),
        ]
        if self.ab:
            ab = self.ab
            tools.append(("agent-browser snapshot -i", lambda: ab.cli("snapshot", "-i")))
        if self.pw:
            page = self.pw.page
            tools.append(
                (
                    "playwright aria_snapshot()",
                    lambda: in_process(lambda: page.aria_snapshot(timeout=0)),
                )
            )
            tools.append(
                (
                    "playwright aria_snapshot(mode=ai)",
                    lambda: in_process(lambda: page.aria_snapshot(mode="ai", timeout=0)),
                )
            )
        results: dict[int, dict[str, Cell]] = {}
        for n in self.sizes:
            url = self.url(f"static/big.html?n={n}")
            self.progress(f"snapshots, n={n}")
            opens = {"reins": self.reins.open(url)}
            tabs["dom"] = str(self.reins_current_tab())
            tabs["ax"], opened = self.reins_new_tab(url)
            opens["reins (ax tab)"] = opened
            if self.ab:
                opens["agent-browser"] = self.ab.open(url)
            if self.pw:
                opens["playwright"] = self.pw.open(url)
            for tool, run in opens.items():
                if not run.ok:
                    self.progress(f"{tool}: opening {url} failed: {run.error}")
            cells = {name: Cell() for name, _ in tools}
            wanted: dict[str, int] = {}
            for name, fn in tools:  # the first snapshot after opening: untimed, failures counted
                first = fn()
                cells[name].first = first
                if name.startswith("reins") and first.error in ("timeout", "tab_unresponsive"):
                    self.reopen_reins(tabs, name, url)
                wanted[name] = SLOW_REPS if first.seconds > SLOW_RUN_S else self.reps
                if wanted[name] < self.reps:
                    cells[
                        name
                    ].note = f"{wanted[name]} reps (first run {first.seconds:.0f} s > {SLOW_RUN_S:.0f} s)"
                self.progress(
                    f"  {name}: first {first.seconds * 1000:,.0f} ms "
                    f"{'ok' if first.ok else 'FAILED ' + first.error}"
                )
            for rep in range(max(wanted.values())):
                for name, fn in tools:
                    if rep < wanted[name]:
                        run = cells[name].add(fn())
                        if name.startswith("reins") and run.error in (
                            "timeout",
                            "tab_unresponsive",
                        ):
                            self.progress(f"  {name}: {run.error}; reopening the page (untimed)")
                            self.reopen_reins(tabs, name, url)
            self.reins.cli("tab", "close", tabs["ax"])
            self.reins.cli("tab", "select", tabs["dom"])
            results[n] = cells
            if n == max(self.sizes):
                self.rss(f"after the n={n} snapshots (both sources)")
        self._snapshot_tables(results)

    def reins_current_tab(self) -> int | None:
        run = self.reins.cli("--json", "tabs")
        return json.loads(run.out).get("current") if run.ok else None

    def reins_new_tab(self, url: str) -> tuple[str, Run]:
        """A tab of reins's own on ``url`` (its id, and the run); the tab before stays current."""
        before = self.reins_current_tab()
        run = self.reins.cli("--json", "tab", "new", url)
        tab = str(json.loads(run.out).get("id")) if run.ok else str(before)
        if before is not None:
            self.reins.cli("tab", "select", str(before))
        return tab, run

    def reopen_reins(self, tabs: dict[str, str], name: str, url: str) -> None:
        """A wedged tab cannot be navigated: the source whose look failed gets a new one."""
        which = "ax" if "--source ax" in name else "dom"
        self.reins.cli("tab", "close", tabs[which])
        tabs[which], _ = self.reins_new_tab(url)

    def _snapshot_tables(self, results: dict[int, dict[str, Cell]]) -> None:
        self.say("## Snapshot of big.html?n=N (N interactive elements)\n")
        self.say(
            "Medians of the timed repetitions; the first snapshot after opening the page is run "
            "once untimed (its time is the 'first look' column: no earlier observation of the "
            "page to carry anything over from) and its failure, if any, is counted. Each reins "
            "source looks at the page in a tab of its own. reins and agent-browser: whole "
            "process; Playwright: in-process call. Size: characters printed; tokens ≈ chars/4; "
            "refs: addressable references in the output.\n"
        )
        rows = []
        summary: dict[str, Any] = {}
        for n, cells in results.items():
            for name, cell in cells.items():
                last = cell.last_ok()
                chars = len(last.out) if last else None
                med = cell.median_ms
                rows.append(
                    [
                        f"{n:,}",
                        name,
                        fmt_ms(med),
                        cell.spread(),
                        fmt_ms(cell.first.seconds * 1000) if cell.first else "—",
                        f"{chars:,}" if chars is not None else "—",
                        f"{chars // 4:,}" if chars is not None else "—",
                        f"{count_refs(name, last.out):,}" if last else "—",
                        f"{med / n * 1000:,.0f}" if med is not None else "—",
                        cell.failures(),
                        str(len(cell.runs)) + (f" ({cell.note})" if cell.note else ""),
                    ]
                )
                summary.setdefault(str(n), {})[name] = {
                    "median_ms": med,
                    "chars": chars,
                    "failures": cell.failures(),
                    "reps": len(cell.runs),
                }
        self.say(
            table(
                [
                    "N",
                    "tool",
                    "median ms",
                    "min–max ms",
                    "first look ms (untimed run)",
                    "chars",
                    "≈ tokens",
                    "refs",
                    "µs per element",
                    "failures",
                    "reps",
                ],
                rows,
            )
        )
        self.say()
        self.data["snapshots"] = summary
        if "agent-browser snapshot -i" in next(iter(results.values())) or self.pw:
            rows = []
            for n, cells in results.items():
                dom, ax = cells["reins state (dom)"], cells["reins state --source ax"]
                for peer in ("agent-browser snapshot -i", "playwright aria_snapshot(mode=ai)"):
                    if peer not in cells:
                        continue
                    p = cells[peer]
                    pl, dl, al = p.last_ok(), dom.last_ok(), ax.last_ok()
                    rows.append(
                        [
                            f"{n:,}",
                            peer,
                            ratio(dom.median_ms, p.median_ms),
                            ratio(ax.median_ms, p.median_ms),
                            ratio(len(dl.out) if dl else None, len(pl.out) if pl else None),
                            ratio(len(al.out) if al else None, len(pl.out) if pl else None),
                        ]
                    )
            self.say("### Ratios reins/peer (time: medians; size: characters)\n")
            self.say(
                table(
                    ["N", "peer", "time dom/peer", "time ax/peer", "size dom/peer", "size ax/peer"],
                    rows,
                )
            )
            self.say()

    # 2. one action on a small page -----------------------------------------------------------

    def actions(self) -> None:
        url = self.url(f"static/big.html?n={self.small_n}")
        self.progress(f"actions on big.html?n={self.small_n}")
        reset = "window.__log = []; document.getElementById('input-2').value = ''; 0"
        clicks = "window.__log.filter(l => l === 'click:btn-0').length"
        value = "document.getElementById('input-2').value"
        cells: dict[str, Cell] = {}
        verify: dict[str, str] = {}

        self.reins.open(url)
        self.reins.cli("state")  # refs exist once the page has been observed
        ab_ref: dict[tuple[str, str], str] = {}
        if self.ab:
            self.ab.open(url)
            ab_ref = ab_refs(self.ab.cli("snapshot", "-i").out)
        if self.pw:
            self.pw.open(url)
        # warm-up, untimed, then reset the page's log so the oracle counts only timed actions
        self.reins.cli("click", "@btn0")
        self.reins.eval(reset)
        if self.ab:
            self.ab.cli("click", ab_ref.get(("button", "Button 0"), "@e2"))
            self.ab.eval(reset)
        if self.pw:
            self.pw.page.click("#btn-0")
            self.pw.page.evaluate(reset)

        names = ["reins click @ref", "reins fill @ref text"]
        if self.ab:
            names += ["agent-browser click @eN", "agent-browser fill @eN text"]
        if self.pw:
            names += ["playwright page.click (in-process)", "playwright page.fill (in-process)"]
        cells = {n: Cell() for n in names}
        ab_btn = "@" + ab_ref.get(("button", "Button 0"), "e2")
        ab_inp = "@" + ab_ref.get(("textbox", "Field 2"), "e4")
        page = self.pw.page if self.pw else None
        for rep in range(self.reps):
            text = f"hello {rep}"
            cells["reins click @ref"].add(self.reins.cli("click", "@btn0"))
            cells["reins fill @ref text"].add(self.reins.cli("fill", "@input2", text))
            if self.ab:
                cells["agent-browser click @eN"].add(self.ab.cli("click", ab_btn))
                cells["agent-browser fill @eN text"].add(self.ab.cli("fill", ab_inp, text))
            if page is not None:
                cells["playwright page.click (in-process)"].add(
                    in_process(lambda p=page: str(p.click("#btn-0")))
                )
                cells["playwright page.fill (in-process)"].add(
                    in_process(lambda t=text, p=page: str(p.fill("#input-2", t)))
                )
        last = f"hello {self.reps - 1}"
        ok_clicks = sum(r.ok for r in cells["reins click @ref"].runs)
        verify["reins"] = (
            f"{self.reins.eval(clicks)}/{ok_clicks} clicks, value {self.reins.eval(value)!r}"
        )
        if self.ab:
            ok_clicks = sum(r.ok for r in cells["agent-browser click @eN"].runs)
            verify["agent-browser"] = (
                f"{self.ab.eval(clicks)}/{ok_clicks} clicks, value {self.ab.eval(value)!r}"
            )
        if self.pw:
            verify["playwright"] = (
                f"{self.pw.page.evaluate(clicks)}/{self.reps} clicks, "
                f"value {self.pw.page.evaluate(value)!r}"
            )

        # reins batch: batch_len commands over one connection, per command
        batch: dict[str, Cell] = {
            "reins batch, click per command": Cell(),
            "reins batch, fill per command": Cell(),
        }
        if self.ab:
            batch["agent-browser batch, click per command"] = Cell()
        click_lines = "\n".join(["click @btn0"] * self.batch_len) + "\n"
        fill_lines = (
            "\n".join(f"fill @input2 {shlex.quote(f'batch {i}')}" for i in range(self.batch_len))
            + "\n"
        )
        for _ in range(self.reps):
            for key, lines in (
                ("reins batch, click per command", click_lines),
                ("reins batch, fill per command", fill_lines),
            ):
                run = self.reins.cli("batch", stdin=lines)
                answers = [json.loads(x) for x in run.out.splitlines() if x.startswith("{")]
                ok = run.ok and len(answers) == self.batch_len and all(a.get("ok") for a in answers)
                batch[key].add(
                    Run(
                        run.seconds / self.batch_len,
                        ok,
                        run.out,
                        run.error or ("" if ok else "a line failed"),
                    )
                )
            if self.ab:
                run = self.ab.cli("batch", *[f"click {ab_btn}"] * self.batch_len)
                batch["agent-browser batch, click per command"].add(
                    Run(run.seconds / self.batch_len, run.ok, run.out, run.error)
                )

        quiet = self._quiet_clicks()
        if self.pw:
            # the same page, the same run: Playwright's page.click on big.html's button
            pw_click = cells["playwright page.click (in-process)"]
            quiet["playwright page.click, DOM-changing button (big.html)"] = pw_click

        self.say(f"## One action on a small page (big.html?n={self.small_n})\n")
        rows = [
            [k, fmt_ms(c.median_ms), c.spread(), c.failures()]
            for k, c in {**cells, **batch}.items()
        ]
        self.say(table(["command", "median ms", "min–max ms", "failures"], rows))
        self.say()
        self.say(
            "Page as oracle (clicks the page counted / clicks that answered ok, and the input's final "
            f"value; expected {last!r}): " + "; ".join(f"{k}: {v}" for k, v in verify.items())
        )
        self.say()
        self._quiet_table(quiet, med_click=batch["reins batch, click per command"].median_ms)
        med = {k: c.median_ms for k, c in {**cells, **batch}.items()}
        med.update({k: c.median_ms for k, c in quiet.items()})
        self.data["actions"] = med
        if self.ab:
            abc, abf = med["agent-browser click @eN"], med["agent-browser fill @eN text"]
            rows = [
                ["click, whole process", ratio(med["reins click @ref"], abc)],
                ["fill, whole process", ratio(med["reins fill @ref text"], abf)],
                [
                    "reins batch click per command / agent-browser click process",
                    ratio(med["reins batch, click per command"], abc),
                ],
                [
                    "reins batch fill per command / agent-browser fill process",
                    ratio(med["reins batch, fill per command"], abf),
                ],
                [
                    "reins batch click / agent-browser batch click, per command",
                    ratio(
                        med["reins batch, click per command"],
                        med["agent-browser batch, click per command"],
                    ),
                ],
            ]
            self.say("### Ratios reins/agent-browser\n")
            self.say(table(["what", "reins/agent-browser"], rows))
            self.say()

    def _quiet_clicks(self) -> dict[str, Cell]:
        """A click whose handler changes no DOM (effects.html #quiet), per command in a reins batch
        and as Playwright's page.click on the same page."""
        url = self.url("static/effects.html")
        self.progress("clicks that change no DOM (effects.html #quiet)")
        count = "window.__log.filter(l => l === 'quiet:click').length"
        cells = {"reins batch, click per command, no DOM change": Cell()}
        self.reins.open(url)
        ref = reins_refs(self.reins.cli("state").out).get(("button", "Changes nothing"), "#quiet")
        self.reins.cli("click", ref)  # warm-up (and the focus moves to it once)
        lines = "\n".join([f"click {ref}"] * self.batch_len) + "\n"
        ok_clicks = 1
        for _ in range(self.reps):
            run = self.reins.cli("batch", stdin=lines)
            answers = [json.loads(x) for x in run.out.splitlines() if x.startswith("{")]
            ok = run.ok and len(answers) == self.batch_len and all(a.get("ok") for a in answers)
            ok_clicks += sum(bool(a.get("ok")) for a in answers)
            cells["reins batch, click per command, no DOM change"].add(
                Run(
                    run.seconds / self.batch_len,
                    ok,
                    run.out,
                    run.error or ("" if ok else "a line failed"),
                )
            )
        self.quiet_verify = [f"reins: {self.reins.eval(count)}/{ok_clicks} clicks"]
        if self.pw:
            page = self.pw.page
            self.pw.open(url)
            page.click("#quiet")
            key = "playwright page.click, no DOM change (in-process)"
            cells[key] = Cell()
            for _ in range(self.reps):
                cells[key].add(in_process(lambda p=page: str(p.click("#quiet"))))
            self.quiet_verify.append(f"playwright: {page.evaluate(count)}/{self.reps + 1} clicks")
        return cells

    def _quiet_table(self, quiet: dict[str, Cell], *, med_click: float | None) -> None:
        self.say("### Click in a reins batch vs Playwright's page.click (same run)\n")
        rows = [[k, fmt_ms(c.median_ms), c.spread(), c.failures()] for k, c in quiet.items()]
        self.say(table(["command", "median ms", "min–max ms", "failures"], rows))
        self.say()
        self.say(
            "Page as oracle (clicks the page counted / clicks sent): "
            + "; ".join(self.quiet_verify)
        )
        self.say()
        pw_dom = quiet.get("playwright page.click, DOM-changing button (big.html)")
        pw_quiet = quiet.get("playwright page.click, no DOM change (in-process)")
        if pw_dom and pw_quiet:
            rows = [
                ["DOM-changing button (big.html)", ratio(med_click, pw_dom.median_ms)],
                [
                    "no DOM change (effects.html #quiet)",
                    ratio(
                        quiet["reins batch, click per command, no DOM change"].median_ms,
                        pw_quiet.median_ms,
                    ),
                ],
            ]
            self.say(table(["click", "reins batch / playwright page.click (goal ≤ 0.7)"], rows))
            self.say()

    # 3. the expense-form dropdown flow -------------------------------------------------------

    def flow(self) -> None:
        url = self.url("app/expense.html")
        self.progress("expense-form flow")
        Steps = list[tuple[str, Run]]
        saved_js = "document.querySelector('#saved').textContent"
        missing = Run(0, False, error="no ref for it in the observation")

        def reins_flow() -> tuple[Steps, str]:
            r = self.reins
            steps = [("observe", r.cli("state"))]
            refs = reins_refs(steps[0][1].out)
            steps.append(
                (
                    "fill merchant",
                    r.cli(
                        "fill", refs.get(("textbox", "Merchant"), "@merchant"), "Blue Bottle Coffee"
                    ),
                )
            )
            steps.append(
                ("fill amount", r.cli("fill", refs.get(("textbox", "Amount"), "@amount"), "12.50"))
            )
            steps.append(
                (
                    "click trigger",
                    r.cli("click", refs.get(("combobox", "Category"), "@categorytrig")),
                )
            )
            steps.append(("observe menu", r.cli("state")))
            option = reins_refs(steps[-1][1].out).get(("option", FLOW_OPTION))
            steps.append(("click option", r.cli("click", option) if option else missing))
            # reins refs are identities: @save from the first observation still names the button
            steps.append(("click save", r.cli("click", refs.get(("button", "Save"), "@save"))))
            return steps, str(self._poll(lambda: r.eval(saved_js)))

        def ab_flow() -> tuple[Steps, str]:
            assert self.ab is not None
            a = self.ab

            def click(refs: dict[tuple[str, str], str], role: str, name: str) -> Run:
                return a.cli("click", "@" + refs[(role, name)]) if (role, name) in refs else missing

            steps = [("observe", a.cli("snapshot", "-i"))]
            refs = ab_refs(steps[0][1].out)
            for label, name, text in (
                ("fill merchant", "Merchant", "Blue Bottle Coffee"),
                ("fill amount", "Amount", "12.50"),
            ):
                steps.append(
                    (
                        label,
                        a.cli("fill", "@" + refs[("textbox", name)], text)
                        if ("textbox", name) in refs
                        else missing,
                    )
                )
            steps.append(("click trigger", click(refs, "combobox", "Category")))
            steps.append(("observe menu", a.cli("snapshot", "-i")))
            steps.append(("click option", click(ab_refs(steps[-1][1].out), "option", FLOW_OPTION)))
            # each snapshot renumbers its refs, and the open menu hid Save from the last one: an
            # agent has to observe once more to get a ref for Save
            steps.append(("observe again", a.cli("snapshot", "-i")))
            steps.append(("click save", click(ab_refs(steps[-1][1].out), "button", "Save")))
            return steps, str(self._poll(lambda: a.eval(saved_js)))

        def pw_flow() -> tuple[Steps, str]:
            assert self.pw is not None
            p = self.pw.page
            steps = [
                ("observe", in_process(lambda: p.aria_snapshot(mode="ai"))),
                (
                    "fill merchant",
                    in_process(lambda: str(p.get_by_label("Merchant").fill("Blue Bottle Coffee"))),
                ),
                ("fill amount", in_process(lambda: str(p.get_by_label("Amount").fill("12.50")))),
                (
                    "click trigger",
                    in_process(lambda: str(p.get_by_role("combobox", name="Category").click())),
                ),
                ("observe menu", in_process(lambda: p.aria_snapshot(mode="ai"))),
                (
                    "click option",
                    in_process(lambda: str(p.get_by_role("option", name=FLOW_OPTION).click())),
                ),
                (
                    "click save",
                    in_process(lambda: str(p.get_by_role("button", name="Save").click())),
                ),
            ]
            return steps, str(self._poll(lambda: p.evaluate(saved_js)))

        flows: list[tuple[str, Any, Callable[[], tuple[Steps, str]]]] = [
            ("reins (CLI per step)", self.reins, reins_flow)
        ]
        if self.ab:
            flows.append(("agent-browser (CLI per step)", self.ab, ab_flow))
        if self.pw:
            flows.append(("playwright (in-process, locators)", self.pw, pw_flow))
        per_step: dict[str, dict[str, list[float]]] = {name: {} for name, _, _ in flows}
        totals = {name: Cell() for name, _, _ in flows}
        order: list[str] = []
        for _ in range(self.flow_reps):
            for name, tool, fn in flows:
                tool.open(url)
                steps, saved = fn()
                ok = all(r.ok for _, r in steps) and FLOW_OPTION in saved
                error = next(
                    (f"{label}: {r.error}" for label, r in steps if not r.ok),
                    "" if ok else f"page saved {saved!r}",
                )
                totals[name].add(Run(sum(r.seconds for _, r in steps), ok, saved, error))
                for label, r in steps:
                    if label not in order:
                        order.insert(
                            len(order) if label != "observe again" else order.index("click save"),
                            label,
                        )
                    if r.ok:
                        per_step[name].setdefault(label, []).append(r.seconds)
        self.say("## Expense-form dropdown flow, end to end (app/expense.html, Radix select)\n")
        self.say(
            "Steps: observe (reins state / agent-browser snapshot -i / Playwright aria_snapshot(mode=ai)), "
            "fill merchant, fill amount, click the category trigger, observe the open menu, click "
            f"the option {FLOW_OPTION!r} by the ref the observation gave, click Save. A run counts "
            f"as ok only if every step answered ok and the page then shows 'Saved: … {FLOW_OPTION}'. "
            "Page loads are not timed.\n"
        )
        rows = []
        for name in per_step:
            rows.append(
                [
                    name,
                    fmt_ms(totals[name].median_ms),
                    str(len(per_step[name])),
                    totals[name].failures(),
                ]
                + [
                    fmt_ms(median(per_step[name][s]) * 1000) if per_step[name].get(s) else "—"
                    for s in order
                ]
            )
        self.say(
            table(
                ["tool", "total median ms", "commands", "failures"] + [f"{s} ms" for s in order],
                rows,
            )
        )
        self.say()
        self.data["flow"] = {n: totals[n].median_ms for n in totals}
        if self.ab:
            self.say(
                "Ratio reins/agent-browser, whole flow: "
                + ratio(
                    totals["reins (CLI per step)"].median_ms,
                    totals["agent-browser (CLI per step)"].median_ms,
                )
                + "\n"
            )

    # where the time goes (for the targets that are missed) -----------------------------------

    def phases(self) -> None:
        """Split whole-process times with clocks both sides share, without touching the host.

        Action: the page stamps Date.now() at pointerdown / input, the bench stamps time.time()
        around the process. Snapshot: the page script timed inside the page (performance.now()),
        the host's own elapsed_ms (state --json), and the whole process.
        """
        self.progress("phases")
        py = self.reins.python
        imports = Cell()
        for _ in range(self.reps):
            imports.add(timed([py, "-c", "import reins.cli"], self.reins.env))
        url = self.url(f"static/big.html?n={self.small_n}")
        stamp = (
            "window.__t = []; for (const e of ['pointerdown', 'input']) document.addEventListener("
            "e, () => window.__t.push(Date.now()), true); 0"
        )
        rows = []
        tools: list[tuple[str, Any, list[str]]] = [("reins", self.reins, [])]
        self.reins.open(url)
        self.reins.cli("state")
        if self.ab:
            self.ab.open(url)
            refs = ab_refs(self.ab.cli("snapshot", "-i").out)
            tools.append(
                (
                    "agent-browser",
                    self.ab,
                    [
                        "@" + refs.get(("button", "Button 0"), "e2"),
                        "@" + refs.get(("textbox", "Field 2"), "e4"),
                    ],
                )
            )
        for name, tool, refs in tools:
            tool.eval(stamp)
            for action in ("click", "fill"):
                before, after = [], []
                for rep in range(self.reps):
                    target = (
                        (refs[0] if refs else "@btn0")
                        if action == "click"
                        else (refs[1] if refs else "@input2")
                    )
                    argv = ["click", target] if action == "click" else ["fill", target, f"x{rep}"]
                    t0 = time.time()
                    run = tool.cli(*argv)
                    t1 = time.time()
                    stamps = tool.eval("window.__t.splice(0)")
                    if run.ok and stamps:
                        first, last = min(stamps) / 1000, max(stamps) / 1000
                        before.append(first - t0)
                        after.append(t1 - last)
                rows.append(
                    [
                        f"{name} {action}",
                        fmt_ms(median(before) * 1000 if before else None),
                        fmt_ms(median(after) * 1000 if after else None),
                        str(len(before)),
                    ]
                )
        self.say(
            "## Where an action's time goes (whole process, split at the page's first event)\n"
        )
        self.say(
            f"CLI start-up alone (`python -c 'import reins.cli'`): median {fmt_ms(imports.median_ms)} ms.\n"
        )
        self.say(
            table(
                [
                    "command",
                    "start → first page event ms",
                    "last page event → process exit ms",
                    "reps",
                ],
                rows,
            )
        )
        self.say()

        sys.path.insert(0, str(ROOT / "host"))
        from reins.observe.collect import MAX_ELEMENTS, collect_expression

        # What `state` asks for: the compact record, answered as one JSON string.
        body = collect_expression(
            {
                "viewportOnly": False,
                "maxElements": MAX_ELEMENTS,
                "withSelectors": True,
                "compact": True,
            }
        )
        timing = (
            "(() => { const t0 = performance.now(); const s = "
            + body
            + "; const t1 = performance.now(); "
            "return [t1 - t0, 0, s.length, JSON.parse(s).elements.length]; })()"
        )
        rows = []
        for n in self.sizes:
            self.reins.open(self.url(f"static/big.html?n={n}"))
            for source in ("dom", "ax"):
                whole, host, page, size = Cell(), [], [], 0
                for _ in range(self.reps):
                    run = whole.add(self.reins.cli("--json", "state", "--source", source))
                    if run.ok:
                        host.append(float(json.loads(run.out)["elapsed_ms"]))
                    if source == "dom":
                        measured = self.reins.eval(timing)
                        if isinstance(measured, list):
                            page.append(float(measured[0]))
                            size = int(measured[2])
                rows.append(
                    [
                        f"{n:,}",
                        source,
                        fmt_ms(whole.median_ms),
                        fmt_ms(median(host)),
                        fmt_ms(median(page)) if page else "",
                        f"{size / 1e6:.2f} MB" if page else "",
                        whole.failures(),
                    ]
                )
        self.say("## Where a snapshot's time goes\n")
        self.say(
            "whole = `reins state --json` process; host = the host's elapsed_ms for the command; "
            "page script = the collection script alone, timed inside the page with performance.now() "
            "(run through `reins eval`), and the size of its JSON result, which crosses the "
            "extension and native messaging.\n"
        )
        self.say(
            table(
                [
                    "N",
                    "source",
                    "whole ms",
                    "host ms",
                    "page script ms",
                    "page → host JSON",
                    "failures",
                ],
                rows,
            )
        )
        self.say()

    @staticmethod
    def _poll(read: Callable[[], Any], seconds: float = 3.0) -> Any:
        deadline = time.monotonic() + seconds
        value = read()
        while FLOW_OPTION not in str(value) and time.monotonic() < deadline:
            time.sleep(0.1)
            value = read()
        return value


# ---- set-up, versions, main -------------------------------------------------------------------


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


def versions(ab: AgentBrowser | None, pw: bool) -> dict[str, str]:
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
    if ab:
        info["agent-browser"] = ab.version() + f" ({ab.exe})"
    if pw:
        from importlib.metadata import version

        info["playwright"] = version("playwright")
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke mode: tiny page, 2 repetitions, seconds (run by the tests)",
    )
    parser.add_argument(
        "--reps", type=int, default=None, help="repetitions (default 10; --quick 2)"
    )
    parser.add_argument(
        "--sizes", default=None, help="element counts (default 100,1000,5000,20000)"
    )
    parser.add_argument(
        "--only",
        default=None,
        help="comma list of parts: bridge,actions,flow,widgets,snapshots,diff,memory,"
        "phases (default all but phases)",
    )
    parser.add_argument("--no-peers", action="store_true", help="reins only")
    parser.add_argument(
        "--json", dest="json_out", default=None, help="also write raw figures to FILE"
    )
    parser.add_argument("--markdown", default=None, help="also write the tables to FILE")
    args = parser.parse_args(argv)

    reps = args.reps or (2 if args.quick else 10)
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else [50]
        if args.quick
        else [100, 1000, 5000, 20000]
    )
    parts = (
        set(args.only.split(","))
        if args.only
        else {"bridge", "actions", "flow", "widgets", "snapshots", "diff", "memory"}
    )

    # SIGTERM (e.g. a test's timeout) must still run the clean-up below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    home = Path(tempfile.mkdtemp(prefix="reins-bench-"))
    reins = Reins(home)
    ab: AgentBrowser | None = None
    pw: PlaywrightPeer | None = None
    notes: list[str] = []
    started = time.monotonic()
    load_start = os.getloadavg()
    try:
        with fixture_server() as base:
            if not args.no_peers:
                exe = AgentBrowser.find()
                if exe:
                    ab = AgentBrowser(exe, home / "ab")
                    (home / "ab").mkdir()
                else:
                    notes.append(
                        "agent-browser not installed: skipped (npm install --prefix "
                        "bench/agent-browser agent-browser)"
                    )
                if PlaywrightPeer.available():
                    pw = PlaywrightPeer()
                else:
                    notes.append(
                        "playwright not installed: skipped (.venv/bin/pip install -e '.[bench]')"
                    )
            bytecode = reins.compile()
            reins.launch()
            bench = Bench(
                reps=reps,
                sizes=sizes,
                small_n=50,
                batch_len=5 if args.quick else 20,
                flow_reps=1 if args.quick else reps,
                base=base,
                reins=reins,
                ab=ab,
                pw=pw,
            )
            info = versions(ab, pw is not None)
            info["reins bytecode"] = bytecode
            bench.say(f"# reins benchmark{' (--quick)' if args.quick else ''}\n")
            for key, value in info.items():
                bench.say(f"- {key}: {value}")
            bench.say(
                f"- repetitions: {reps}; sizes: {', '.join(f'{n:,}' for n in sizes)}; "
                f"load average at start: {load_start[0]:.2f}"
            )
            for note in notes:
                bench.say(f"- note: {note}")
            bench.say()
            bench.reins.open(bench.url(f"static/big.html?n={bench.small_n}"))
            bench.rss("idle, after launch and one small page")
            if "bridge" in parts:
                bench.bridge()
            if "actions" in parts:
                bench.actions()
            if "flow" in parts:
                bench.flow()
            if "widgets" in parts:
                from bench_widgets import run_widgets  # a sibling script that imports this one

                run_widgets(bench)
            if "phases" in parts:
                bench.phases()
            if "snapshots" in parts:
                bench.snapshots()
                bench.reins.open(bench.url(f"static/big.html?n={bench.small_n}"))
                bench.rss("idle again, back on the small page")
            if "memory" in parts:
                bench.memory()
            if "diff" in parts:
                bench.diff()
            bench.memory_table()
            load_end = os.getloadavg()
            bench.say(
                f"Run took {time.monotonic() - started:,.0f} s; load average at the end "
                f"{load_end[0]:.2f} (1 min), {load_end[1]:.2f} (5 min)."
            )
            bench.data["info"] = info
            if args.json_out:
                Path(args.json_out).write_text(json.dumps(bench.data, indent=1))
            if args.markdown:
                Path(args.markdown).write_text("\n".join(bench.out) + "\n")
    finally:
        if pw:
            pw.close()
        if ab:
            ab.close()
        reins.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
