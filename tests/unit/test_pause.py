"""page_paused with the host as Chrome runs it and the test playing the extension: reins keeps no
standing Debugger domain — a command that answers at once asks nothing about pauses; one that
takes long asks the extension's pause probe (`pause_probe`, which turns the domain on for an
instant: tests/extension/sessions.test.mjs); a pause someone else holds ends the command and makes
the next one look first, before the page; commands run again once the page resumes; an extension
without the probe is never asked. The same in a real browser, DevTools played by a second CDP
client: tests/browser/test_devtools_pause.py.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .fakes import Client, FakeExtension, connect_extension


def evaluate(request_id: str, tab: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": request_id,
        "cmd": "cdp",
        "tab": tab,
        "args": {"method": "Runtime.evaluate", "params": {"expression": "1"}},
        **extra,
    }


def answer_until(host: FakeExtension, kind: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Answer every frame ok, as the extension would, up to the first of ``kind`` (a CDP method or
    a request type; not answered)."""
    while True:
        frame = host.frames.get(timeout=5)
        if kind in (frame.get("method"), frame.get("type")):
            return dict(frame)
        seen.append(frame)
        host.send_frame({"id": frame["id"], "ok": True, "result": {}})


def probe(host: FakeExtension, *, paused: bool, seen: list[dict[str, Any]] | None = None) -> None:
    frame = answer_until(host, "pause_probe", [] if seen is None else seen)
    assert frame["tabId"] == 4, frame
    result = {"paused": paused, "reason": "other" if paused else None}
    host.send_frame({"id": frame["id"], "ok": True, "result": result})


def kinds(frames: list[dict[str, Any]]) -> list[str]:
    return [str(f.get("method") or f.get("type")) for f in frames]


def agent_scripts(frames: list[dict[str, Any]]) -> list[str]:
    """The agent's evaluations among ``frames`` (not reins's task through the event loop)."""
    return [
        f["params"]["expression"]
        for f in frames
        if f.get("method") == "Runtime.evaluate"
        and "MessageChannel" not in f["params"]["expression"]
    ]


def test_a_command_that_answers_at_once_asks_nothing_of_pauses(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4))
    seen: list[dict[str, Any]] = []
    frame = answer_until(host, "Runtime.evaluate", seen)
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True
    client.send(evaluate("b", 4))
    frame = answer_until(host, "Runtime.evaluate", seen)
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True
    asked = kinds(seen)
    assert "pause_probe" not in asked and not [k for k in asked if k.startswith("Debugger.")]


def test_a_pause_held_by_devtools_ends_the_command_and_refuses_the_next_ones(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    answer_until(host, "Runtime.evaluate", [])  # never answered: the page is paused
    asked_at = time.monotonic()
    probe(host, paused=True)  # the command took long: reins asks, someone holds the page
    answer = client.answer()
    assert answer["error"]["code"] == "page_paused", answer
    assert "DevTools" in answer["error"]["message"]
    assert time.monotonic() - asked_at < 5.0  # not the 20 s budget

    # While it stays paused, the next command asks first and is refused before the page.
    client.send(evaluate("b", 4))
    seen: list[dict[str, Any]] = []
    probe(host, paused=True, seen=seen)
    assert client.answer()["error"]["code"] == "page_paused"
    assert agent_scripts(seen) == []

    # Resumed: the next command asks, finds it running, and reaches the page.
    client.send(evaluate("c", 4))
    probe(host, paused=False)
    frame = answer_until(host, "Runtime.evaluate", [])
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True


def test_a_long_command_asks_again_and_ends_when_the_page_pauses(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    answer_until(host, "Runtime.evaluate", [])
    probe(host, paused=False)  # the first look: running
    probe(host, paused=True)  # a later look: DevTools paused it meanwhile
    answer = client.answer()
    assert answer["error"]["code"] == "page_paused", answer


def test_a_reported_pause_on_a_page_that_runs_a_task_is_reins_own(
    host: FakeExtension, client: Client
) -> None:
    """A page running `debugger;` statements all the time may have one reported before the probe's
    answer; it ended when the extension let go of the domain, so the page's event loop runs
    reins's task at once: not paused, and the command goes on."""
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    frame = answer_until(host, "Runtime.evaluate", [])
    probe(host, paused=True)
    task = answer_until(host, "Runtime.evaluate", [])
    assert "MessageChannel" in task["params"]["expression"], task
    assert task["params"]["awaitPromise"] is True and task["params"]["contextId"] == "reins"
    host.send_frame({"id": task["id"], "ok": True, "result": {"result": {"value": 1}}})
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    answer = client.answer()
    assert answer["ok"] is True, answer


def test_a_slow_command_on_a_running_page_answers_as_it_ends(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    frame = answer_until(host, "Runtime.evaluate", [])
    probe(host, paused=False)
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    answer = client.answer()
    assert answer["ok"] is True, answer


def test_an_extension_without_the_probe_is_never_asked(short_home: Path) -> None:
    fake = FakeExtension(short_home, features=())
    try:
        fake.wait_for_socket()
        conn = Client(fake.socket_path)
        try:
            connect_extension(fake, conn)
            conn.send(evaluate("a", 4, timeout_ms=1_500))
            seen: list[dict[str, Any]] = []
            answer_until(fake, "Runtime.evaluate", seen)  # never answered
            answer = conn.answer()
            assert answer["error"]["code"] in {"timeout", "tab_unresponsive"}, answer
            time.sleep(0.2)
            while not fake.frames.empty():
                seen.append(fake.frames.get())
            assert "pause_probe" not in kinds(seen)
        finally:
            conn.close()
    finally:
        fake.stop()


def test_a_probe_a_busy_page_does_not_answer_costs_the_command_nothing(
    host: FakeExtension, client: Client
) -> None:
    """A page busy in a long script of its own answers no debugger command until it ends (seen in
    the browser tier): the probe gives up on its own, and the command answers as its work does."""
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    frame = answer_until(host, "Runtime.evaluate", [])
    answer_until(host, "pause_probe", [])  # never answered
    time.sleep(1.5)  # past the probe's own second
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    answer = client.answer()
    assert answer["ok"] is True, answer
