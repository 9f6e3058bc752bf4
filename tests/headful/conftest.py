"""The headful tier: a person's own Chromium on a desktop, the agent acting beside them.

One desktop (Xvfb on a free display + openbox) and one browser per session, started as a person
starts it (no chromedriver, no `reins launch`) on a profile `reins install --user-data-dir`
registered the host in. The person is driven with xdotool: switches tabs, minimizes the window,
covers it with another application's window. The agent is the reins CLI, one process per command.

The page is the oracle: the fixture pages (fixtures/headful/) send every commit to this server
(POST /beacon, JSON, tagged with the page's ?t= marker) and the tests assert what arrived. Every
test gets a fresh agent tab and leaves the person's browser as it found it: one tab, the person's
own page, the window shown and focused, nothing covering it.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.headful._desktop import (
    X_TOOLS,
    Desktop,
    Person,
    Reins,
    missing_tools,
    start_browser,
    stop_browser,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
HIDDEN_MODES = ("background", "minimized", "covered")
# Each agent command's wall time, by what the person did to its tab: printed at the end of the run.
_TIMINGS = pytest.StashKey[list[tuple[str, str, float]]]()


class Beacons:
    """What the fixture pages reported, by page marker."""

    def __init__(self) -> None:
        self._records: list[dict[str, Any]] = []
        self._changed = threading.Condition()

    def add(self, record: dict[str, Any]) -> None:
        with self._changed:
            self._records.append(record)
            self._changed.notify_all()

    def of(self, tag: str, kind: str | None = None) -> list[dict[str, Any]]:
        with self._changed:
            return [
                r
                for r in self._records
                if r.get("tag") == tag and (kind is None or r.get("kind") == kind)
            ]

    def wait(
        self,
        tag: str,
        predicate: Callable[[dict[str, Any]], bool],
        *,
        timeout: float = 5,
        what: str = "a report",
    ) -> dict[str, Any]:
        """The first report of this page that matches, waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for record in self._records:
                    if record.get("tag") == tag and predicate(record):
                        return record
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(r.get("kind"), r.get("value", r.get("state"))) for r in self.of(tag)]
                    raise AssertionError(f"page {tag} never reported {what}; it reported {seen}")
                self._changed.wait(left)


def until(predicate: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    """The first true value of ``predicate``, looked at every 0.2 s (a failed assert past
    ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _handler(beacons: Beacons) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            if self.path != "/beacon":
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                beacons.add(json.loads(body))
            except ValueError:
                self.send_error(400)
                return
            self.send_response(204)
            self.end_headers()

    return Handler


@dataclass
class Site:
    port: int
    beacons: Beacons

    def url(self, path: str, tag: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}?t={tag}"


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    beacons = Beacons()
    handler = functools.partial(_handler(beacons), directory=str(FIXTURES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Site(server.server_address[1], beacons)
    server.shutdown()


@pytest.fixture(scope="session")
def desktop() -> Iterator[Desktop]:
    missing = missing_tools()
    if "Xvfb" in missing:
        pytest.skip("the headful tier needs Xvfb (Debian: xvfb; scripts/bootstrap installs it)")
    if missing:
        packages = sorted({X_TOOLS[name] for name in missing})
        pytest.fail(
            f"the headful tier needs {', '.join(missing)} "
            f"(Debian: {' '.join(packages)}; scripts/bootstrap installs them)"
        )
    started = Desktop.start()
    yield started
    started.close()


@dataclass
class UserBrowser:
    """The person's browser, the person at it, and the agent's CLI."""

    person: Person
    reins: Reins
    site: Site
    home_tab: int
    log: Path
    # (what the person did to the tab, command, seconds): the summary at the end of the run.
    timings: list[tuple[str, str, float]] = field(default_factory=list)


def _home_tab(reins: Reins, timeout: float = 30) -> int:
    """The person's own tab (the extension may connect before the browser has listed it)."""
    deadline = time.monotonic() + timeout
    while True:
        tabs = reins.ok("tabs")["tabs"]
        home = [t for t in tabs if "/headful/home.html" in t.get("url", "")]
        if home:
            return int(home[0]["id"])
        if time.monotonic() > deadline:
            raise RuntimeError(f"the browser never listed the person's page: {tabs}")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def user_browser(
    desktop: Desktop, site: Site, pytestconfig: pytest.Config
) -> Iterator[UserBrowser]:
    # Short: the host's socket path lives under REINS_HOME (Unix socket paths are ~104 bytes).
    home = Path(tempfile.mkdtemp(prefix="rh-", dir="/tmp"))
    reins = Reins(home)
    log = home / "browser.log"
    try:
        proc = start_browser(
            desktop, reins, home / "profile", site.url("headful/home.html", "home"), log
        )
        try:
            person = Person(desktop)
            person.window()
            yield UserBrowser(
                person, reins, site, _home_tab(reins), log, pytestconfig.stash[_TIMINGS]
            )
        finally:
            stop_browser(proc)
    finally:
        if os.environ.get("REINS_KEEP_HEADFUL_HOME"):
            print(f"\nheadful REINS_HOME kept at {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


@dataclass
class AgentTab:
    """A fresh tab the agent opened, and what the person does around it."""

    browser: UserBrowser
    tab_id: int
    tag: str
    mode: str | None = None

    @property
    def beacons(self) -> Beacons:
        return self.browser.site.beacons

    def reins(self, *args: str, timeout: float = 30) -> tuple[int, dict[str, Any], float]:
        return self.browser.reins.cli(*args, "--tab", str(self.tab_id), timeout=timeout)

    def act(self, *args: str, within: float = 3.0) -> dict[str, Any]:
        """Run an agent command on this tab; it must succeed, within ``within`` seconds."""
        code, body, elapsed = self.reins(*args)
        self.browser.timings.append((self.mode or "shown", " ".join(args[:2]), elapsed))
        assert code == 0 and body.get("ok"), f"reins {' '.join(args)} -> {code} {body}"
        assert elapsed < within, f"reins {' '.join(args)} took {elapsed:.2f} s"
        return body

    def hide(self, mode: str) -> None:
        """The person stops showing this tab; returns once the page says it is hidden."""
        person = self.browser.person
        self.mode = mode
        if mode == "background":
            person.open_new_tab()
        elif mode == "minimized":
            person.minimize()
        elif mode == "covered":
            person.cover()
        else:
            raise ValueError(mode)
        self.beacons.wait(
            self.tag,
            lambda r: r.get("kind") == "visibility" and r.get("state") == "hidden",
            timeout=10,
            what="that it is hidden",
        )

    def assert_still_hidden(self) -> None:
        """The tab is as hidden from the person as ``hide`` left it: still in the background,
        its window still minimized, or the person's application still on top of it."""
        person = self.browser.person
        cover = person.cover_window()
        if self.mode == "background":
            tabs = {t["id"]: t for t in self.browser.reins.ok("tabs")["tabs"]}
            assert tabs[self.tab_id]["active"] is False, "the agent's tab was brought to the front"
        elif self.mode == "minimized":
            assert person.is_minimized(), "the minimized window was shown"
        else:
            assert cover is not None and person.stacking()[-1] == cover, (
                "the browser window was raised over the person's application"
            )

    def reported(self, kind: str, **match: Any) -> dict[str, Any]:
        return self.beacons.wait(
            self.tag,
            lambda r: r.get("kind") == kind and all(r.get(k) == v for k, v in match.items()),
            what=f"{kind} {match}",
        )


def _restore(browser: UserBrowser) -> None:
    """Back to one tab (the person's own page) in a shown, focused, uncovered window."""
    person = browser.person
    person.uncover()
    person.activate()
    for tab in browser.reins.ok("tabs")["tabs"]:
        if int(tab["id"]) != browser.home_tab and tab.get("reins"):
            browser.reins.cli("tab", "close", str(tab["id"]))
    # The tabs the person opened are theirs (reins may not close them): they close them as a
    # person does, the last one first, and come back to their own page (the first tab).
    for _ in range(10):
        if len(browser.reins.ok("tabs")["tabs"]) <= 1:
            break
        person.key("ctrl+9")
        person.close_tab()
        time.sleep(0.2)
    person.key("ctrl+1")


@pytest.fixture
def agent_tab(user_browser: UserBrowser) -> Iterator[Callable[..., AgentTab]]:
    opened: list[AgentTab] = []

    def open_tab(path: str = "headful/widgets.html") -> AgentTab:
        tag = uuid.uuid4().hex[:8]
        body = user_browser.reins.ok("tab", "new", user_browser.site.url(path, tag))
        tab = AgentTab(user_browser, int(body["id"]), tag)
        tab.reported("load")
        opened.append(tab)
        # In the person's own browser `tab new` opens in the background (the person's view stays
        # theirs). The scenarios start from the agent's tab in front, as if the person looked at
        # it, and then hide it the way a person does.
        user_browser.reins.ok("tab", "show", str(tab.tab_id))
        tab.reported("visibility", state="visible")
        return tab

    yield open_tab
    _restore(user_browser)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TIMINGS] = []


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """How long the agent's commands took, by what the person did to the tab (not asserted)."""
    rows: dict[tuple[str, str], list[float]] = {}
    for mode, action, seconds in config.stash.get(_TIMINGS, []):
        rows.setdefault((action, mode), []).append(seconds)
    if not rows:
        return
    terminalreporter.section("headful: agent command wall time, CLI process included (seconds)")
    for (action, mode), values in sorted(rows.items()):
        values.sort()
        terminalreporter.write_line(
            f"{action:<24} {mode:<11} n={len(values):<3} median={values[len(values) // 2]:.2f} "
            f"max={values[-1]:.2f}"
        )
