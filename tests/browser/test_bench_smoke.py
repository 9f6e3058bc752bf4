"""`scripts/bench --quick` and `scripts/bench-mcp --quick` still run end to end, so the benchmark
scripts cannot rot.

It launches its own headless Chromium through `reins launch` under a temporary REINS_HOME and
uses whichever peers (agent-browser, Playwright) are installed. No timing is asserted: only that it
finishes, exits 0 and prints reins rows in every table.

Marked `bench`: left out of a plain `pytest` / `pytest -m browser` run (tests/conftest.py);
`pytest -m bench` runs it, and `scripts/test` (CI) runs it once with everything else (~10 s).
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.bench


def _bench(script: str) -> subprocess.CompletedProcess[str]:
    """``scripts/SCRIPT --quick`` in a process group of its own: on the time limit the whole
    group goes (the bench's fixture server and browsers too), not only the bench's process,
    which left its fixture server running after a timeout."""
    proc = subprocess.Popen(
        [str(ROOT / "scripts" / script), "--quick"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)  # the bench shuts its browser down on SIGTERM
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        pytest.fail(f"scripts/{script} --quick took over 240 s:\n{out[-2000:]}{err[-2000:]}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_bench_quick_prints_reins_rows() -> None:
    proc = _bench("bench")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    out = proc.stdout
    for heading in (
        "## Trivial commands",
        "## One action on a small page",
        "## Expense-form dropdown flow",
        "## Widgets: scroll, drag, upload, choose",
        "## Snapshot of big.html",
        "## reins host memory",
    ):
        assert heading in out, f"missing table {heading!r}:\n{out}"
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    for label in (
        "| reins status |",
        "| reins cdp Runtime.evaluate 1 |",
        "| reins click @ref |",
        "| reins fill @ref text |",
        "| reins batch, click per command |",
        "| reins (CLI per step) |",
        "| 50 | reins state (dom) |",
        "| 50 | reins state --source ax |",
    ):
        matching = [row for row in rows if row.startswith(label)]
        assert matching, f"no row {label!r}:\n{out}"
        # a median was measured (not "—"), i.e. at least one repetition answered ok
        assert matching[0].split("|")[2 if label.count("|") == 2 else 3].strip() != "—", matching[0]
    assert "| idle, after launch and one small page |" in out


def test_bench_mcp_quick_prints_reins_rows() -> None:
    proc = _bench("bench-mcp")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    out = proc.stdout
    for heading in ("## Tokens per step through MCP", "## One click on big.html?n=N"):
        assert heading in out, f"missing table {heading!r}:\n{out}"
    assert "| **whole flow** | 5 calls |" in out
    assert "| 100 | " in out and "The tool list itself" in out
