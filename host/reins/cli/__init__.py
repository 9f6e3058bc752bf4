"""The `reins` CLI (see main.py; ``reins.cli.lane:main`` is the console script).

``main`` (the click group) is imported when first asked for, so that the console script's fast
lane (``lane.py``) starts without click.
"""

from __future__ import annotations

from typing import Any

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    if name == "main":
        from reins.cli.main import main

        globals()["main"] = main  # over the submodule the import just bound to this name
        return main
    raise AttributeError(f"module 'reins.cli' has no attribute {name!r}")
