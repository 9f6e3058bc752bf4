"""``python -m reins.cli``."""

from reins.cli.main import main

main()
