"""The native host as Chrome runs it: `python -m reins._host ORIGIN` with frames on stdio.

The test plays the extension on the host's stdin/stdout and a client on its control socket
(fakes.py ``FakeExtension``, ``Client``; the fixtures in conftest.py). No browser is involved.
"""

from __future__ import annotations

import queue
import stat
import sys
import time
from pathlib import Path

import pytest

from tests.unit.fakes import PROFILE, Client, FakeExtension, answer_next, connect_extension

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix domain sockets")

# ---- tests -----------------------------------------------------------------------------------


def test_host_says_hello_on_stdout(host: FakeExtension) -> None:
    hello = host.next_frame()
    assert hello["type"] == "host_hello"
    assert hello["profile"] == PROFILE
    assert hello["launched"] is False
    assert isinstance(hello["version"], str) and hello["version"]


def test_socket_and_its_dir_are_private(host: FakeExtension) -> None:
    assert stat.S_ISSOCK(host.socket_path.stat().st_mode)
    assert stat.S_IMODE(host.socket_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(host.socket_path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(host.home.stat().st_mode) == 0o700


def test_ping(client: Client) -> None:
    assert client.call({"id": 1, "cmd": "ping"}) == {
        "request_id": 1,
        "ok": True,
        "pong": True,
        "connected": True,
    }


def test_string_request_id_is_echoed(client: Client) -> None:
    answer = client.call({"id": "abc", "cmd": "ping"})
    assert answer["request_id"] == "abc"
    assert answer["ok"] is True


def test_the_socket_opens_once_the_extension_says_which_profile_it_is(short_home: Path) -> None:
    fake = FakeExtension(short_home, hello=False)
    try:
        time.sleep(0.8)
        assert not fake.socket_path.exists(), "no name before hello, so no socket"
        fake.say_hello()
        fake.wait_for_socket()
        assert fake.next_frame()["type"] == "host_hello"
    finally:
        fake.stop()


def test_bad_requests_are_answered_and_the_connection_stays_up(client: Client) -> None:
    client.send_raw(b"{not json\n")
    answer = client.answer()
    assert answer["ok"] is False and answer["error"]["code"] == "bad_request"
    assert answer["request_id"] is None

    answer = client.call({"id": 3, "cmd": "ping", "bogus": 1})
    assert answer == {"request_id": 3, "ok": False, "error": answer["error"]}
    assert answer["error"]["code"] == "bad_request"

    answer = client.call({"id": 4, "cmd": "no_such_command"})
    assert answer["error"]["code"] == "unknown_command"
    assert answer["request_id"] == 4

    assert client.call({"id": 5, "cmd": "ping"})["ok"] is True


def test_hello_then_tabs_goes_through_the_extension(host: FakeExtension, client: Client) -> None:
    connect_extension(host, client)

    client.send({"id": 2, "cmd": "tabs", "tab": 5})
    listed = [{"id": 5, "url": "u", "title": "t", "active": True}]
    frame = answer_next(host, "tabs.list", listed)
    assert set(frame) >= {"id", "type"}
    answer = client.answer()
    # `current` is the tab commands without --tab use: none picked yet.
    assert answer == {
        "request_id": 2,
        "ok": True,
        "current": None,
        "tabs": [{**listed[0], "reins": False, "stopped": False}],
    }


def test_in_the_users_own_browser_nothing_falls_back_to_the_tab_in_front(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send({"id": 7, "cmd": "tabs"})
    answer_next(host, "tabs.list", [{"id": 9, "url": "u", "title": "t", "active": True}])
    answer = client.answer()
    assert answer["ok"] is True and answer["current"] is None
    answer = client.call({"id": 8, "cmd": "press", "args": {"keys": "q"}})
    assert answer["error"]["code"] == "no_tab"
    assert "reins tab new" in answer["error"]["message"]
    with pytest.raises(queue.Empty):
        host.frames.get(timeout=0.2)  # the extension was not even asked for the tab in front


def test_a_launched_browser_starts_from_the_tab_in_front(short_home: Path) -> None:
    fake = FakeExtension(short_home, launched=True)
    try:
        fake.wait_for_socket()
        conn = Client(fake.socket_path)
        assert fake.next_frame()["launched"] is True
        conn.send({"id": 7, "cmd": "cdp", "args": {"method": "DOM.enable"}})
        answer_next(fake, "tabs.current", {"id": 9, "url": "u", "title": "t", "active": True})
        assert answer_next(fake, "cdp", {})["tabId"] == 9
        assert conn.answer()["ok"] is True
        conn.close()
    finally:
        fake.stop()


def test_tabs_with_no_tab_open_lists_nothing(host: FakeExtension, client: Client) -> None:
    # The last tab was closed: there is no current tab to ask for, and that is no error.
    connect_extension(host, client)
    client.send({"id": 7, "cmd": "tabs"})
    answer_next(host, "tabs.list", [])
    answer = client.answer()
    assert answer == {"request_id": 7, "ok": True, "tabs": [], "current": None}


def test_extension_error_comes_back_typed(host: FakeExtension, client: Client) -> None:
    connect_extension(host, client)
    client.send(
        {"id": 8, "cmd": "cdp", "tab": 5, "args": {"method": "Storage.getCookies", "params": {}}}
    )
    frame = host.next_frame()
    assert frame["type"] == "cdp"
    assert frame["method"] == "Storage.getCookies"
    assert frame["tabId"] == 5
    host.send_frame(
        {
            "id": frame["id"],
            "ok": False,
            "error": {"code": "cdp_blocked", "message": "Storage.getCookies is not allowed"},
        }
    )
    answer = client.answer()
    assert answer["request_id"] == 8
    assert answer["ok"] is False
    assert answer["error"]["code"] == "cdp_blocked"


def test_oversized_request_line_is_message_too_large_and_the_host_lives(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    big = {"expression": "x" * (2 * 1024 * 1024)}
    answer = client.call(
        {"id": 10, "cmd": "cdp", "tab": 5, "args": {"method": "Runtime.evaluate", "params": big}}
    )
    assert answer["ok"] is False
    assert answer["error"]["code"] == "message_too_large"
    assert client.call({"id": 11, "cmd": "ping"}) == {
        "request_id": 11,
        "ok": True,
        "pong": True,
        "connected": True,
    }
    assert host.proc.poll() is None
    with pytest.raises(queue.Empty):
        host.frames.get(timeout=0.2)  # nothing reached the extension


def test_frame_over_one_mebibyte_is_refused_before_sending(
    host: FakeExtension, client: Client
) -> None:
    """A request line under the socket's limit whose frame to the browser would be over 1 MiB."""
    connect_extension(host, client)
    # A first command on the tab, so the host has armed its dialog watch there already.
    client.send(
        {
            "id": 11,
            "cmd": "cdp",
            "tab": 5,
            "args": {"method": "Runtime.evaluate", "params": {"expression": "1"}},
        }
    )
    frame = host.next_frame()
    host.send_frame({"id": frame["id"], "ok": True, "result": {}})
    assert client.answer()["request_id"] == 11
    # `1e5` is 3 bytes on the socket and `100000.0` (8 bytes) in the frame.
    params = '{"values":[' + ",".join(["1e5"] * 200_000) + "]}"
    raw = (
        '{"id":12,"cmd":"cdp","tab":5,"args":{"method":"Runtime.evaluate","params":'
        + params
        + "}}\n"
    ).encode()
    assert len(raw) < 1024 * 1024
    client.send_raw(raw)
    answer = client.answer()
    assert answer["request_id"] == 12
    assert answer["ok"] is False
    assert answer["error"]["code"] == "message_too_large"
    assert client.call({"id": 13, "cmd": "ping"})["ok"] is True
    with pytest.raises(queue.Empty):
        host.frames.get(timeout=0.2)


def test_stdin_eof_stops_the_host_and_removes_the_socket(host: FakeExtension) -> None:
    assert host.socket_path.exists()
    started = time.monotonic()
    host.close_stdin()
    host.proc.wait(timeout=3)
    assert time.monotonic() - started < 3
    assert host.proc.returncode == 0
    assert not host.socket_path.exists()


def test_stdin_eof_with_a_client_connected(host: FakeExtension, client: Client) -> None:
    assert client.call({"id": 1, "cmd": "ping"})["ok"] is True
    host.close_stdin()
    host.proc.wait(timeout=3)
    assert not host.socket_path.exists()


def test_a_navigation_that_timed_out_does_not_mark_the_tab_unresponsive(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(
        {
            "id": "nav",
            "cmd": "navigate",
            "args": {"url": "http://example.test/"},
            "tab": 7,
            "timeout_ms": 300,
        }
    )
    unanswered = host.next_frame()  # the host reads the old document first; the page is slow
    assert unanswered.get("method") == "Runtime.evaluate"
    assert client.answer()["error"]["code"] == "timeout"
    client.send({"id": "next", "cmd": "cdp", "args": {"method": "DOM.enable"}, "tab": 7})
    frame = host.next_frame()
    # No probe (Runtime.evaluate "1") before the command: it goes straight to the page.
    assert frame.get("method") == "DOM.enable", frame
    host.send_frame({"id": frame["id"], "ok": True, "result": {}})
    assert client.answer()["ok"] is True


def test_a_page_command_that_timed_out_makes_the_next_one_probe(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(
        {"id": "slow", "cmd": "cdp", "args": {"method": "DOM.enable"}, "tab": 7, "timeout_ms": 300}
    )
    assert host.next_frame().get("method") == "DOM.enable"
    assert client.answer()["error"]["code"] == "timeout"
    client.send({"id": "next", "cmd": "cdp", "args": {"method": "DOM.enable"}, "tab": 7})
    probe = host.next_frame()
    assert probe.get("method") == "Runtime.evaluate" and probe["params"]["expression"] == "1"
