"""The package's shape: small modules, page-side code out of Python, contracts kept by a tool."""

from __future__ import annotations

from pathlib import Path

HOST = Path(__file__).resolve().parents[2] / "host" / "reins"
MAX_LINES = 500


def test_no_hand_written_module_over_500_lines() -> None:
    long = {
        str(p.relative_to(HOST)): n
        for p in HOST.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these modules (one job each): {long}"


def test_no_module_left_in_the_flat_layout() -> None:
    flat = sorted(p.name for p in HOST.glob("_*.py") if p.name != "__init__.py")
    # The process entry and the four foundations every layer shares (errors, paths, what differs
    # between desktops, and how a page's strings are printed).
    assert flat == ["_errors.py", "_host.py", "_pagetext.py", "_paths.py", "_platform.py"]
