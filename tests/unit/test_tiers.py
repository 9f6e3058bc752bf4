"""The suite's tiers select what they say (tests/conftest.py draws them).

`-m "not browser"` is every test that needs no browser and nothing else; `-m browser` is every
test under tests/browser and tests/pagescript except the `bench` one, which runs only when -m
names it. Checked by asking a real pytest what each expression collects.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BROWSER_DIRS = ("tests/browser/", "tests/pagescript/", "tests/headful/")
BENCH = "tests/browser/test_bench_smoke.py"

# Label -> the -m arguments of one collection.
SELECTIONS: dict[str, list[str]] = {
    "plain": [],
    "fast": ["-m", "not browser"],
    "browser": ["-m", "browser"],
    "bench": ["-m", "bench"],
}
# Collecting needs neither assertion rewriting nor hypothesis' plugin: a third of the time.
CHEAP = ["--assert=plain", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
SUMMARY = re.compile(r"^(\d+)(?:/(\d+))? tests? collected", re.M)


@dataclass(frozen=True)
class Collection:
    nodes: list[str]  # the node ids selected
    total: int  # how many tests were collected before -m deselected some


@pytest.fixture(scope="module")
def collected() -> dict[str, Collection]:
    """What each selection collects, from `pytest --collect-only -q` runs side by side."""
    procs = {
        label: subprocess.Popen(
            [sys.executable, "-m", "pytest", "tests", "--collect-only", "-q", *CHEAP, *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for label, args in SELECTIONS.items()
    }
    out: dict[str, Collection] = {}
    for label, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=50)
        assert proc.returncode == 0, f"{label}: {stdout[-2000:]}{stderr[-2000:]}"
        summary = SUMMARY.search(stdout)
        assert summary, stdout[-2000:]
        nodes = [line for line in stdout.splitlines() if "::" in line]
        assert len(nodes) == int(summary[1])
        out[label] = Collection(nodes, int(summary[2] or summary[1]))
    return out


def _in_browser_dirs(node: str) -> bool:
    return node.startswith(BROWSER_DIRS)


def test_fast_tier_has_no_browser_test(collected: dict[str, Collection]) -> None:
    fast = collected["fast"].nodes
    assert fast and not [n for n in fast if _in_browser_dirs(n)]
    assert any(n.startswith("tests/unit/") for n in fast)


def test_browser_tier_is_every_browser_test_but_the_bench(collected: dict[str, Collection]) -> None:
    browser = collected["browser"].nodes
    assert browser and all(_in_browser_dirs(n) for n in browser)
    assert any(n.startswith("tests/pagescript/") for n in browser)
    assert not [n for n in browser if n.startswith(BENCH)]
    wanted = [n for n in collected["plain"].nodes if _in_browser_dirs(n)]
    assert sorted(browser) == sorted(wanted)


def test_bench_runs_only_when_named(collected: dict[str, Collection]) -> None:
    bench = collected["bench"].nodes
    assert bench and all(n.startswith(BENCH) for n in bench)
    assert not [n for n in collected["plain"].nodes if n.startswith(BENCH)]


def test_tiers_add_up_to_the_whole(collected: dict[str, Collection]) -> None:
    fast, browser, bench = (set(collected[k].nodes) for k in ("fast", "browser", "bench"))
    whole = {c.total for c in collected.values()}
    assert len(whole) == 1, whole  # every run collected the same suite
    assert not (fast & browser or fast & bench or browser & bench)
    assert len(fast) + len(browser) + len(bench) == whole.pop()
    # A plain run is both tiers, without the bench.
    assert sorted(collected["plain"].nodes) == sorted(fast | browser)


def test_fast_tier_modules_do_not_start_a_browser(collected: dict[str, Collection]) -> None:
    """The tier is drawn by folder; this catches a browser test put in the wrong one."""
    files = {n.split("::")[0] for n in collected["fast"].nodes}
    starts_browser = re.compile(
        r"^\s*(from|import)\s+(selenium|tests\.browser|tests\.pagescript)\b"
        r"|^\s*from\s+\.\.(browser|pagescript)\b",
        re.M,
    )
    offenders = [f for f in sorted(files) if starts_browser.search((ROOT / f).read_text())]
    assert offenders == []
