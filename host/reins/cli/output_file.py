"""Files the CLI writes where the user says (`screenshot -o`, `map -o`, `state --record`): never
through a link, never half-written.

The path may be in a directory others can write to (/tmp), where a symlink planted at it would
send the bytes into whatever file it points at. So anything but a regular file there (a symlink,
a directory, a device) is refused with a typed error (``bad_request``, exit 2). The bytes go into
a new file beside it — created with O_CREAT|O_EXCL|O_NOFOLLOW under a random name, mode 0600: a
picture or map of a logged-in page is its user's alone, like a trace — flushed to disk, then
renamed over the path: the file appears whole or not at all, and a rename replaces a link
planted after the check (or a hard link), never the file it leads to. Every step names the
directory through one descriptor, so a directory swapped into the path meanwhile cannot split
them. Any OS error on the way is the same typed error, and leaves no temporary behind.
"""

from __future__ import annotations

import os
import stat

from reins._errors import UsageError

__all__ = ["append_output", "check_output_path", "write_output"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_MODE = 0o600
_HINT = "remove it or give another path with -o"


def _refused(path: str, what: str) -> UsageError:
    return UsageError(
        f"{path} is {what}: reins writes -o files only as regular files, never through a link",
        hint=_HINT,
    )


def _failed(path: str, exc: OSError) -> UsageError:
    return UsageError(f"cannot write {path}: {exc.strerror or exc}", hint=_HINT)


def _check_kind(path: str, mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise _refused(path, "a symbolic link")
    if stat.S_ISDIR(mode):
        raise _refused(path, "a directory")
    if not stat.S_ISREG(mode):
        raise _refused(path, "not a regular file")


def check_output_path(path: str) -> None:
    """Refuse, before the command asks the browser for anything, a path ``write_output`` would
    refuse: a symlink, a directory or another non-regular file there (it checks again)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _failed(path, exc) from None
    _check_kind(path, info.st_mode)


def append_output(path: str, data: bytes) -> None:
    """Append ``data`` to ``path`` (`state --record`), never through a link: opened with
    O_NOFOLLOW and checked to be a regular file before a byte is written; created 0600."""
    check_output_path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, _MODE)
    except OSError as exc:
        if os.path.islink(path):
            raise _refused(path, "a symbolic link") from None
        raise _failed(path, exc) from None
    try:
        _check_kind(path, os.fstat(fd).st_mode)
        os.write(fd, data)
    except OSError as exc:
        raise _failed(path, exc) from None
    finally:
        os.close(fd)


def write_output(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically without following a link (module docstring)."""
    parent, name = os.path.split(path)
    if not name:
        raise _refused(path, "a directory")
    try:
        dir_fd = os.open(parent or ".", os.O_RDONLY | _DIRECTORY)
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        _write_in(dir_fd, name, path, data)
    finally:
        os.close(dir_fd)


def _write_in(dir_fd: int, name: str, path: str, data: bytes) -> None:
    try:
        info = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise _failed(path, exc) from None
    else:
        _check_kind(path, info.st_mode)
    temp, fd = _new_temp(dir_fd, name, path)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        try:
            os.unlink(temp, dir_fd=dir_fd)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise _failed(path, exc) from None
        raise


def _new_temp(dir_fd: int, name: str, path: str) -> tuple[str, int]:
    """A new file beside ``name``, under a name nobody can have planted (random, O_EXCL)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(8):
        temp = f".{name[:200]}.{os.urandom(6).hex()}.tmp"
        try:
            return temp, os.open(temp, flags, _MODE, dir_fd=dir_fd)
        except FileExistsError:
            continue
        except OSError as exc:
            raise _failed(path, exc) from None
    raise UsageError(f"cannot write {path}: no free temporary name beside it", hint=_HINT)
