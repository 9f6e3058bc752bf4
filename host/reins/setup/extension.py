"""The browser extension's files: which folder this reins carries, the copy `reins install` places
for the user to load, and whether that copy is this reins's.

Where the extension is (``extension_path``), first match wins: ``REINS_EXTENSION_DIR``; the
checkout's ``extension/`` when reins runs from one (an editable install: tests, `reins launch` in
development); else the copy inside the package, ``reins/extension/`` (the wheel's build puts it
there: setup.py).

The folder a user loads with Load unpacked is a copy outside the package
(``placed_extension_path``: ``extension`` in ``_paths.data_home``): a package's folder moves with
every upgrade and every virtualenv, while Chrome remembers the path it loaded. The manifest's
``key`` fixes the extension's ID, so the copy keeps it, and an update replaces the copy's files in
place. The replacement is built beside the copy and swapped in by two renames, so a browser reads
the old files or the new ones, never half of each; only regular files are written, and a symlink
where the copy goes is refused rather than followed.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reins._errors import UsageError
from reins._paths import data_home, ensure_private_dir

__all__ = [
    "ExtensionState",
    "Placement",
    "extension_digest",
    "extension_dir",
    "extension_path",
    "extension_state",
    "loadable_extension",
    "place_extension",
    "placed_extension_path",
    "remove_placed_extension",
]

_RELOAD = "press reload on reins in chrome://extensions (Chrome runs the files it started with)"
# A staging or retired folder older than this is left over from an install that stopped midway.
_LEFTOVER_AGE_S = 3600


def _package() -> Path:
    return Path(__file__).resolve().parents[1]


def _checkout_extension() -> Path | None:
    """The checkout's extension/ when this package is a checkout's host/reins, else None."""
    package = _package()
    root = package.parent.parent
    if package.parent.name != "host" or not (root / "pyproject.toml").is_file():
        return None
    folder = root / "extension"
    return folder if (folder / "manifest.json").is_file() else None


def extension_path() -> Path:
    """The extension this reins carries (the module docstring gives the order)."""
    env = os.environ.get("REINS_EXTENSION_DIR")
    if env:
        return Path(env)
    return _checkout_extension() or _package() / "extension"


def extension_dir() -> Path:
    """``extension_path``, refused when no extension is there."""
    path = extension_path()
    if not (path / "manifest.json").is_file():
        raise UsageError(
            f"the reins extension is not at {path}",
            code="bad_request",
            hint="reinstall reins (a wheel carries the extension), or set REINS_EXTENSION_DIR to "
            "the folder that holds its manifest.json",
        )
    return path


def placed_extension_path() -> Path:
    """The folder `reins install` copies the extension to: the one path to Load unpacked."""
    return data_home() / "extension"


def _regular_files(root: Path) -> list[tuple[str, Path]]:
    """The folder's regular files by relative POSIX path, sorted; symlinks (to files or folders)
    and other kinds are left out, so a copy and its digest see the same files."""
    out: list[tuple[str, Path]] = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            path = Path(folder) / name
            if stat.S_ISREG(os.lstat(path).st_mode):
                out.append((path.relative_to(root).as_posix(), path))
    return sorted(out)


def extension_digest(root: Path) -> str:
    """What an extension folder holds: its regular files' names and bytes, hashed (sha256)."""
    digest = hashlib.sha256()
    for name, path in _regular_files(root):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Placement:
    """What `place_extension` did: ``new`` (no copy before), ``updated`` (its files replaced) or
    ``same`` (it held this reins's files already: nothing written)."""

    path: Path
    change: Literal["new", "updated", "same"]


def _refuse_link(target: Path) -> bool:
    """Whether a copy is at ``target``; a symlink or a file there is refused."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(mode):
        return True
    kind = "a symlink" if stat.S_ISLNK(mode) else "not a folder"
    raise UsageError(
        f"{target} is {kind}: reins writes the extension there only as a folder of its own",
        code="unsafe_home",
        hint=f"remove {target} and run `reins install` again",
    )


def _clear_leftovers(parent: Path, name: str) -> None:
    """Remove staging and retired folders an interrupted install left (old ones only: a running
    install's are young)."""
    now = time.time()
    for entry in parent.glob(f".{name}-*"):
        info = os.lstat(entry)
        if stat.S_ISDIR(info.st_mode) and now - info.st_mtime > _LEFTOVER_AGE_S:
            shutil.rmtree(entry, ignore_errors=True)


def _copy_files(source: Path, staging: Path) -> None:
    for name, path in _regular_files(source):
        out = staging / name
        out.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(out, flags | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(path.read_bytes())


def _swap(staging: Path, target: Path, *, replace: bool) -> None:
    """Put ``staging`` at ``target``: the old copy renamed aside first, then removed."""
    if not replace:
        os.rename(staging, target)
        return
    retired = target.with_name(f".{target.name}-old-{secrets.token_hex(4)}")
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except OSError:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def place_extension(source: Path, target: Path | None = None) -> Placement:
    """Make ``target`` (default ``placed_extension_path()``) hold exactly ``source``'s regular
    files, replacing an older copy whole (module docstring)."""
    target = target or placed_extension_path()
    ensure_private_dir(target.parent, root=target.parent)
    present = _refuse_link(target)
    want = extension_digest(source)
    if present and extension_digest(target) == want:
        return Placement(target, "same")
    _clear_leftovers(target.parent, target.name)
    staging = target.with_name(f".{target.name}-new-{secrets.token_hex(4)}")
    try:
        os.mkdir(staging, 0o700)
        _copy_files(source, staging)
        _swap(staging, target, replace=present)
    except OSError as exc:
        raise UsageError(
            f"could not place the extension at {target}: {exc.strerror or exc}",
            code="bad_request",
            hint="free the folder (on Windows a running browser may hold the extension's files: "
            "close it) and run `reins install` again",
        ) from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone already once swapped in
    return Placement(target, "updated" if present else "new")


def remove_placed_extension(target: Path | None = None) -> Path | None:
    """Remove the copy `install` placed (`reins uninstall`); a symlink there is not reins's and
    stays. The path removed, or None."""
    target = target or placed_extension_path()
    try:
        if not stat.S_ISDIR(os.lstat(target).st_mode):
            return None
    except FileNotFoundError:
        return None
    retired = target.with_name(f".{target.name}-old-{secrets.token_hex(4)}")
    try:
        os.rename(target, retired)  # gone at once for a browser, however long the removal takes
    except OSError as exc:
        raise UsageError(
            f"could not remove the extension at {target}: {exc.strerror or exc}",
            code="bad_request",
            hint="close the browser that holds its files, then run `reins uninstall` again",
        ) from exc
    shutil.rmtree(retired, ignore_errors=True)
    return target


def loadable_extension() -> Path:
    """The folder to give Load unpacked: the placed copy when there is one, else this reins's."""
    placed = placed_extension_path()
    return placed if (placed / "manifest.json").is_file() else extension_path()


@dataclass(frozen=True)
class ExtensionState:
    """`reins doctor`'s word on the extension's files: which folder to load, and whether the
    copy there is this reins's."""

    load_from: Path
    ok: bool
    detail: str
    fix: str


def _version(folder: Path) -> str:
    try:
        data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unknown"
    return str(data.get("version", "unknown")) if isinstance(data, dict) else "unknown"


def extension_state() -> ExtensionState:
    source = extension_path()
    placed = placed_extension_path()
    if not (source / "manifest.json").is_file():
        return ExtensionState(
            placed, False, f"this reins has no extension at {source}", "reinstall reins"
        )
    if not (placed / "manifest.json").is_file():
        if source == _package() / "extension":
            return ExtensionState(
                placed, False, f"no copy at {placed} to load yet", "reins install, then load it"
            )
        return ExtensionState(
            source, True, f"load unpacked from {source} (`reins install` copies it to {placed})", ""
        )
    if extension_digest(placed) == extension_digest(source):
        return ExtensionState(
            placed,
            True,
            f"load unpacked from {placed}: this reins's files ({_version(source)})",
            "",
        )
    return ExtensionState(
        placed,
        False,
        f"{placed} (version {_version(placed)}) is not this reins's extension (version "
        f"{_version(source)}, {source}): the browser runs older files",
        f"reins install, then {_RELOAD}",
    )
