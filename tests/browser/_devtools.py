"""The user's DevTools on one tab, played by a second CDP client: what DevTools' pause (||) and
resume (▶) buttons send, on the page's target, over the browser's DevTools port.

chromedriver starts the browser with that port (``goog:chromeOptions.debuggerAddress``); a headful
browser started with ``--remote-debugging-port`` has one too. Events are read on a thread, so a
test can wait for ``Debugger.paused`` while it sends other things.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.request
from typing import Any

import websocket


class DevTools:
    """A DevTools session on the page target whose URL contains ``url_part``."""

    def __init__(self, address: str, url_part: str) -> None:
        with urllib.request.urlopen(f"http://{address}/json/version", timeout=10) as answer:
            url = json.load(answer)["webSocketDebuggerUrl"]
        self._ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self._ids = itertools.count(1)
        self._answers: dict[int, dict[str, Any]] = {}
        self._events: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self._session: str | None = None
        targets = self.call("Target.getTargets")["targetInfos"]
        target = next(t for t in targets if t["type"] == "page" and url_part in t["url"])
        self._session = self.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )["sessionId"]

    def _read(self) -> None:
        while True:
            try:
                message = json.loads(self._ws.recv())
            except (websocket.WebSocketException, OSError, ValueError):
                return
            with self._changed:
                if "id" in message:
                    self._answers[message["id"]] = message
                else:
                    self._events.append(message)
                self._changed.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send without waiting for the answer (what a paused page answers only on resume)."""
        msg_id = next(self._ids)
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if self._session is not None:
            message["sessionId"] = self._session
        self._ws.send(json.dumps(message))
        return msg_id

    def answer(self, msg_id: int, timeout: float = 10) -> dict[str, Any] | None:
        with self._changed:
            self._changed.wait_for(lambda: msg_id in self._answers, timeout)
            return self._answers.pop(msg_id, None)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.answer(self.send(method, params))
        if answer is None or "error" in answer:
            raise AssertionError(f"{method}: {answer}")
        result: dict[str, Any] = answer["result"]
        return result

    def count(self, method: str) -> int:
        with self._changed:
            return sum(1 for e in self._events if e.get("method") == method)

    def wait_for(self, method: str, seen: int, timeout: float = 10) -> None:
        """Until more than ``seen`` events ``method`` arrived."""
        with self._changed:
            if not self._changed.wait_for(lambda: self.count(method) > seen, timeout):
                raise AssertionError(f"no {method} within {timeout} s")

    def pause(self) -> None:
        """The pause button, then the page runs a script: it stops there."""
        seen = self.count("Debugger.paused")
        self.call("Debugger.enable")
        self.call("Debugger.pause")
        self.send("Runtime.evaluate", {"expression": "void 0"})  # answered on resume
        self.wait_for("Debugger.paused", seen)

    def resume(self) -> None:
        self.call("Debugger.resume")

    def close(self) -> None:
        """DevTools closes (its session ends; Chrome resumes a page only it held paused)."""
        if self._session is not None:
            session, self._session = self._session, None
            self.call("Target.detachFromTarget", {"sessionId": session})
        self._ws.close()


def wait_until(predicate: Any, timeout: float = 10, what: str = "the condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
