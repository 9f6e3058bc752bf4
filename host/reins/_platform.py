"""What differs between the desktops reins runs on, in one place: which OS this is, whose files
are whose, the control channel's transport, file locks, the stop signals and the native port's
binary stdio, and the Windows registry (through a small interface the tests replace with a fake).

Code elsewhere asks ``os_name()`` rather than reading ``sys.platform`` itself, so a test can run
the Windows or macOS path on this Linux machine by replacing that one function; what cannot be
simulated (the ``winreg`` module itself) sits behind ``Registry``.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Literal, Protocol

from reins._errors import UsageError

if TYPE_CHECKING:
    import _socket

__all__ = [
    "OsName",
    "Registry",
    "Transport",
    "WindowsRegistry",
    "binary_stdio",
    "current_registry",
    "detached",
    "exclusive_address",
    "lock_exclusive",
    "move_fd_above",
    "os_name",
    "process_alive",
    "stop_process_group",
    "stop_signals",
    "system_root",
    "transport",
    "user_id",
]

OsName = Literal["linux", "darwin", "win32"]
Transport = Literal["unix", "tcp"]


def os_name() -> OsName:
    """The desktop this is: ``win32``, ``darwin``, or ``linux`` (any other POSIX system too)."""
    if sys.platform == "win32":
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def system_root() -> str:
    """Where the machine's own folders start (``/``): the folders reins reads but no user owns —
    ``/snap``, ``/etc/opt/chrome/policies``, ``/Library/Managed Preferences`` — are joined to
    it, so a test points it at a folder of its own. A string: the CLI's client path goes without
    pathlib (``_paths``)."""
    return os.sep


def user_id() -> int | None:
    """This user's uid where files carry one (POSIX); None on Windows, where ownership is an ACL
    and a user's profile folders are closed to other users by default."""
    if sys.platform == "win32" or os_name() == "win32":
        return None
    return os.getuid()


def transport() -> Transport:
    """The control channel a host listens on (docs/security.md, "The control channel"): a Unix
    socket on Linux and macOS; loopback TCP with a per-host secret on Windows, whose Python has
    no AF_UNIX. ``REINS_TRANSPORT=tcp`` selects the Windows transport on POSIX, to run it here
    (tests); ``unix`` on Windows is refused."""
    chosen = os.environ.get("REINS_TRANSPORT", "")
    if chosen not in ("", "unix", "tcp"):
        raise UsageError(
            f"REINS_TRANSPORT={chosen!r} is not a transport",
            hint="unset it, or set it to `tcp` (the Windows transport) or `unix`",
        )
    if os_name() == "win32":
        if chosen == "unix":
            raise UsageError(
                "REINS_TRANSPORT=unix: Windows Python has no Unix sockets",
                code="platform_unsupported",
                hint="unset REINS_TRANSPORT (Windows uses the tcp transport)",
            )
        return "tcp"
    return "tcp" if chosen == "tcp" else "unix"


def exclusive_address(sock: _socket.socket) -> None:
    """Before a bind on Windows: no other process may bind the same address and port, whatever
    options it sets (``SO_EXCLUSIVEADDRUSE``). On POSIX a listening port cannot be bound again
    without SO_REUSEPORT, which Linux grants only to the same user: nothing to set."""
    if sys.platform == "win32":
        import _socket

        sock.setsockopt(_socket.SOL_SOCKET, _socket.SO_EXCLUSIVEADDRUSE, 1)


def lock_exclusive(fd: int) -> None:
    """Hold an exclusive lock on the open file ``fd`` until it is closed (the lock goes with the
    process): ``flock`` on POSIX, ``msvcrt.locking`` of its first byte on Windows."""
    if sys.platform == "win32":
        import msvcrt

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for ~10 s itself
                return
            except OSError:
                continue
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def move_fd_above(fd: int, low: int) -> int:
    """``fd`` moved to the lowest free descriptor >= ``low``, close-on-exec (the DevTools pipe's
    keeper: POSIX only, as is passing a browser descriptors 3 and 4)."""
    if sys.platform == "win32":
        raise UsageError(
            "loading the extension over the DevTools pipe is POSIX-only",
            code="platform_unsupported",
            hint="use Chromium or Chrome for Testing (`--browser PATH`), or load the extension "
            "by hand: `reins install` prints its folder for Load unpacked",
        )
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, low)
    os.close(fd)
    return moved


def stop_signals() -> tuple[int, ...]:
    """The signals that end the host cleanly through its event loop: SIGTERM, SIGINT, SIGHUP on
    POSIX. None on Windows, whose event loop takes no signal handlers: the browser closes the
    host's stdin when the port goes, which ends it there."""
    if sys.platform == "win32":
        return ()
    import signal

    return (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def detached() -> dict[str, Any]:
    """`subprocess.Popen` arguments for a browser that outlives the command starting it, in a
    group of its own (so stopping it stops its children): a new session on POSIX, a new process
    group on Windows (where ``start_new_session`` does nothing)."""
    if sys.platform == "win32":
        return {"creationflags": 0x200}  # CREATE_NEW_PROCESS_GROUP
    return {"start_new_session": True}


def process_alive(pid: int) -> bool:
    """Does process ``pid`` exist (a zombie counts, as on POSIX)? On Windows the process is
    opened for a query and its exit code read (``os.kill(pid, 0)`` there would send it Ctrl+C)."""
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() == 5  # ERROR_ACCESS_DENIED: it exists, not ours
        code = ctypes.c_ulong()
        try:
            ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        finally:
            kernel32.CloseHandle(handle)
        return bool(ok) and code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_process_group(pid: int, *, force: bool = False) -> bool:
    """Ask the process ``pid`` leads (its group: a browser and its children) to end — SIGTERM,
    or SIGKILL when ``force`` — or the process alone when it leads no group. On Windows
    ``taskkill /T`` (its tree; ``/F`` when ``force``). False when there was nothing to stop."""
    if sys.platform == "win32":
        import subprocess

        argv = ["taskkill", "/PID", str(pid), "/T", *(["/F"] if force else [])]
        done = subprocess.run(argv, capture_output=True, check=False)
        return done.returncode == 0
    import signal

    signum = signal.SIGKILL if force else signal.SIGTERM
    try:
        os.killpg(pid, signum)
        return True
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(pid, signum)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def binary_stdio(*fds: int) -> None:
    """Native messaging's frames are bytes: on Windows a descriptor in text mode would turn
    ``\\n`` into ``\\r\\n`` and stop at ``^Z``; binary mode there (POSIX has no text mode)."""
    if sys.platform == "win32":
        import msvcrt

        for fd in fds:
            msvcrt.setmode(fd, os.O_BINARY)


class Registry(Protocol):
    """The part of the registry reins touches. Registration: a key below HKCU
    (``Software\\Google\\Chrome\\NativeMessagingHosts\\dev.reins.host``) whose default value is
    the host's manifest path, which is how Chromium reads it. Policies (read by `reins doctor`):
    the named values of a key below HKLM (``machine``) or HKCU, as Chromium's policy loader reads
    them (a list policy is a subkey whose values are its items)."""

    def key_exists(self, key: str) -> bool: ...

    def read_default(self, key: str) -> str | None: ...

    def write_default(self, key: str, value: str) -> None: ...

    def delete_key(self, key: str) -> bool: ...

    def read_values(self, key: str, *, machine: bool = False) -> dict[str, str | int]: ...


class WindowsRegistry:
    """HKEY_CURRENT_USER through ``winreg`` (Windows only)."""

    def key_exists(self, key: str) -> bool:
        if sys.platform != "win32":
            return False
        import winreg

        try:
            winreg.CloseKey(winreg.OpenKey(winreg.HKEY_CURRENT_USER, key))
        except OSError:
            return False
        return True

    def read_default(self, key: str) -> str | None:
        if sys.platform != "win32":
            return None
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, key) as handle:
                value, kind = winreg.QueryValueEx(handle, "")
        except OSError:
            return None
        return (
            value
            if kind in (winreg.REG_SZ, winreg.REG_EXPAND_SZ) and isinstance(value, str)
            else None
        )

    def write_default(self, key: str, value: str) -> None:
        if sys.platform != "win32":
            return
        import winreg

        with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, key, 0, winreg.KEY_WRITE) as handle:
            winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, value)

    def delete_key(self, key: str) -> bool:
        if sys.platform != "win32":
            return False
        import winreg

        try:
            winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key)
        except FileNotFoundError:
            return False
        return True

    def read_values(self, key: str, *, machine: bool = False) -> dict[str, str | int]:
        """The key's string and DWORD values by name (empty when the key is missing)."""
        if sys.platform != "win32":
            return {}
        import winreg

        hive = winreg.HKEY_LOCAL_MACHINE if machine else winreg.HKEY_CURRENT_USER
        out: dict[str, str | int] = {}
        try:
            with winreg.OpenKey(hive, key) as handle:
                count = winreg.QueryInfoKey(handle)[1]
                for index in range(count):
                    name, value, kind = winreg.EnumValue(handle, index)
                    if kind in (winreg.REG_SZ, winreg.REG_EXPAND_SZ, winreg.REG_DWORD):
                        if isinstance(value, str | int):
                            out[name] = value
        except OSError:
            return {}
        return out


def current_registry() -> Registry:
    """This user's registry (the tests put a fake in its place)."""
    return WindowsRegistry()
