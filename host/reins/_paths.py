"""Where reins keeps its state: everything under REINS_HOME, so two homes never meet.

REINS_HOME holds what another local user must never touch: the launcher script Chrome runs, the
control socket, logs, registries. Like ssh's StrictModes, every directory reins uses there must be
the user's own, not a symlink, and not writable by group or others (reins tightens its own
directories to 0700; it refuses one it does not own). Files are written without following
symlinks and replaced atomically.

On Windows there are no uids or mode bits: a directory's owner is an ACL, and the per-user folder
REINS_HOME defaults to (%LOCALAPPDATA%\\reins) is closed to other users by Windows's own ACLs; the
checks there are the ones that mean something (no symlink, a directory).
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, Union

from reins import _platform
from reins._errors import UsageError

if TYPE_CHECKING:  # pathlib is imported where a Path is made: the CLI's client path goes without
    from pathlib import Path  # it (7 ms of a `reins status`; docs/benchmarks.md)

__all__ = [
    "EXTENSION_ID",
    "HOST_NAME",
    "StrPath",
    "control_file",
    "control_path",
    "data_home",
    "ensure_private_dir",
    "home_str",
    "open_private_append",
    "profile_dir",
    "reins_home",
    "socket_dir",
    "socket_dir_str",
    "socket_file",
    "socket_path",
    "write_private",
]

HOST_NAME = "dev.reins.host"
EXTENSION_ID = "hlbjhcdhfpclgnhcihccgjneokjkeibl"
_PROFILE_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
StrPath = Union[str, "os.PathLike[str]"]  # what the string-path helpers below take


def home_str() -> str:
    """REINS_HOME as an absolute path string (what `reins_home` wraps in a Path)."""
    env = os.environ.get("REINS_HOME")
    if env:
        return _absolute(os.path.expanduser(env))
    if _platform.os_name() == "win32":
        local = os.environ.get("LOCALAPPDATA") or os.path.join(
            os.path.expanduser("~"), "AppData", "Local"
        )
        return os.path.join(_absolute(local), "reins")
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(_absolute(base), "reins")


def data_home() -> Path:
    """Where reins keeps what it installs for the user rather than its state: the extension copy
    the browser loads (``reins.setup.extension``). With REINS_HOME set, REINS_HOME itself, so two
    homes never meet; else the desktop's per-user data folder: ``$XDG_DATA_HOME/reins`` (else
    ``~/.local/share/reins``) on Linux, ``~/Library/Application Support/reins`` on macOS, and
    REINS_HOME's own default, ``%LOCALAPPDATA%\\reins``, on Windows."""
    from pathlib import Path

    system = _platform.os_name()
    if os.environ.get("REINS_HOME") or system == "win32":
        return Path(home_str())
    if system == "darwin":
        return Path.home() / "Library" / "Application Support" / "reins"
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative path is ignored
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "reins"


def _absolute(path: str) -> str:
    # Path.absolute()'s rule: joined to the working directory, `..` left for the kernel to resolve
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def reins_home() -> Path:
    from pathlib import Path

    return Path(home_str())


def _unsafe(path: Path, why: str) -> UsageError:
    return UsageError(
        f"{path} is not safe for reins's private state: {why}",
        code="unsafe_home",
        hint=f"remove or fix it (it must be a directory of your own, mode 0700: `chmod 700 {path}`), "
        "or point REINS_HOME at one",
    )


def _check_own(path: Path) -> None:
    """A directory reins owns: no symlink, the user's own; tightened to 0700 if it was wider."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise _unsafe(path, "it is a symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise _unsafe(path, "it is not a directory")
    uid = _platform.user_id()
    if uid is None:
        return  # Windows: ownership is the folder's ACL (module docstring)
    if info.st_uid != uid:
        raise _unsafe(path, f"it belongs to uid {info.st_uid}, not to you (uid {uid})")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700, follow_symlinks=False)


def _check_parent(path: Path) -> None:
    """A directory above REINS_HOME: the user's or root's, and nobody else can rename entries in
    it (not group/world-writable, unless sticky like /tmp)."""
    uid = _platform.user_id()
    if uid is None:
        return  # Windows: no uid or mode bits to check (module docstring)
    info = os.stat(path)
    if info.st_uid not in (uid, 0):
        raise _unsafe(path, f"a parent directory of uid {info.st_uid}")
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        raise _unsafe(path, "a parent directory others can write to (without the sticky bit)")


def ensure_private_dir(path: Path, *, root: Path | None = None) -> Path:
    """Create ``path`` (each missing level 0700) and check it like ssh's StrictModes: every level
    from REINS_HOME (``root``) down is the user's own directory, no symlink, 0700; the directories
    above it are the user's or root's and closed to others. A path outside REINS_HOME is checked
    alone."""
    path = path.absolute()
    base = (root or reins_home()).absolute()
    if path != base and base not in path.parents:
        base = path
    for parent in reversed(base.parents):
        try:
            _check_parent(parent)
        except FileNotFoundError:
            os.mkdir(parent, 0o700)
    levels = [base, *(p for p in reversed(path.parents) if base in p.parents), path]
    for level in dict.fromkeys(levels):
        try:
            os.mkdir(level, 0o700)
        except FileExistsError:
            pass
        _check_own(level)
    return path


def write_private(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Write a file atomically without following symlinks: a temporary created exclusively
    (O_EXCL|O_NOFOLLOW) beside it, then renamed over it (a rename replaces a symlink itself)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def open_private_append(path: Path) -> int:
    """A descriptor to append to a log, refusing a symlink planted in its place."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o600)


def socket_dir_str(home: StrPath | None = None) -> str:
    """Where the control sockets are, as a string: the CLI's client uses it without pathlib."""
    return os.path.join(os.fspath(home) if home is not None else home_str(), "run")


def socket_file(profile: str, home: StrPath | None = None) -> str:
    """A profile's control socket, as a string (see `socket_dir_str`)."""
    return os.path.join(socket_dir_str(home), f"{profile}.sock")


_SUFFIX = {"unix": ".sock", "tcp": ".tcp"}


def control_file(
    profile: str, home: StrPath | None = None, transport: _platform.Transport | None = None
) -> str:
    """Where a profile's host can be reached, as a string: its Unix socket (``PROFILE.sock``) or,
    on the tcp transport, its endpoint file (``PROFILE.tcp``: port and secret); the host's own
    transport (``_platform.transport``) unless one is named."""
    suffix = _SUFFIX[transport or _platform.transport()]
    return os.path.join(socket_dir_str(home), f"{profile}{suffix}")


def control_path(profile: str, home: Path | None = None) -> Path:
    """`control_file` for this host's transport, as a Path."""
    from pathlib import Path

    return Path(control_file(profile, home))


def socket_dir(home: Path | None = None) -> Path:
    from pathlib import Path

    return Path(socket_dir_str(home))


def socket_path(profile: str, home: Path | None = None) -> Path:
    from pathlib import Path

    return Path(socket_file(profile, home))


def profile_dir(profile: str, home: Path | None = None) -> Path:
    return (home or reins_home()) / "profiles" / profile


def valid_profile_name(name: str) -> bool:
    return bool(_PROFILE_RE.match(name)) and name not in (".", "..")
