"""Where reins keeps its state: everything under REINS_HOME, so two homes never meet."""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["HOST_NAME", "ensure_private_dir", "profile_dir", "reins_home", "socket_dir", "socket_path"]

HOST_NAME = "dev.reins.host"
EXTENSION_ID = "hlbjhcdhfpclgnhcihccgjneokjkeibl"
_PROFILE_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def reins_home() -> Path:
    env = os.environ.get("REINS_HOME")
    if env:
        return Path(env).expanduser().absolute()
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "reins"


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) with mode 0700 and tighten it if it already exists."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def socket_dir(home: Path | None = None) -> Path:
    return (home or reins_home()) / "run"


def socket_path(profile: str, home: Path | None = None) -> Path:
    return socket_dir(home) / f"{profile}.sock"


def profile_dir(profile: str, home: Path | None = None) -> Path:
    return (home or reins_home()) / "profiles" / profile


def valid_profile_name(name: str) -> bool:
    return bool(_PROFILE_RE.match(name)) and name not in (".", "..")
