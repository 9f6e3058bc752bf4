#!/usr/bin/env python3
"""mypy --strict of host/reins as Windows and macOS see it (`--platform win32` / `darwin`).

This machine is Linux: these runs are how the Windows and macOS code paths get type-checked at all.
Both must be clean: an error in any module, for either platform, fails the check.

Usage: scripts/check_platform_types.py   (run by scripts/check)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_YET_ON_WINDOWS: dict[str, str] = {}  # module -> why it cannot type-check for win32 yet
_ERROR = re.compile(r"^(?P<path>[^:]+):\d+: error:")


def _path(line: str) -> str:
    match = _ERROR.match(line)
    return match["path"] if match else ""


def errors(platform: str) -> list[str]:
    done = subprocess.run(
        [str(ROOT / ".venv/bin/mypy"), "--platform", platform],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return [line for line in done.stdout.splitlines() if _ERROR.match(line)]


def main() -> int:
    failed = False
    for platform, allowed in (("darwin", {}), ("win32", NOT_YET_ON_WINDOWS)):
        found = errors(platform)
        unexpected = [e for e in found if _path(e) not in allowed]
        for line in unexpected:
            print(f"[{platform}] {line}")
        failed = failed or bool(unexpected)
        waiting = sorted({_path(e) for e in found})
        print(
            f"check: mypy --platform {platform}: "
            + ("clean" if not found else f"not yet ported: {', '.join(waiting)}")
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
