"""The bridge end to end: CLI -> socket -> host -> extension -> chrome.debugger, in real Chromium."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import threading
import time
from typing import Any

import pytest
from reins._paths import socket_path

from .conftest import Browser
from .support import PROFILE, WaitingCommand

BLOCKED = [
    ("Network.getCookies", {}),
    ("Network.getAllCookies", {}),
    ("Storage.getCookies", {}),
    ("Storage.clearDataForOrigin", {"origin": "http://127.0.0.1", "storageTypes": "all"}),
    ("Browser.getVersion", {}),
    ("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": "/tmp"}),
    ("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": "/tmp"}),
    ("Fetch.enable", {}),
    ("Debugger.enable", {}),
]


def test_navigate_reads_title_through_the_whole_chain(
    browser: Browser, page: Any, site: Any
) -> None:
    tab_id, _ = page("static/bridge.html")
    url = site.url("static/bridge.html", v="2")
    body = browser.ok("navigate", url, "--tab", str(tab_id))
    browser.switch_to(url.rsplit("t=", 1)[-1])
    assert body["title"] == browser.driver.title == "Bridge fixture"
    status = browser.ok("status", "--tab", str(tab_id))
    assert status["connected"] is True
    assert status["tab"]["url"] == browser.driver.current_url


def test_navigate_waits_for_client_rendered_content(browser: Browser, page: Any, site: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    url = site.url("static/late-render.html")
    browser.ok("navigate", url, "--tab", str(tab_id))
    # Read right after navigate returned: the late content must already be there.
    code, body = browser.cli(
        "cdp",
        "Runtime.evaluate",
        json.dumps({"expression": "document.querySelectorAll('li').length", "returnByValue": True}),
        "--tab",
        str(tab_id),
    )
    assert code == 0 and body["result"]["result"]["value"] == 5


@pytest.mark.parametrize(("method", "params"), BLOCKED, ids=[m for m, _ in BLOCKED])
def test_refused_commands_stay_refused(
    browser: Browser, page: Any, method: str, params: dict[str, Any]
) -> None:
    tab_id, _ = page("static/bridge.html")
    browser.js("document.cookie = 'secret=1'")
    code, body = browser.cli("cdp", method, json.dumps(params), "--tab", str(tab_id))
    assert code == 1
    assert body["error"]["code"] == "cdp_blocked"
    assert body["error"]["transient"] is False
    assert browser.js("return document.cookie") == "secret=1"  # nothing was cleared


def test_allowed_command_passes(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    browser.js("window.__mark = 41")
    code, body = browser.cli(
        "cdp",
        "Runtime.evaluate",
        '{"expression": "window.__mark + 1", "returnByValue": true}',
        "--tab",
        str(tab_id),
    )
    assert code == 0 and body["result"]["result"]["value"] == 42


def test_refused_pages(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    code, body = browser.cli("navigate", "chrome://settings", "--tab", str(tab_id))
    assert code == 1 and body["error"]["code"] == "page_refused"
    code, body = browser.cli("tab", "new", "chrome://version")
    assert code == 1 and body["error"]["code"] == "page_refused"


def test_two_clients_on_two_tabs_get_their_own_answers(browser: Browser, page: Any) -> None:
    tab_a, _ = page("static/bridge.html", who="a")
    tab_b, _ = page("static/bridge.html", who="b")
    results: dict[str, list[tuple[int, Any]]] = {"a": [], "b": []}
    errors: list[BaseException] = []

    def worker(name: str, tab_id: int) -> None:
        from reins.bridge.client import Connection

        try:
            with Connection(socket_path(PROFILE, browser.home)) as conn:
                for i in range(50):
                    expr = f"new URLSearchParams(location.search).get('who') + ':{i}'"
                    answer = conn.call(
                        "cdp",
                        {
                            "method": "Runtime.evaluate",
                            "params": {"expression": expr, "returnByValue": True},
                        },
                        tab=tab_id,
                    )
                    results[name].append((i, answer["result"]["result"]["value"]))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=worker, args=("a", tab_a)),
        threading.Thread(target=worker, args=("b", tab_b)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    for name in ("a", "b"):
        assert [v for _, v in results[name]] == [f"{name}:{i}" for i in range(50)]


def test_many_requests_on_one_connection_are_not_crossed(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(socket_path(PROFILE, browser.home)))
        for i in range(100):
            req = {
                "id": f"r{i}",
                "cmd": "cdp",
                "tab": tab_id,
                "args": {
                    "method": "Runtime.evaluate",
                    "params": {"expression": f"{i} * 2", "returnByValue": True},
                },
            }
            s.sendall(json.dumps(req).encode() + b"\n")
        answers = _read_lines(s, 100)
    by_id = {a["request_id"]: a for a in answers}
    assert len(by_id) == 100
    for i in range(100):
        assert by_id[f"r{i}"]["result"]["result"]["value"] == i * 2


def _read_lines(s: socket.socket, n: int, timeout: float = 30) -> list[dict[str, Any]]:
    s.settimeout(timeout)
    buf = b""
    while buf.count(b"\n") < n:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        buf += chunk
    return [json.loads(line) for line in buf.splitlines() if line.strip()]


def test_bad_requests_get_typed_errors_and_the_host_keeps_answering(browser: Browser) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(socket_path(PROFILE, browser.home)))
        s.sendall(b"{not json\n")
        s.sendall(json.dumps({"id": 7, "cmd": "no_such_command"}).encode() + b"\n")
        s.sendall(
            json.dumps({"id": 8, "cmd": "ping", "args": {"pad": "x" * (10 * 1024 * 1024)}}).encode()
            + b"\n"
        )
        s.sendall(json.dumps({"id": 9, "cmd": "ping"}).encode() + b"\n")
        answers = _read_lines(s, 4)
    codes = [a.get("error", {}).get("code") for a in answers[:3]]
    assert codes == ["bad_request", "unknown_command", "message_too_large"]
    assert answers[1]["request_id"] == 7
    assert answers[3] == {"request_id": 9, "ok": True, "pong": True, "connected": True}


def test_permissions_and_json_error_shape(browser: Browser) -> None:
    sock = socket_path(PROFILE, browser.home)
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(sock.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(browser.home).st_mode) == 0o700
    code, body = browser.cli("cdp", "Fetch.enable")
    assert code == 1
    assert body["ok"] is False
    assert set(body["error"]) >= {"code", "message", "transient"}


def test_closed_tab_fails_a_waiting_command_promptly(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    waiting = WaitingCommand(browser, tab_id)
    closed_at = time.monotonic()
    browser.ok("tab", "close", str(tab_id))
    waiting.join(10)
    assert not waiting.is_alive()
    assert waiting.answer["error"]["code"] == "target_closed"
    assert waiting.at - closed_at < 3.0


def test_pause_switch_refuses_every_command(browser: Browser, page: Any) -> None:
    from reins._paths import EXTENSION_ID

    tab_id, _ = page("static/bridge.html")
    driver = browser.driver
    driver.switch_to.new_window("tab")
    driver.get(f"chrome-extension://{EXTENSION_ID}/popup.html")
    try:
        driver.find_element("id", "pause").click()
        time.sleep(0.3)
        code, body = browser.cli(
            "cdp", "Runtime.evaluate", '{"expression": "1"}', "--tab", str(tab_id)
        )
        assert code == 1 and body["error"]["code"] == "paused"
        assert driver.find_element("id", "connection").text == "connected"
    finally:
        driver.find_element("id", "pause").click()
        time.sleep(0.3)
        driver.close()
    code, body = browser.cli("cdp", "Runtime.evaluate", '{"expression": "1"}', "--tab", str(tab_id))
    assert code == 0


def test_killed_host_is_replaced_within_five_seconds(browser: Browser, page: Any) -> None:
    tab_id, _ = page("static/bridge.html")
    old_pid = browser.ok("status")["host"]["pid"]
    os.kill(old_pid, signal.SIGKILL)
    assert browser.wait_for_new_host(old_pid, within=5) < 5
    browser.ok("cdp", "Runtime.evaluate", '{"expression": "1"}', "--tab", str(tab_id))
