"""The `reins` CLI (see main.py); ``reins.cli:main`` is the console script."""

from reins.cli.main import main

__all__ = ["main"]
