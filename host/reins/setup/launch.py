"""`reins launch` / `reins shutdown`: a dedicated browser profile with reins loaded.

The profile lives under REINS_HOME/profiles/NAME: its user-data dir (with the host registered in
its own NativeMessagingHosts folder), the launcher, the browser's log and its pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reins import _platform
from reins._errors import ConnectionFailure, ReinsError, UsageError
from reins._paths import (
    control_path,
    ensure_private_dir,
    open_private_append,
    profile_dir,
    reins_home,
    valid_profile_name,
    write_private,
)
from reins.bridge.client import socket_alive
from reins.setup.extension import extension_digest
from reins.setup.install import extension_dir, write_launcher, write_manifest

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

__all__ = ["browser_flags", "find_browser", "launch", "running_browser", "shutdown"]

_CANDIDATES = (
    "chromium",
    "chromium-browser",
    "google-chrome-for-testing",
    "chrome",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "brave-browser",
)
_MAC_APPS = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)


def find_browser(explicit: str | None = None) -> str:
    if explicit:
        path = shutil.which(explicit) or explicit
        if not os.path.isfile(path):
            raise UsageError(f"no browser at {explicit}", code="bad_request")
        return path
    env = os.environ.get("REINS_BROWSER")
    if env and os.path.isfile(env):
        return env
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    for app in _MAC_APPS:
        if os.path.isfile(app):
            return app
    raise ReinsError(
        "no Chromium or Chrome found",
        code="bad_request",
        hint="install one (Debian/Ubuntu: `sudo apt-get install chromium`; macOS: Chromium or "
        "Chrome for Testing), or pass --browser PATH",
    )


def load_via(binary: str, given: str | None = None) -> str:
    """How the extension gets into the browser: ``flag`` (``--load-extension``, which Chromium
    and Chrome for Testing read) or ``pipe`` (``Extensions.loadUnpacked`` over the DevTools pipe,
    for branded Chrome 137+, which ignores the flag, and every other build not known to read it)."""
    known = ("chromium", "for testing", "for-testing")
    return given or ("flag" if any(k in binary.lower() for k in known) else "pipe")


def browser_flags(user_data_dir: Path, *, headless: bool, load: str = "flag") -> list[str]:
    """The flags reins starts a browser with (also used by the test suite)."""
    if load == "pipe":
        loading = ["--remote-debugging-pipe", "--enable-unsafe-extension-debugging"]
    else:
        loading = [f"--load-extension={extension_dir()}"]
    flags = [
        f"--user-data-dir={user_data_dir}",
        *loading,
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-dev-shm-usage",
        "--disable-sync",
        "--password-store=basic",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    if headless:
        flags += ["--headless=new", "--disable-gpu", "--window-size=1280,900"]
    return flags


def _pid_alive(pid: int) -> bool:
    return _platform.process_alive(pid)


def _read_pid(pdir: Path) -> int | None:
    try:
        pid = int((pdir / "browser.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _pid_alive(pid) else None


def _command_line(pid: int) -> list[str] | None:
    """The process's arguments, or None where they cannot be read."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        pass
    try:  # macOS and the BSDs: no /proc
        out = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out.split() if out else None


def _runs_on(pid: int, data_dir: Path) -> bool:
    """Is live process ``pid`` a browser on ``data_dir``? When its arguments cannot be read it
    is taken to be: a browser wrongly thought gone would be orphaned, and that is worse."""
    args = _command_line(pid)
    if args is None:
        return True
    return any(
        a.startswith("--user-data-dir=") and Path(a.split("=", 1)[1]) == data_dir for a in args
    )


def _lock_holder(data_dir: Path) -> int | None:
    """The live browser that holds ``data_dir`` (Chromium's SingletonLock: ``HOST-PID``)."""
    try:
        owner = os.readlink(data_dir / "SingletonLock")
    except OSError:
        return None
    hostname, _, pid_text = owner.rpartition("-")
    if hostname != socket.gethostname() or not pid_text.isdigit():
        return None
    pid = int(pid_text)
    return pid if _pid_alive(pid) else None


def running_browser(pdir: Path, data_dir: Path) -> int | None:
    """The pid of the browser running on this profile, if one is: the recorded pid when it is
    still that browser (pids are reused), else the holder of the profile's lock."""
    recorded = _read_pid(pdir)
    if recorded is not None and _runs_on(recorded, data_dir):
        return recorded
    return _lock_holder(data_dir)


def launch(
    name: str = "launch",
    *,
    url: str | None = None,
    headless: bool = False,
    browser: str | None = None,
    user_data_dir: str | None = None,
    timeout_s: float = 30.0,
    load: str | None = None,
) -> dict[str, Any]:
    if not valid_profile_name(name):
        raise UsageError(f"profile name {name!r}: use letters, digits, . _ -")
    home = ensure_private_dir(reins_home())
    pdir = ensure_private_dir(profile_dir(name, home))
    with _launching(pdir):
        return _launch(name, home, pdir, url, headless, browser, user_data_dir, timeout_s, load)


@contextlib.contextmanager
def _launching(pdir: Path) -> Iterator[None]:
    """One `reins launch` of a profile at a time. Two at once would both find no browser, both
    start one, and Chromium's second would hand its URL to the first and exit: that launch said
    `no_host` and deleted the first one's pid file. The second now waits for the first to finish
    and then finds its browser (``_reuse``). The lock is the OS's: it goes with its process."""
    fd = os.open(pdir / "launch.lock", os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    try:
        _platform.lock_exclusive(fd)
        yield
    finally:
        os.close(fd)


def _launch(
    name: str,
    home: Path,
    pdir: Path,
    url: str | None,
    headless: bool,
    browser: str | None,
    user_data_dir: str | None,
    timeout_s: float,
    load: str | None,
) -> dict[str, Any]:
    sock = control_path(name, home)
    data_dir = Path(user_data_dir).expanduser().absolute() if user_data_dir else pdir / "user-data"
    running = running_browser(pdir, data_dir)
    if running is not None:
        _register(home, pdir, data_dir, name)  # so that its extension can start the host again
        return _reuse(name, running, pdir, sock, timeout_s)
    binary = find_browser(browser)
    loading = load_via(binary, load)
    if loading == "pipe" and sys.platform == "win32":
        raise UsageError(
            f"{binary} needs the extension loaded over its DevTools pipe, which `reins launch` "
            "does not do on Windows yet",
            code="platform_unsupported",
            hint="use Chromium or Chrome for Testing (`--browser PATH`), or load the extension "
            "by hand: `reins install` prints its folder for Load unpacked",
        )
    if user_data_dir:
        data_dir.mkdir(parents=True, exist_ok=True)
    else:
        ensure_private_dir(data_dir, root=home)
    _register(home, pdir, data_dir, name)
    if not user_data_dir:
        _fresh_extension_worker(pdir, data_dir)
        _downloads_into(data_dir, ensure_private_dir(pdir / "downloads", root=home))
    log = os.fdopen(open_private_append(pdir / "browser.log"), "ab")
    args = [binary, *browser_flags(data_dir, headless=headless, load=loading), url or "about:blank"]
    if loading == "pipe":
        proc, browser_pid = _start_over_pipe(args, log.fileno(), timeout_s, pdir)
    else:
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, **_platform.detached()
        )
        browser_pid = proc.pid
    log.close()
    write_private(pdir / "browser.pid", str(browser_pid).encode())
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:  # the browser, or the keeper of its pipe, which outlives it
            _forget_pid(pdir, browser_pid)
            raise ConnectionFailure(
                f"the browser exited at start (code {proc.returncode}); see {pdir / 'browser.log'}",
                code="no_host",
            )
        if sock.exists() and _host_connected(name):
            return {
                "profile": name,
                "pid": browser_pid,
                "browser": binary,
                "loaded_via": loading,
                "socket": str(sock),
                "user_data_dir": str(data_dir),
                "already_running": False,
            }
        time.sleep(0.1)
    _terminate(browser_pid)
    raise ConnectionFailure(
        f"the browser started but the reins host did not answer within {timeout_s:.0f} s",
        code="no_host",
        hint=f"see {pdir / 'browser.log'} and {home / 'logs'}; run `reins doctor "
        f"--user-data-dir {data_dir}`",
    )


def _start_over_pipe(
    args: list[str], log_fd: int, timeout_s: float, pdir: Path
) -> tuple[subprocess.Popen[bytes], int]:
    """Start the browser through its keeper (reins/setup/keeper.py), which loads the extension
    over the DevTools pipe; a browser that cannot load it is stopped and refused."""
    from reins.setup.keeper import start_keeper

    keeper, answer = start_keeper(args, str(extension_dir()), log_fd, min(timeout_s, 20.0))
    pid = answer.get("pid")
    if isinstance(pid, int) and "error" not in answer:
        return keeper, pid
    if isinstance(pid, int):
        _terminate(pid)
    raise ConnectionFailure(
        f"the browser did not load the reins extension over its DevTools pipe: "
        f"{answer.get('error')}",
        code="no_host",
        hint="reins needs Chromium, Chrome for Testing, or Chrome 137+ (which loads it over the "
        "pipe); install one and pass --browser PATH, or load the extension by hand (Load "
        f"unpacked, the folder `reins install` prints); see {pdir / 'browser.log'}",
    )


def _downloads_into(data_dir: Path, folder: Path) -> None:
    """The profile reins made saves downloads into ``folder`` (under REINS_HOME), without asking:
    its Preferences, written before the browser starts (Chrome keeps what it finds there). A file
    Chrome wrote that cannot be read is left as it is (the browser's own default then holds)."""
    prefs_path = data_dir / "Default" / "Preferences"
    prefs: Any = {}
    if prefs_path.exists():
        try:
            prefs = json.loads(prefs_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(prefs, dict):
            return
    download = prefs.get("download") if isinstance(prefs.get("download"), dict) else {}
    prefs["download"] = {**download, "default_directory": str(folder), "prompt_for_download": False}
    prefs_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(prefs_path, json.dumps(prefs).encode())


def _forget_pid(pdir: Path, pid: int) -> None:
    """Remove the pid file only while it is still this browser's."""
    try:
        if (pdir / "browser.pid").read_text().strip() == str(pid):
            (pdir / "browser.pid").unlink()
    except (FileNotFoundError, ValueError):
        pass


def _fresh_extension_worker(pdir: Path, data_dir: Path) -> None:
    """Before starting reins's own profile: if the extension's files changed since the last
    launch (a reins update), drop the profile's service-worker store so Chrome runs the new code.

    Chrome keeps running the extension service worker it registered first: with the files
    changed, even with a new manifest version, restart after restart (measured here: the
    extension said its old `hello` features; see docs/architecture.md, "Start-up and
    upgrades"). The store holds only service workers (the extension's, and any of the sites the
    agent visited in this profile: caches that come back), no cookies or storage."""
    digest = extension_digest(extension_dir())
    mark = pdir / "extension.sha256"
    try:
        before = mark.read_text().strip()
    except OSError:
        before = None
    if before != digest:
        # Every Chrome profile of this data directory: `Default` unless someone made and last
        # used another one in it ("Profile 1"), which Chrome then opens.
        for workers in data_dir.glob("*/Service Worker"):
            shutil.rmtree(workers, ignore_errors=True)
    write_private(mark, digest.encode())


def _register(home: Path, pdir: Path, data_dir: Path, name: str) -> None:
    """The host's launcher and its manifest in the profile's own NativeMessagingHosts folder."""
    launcher = write_launcher(pdir / "reins-host", home=home, profile=name, launched=True)
    write_manifest(data_dir / "NativeMessagingHosts", launcher)


def _reuse(name: str, pid: int, pdir: Path, sock: Path, timeout_s: float) -> dict[str, Any]:
    """A browser already runs on this profile: never start a second one on it.

    Chromium would hand the URL to the running browser and exit, and the running one's pid would
    be lost (nothing could shut it down). Its host may be away for a moment (the extension's
    worker restarted: it reconnects by itself within 30 s), so wait for it; if it does not come,
    say how to stop that browser."""
    write_private(pdir / "browser.pid", str(pid).encode())  # the live one, found by its lock
    answer = {
        "profile": name,
        "pid": pid,
        "browser": "already running",
        "socket": str(sock),
        "already_running": True,
    }
    if socket_alive(sock):
        return answer
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            break
        if sock.exists() and _host_connected(name):
            return answer
        time.sleep(0.2)
    raise ConnectionFailure(
        f"a browser already runs on profile {name!r} (pid {pid}) but its reins host did not "
        f"answer within {timeout_s:.0f} s; reins starts no second browser on one profile",
        code="no_host",
        hint=f"stop it with `reins shutdown --profile {name}`, then `reins launch` again",
        details={"pid": pid},
    )


def _host_connected(name: str) -> bool:
    from reins.bridge.client import request

    try:
        answer = request("ping", profile=name, timeout_ms=2000)
    except ReinsError:
        return False
    return bool(answer.get("ok") and answer.get("connected"))


def _terminate(pid: int, *, grace_s: float = 5.0) -> None:
    """End the browser's process group (reins starts it in one of its own): asked first, then,
    after ``grace_s``, forced."""
    if not _platform.stop_process_group(pid):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if _reaped(pid) or not _pid_alive(pid):
            return
        time.sleep(0.05)
    _platform.stop_process_group(pid, force=True)


def _reaped(pid: int) -> bool:
    """Collect ``pid`` if it is this process's child and has ended (a zombie counts as alive
    to ``_pid_alive``); Windows keeps no zombies."""
    if sys.platform == "win32":
        return False
    try:
        finished, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return finished != 0


def shutdown(name: str | None = None) -> dict[str, Any]:
    home = reins_home()
    root = home / "profiles"
    if name is None:
        running = (
            [p.name for p in root.glob("*") if _read_pid(p) is not None] if root.is_dir() else []
        )
        if not running:
            raise ConnectionFailure(
                "no browser started by `reins launch` is running", code="no_host"
            )
        if len(running) > 1:
            raise ConnectionFailure(
                f"several launched profiles are running ({', '.join(running)})",
                code="ambiguous_profile",
                hint="pass --profile NAME",
            )
        name = running[0]
    pdir = profile_dir(name, home)
    pid = _read_pid(pdir) or _lock_holder(pdir / "user-data")
    if pid is None:
        raise ConnectionFailure(
            f"profile {name!r} was not started by `reins launch`, or has exited", code="no_host"
        )
    _terminate(pid)
    (pdir / "browser.pid").unlink(missing_ok=True)
    sock = control_path(name, home)
    deadline = time.monotonic() + 5
    while sock.exists() and socket_alive(sock) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"profile": name, "pid": pid}
