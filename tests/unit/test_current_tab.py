"""The tab commands use without --tab: the agent's pick, remembered across host restarts, never
replaced by another (least of all the tab the user is looking at).

CurrentTab on its own, then real host processes with the test playing the extension.
"""

from __future__ import annotations

import json
import queue
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from reins._errors import BrowserError
from reins.bridge.current import CurrentTab

from .fakes import Client, FakeExtension, answer_next


def test_a_pick_is_kept_for_the_same_browser_run(tmp_path: Path) -> None:
    path = tmp_path / "tabs" / "p.json"
    CurrentTab.load(path, "run-1", launched=False).choose(42)
    again = CurrentTab.load(path, "run-1", launched=False)
    assert again.tab == 42 and again.unconfirmed  # the extension confirms it is still there


def test_a_closed_pick_stays_closed_until_the_agent_picks_another(tmp_path: Path) -> None:
    path = tmp_path / "tabs" / "p.json"
    current = CurrentTab.load(path, "run-1", launched=False)
    assert current.require() is None
    current.choose(42)
    current.lost(7)  # another tab: nothing changes
    assert current.require() == 42
    current.lost(42)
    with pytest.raises(BrowserError) as closed:
        current.require()
    assert closed.value.code == "tab_closed"
    assert "reins tab select ID" in closed.value.message
    with pytest.raises(BrowserError):
        CurrentTab.load(path, "run-1", launched=False).require()  # a host restart keeps it
    current.choose(43)
    assert CurrentTab.load(path, "run-1", launched=False).require() == 43


def test_after_a_browser_restart_the_pick_is_gone_except_in_a_launched_browser(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tabs" / "p.json"
    CurrentTab.load(path, "run-1", launched=False).choose(42)
    with pytest.raises(BrowserError) as closed:
        CurrentTab.load(path, "run-2", launched=False).require()
    assert closed.value.code == "tab_closed"
    assert CurrentTab.load(path, "run-2", launched=True).require() is None


def test_an_unreadable_file_is_no_pick(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text("[1, 2")
    assert CurrentTab.load(path, "run-1", launched=False).require() is None
    path.write_text(json.dumps({"tab": "42", "session": "run-1"}))
    assert CurrentTab.load(path, "run-1", launched=False).require() is None


# ---- real host processes -------------------------------------------------------------------


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix domain sockets")


class _Run:
    def __init__(self, home: Path, session: str = "run-1", launched: bool = False) -> None:
        self.ext = FakeExtension(home, session=session, launched=launched)
        self.ext.wait_for_socket()
        assert self.ext.next_frame()["type"] == "host_hello"
        self.client = Client(self.ext.socket_path)

    def stop(self) -> None:
        self.client.close()
        self.ext.stop()

    def tab_new(self, tab_id: int) -> None:
        self.client.send({"id": "new", "cmd": "tab_new"})
        answer_next(self.ext, "tabs.create", {"id": tab_id, "url": "about:blank"})
        assert self.client.answer()["id"] == tab_id

    def runs_in(self, tab_id: int) -> None:
        """A command without --tab goes to tab_id."""
        self.client.send({"id": "cmd", "cmd": "cdp", "args": {"method": "DOM.enable"}})
        frame = self.ext.next_frame()
        assert frame.get("tabId") == tab_id, frame
        self.ext.send_frame({"id": frame["id"], "ok": True, "result": {}})
        assert self.client.answer()["ok"] is True

    def closed_by_user(self, tab_id: int) -> None:
        self.ext.send_frame({"type": "tab_removed", "tabId": tab_id})
        time.sleep(0.3)  # stdin and the socket are two roads: let the notice arrive first

    def refused(self) -> dict[str, Any]:
        answer = self.client.call({"id": "cmd", "cmd": "press", "args": {"keys": "q"}})
        assert answer["ok"] is False
        try:
            extra = self.ext.frames.get(timeout=0.2)
        except queue.Empty:
            extra = None
        assert extra is None, extra  # nothing went to any tab
        return dict(answer["error"])


def test_when_the_agents_tab_closes_the_next_command_goes_nowhere(short_home: Path) -> None:
    run = _Run(short_home)
    try:
        run.tab_new(42)
        run.runs_in(42)
        run.closed_by_user(42)
        error = run.refused()
        assert error["code"] == "tab_closed" and "42" in error["message"]
        run.client.send({"id": "pick", "cmd": "tab_select", "args": {"id": 43}})
        answer_next(run.ext, "tabs.select", {"id": 43, "url": "u", "title": "t", "active": False})
        assert run.client.answer()["ok"] is True
        run.runs_in(43)
    finally:
        run.stop()


def test_the_pick_survives_a_host_restart(short_home: Path) -> None:
    run = _Run(short_home)
    run.tab_new(42)
    run.stop()
    run = _Run(short_home)
    try:
        run.client.send({"id": "cmd", "cmd": "cdp", "args": {"method": "DOM.enable"}})
        answer_next(run.ext, "tabs.list", [{"id": 42, "url": "u", "title": "t", "active": False}])
        frame = run.ext.next_frame()
        assert frame["tabId"] == 42
        run.ext.send_frame({"id": frame["id"], "ok": True, "result": {}})
        assert run.client.answer()["ok"] is True
    finally:
        run.stop()


def test_a_pick_that_closed_while_no_host_ran_is_tab_closed(short_home: Path) -> None:
    run = _Run(short_home)
    run.tab_new(42)
    run.stop()
    run = _Run(short_home)
    try:
        run.client.send({"id": "cmd", "cmd": "cdp", "args": {"method": "DOM.enable"}})
        answer_next(run.ext, "tabs.list", [{"id": 7, "url": "u", "title": "t", "active": True}])
        assert run.client.answer()["error"]["code"] == "tab_closed"
    finally:
        run.stop()


def test_a_closed_pick_stays_closed_across_a_host_restart(short_home: Path) -> None:
    run = _Run(short_home)
    run.tab_new(42)
    run.closed_by_user(42)
    assert run.refused()["code"] == "tab_closed"
    run.stop()
    run = _Run(short_home)
    try:
        assert run.refused()["code"] == "tab_closed"  # not the tab in front
    finally:
        run.stop()


def test_after_a_browser_restart_the_own_profile_has_no_tab_and_a_launched_one_the_front_one(
    short_home: Path,
) -> None:
    run = _Run(short_home)
    run.tab_new(42)
    run.stop()
    run = _Run(short_home, session="run-2")
    try:
        assert run.refused()["code"] == "tab_closed"
    finally:
        run.stop()
    run = _Run(short_home, session="run-3", launched=True)
    try:
        run.client.send({"id": "cmd", "cmd": "cdp", "args": {"method": "DOM.enable"}})
        answer_next(run.ext, "tabs.current", {"id": 5, "url": "u", "title": "t", "active": True})
        assert answer_next(run.ext, "cdp", {})["tabId"] == 5
        assert run.client.answer()["ok"] is True
    finally:
        run.stop()
