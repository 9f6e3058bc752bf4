"""The page scripts' own tests (pagescripts/test, node's test runner) and their syntax check, run
with the rest of the suite."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PAGESCRIPTS = Path(__file__).resolve().parents[2] / "pagescripts"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/bootstrap)")


def test_page_script_sources_parse() -> None:
    run = subprocess.run(
        ["sh", str(PAGESCRIPTS / "lint.sh")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_page_script_unit_tests_pass() -> None:
    files = sorted(str(p) for p in (PAGESCRIPTS / "test").glob("*.test.mjs"))
    assert files
    run = subprocess.run(
        [str(NODE), "--test", *files], capture_output=True, text=True, cwd=PAGESCRIPTS, timeout=300
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
