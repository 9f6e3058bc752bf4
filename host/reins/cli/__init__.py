"""The `reins` CLI: ``console`` is the console script (the fast path, ``fast.py``, for the commands
it can parse alone; the click group, ``group.py``, for everything else). ``main`` is that click
group, imported only when asked for: ``from reins.cli import main`` (tests, ``python -m``).

Nothing is imported here: the fast path must start without click."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["console", "main"]


def console() -> None:
    """`reins ARGS`: run by the fast path when it parses ARGS exactly as click would (it exits
    then), else by the click CLI."""
    from reins.cli.fast import run_fast

    run_fast(sys.argv[1:])
    from reins.cli.group import main as group

    group()


def __getattr__(name: str) -> Any:
    if name == "main":
        from reins.cli.group import main as group

        return group
    raise AttributeError(f"module 'reins.cli' has no attribute {name!r}")
