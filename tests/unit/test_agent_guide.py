"""The agent guide lives in one place: the package ships it (`reins guide`), docs/ links to it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "host" / "reins" / "agent-guide.md"
LINKED = ROOT / "docs" / "agent-guide.md"


def test_docs_agent_guide_is_the_shipped_file_not_a_copy() -> None:
    assert SHIPPED.is_file() and not SHIPPED.is_symlink()
    assert LINKED.is_symlink(), f"{LINKED} must stay a symlink to {SHIPPED}, not a second copy"
    assert LINKED.resolve() == SHIPPED.resolve()
    assert LINKED.read_bytes() == SHIPPED.read_bytes()
