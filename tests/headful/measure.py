"""What makes Chrome render a hidden tab: the measurements behind docs/hidden-tabs.md.

    .venv/bin/python -m tests.headful.measure [rendering] [clicks]   # prints the tables

Part 1 drives CDP directly (a Chromium of its own on an Xvfb desktop, with a debugging port), so
candidates the extension does not allow can be tried too: for each way a person hides a tab (another
tab in front, the window minimized, the window covered by another application) and each candidate
(nothing, focus emulation, lifecycle state, screencast, screenshots), a page counts its
requestAnimationFrame callbacks for two seconds, once without painting anything new and once
changing its text every frame (what an animated menu does).

Part 2 is reins as an agent uses it, in a browser started as a person starts it: the wall time of
`reins click` (CLI process included) on a shown tab and on each kind of hidden tab.
"""

from __future__ import annotations

import functools
import http.server
import itertools
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.headful._desktop import (
    ROOT,
    Desktop,
    Person,
    Reins,
    browser_command,
    start_browser,
    stop_browser,
)

_COUNT = """new Promise((done) => {
  const paint = %s, t0 = performance.now(); let n = 0;
  const el = document.body.appendChild(document.createElement("div"));
  const step = () => { n++; if (paint) el.textContent = String(n);
    if (performance.now() - t0 < 2000) requestAnimationFrame(step);
    else done({perSecond: n / 2, visibility: document.visibilityState, focus: document.hasFocus()}); };
  requestAnimationFrame(step);
  setTimeout(() => done({perSecond: n / 2, visibility: document.visibilityState,
                         focus: document.hasFocus(), timedOut: true}), 4000);
})"""


class Cdp:
    """A minimal CDP client over the browser's WebSocket (flattened sessions)."""

    def __init__(self, url: str) -> None:
        import websocket  # websocket-client, installed with selenium

        self._ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self._ids = itertools.count(1)
        self._waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._handlers: list[Callable[[dict[str, Any]], None]] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                message = json.loads(self._ws.recv())
            except Exception:  # noqa: BLE001 - the socket closed
                return
            if "id" in message:
                box = self._waiting.pop(message["id"], None)
                if box is not None:
                    box.put(message)
            else:
                for handler in list(self._handlers):
                    handler(message)

    def on(self, handler: Callable[[dict[str, Any]], None]) -> None:
        self._handlers.append(handler)

    def send_nowait(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> None:
        message: dict[str, Any] = {"id": next(self._ids), "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        with self._lock:
            self._ws.send(json.dumps(message))

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict[str, Any]:
        call_id = next(self._ids)
        box: queue.Queue[dict[str, Any]] = queue.Queue()
        self._waiting[call_id] = box
        message: dict[str, Any] = {"id": call_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        with self._lock:
            self._ws.send(json.dumps(message))
        answer = box.get(timeout=timeout)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def close(self) -> None:
        self._ws.close()


def _serve() -> tuple[http.server.ThreadingHTTPServer, int]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - the fixture pages' beacons: accepted, ignored
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(204)
            self.end_headers()

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(ROOT / "fixtures"))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def _hide(person: Person, mode: str) -> None:
    if mode == "background":
        person.open_new_tab()
    elif mode == "minimized":
        person.minimize()
    elif mode == "covered":
        person.cover()


def _show(person: Person, mode: str) -> None:
    person.uncover()
    person.activate()
    if mode == "background":
        person.close_tab()


class _Candidate:
    """Switches one way of rendering a hidden tab on and off, on one CDP session."""

    def __init__(self, cdp: Cdp, session: str, name: str) -> None:
        self.cdp, self.session, self.name = cdp, session, name
        self._stop = threading.Event()
        self.frames = 0
        self.captures: list[float] = []

    def start(self) -> None:
        s = self.session
        if "focus emulation" in self.name:
            self.cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": True}, s)
        if self.name == "lifecycle active":
            self.cdp.send("Page.setWebLifecycleState", {"state": "active"}, s)
        if "screencast" in self.name:
            acking = "unacknowledged" not in self.name

            def ack(message: dict[str, Any]) -> None:
                if (
                    message.get("method") == "Page.screencastFrame"
                    and message.get("sessionId") == s
                ):
                    self.frames += 1
                    if acking:
                        self.cdp.send_nowait(
                            "Page.screencastFrameAck",
                            {"sessionId": message["params"]["sessionId"]},
                            s,
                        )

            self.cdp.on(ack)
            self.cdp.send(
                "Page.startScreencast",
                {"format": "jpeg", "quality": 10, "maxWidth": 16, "maxHeight": 16},
                s,
            )
        if "screenshots" in self.name:
            interval = (
                int(self.name.split("every ")[1].split(" ms")[0]) / 1000
                if "every" in self.name
                else 0
            )

            def shoot() -> None:
                if "one pending" in self.name:  # one capture, left to finish in its own time
                    started = time.monotonic()
                    try:
                        self.cdp.send(
                            "Page.captureScreenshot",
                            {
                                "format": "jpeg",
                                "quality": 10,
                                "optimizeForSpeed": True,
                                "clip": {"x": 0, "y": 0, "width": 1, "height": 1, "scale": 1},
                            },
                            s,
                            timeout=60,
                        )
                    except Exception:  # noqa: BLE001
                        pass
                    self.captures.append(time.monotonic() - started)
                    return
                while not self._stop.wait(interval):
                    try:
                        started = time.monotonic()
                        self.cdp.send(
                            "Page.captureScreenshot",
                            {
                                "format": "jpeg",
                                "quality": 10,
                                "optimizeForSpeed": True,
                                "clip": {"x": 0, "y": 0, "width": 1, "height": 1, "scale": 1},
                            },
                            s,
                            timeout=5,
                        )
                        self.captures.append(time.monotonic() - started)
                    except Exception:  # noqa: BLE001 - a slow capture is part of what we measure
                        pass

            threading.Thread(target=shoot, daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        s = self.session
        if "focus emulation" in self.name:
            self.cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": False}, s)
        if "screencast" in self.name:
            self.cdp.send("Page.stopScreencast", {}, s)


CANDIDATES = (
    "nothing",
    "focus emulation",
    "lifecycle active",
    "screencast",
    "screenshots every 100 ms",
    "focus emulation + screenshots every 100 ms",
    "focus emulation + one pending screenshots",
    "focus emulation + screencast",
    "focus emulation + unacknowledged screencast",  # what reins does
)


def measure_rendering(
    desktop: Desktop, port: int, home: Path, only: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    profile = home / "cdp-profile"
    argv = [
        *browser_command(profile, f"http://127.0.0.1:{port}/headful/home.html"),
        "--remote-debugging-port=0",
    ]
    proc = subprocess.Popen(
        argv,
        env=desktop.env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    rows: list[dict[str, Any]] = []
    try:
        active_port = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not active_port.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        lines = active_port.read_text().split()
        cdp = Cdp(f"ws://127.0.0.1:{lines[0]}{lines[1]}")
        person = Person(desktop)
        person.window()
        for mode in ("shown", "background", "minimized", "covered"):
            names = [n for n in CANDIDATES if not only or n in only]
            for name in (
                names if mode != "shown" else ("nothing", *(n for n in names if "screenshots" in n))
            ):
                target = cdp.send(
                    "Target.createTarget",
                    {"url": f"http://127.0.0.1:{port}/headful/widgets.html?t=m"},
                )["targetId"]
                session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
                    "sessionId"
                ]
                cdp.send("Runtime.enable", {}, session)
                time.sleep(1)
                _hide(person, mode)
                time.sleep(1)
                candidate = _Candidate(cdp, session, name)
                candidate.start()
                row: dict[str, Any] = {"mode": mode, "candidate": name}
                for paint in (False, True):
                    value = cdp.send(
                        "Runtime.evaluate",
                        {
                            "expression": _COUNT % ("true" if paint else "false"),
                            "awaitPromise": True,
                            "returnByValue": True,
                        },
                        session,
                        timeout=20,
                    )["result"]["value"]
                    row["paint" if paint else "still"] = value
                candidate.stop()
                rows.append(row)
                print(
                    f"{mode:<10} {name:<44} still {row['still']['perSecond']:>5} /s  "
                    f"painting {row['paint']['perSecond']:>5} /s  "
                    f"{row['still']['visibility']}"
                    + (f"  {candidate.frames} screencast frames" if "screencast" in name else "")
                    + (
                        f"  capture median {1000 * statistics.median(candidate.captures):.0f} ms"
                        if candidate.captures
                        else ""
                    ),
                    flush=True,
                )
                _show(person, mode)
                cdp.send("Target.closeTarget", {"targetId": target})
        cdp.close()
    finally:
        stop_browser(proc)
    return rows


def measure_clicks(
    desktop: Desktop, port: int, home: Path, rounds: int = 5
) -> dict[str, list[float]]:
    reins = Reins(home / "reins")
    reins.home.mkdir(parents=True, exist_ok=True)
    proc = start_browser(
        desktop,
        reins,
        home / "user-profile",
        f"http://127.0.0.1:{port}/headful/home.html",
        home / "browser.log",
    )
    times: dict[str, list[float]] = {}
    try:
        person = Person(desktop)
        person.window()
        for mode in ("shown", "background", "minimized", "covered"):
            for n in range(rounds):
                tab = reins.ok(
                    "tab", "new", f"http://127.0.0.1:{port}/headful/widgets.html?t=c{n}"
                )["id"]
                if mode != "shown":
                    _hide(person, mode)
                    time.sleep(0.5)
                for what in ("click #count-btn", "click #menu-btn", "click #item-rename"):
                    code, body, seconds = reins.cli(*what.split(), "--tab", str(tab))
                    assert code == 0, body
                    times.setdefault(f"{what} | {mode}", []).append(seconds)
                if mode != "shown":
                    _show(person, mode)
                reins.cli("tab", "close", str(tab))
    finally:
        stop_browser(proc)
    return times


def main(argv: list[str]) -> int:
    parts = set(argv) or {"rendering", "clicks"}
    desktop = Desktop.start()
    server, port = _serve()
    home = Path(tempfile.mkdtemp(prefix="rm-", dir="/tmp"))
    try:
        print(
            f"Chromium: {subprocess.run([browser_command(home, '')[0], '--version'], capture_output=True, text=True).stdout.strip()}"
        )
        if "rendering" in parts:
            print("\n## rAF callbacks per second on a hidden tab, by what CDP does to it\n")
            measure_rendering(desktop, port, home)
        if "clicks" in parts:
            print("\n## `reins click` wall time (CLI process included), 5 fresh tabs each\n")
            for key, values in measure_clicks(desktop, port, home).items():
                print(
                    f"{key:<40} median {statistics.median(values):.2f} s   max {max(values):.2f} s"
                )
    finally:
        server.shutdown()
        desktop.close()
        if not os.environ.get("REINS_KEEP_MEASURE_HOME"):
            import shutil

            shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
