"""``python -m reins.cli``: the same as the `reins` console script."""

from reins.cli import console

console()
