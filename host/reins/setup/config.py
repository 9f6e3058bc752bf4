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

__all__ = [
    "SETTINGS",
    "change_upload_dirs",
    "config_path",
    "downloads_allowed",
    "evaluate_enabled",
    "read_config",
    "upload_dirs",
    "write_setting",
]

# Every on/off setting a profile may hold, with its default.
SETTINGS: dict[str, bool] = {"evaluate": True, "downloads": True}
# Directories `reins upload` may read files from, besides the one the CLI runs in (absolute).
UPLOAD_DIRS = "upload_dirs"


def config_path(profile: str, home: Path | None = None) -> Path:
    return (home or reins_home()) / "config" / f"{profile}.json"


def read_config(profile: str, home: Path | None = None) -> dict[str, Any]:
    """The profile's on/off settings over the defaults; an unreadable file counts as the
    defaults."""
    merged: dict[str, Any] = dict(SETTINGS)
    raw = _read_raw(profile, home)
    merged.update({k: v for k, v in raw.items() if k in SETTINGS and isinstance(v, bool)})
    return merged


def _read_raw(profile: str, home: Path | None) -> dict[str, Any]:
    try:
        raw = json.loads(config_path(profile, home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def write_setting(profile: str, key: str, value: bool, home: Path | None = None) -> dict[str, Any]:
    """Set one setting and return the profile's settings; the file is replaced atomically."""
    if key not in SETTINGS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
    current = read_config(profile, home)
    current[key] = value
    _write(profile, {**current, **_dirs_entry(upload_dirs(profile, home))}, home)
    return current


def _dirs_entry(dirs: list[str]) -> dict[str, Any]:
    return {UPLOAD_DIRS: dirs} if dirs else {}


def change_upload_dirs(
    profile: str,
    op: str,
    directory: str,
    home: Path | None = None,
) -> list[str]:
    """Add or remove a directory `reins upload` may read from (kept absolute and resolved)."""
    if op not in ("add", "remove"):
        raise UsageError("upload-dirs takes add DIR or remove DIR")
    resolved = os.path.realpath(os.path.abspath(directory))
    dirs = [d for d in upload_dirs(profile, home) if d != resolved]
    if op == "add":
        if not os.path.isdir(resolved):
            raise UsageError(f"{resolved} is not a directory")
        dirs.append(resolved)
    _write(profile, {**read_config(profile, home), **_dirs_entry(dirs)}, home)
    return dirs


def upload_dirs(profile: str, home: Path | None = None) -> list[str]:
    """The directories the user added for `reins upload` (absolute, resolved when added)."""
    dirs = _read_raw(profile, home).get(UPLOAD_DIRS)
    if not isinstance(dirs, list):
        return []
    return [d for d in dirs if isinstance(d, str) and os.path.isabs(d)]


def _write(profile: str, current: dict[str, Any], home: Path | None) -> None:
    path = config_path(profile, home)
    ensure_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=".cfg-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(current, out, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def evaluate_enabled(profile: str, home: Path | None = None) -> bool:
    return bool(read_config(profile, home)["evaluate"])


def downloads_allowed(profile: str, home: Path | None = None) -> bool:
    """May a page in a tab reins drives download files (`reins config downloads off`: no)?"""
    return bool(read_config(profile, home)["downloads"])
