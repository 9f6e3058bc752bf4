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
    import os

    warm = os.environ.pop("REINS_WARM_SOCKET", None)
    if warm and sys.platform != "win32":
        _start_warm(warm)
    from reins.cli.fast import run_fast

    run_fast(sys.argv[1:])
    from reins.cli.group import main as group

    group(prog_name="reins")


def _start_warm(path: str) -> None:
    """The compiled client found no warm CLI (``warm.py``) at ``path``: start one there for the
    next command, in the background, detached from this command's terminal and streams."""
    import os

    if sys.platform == "win32" or not os.path.isabs(path):
        return
    try:
        os.posix_spawn(
            sys.executable,
            [sys.executable, "-m", "reins.cli.warm", path],
            dict(os.environ),
            setsid=True,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except OSError:
        pass  # no warm CLI: every command runs the console script, as before


def __getattr__(name: str) -> Any:
    if name == "main":
        from reins.cli.group import main as group

        return group
    raise AttributeError(f"module 'reins.cli' has no attribute {name!r}")
