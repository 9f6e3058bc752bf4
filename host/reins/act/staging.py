"""Upload staging: Chrome gets a private copy of each file, made from the very file the policy
checked (issue 46).

``allowed_files`` checks paths; Chrome opens what it is given later, when the page reads the file.
A file swapped for a symlink in between (or a folder on its way swapped for one) would have
Chrome read from outside the allowed directories. So each file is opened component by component
from its allowed root with O_NOFOLLOW (a link anywhere on the way is refused), checked to be a
regular file on the open descriptor, and copied into ``REINS_HOME/uploads/<random>/<its name>``
(folders 0700, the copy 0600): the bytes Chrome reads are the bytes of the file that was checked.
The copies must outlive the command — a page reads its files when it submits — so they are kept
for a day and removed by a later upload (or by the user: ``REINS_HOME/uploads``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from reins._errors import ActionError
from reins._paths import ensure_private_dir

__all__ = ["KEEP_S", "staged_copies"]

KEEP_S = 24 * 3600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _refused(message: str) -> ActionError:
    return ActionError(message, code="upload_refused")


def _open_below(root: str, path: str) -> int:
    """A descriptor on ``path`` (a realpath under the realpath ``root``), every component below
    ``root`` opened without following a link."""
    parts = [p for p in os.path.relpath(path, root).split(os.sep) if p not in ("", ".")]
    if not parts or ".." in parts:
        raise _refused(f"{path} is not a file under {root}")
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for folder in parts[:-1]:
            inner = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], os.O_RDONLY | _NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)


def staged_copies(chosen: Sequence[tuple[str, str]], home: Path) -> list[str]:
    """Private copies of ``chosen`` ((realpath, the allowed root's realpath) pairs), in order."""
    store = ensure_private_dir(home / "uploads", root=home)
    _forget_old(store)
    out: list[str] = []
    for path, root in chosen:
        try:
            source = _open_below(root, path)
        except OSError as exc:
            raise _refused(
                f"{path} changed since it was checked (a link on its way, or gone): not uploaded"
            ) from exc
        try:
            if not stat.S_ISREG(os.fstat(source).st_mode):
                raise _refused(f"{path} is not a regular file: not uploaded")
            folder = store / secrets.token_hex(8)
            os.mkdir(folder, 0o700)
            copy = folder / os.path.basename(path)  # the page sees the file's own name
            target = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
            with os.fdopen(source, "rb", closefd=False) as src, os.fdopen(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        finally:
            os.close(source)
        out.append(str(copy))
    return out


def _forget_old(store: Path) -> None:
    cutoff = time.time() - KEEP_S
    for folder in store.iterdir():
        try:
            if folder.is_dir() and not folder.is_symlink() and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder)
        except OSError:
            continue
