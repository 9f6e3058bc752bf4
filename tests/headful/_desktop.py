"""A desktop for the headful tier: Xvfb, a window manager, a person's Chromium, and that person.

Everything here is what a user's machine has: an X display with a window manager (openbox, so
minimize, activate and stacking behave as on a desktop), Chromium started by hand on a profile
that `reins install --user-data-dir` registered the host in, and a person who switches tabs,
minimizes the window or puts another window over it (xdotool, xmessage). Nothing is started by
reins or chromedriver.

Used by the test conftest and by ``python -m tests.headful.measure``.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (1600, 1000)
# Debian package -> the program the tier needs from it.
X_TOOLS = {
    "Xvfb": "xvfb",
    "openbox": "openbox",
    "xdotool": "xdotool",
    "xmessage": "x11-utils",
    "xprop": "x11-utils",
}


def missing_tools() -> list[str]:
    return [name for name in X_TOOLS if shutil.which(name) is None]


def _wait(predicate: Callable[[], Any], timeout: float, what: str, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


def _stop(proc: subprocess.Popen[Any], *, group: bool = False) -> None:
    if proc.poll() is not None:
        return
    try:
        if group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
        proc.wait(timeout=5)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            proc.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


@dataclass
class Desktop:
    """An Xvfb display (a free one, chosen by Xvfb itself) with openbox running on it."""

    display: str
    _procs: list[subprocess.Popen[Any]] = field(default_factory=list)

    @classmethod
    def start(cls) -> Desktop:
        read_fd, write_fd = os.pipe()
        xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{SCREEN[0]}x{SCREEN[1]}x24",
                "-nolisten",
                "tcp",
            ],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write_fd)
        number = b""
        try:
            deadline = time.monotonic() + 15
            while not number.endswith(b"\n"):
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([read_fd], [], [], left)[0]:
                    raise RuntimeError("Xvfb did not report its display")
                chunk = os.read(read_fd, 16)
                if not chunk:
                    raise RuntimeError(f"Xvfb exited ({xvfb.poll()}) before reporting its display")
                number += chunk
        except BaseException:
            _stop(xvfb)
            raise
        finally:
            os.close(read_fd)
        desktop = cls(f":{number.decode().strip()}", [xvfb])
        try:
            desktop._procs.append(
                subprocess.Popen(
                    ["openbox", "--sm-disable"],
                    env=desktop.env(),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            wm = desktop._procs[-1]
            _wait(lambda: wm.poll() is not None or desktop._wm_running(), 30, "openbox")
            if wm.poll() is not None:
                raise RuntimeError(f"openbox exited ({wm.returncode}) on {desktop.display}")
        except BaseException:
            desktop.close()
            raise
        return desktop

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display, **extra}

    def run(self, *argv: str, timeout: float = 10) -> str:
        done = subprocess.run(argv, env=self.env(), capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} -> {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def xdotool(self, *args: str, timeout: float = 10) -> str:
        return self.run("xdotool", *args, timeout=timeout)

    def _wm_running(self) -> bool:
        try:
            return "window id" in self.run("xprop", "-root", "_NET_SUPPORTING_WM_CHECK")
        except (RuntimeError, subprocess.TimeoutExpired):
            return False

    def close(self) -> None:
        for proc in reversed(self._procs):
            _stop(proc)
        self._procs.clear()


class Person:
    """The browser's user, at the keyboard of the desktop: switches tabs, minimizes, covers."""

    def __init__(self, desktop: Desktop) -> None:
        self.desktop = desktop
        self._window: str | None = None
        self._cover: subprocess.Popen[Any] | None = None

    def window(self) -> str:
        """The browser window (found once: a minimized window is not "visible" to xdotool)."""
        if self._window is None:

            def search() -> list[str]:
                try:  # a window that goes away mid-search fails the search: look again
                    return self.desktop.xdotool(
                        "search", "--onlyvisible", "--class", "chromium"
                    ).split()
                except RuntimeError:
                    return []

            self._window = _wait(search, 30, "the browser window", step=0.2)[-1]
        return self._window

    def key(self, *keys: str) -> None:
        """Keys typed into the browser window, as from the keyboard (XTEST, not synthetic)."""
        self.desktop.xdotool("windowactivate", "--sync", self.window())
        self.desktop.xdotool("key", "--clearmodifiers", *keys)

    def open_new_tab(self) -> None:
        self.key("ctrl+t")

    def close_tab(self) -> None:
        self.key("ctrl+w")

    def type_text(self, text: str, delay_ms: int = 25) -> None:
        """Typed on the keyboard into whatever has the focus in the browser window."""
        self.desktop.xdotool("windowactivate", "--sync", self.window())
        self.desktop.xdotool("type", "--delay", str(delay_ms), text, timeout=60)

    def minimize(self) -> None:
        self.desktop.xdotool("windowminimize", "--sync", self.window())

    def activate(self) -> None:
        self.desktop.xdotool("windowactivate", "--sync", self.window())

    def is_minimized(self) -> bool:
        return "_NET_WM_STATE_HIDDEN" in self.desktop.run(
            "xprop", "-id", self.window(), "_NET_WM_STATE"
        )

    def stacking(self) -> list[int]:
        """Top-level windows, bottom to top, as the window manager stacks them."""
        out = self.desktop.run("xprop", "-root", "_NET_CLIENT_LIST_STACKING")
        return [int(w, 16) for w in out.split("#")[-1].replace(",", " ").split()]

    def cover_window(self) -> int | None:
        if self._cover is None:
            return None
        found = self.desktop.xdotool("search", "--onlyvisible", "--class", "xmessage").split()
        return int(found[-1]) if found else None

    def active_window(self) -> str | None:
        """The window with the keyboard focus (None: none, e.g. the only one is minimized)."""
        try:
            return self.desktop.xdotool("getactivewindow").strip() or None
        except RuntimeError:
            return None

    def cover(self) -> None:
        """Another application's window over the whole screen (the browser stays unminimized)."""
        self.uncover()
        self._cover = subprocess.Popen(
            ["xmessage", "-geometry", f"{SCREEN[0]}x{SCREEN[1]}+0+0", "another application"],
            env=self.desktop.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.desktop.xdotool("search", "--sync", "--onlyvisible", "--class", "xmessage", timeout=15)

    def uncover(self) -> None:
        if self._cover is not None:
            _stop(self._cover)
            self._cover = None


@dataclass
class Reins:
    """The reins CLI as an agent runs it: a real process per command, JSON out."""

    home: Path
    pythonpath: str = str(ROOT / "host")

    def env(self) -> dict[str, str]:
        path = os.pathsep.join(p for p in (self.pythonpath, os.environ.get("PYTHONPATH")) if p)
        return {**os.environ, "REINS_HOME": str(self.home), "PYTHONPATH": path}

    def cli(self, *args: str, timeout: float = 60) -> tuple[int, dict[str, Any], float]:
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "reins.cli", "--json", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env(),
        )
        elapsed = time.monotonic() - started
        out = proc.stdout.strip().splitlines()
        try:
            body = json.loads(out[-1]) if out else {"stderr": proc.stderr}
        except ValueError:
            body = {"stdout": proc.stdout, "stderr": proc.stderr}
        return proc.returncode, body, elapsed

    def ok(self, *args: str, timeout: float = 60) -> dict[str, Any]:
        code, body, _ = self.cli(*args, timeout=timeout)
        assert code == 0 and body.get("ok"), f"reins {' '.join(args)} -> {code} {body}"
        return body

    def wait_connected(self, timeout: float = 60) -> None:
        def connected() -> bool:
            code, body, _ = self.cli("status", timeout=20)
            return code == 0 and bool(body.get("connected"))

        _wait(connected, timeout, "`reins status` to say connected", step=0.3)


def browser_command(
    user_data: Path, url: str, browser: str | None = None, extension: Path | None = None
) -> list[str]:
    """Chromium as a person starts it on their profile (the extension loaded unpacked: this
    checkout's, ``REINS_EXTENSION_DIR`` or ``extension``)."""
    extension = extension or Path(os.environ.get("REINS_EXTENSION_DIR") or ROOT / "extension")
    return [
        browser or os.environ.get("REINS_TEST_BROWSER", "/usr/bin/chromium"),
        f"--user-data-dir={user_data}",
        f"--load-extension={extension}",
        "--no-first-run",
        "--no-default-browser-check",
        "--no-sandbox",
        "--password-store=basic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        url,
    ]


def start_browser(
    desktop: Desktop, reins: Reins, user_data: Path, url: str, log: Path
) -> subprocess.Popen[Any]:
    """`reins install --user-data-dir`, then Chromium on that profile; returns once connected."""
    user_data.mkdir(parents=True, exist_ok=True)
    reins.ok("install", "--user-data-dir", str(user_data))
    with log.open("ab") as out:
        # Its own process group: the teardown ends the browser and everything it started.
        proc = subprocess.Popen(
            browser_command(user_data, url),
            env=desktop.env(
                **{"REINS_HOME": str(reins.home), "PYTHONPATH": reins.env()["PYTHONPATH"]}
            ),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        reins.wait_connected()
    except BaseException:
        stop_browser(proc)
        raise
    return proc


def stop_browser(proc: subprocess.Popen[Any]) -> None:
    _stop(proc, group=True)
