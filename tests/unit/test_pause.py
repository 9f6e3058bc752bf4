"""page_paused with the host as Chrome runs it and the test playing the extension: the pause watch
is armed with the only parameters the extension allows, a pause held by someone else (DevTools)
ends a command at once and refuses the next ones, a pause that ended when reins let go of the
Debugger domain does not, and commands run again once the page resumes. The same in a real
browser, DevTools played by a second CDP client: tests/browser/test_devtools_pause.py.
"""

from __future__ import annotations

import time
from typing import Any

from .test_host_process import Client, FakeExtension, connect_extension

PAUSED = {"type": "event", "method": "Debugger.paused", "params": {"reason": "other"}}


def evaluate(request_id: str, tab: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": request_id,
        "cmd": "cdp",
        "tab": tab,
        "args": {"method": "Runtime.evaluate", "params": {"expression": "1"}},
        **extra,
    }


def answer_until(host: FakeExtension, method: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Answer every frame ok, as the extension would, up to the first ``method`` (not answered)."""
    while True:
        frame = host.frames.get(timeout=5)
        if frame.get("method") == method:
            return dict(frame)
        seen.append(frame)
        host.send_frame({"id": frame["id"], "ok": True, "result": {}})


def enable(host: FakeExtension, tab: int, *, paused: bool) -> dict[str, Any]:
    """Answer the host's Debugger.enable; a paused page reports the pause before the answer
    (measured so in Chromium), and the extension turns the domain off again by itself."""
    frame = answer_until(host, "Debugger.enable", [])
    assert frame["params"] == {"maxScriptsCacheSize": 0}, frame
    if paused:
        host.send_frame({**PAUSED, "tabId": tab})
    host.send_frame({"id": frame["id"], "ok": True, "result": {}})
    return frame


def test_arming_switches_breakpoints_off_in_reins_session(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4))
    seen: list[dict[str, Any]] = []
    frame = answer_until(host, "Runtime.evaluate", seen)
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True
    sent = [(f.get("method"), f.get("params")) for f in seen if f.get("type") == "cdp"]
    assert ("Debugger.enable", {"maxScriptsCacheSize": 0}) in sent
    assert ("Debugger.setBreakpointsActive", {"active": False}) in sent
    subscribed = [f["events"] for f in seen if f.get("type") == "subscribe"]
    assert any("Debugger.paused" in events for events in subscribed)


def test_a_pause_held_by_devtools_ends_the_command_and_refuses_the_next_ones(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    answer_until(host, "Runtime.evaluate", [])  # never answered: the page pauses
    paused_at = time.monotonic()
    host.send_frame({**PAUSED, "tabId": 4})
    enable(host, 4, paused=True)  # looked again: still paused, someone else holds it
    answer = client.answer()
    assert answer["error"]["code"] == "page_paused", answer
    assert "DevTools" in answer["error"]["message"]
    assert time.monotonic() - paused_at < 1.0  # not the 20 s budget

    # While it stays paused, each command looks once and is refused before reaching the page.
    client.send(evaluate("b", 4))
    enable(host, 4, paused=True)
    assert client.answer()["error"]["code"] == "page_paused"

    # Resumed: the next command looks, finds it running, and reaches the page.
    client.send(evaluate("c", 4))
    enable(host, 4, paused=False)
    seen: list[dict[str, Any]] = []
    frame = answer_until(host, "Runtime.evaluate", seen)
    assert ("Debugger.setBreakpointsActive", {"active": False}) in [
        (f.get("method"), f.get("params")) for f in seen
    ]
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True


def test_a_pause_that_ended_when_reins_let_go_does_not_fail_the_command(
    host: FakeExtension, client: Client
) -> None:
    """Only reins's session heard it (a pause on exceptions DevTools left set): once the extension
    turned the domain off the page ran on, so the command does too."""
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    frame = answer_until(host, "Runtime.evaluate", [])
    host.send_frame({**PAUSED, "tabId": 4})
    enable(host, 4, paused=False)
    armed = answer_until(host, "Debugger.setBreakpointsActive", [])  # armed again
    host.send_frame({"id": armed["id"], "ok": True, "result": {}})
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    answer = client.answer()
    assert answer["ok"] is True, answer


def test_a_pause_between_enable_and_breakpoints_off_is_looked_at_again(
    host: FakeExtension, client: Client
) -> None:
    """The page's own `debugger;` ran between reins's `Debugger.enable` and its
    `setBreakpointsActive(false)`: that pause was reins's own and ended when the extension let go of
    the domain. The host arms the watch again instead of answering `page_paused`."""
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    enable(host, 4, paused=False)
    inactive = answer_until(host, "Debugger.setBreakpointsActive", [])
    host.send_frame({**PAUSED, "tabId": 4})  # after the enable's answer: a `debugger;` statement
    host.send_frame({"id": inactive["id"], "ok": False, "error": {"message": "not enabled"}})
    enable(host, 4, paused=False)  # looked again: the page runs
    armed = answer_until(host, "Debugger.setBreakpointsActive", [])
    host.send_frame({"id": armed["id"], "ok": True, "result": {}})
    frame = answer_until(host, "Runtime.evaluate", [])
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    answer = client.answer()
    assert answer["ok"] is True, answer


def test_a_pause_seen_twice_while_arming_is_reported(host: FakeExtension, client: Client) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    for _ in range(2):
        enable(host, 4, paused=False)
        inactive = answer_until(host, "Debugger.setBreakpointsActive", [])
        host.send_frame({**PAUSED, "tabId": 4})
        host.send_frame({"id": inactive["id"], "ok": True, "result": {}})
    answer = client.answer()
    assert answer["error"]["code"] == "page_paused", answer
