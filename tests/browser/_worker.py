"""A DevTools session on the extension's service worker, for what a headless test cannot do as a
user: look at tab groups, and play Chrome's side of the user's Cancel on the debugging bar.

chromedriver starts the browser with a DevTools port (``goog:chromeOptions.debuggerAddress``); the
test attaches to the worker's target there and evaluates in its global scope, where ``chrome.*`` is
the extension's own API.
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.request
from typing import Any

import websocket


class Worker:
    def __init__(self, driver: Any) -> None:
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version", timeout=10) as answer:
            url = json.load(answer)["webSocketDebuggerUrl"]
        self._ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self._ids = itertools.count(1)
        self._session = self._attach()

    def _call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        msg_id = next(self._ids)
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._ws.send(json.dumps(message))
        while True:
            answer = json.loads(self._ws.recv())
            if answer.get("id") == msg_id:
                if "error" in answer:
                    raise AssertionError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer["result"]
                return result

    def _attach(self) -> str:
        deadline = time.monotonic() + 10
        while True:
            targets = self._call("Target.getTargets")["targetInfos"]
            worker = next(
                (
                    t
                    for t in targets
                    if t["type"] == "service_worker" and t["url"].endswith("/background.js")
                ),
                None,
            )
            if worker is not None:
                break
            assert time.monotonic() < deadline, "the extension's service worker is not running"
            time.sleep(0.1)
        attached = self._call(
            "Target.attachToTarget", {"targetId": worker["targetId"], "flatten": True}
        )
        return str(attached["sessionId"])

    def run(self, expression: str) -> Any:
        """Evaluate in the worker (promises awaited) and return the value."""
        answer = self._call(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            self._session,
        )
        if "exceptionDetails" in answer:
            raise AssertionError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def tab(self, tab_id: int) -> dict[str, Any]:
        found: dict[str, Any] = self.run(f"chrome.tabs.get({int(tab_id)})")
        return found

    def group_title(self, tab_id: int) -> str | None:
        title: str | None = self.run(
            f"chrome.tabs.get({int(tab_id)}).then((t) => t.groupId === -1 ? null"
            " : chrome.tabGroups.get(t.groupId).then((g) => g.title))"
        )
        return title

    def cancel_like_the_infobar(self, tab_id: int, *, gap_ms: int = 100) -> None:
        """What Chrome does when the user presses Cancel on "… started debugging this browser",
        for one tab: the debugger session ends (a command in flight is answered "Detached while
        handling command."), and then onDetach fires with reason canceled_by_user."""
        self.run(
            f"chrome.debugger.detach({{tabId: {int(tab_id)}}})"
            f".then(() => new Promise((r) => setTimeout(r, {int(gap_ms)})))"
            f".then(() => chrome.debugger.onDetach.dispatch({{tabId: {int(tab_id)}}},"
            " 'canceled_by_user'))"
        )

    def close(self) -> None:
        self._ws.close()
