"""The extension's modules, tested in node (tests/extension/*.test.mjs): the URL and parameter
policy, ownership, the user's windows, the batch sequencer, the debugger sessions, the host port,
the tabs, Chrome's errors.

They are JavaScript that runs in the service worker; node's built-in test runner imports the very
modules the worker imports. This wrapper makes the Python suite run those tests.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/bootstrap installs it)")
def test_node_policy_tests_pass() -> None:
    assert NODE is not None
    assert list((ROOT / "tests" / "extension").glob("*.test.mjs")), (
        "no tests under tests/extension/"
    )
    done = subprocess.run(
        [
            NODE,
            "--experimental-detect-module",
            "--test",
            "--test-reporter=spec",
            "tests/extension/",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (
        f"node --test failed:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    )
    counts = dict(re.findall(r"^\S* ?(tests|pass|fail) (\d+)$", done.stdout, re.MULTILINE))
    assert int(counts.get("tests", 0)) > 0 and counts.get("fail") == "0", done.stdout[-2000:]
