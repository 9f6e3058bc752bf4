"""Per-profile settings, kept in ``REINS_HOME/config/<profile>.json``.

Standard library only: the CLI writes these files and the host reads them at the moment a setting
matters (``evaluate`` at each ``eval``), so a change applies without restarting anything.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from reins._errors import UsageError
from reins._paths import ensure_private_dir, reins_home

__all__ = ["SETTINGS", "config_path", "evaluate_enabled", "read_config", "write_setting"]

# Every setting a profile may hold, with its default.
SETTINGS: dict[str, bool] = {"evaluate": True}


def config_path(profile: str, home: Path | None = None) -> Path:
    return (home or reins_home()) / "config" / f"{profile}.json"


def read_config(profile: str, home: Path | None = None) -> dict[str, Any]:
    """The profile's settings over the defaults; an unreadable file counts as the defaults."""
    merged: dict[str, Any] = dict(SETTINGS)
    try:
        raw = json.loads(config_path(profile, home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return merged
    if isinstance(raw, dict):
        merged.update({k: v for k, v in raw.items() if k in SETTINGS and isinstance(v, bool)})
    return merged


def write_setting(profile: str, key: str, value: bool, home: Path | None = None) -> dict[str, Any]:
    """Set one setting and return the profile's settings; the file is replaced atomically."""
    if key not in SETTINGS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
    path = config_path(profile, home)
    ensure_private_dir(path.parent)
    current = read_config(profile, home)
    current[key] = value
    fd, tmp = tempfile.mkstemp(prefix=".cfg-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(current, out, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return current


def evaluate_enabled(profile: str, home: Path | None = None) -> bool:
    return bool(read_config(profile, home)["evaluate"])
