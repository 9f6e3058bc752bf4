"""Real headless Chromium with the real extension and host, one browser per test session.

The host is registered in the temporary profile's own NativeMessagingHosts folder; chromedriver
starts Chromium with the unpacked extension; every command goes CLI/socket -> host -> extension ->
chrome.debugger. Pages are served from fixtures/ on two loopback ports (the second one reached as
`localhost`, a different site, so its iframes are out of process).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from .support import PROFILE, run_cli

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def _serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, int]:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


class Site:
    def __init__(self, port: int, xport: int) -> None:
        self.port = port
        self.xport = xport

    def url(self, path: str, **query: Any) -> str:
        """A fixture URL with a unique marker, so a test can find its own tab."""
        marker = uuid.uuid4().hex[:8]
        query.setdefault("xport", self.xport)
        query["t"] = marker
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}{sep}{qs}"

    def cross_url(self, path: str) -> str:
        return f"http://localhost:{self.xport}/{path.lstrip('/')}"


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    main, port = _serve(FIXTURES)
    cross, xport = _serve(FIXTURES)
    yield Site(port, xport)
    main.shutdown()
    cross.shutdown()


@pytest.fixture(scope="session")
def reins_home() -> Iterator[Path]:
    # Short path: Unix socket paths are limited to ~104 bytes.
    home = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))
    old = os.environ.get("REINS_HOME")
    os.environ["REINS_HOME"] = str(home)
    yield home
    if old is None:
        os.environ.pop("REINS_HOME", None)
    else:
        os.environ["REINS_HOME"] = old
    shutil.rmtree(home, ignore_errors=True)


def _chrome_options(user_data: Path) -> Any:
    from reins.setup.launch import browser_flags
    from selenium.webdriver.chrome.options import Options

    options = Options()
    options.binary_location = os.environ.get("REINS_TEST_BROWSER", "/usr/bin/chromium")
    for flag in browser_flags(user_data, headless=True):
        options.add_argument(flag)
    options.add_experimental_option("excludeSwitches", ["disable-extensions"])
    # Downloads into the test's own folder, never the machine's ~/Downloads.
    downloads = user_data.parent / "downloads"
    options.add_experimental_option(
        "prefs",
        {"download.default_directory": str(downloads), "download.prompt_for_download": False},
    )
    return options


class Browser:
    """The session's browser: selenium for reading pages, the reins CLI and socket for driving."""

    def __init__(self, driver: Any, home: Path, user_data: Path) -> None:
        self.driver = driver
        self.home = home
        self.user_data = user_data

    # -- reins through a real CLI process --
    def cli(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 60
    ) -> tuple[int, dict[str, Any]]:
        """`reins --profile test --json ARGS` (extra environment variables in `env`, e.g.
        REINS_CLICK=js): the exit code and the JSON answer."""
        run = run_cli(self.home, *args, env=env, timeout=timeout)
        return run.code, run.json()

    def ok(self, *args: str, timeout: float = 60) -> dict[str, Any]:
        code, body = self.cli(*args, timeout=timeout)
        assert code == 0 and body.get("ok"), f"reins {' '.join(args)} -> {code} {body}"
        return body

    def events(self) -> dict[str, int]:
        """The host's event counters (`reins stats`): collect_delta, press_with_lookup, …"""
        return self.ok("stats")["stats"]["events"]  # type: ignore[no-any-return]

    def wait_for_new_host(self, old_pid: int, within: float) -> float:
        """Wait until a host other than ``old_pid`` answers with the extension connected; the
        seconds that took (fails the test after ``within``)."""
        since = time.monotonic()
        answer: dict[str, Any] = {}
        while time.monotonic() - since < within:
            code, answer = self.cli("status", timeout=5)
            if code == 0 and answer.get("connected") and answer["host"]["pid"] != old_pid:
                return time.monotonic() - since
            time.sleep(0.1)
        raise AssertionError(f"no new host within {within} s: {answer}")

    def restart_host(self) -> None:
        """Kill the host and wait until the extension has started and connected a new one."""
        old_pid = self.ok("status")["host"]["pid"]
        os.kill(old_pid, signal.SIGKILL)
        self.wait_for_new_host(old_pid, 10)

    # -- reins through the socket directly --
    def call(self, cmd: str, args: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        from reins._paths import socket_path
        from reins.bridge.client import Connection

        with Connection(socket_path(PROFILE, self.home)) as conn:
            return conn.call(cmd, args, **kw)

    # -- the page as the oracle --
    def switch_to(self, url_part: str) -> None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for handle in self.driver.window_handles:
                self.driver.switch_to.window(handle)
                if url_part in self.driver.current_url:
                    return
            time.sleep(0.1)
        raise AssertionError(f"no tab with {url_part}")

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)


def _wait_connected(home: Path, timeout: float = 30) -> None:
    from reins._paths import socket_path
    from reins.bridge.client import Connection

    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        path = socket_path(PROFILE, home)
        if path.exists():
            try:
                with Connection(path) as conn:
                    last = conn.call("ping", timeout_ms=2000)
                    if last.get("connected"):
                        return
            except Exception as exc:  # noqa: BLE001 - polling until the host is up
                last = exc
        time.sleep(0.1)
    raise RuntimeError(f"reins host did not connect: {last}")


def start_browser(
    home: Path, *, env: Mapping[str, str] | None = None, wait: bool = True
) -> Browser:
    """A browser whose host serves ``home``, set up as `reins launch` sets one up; ``env`` (e.g.
    REINS_TRANSPORT) reaches the browser and so its host; ``wait`` for the host's Unix socket."""
    from reins.setup.install import install
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    user_data = home / "chrome-profile"
    user_data.mkdir(parents=True, exist_ok=True)
    install(user_data_dir=str(user_data), profile=PROFILE, launched=True)  # as `reins launch` does
    service = Service(
        os.environ.get("REINS_TEST_DRIVER", "/usr/bin/chromedriver"),
        env={**os.environ, "REINS_HOME": str(home), **env} if env else None,
    )
    driver = webdriver.Chrome(service=service, options=_chrome_options(user_data))
    driver.set_script_timeout(30)
    if wait:
        _wait_connected(home)
    return Browser(driver, home, user_data)


@contextlib.contextmanager
def browser_of_its_own(
    prefix: str, *, env: Mapping[str, str] | None = None, wait: bool = True
) -> Iterator[Browser]:
    """A browser with a REINS_HOME of its own (a new folder under /tmp, removed afterwards), for
    a test that must not share the session's: the host launcher is written for that home, so it
    is REINS_HOME while the browser starts."""
    home = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    session_home = os.environ.get("REINS_HOME")
    os.environ["REINS_HOME"] = str(home)
    try:
        b = start_browser(home, env=env, wait=wait)
    except BaseException:
        shutil.rmtree(home, ignore_errors=True)
        raise
    finally:
        if session_home is not None:
            os.environ["REINS_HOME"] = session_home
        else:
            os.environ.pop("REINS_HOME", None)
    try:
        yield b
    finally:
        b.driver.quit()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def browser(reins_home: Path, site: Site) -> Iterator[Browser]:
    b = start_browser(reins_home)
    yield b
    b.driver.quit()


@pytest.fixture
def page(browser: Browser, site: Site) -> Iterator[Any]:
    """Opens a fresh tab for the test through reins; closes it afterwards."""
    opened: list[int] = []

    def open_page(path: str, **query: Any) -> tuple[int, str]:
        url = site.url(path, **query)
        body = browser.ok("tab", "new", url)
        opened.append(body["id"])
        browser.switch_to(url.split("?t=")[-1] if "?t=" in url else url.rsplit("t=", 1)[-1])
        return body["id"], url

    yield open_page
    for tab_id in opened:
        browser.cli("tab", "close", str(tab_id))
