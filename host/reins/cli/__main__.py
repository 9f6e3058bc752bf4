"""``python -m reins.cli``."""

from reins.cli.lane import main

main()
