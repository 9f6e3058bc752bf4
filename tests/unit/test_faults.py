"""Faults that must end in a typed answer at once, and recover: a crashed tab, a tab that closed
under a command, a frozen browser, a hung host. The host runs as Chrome runs it; the test plays
the extension (``FakeExtension``) and, for the hung host, a socket that never answers. The same
faults in a real browser: tests/browser/test_faults.py.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from reins._errors import ConnectionFailure
from reins.bridge.client import Connection, answer_wait_s

from .fakes import PROFILE, Client, FakeExtension, answer_next, connect_extension

CRASHED = {"type": "event", "method": "Inspector.targetCrashed", "params": {}}
RELOADED = {"type": "event", "method": "Inspector.targetReloadedAfterCrash", "params": {}}


def arm(host: FakeExtension, tab: int, *, crashed_before: bool = False) -> None:
    """Answer the host's arming of a tab it drives for the first time, as the extension would;
    a tab that crashed before anyone listened reports it when Inspector.enable arrives (its
    event first, then the answer: measured so in Chromium)."""
    seen: list[str] = []
    while "Page.enable" not in seen:
        frame = host.frames.get(timeout=5)
        kind = frame.get("method") or frame.get("type")
        seen.append(kind)
        if kind == "Inspector.enable" and crashed_before:
            host.send_frame({**CRASHED, "tabId": tab})
        host.send_frame({"id": frame["id"], "ok": True, "result": {}})
        if crashed_before and kind == "Inspector.enable":
            return  # a crashed page gets no dialog watch (Page.enable would never answer)
    assert seen == [
        "subscribe",
        "Inspector.enable",
        "subscribe",
        "Page.enable",
    ], seen


def evaluate(request_id: str, tab: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": request_id,
        "cmd": "cdp",
        "tab": tab,
        "args": {"method": "Runtime.evaluate", "params": {"expression": "1"}},
        **extra,
    }


# ---- a crashed renderer ------------------------------------------------------------------------


def test_a_crash_during_a_command_answers_tab_crashed_at_once(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4, timeout_ms=20_000))
    arm(host, 4)
    assert host.next_frame()["method"] == "Runtime.evaluate"  # never answered: the page is gone
    crashed_at = time.monotonic()
    host.send_frame({**CRASHED, "tabId": 4})
    answer = client.answer()
    assert answer["error"]["code"] == "tab_crashed", answer
    assert "reins reload" in answer["error"]["message"]
    assert time.monotonic() - crashed_at < 1.0  # not the 20 s budget

    # The next page command is refused before anything reaches the dead page.
    started = time.monotonic()
    answer = client.call(evaluate("b", 4))
    assert answer["error"]["code"] == "tab_crashed"
    assert time.monotonic() - started < 1.0
    assert host.frames.empty()


def test_a_crashed_out_of_process_iframe_is_not_a_crashed_tab(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4))
    arm(host, 4)
    frame = host.next_frame()
    host.send_frame({**CRASHED, "tabId": 4, "sessionId": "oopif-1"})
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True
    client.send(evaluate("b", 4))
    frame = host.next_frame()
    assert frame["method"] == "Runtime.evaluate"  # the page is still driven
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True


def test_a_tab_that_crashed_before_reins_listened_is_refused_on_arming(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 6))
    arm(host, 6, crashed_before=True)
    assert client.answer()["error"]["code"] == "tab_crashed"
    assert host.frames.empty()


def test_reload_brings_a_crashed_tab_back(host: FakeExtension, client: Client) -> None:
    connect_extension(host, client)
    client.send(evaluate("a", 4))
    arm(host, 4, crashed_before=True)
    assert client.answer()["error"]["code"] == "tab_crashed"

    client.send({"id": "r", "cmd": "reload", "tab": 4, "timeout_ms": 5000})
    # No evaluate on the dead page first (it would wait out the whole budget): the reload itself.
    frame = host.next_frame()
    assert frame.get("method") == "Page.reload", frame
    host.send_frame({**RELOADED, "tabId": 4})
    host.send_frame({"id": frame["id"], "ok": True, "result": {}})
    info = {"origin": 2.0, "url": "http://x/", "title": "back", "readyState": "complete"}
    answer_next(host, "cdp", {"result": {"value": info}})  # the new document
    answer_next(host, "cdp", {"result": {"value": {**info, "settledMs": 200}}})  # settled
    answer = client.answer()
    assert answer["ok"] is True and answer["title"] == "back", answer

    # The page works again: the next command reaches it (after the dialog watch is armed).
    client.send(evaluate("b", 4))
    frame = host.next_frame()
    assert frame.get("method") == "Runtime.evaluate", frame
    host.send_frame({"id": frame["id"], "ok": True, "result": {"result": {"value": 1}}})
    assert client.answer()["ok"] is True


# ---- a tab that closed under reins -------------------------------------------------------------


def test_a_current_tab_that_closed_by_itself_is_not_replaced_by_another(
    host: FakeExtension, client: Client
) -> None:
    connect_extension(host, client)
    client.send({"id": "sel", "cmd": "tab_select", "args": {"id": 3}})
    answer_next(host, "tabs.select", {"id": 3, "url": "u", "title": "t", "active": True})
    assert client.answer()["ok"] is True
    # The page ran window.close() (or the user closed it): the extension says so.
    host.send_frame({"type": "tab_removed", "tabId": 3})
    time.sleep(0.1)
    answer = client.call(evaluate("next", 3) | {"tab": None})
    assert answer["error"]["code"] == "tab_closed", answer
    assert "reins tab select" in answer["error"]["message"]
    assert host.frames.empty()  # the host did not go and read whatever tab is active now
    answer = client.call(evaluate("explicit", 3))
    assert answer["error"]["code"] == "target_closed"
    # Choosing a tab again works.
    client.send({"id": "sel2", "cmd": "tab_select", "args": {"id": 8}})
    answer_next(host, "tabs.select", {"id": 8, "url": "u", "title": "t", "active": True})
    assert client.answer()["ok"] is True


# ---- a frozen browser, a hung host -------------------------------------------------------------


def test_status_tells_a_browser_that_does_not_answer(host: FakeExtension, client: Client) -> None:
    connect_extension(host, client)
    started = time.monotonic()
    client.send({"id": "s", "cmd": "status"})
    assert host.next_frame()["type"] == "status"  # and the extension never answers
    answer = client.answer()
    elapsed = time.monotonic() - started
    assert answer["ok"] is False
    assert answer["error"]["code"] == "browser_unresponsive"
    assert answer["error"]["extension"] == "not answering"
    assert answer["error"]["host"]["pid"] == host.proc.pid  # the host itself answers
    assert 1.0 < elapsed < 3.0, elapsed


@pytest.fixture
def hung_host(short_home: Path) -> Any:
    """A socket where a host would be that accepts connections and never answers."""
    run = short_home / "run"
    run.mkdir(mode=0o700)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(run / f"{PROFILE}.sock"))
    server.listen(8)
    yield run / f"{PROFILE}.sock"
    server.close()


def test_the_client_gives_up_on_a_hung_host_after_the_commands_budget(hung_host: Path) -> None:
    with Connection(hung_host) as conn:
        started = time.monotonic()
        with pytest.raises(ConnectionFailure) as caught:
            conn.call("status", default_timeout_ms=200)
    elapsed = time.monotonic() - started
    assert caught.value.code == "host_unresponsive"
    assert f"kill {os.getpid()}" in caught.value.message  # the host's pid, from SO_PEERCRED
    assert answer_wait_s(200) - 0.1 < elapsed < answer_wait_s(200) + 1


def test_reins_status_against_a_hung_host_answers_within_seconds(
    hung_host: Path, short_home: Path
) -> None:
    env = dict(os.environ, REINS_HOME=str(short_home))
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "reins.cli", "--json", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    elapsed = time.monotonic() - started
    body = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 3, proc
    assert body["error"]["code"] == "host_unresponsive"
    assert elapsed < 8.0, elapsed  # status's 3 s budget and the margin; was 65 s


def test_the_wait_follows_the_budget() -> None:
    assert answer_wait_s(3000) < 5.0
    assert answer_wait_s(60_000) == 65.0  # what a command without a known budget got before
    assert answer_wait_s(15_000) > 15.0


# ---- `reins launch` never orphans a running browser --------------------------------------------


@pytest.fixture
def launch_home(short_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REINS_HOME", str(short_home))
    return short_home


def _fake_browser(home: Path) -> tuple[Path, Path]:
    """A "browser" that does what Chromium does when its profile is already in use: hands the URL
    to the running browser and exits 0. It leaves a mark when started."""
    mark = home / "second-browser-started"
    script = home / "fake-chromium"
    script.write_text(f"#!/bin/sh\ntouch {mark}\nexit 0\n")
    script.chmod(0o755)
    return script, mark


def _running_on(data_dir: Path) -> subprocess.Popen[bytes]:
    """A live process that looks like a browser on ``data_dir`` (its arguments say so)."""
    flag = f"--user-data-dir={data_dir}"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", flag], start_new_session=True
    )
    cmdline = Path(f"/proc/{proc.pid}/cmdline")
    deadline = time.monotonic() + 5
    while cmdline.exists() and flag.encode() not in cmdline.read_bytes():  # until it has exec'd
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return proc


def test_launch_refuses_to_start_a_second_browser_on_a_running_profile(launch_home: Path) -> None:
    from reins.setup.launch import launch

    pdir = launch_home / "profiles" / "solo"
    pdir.mkdir(parents=True)
    running = _running_on(pdir / "user-data")
    try:
        (pdir / "browser.pid").write_text(str(running.pid))
        binary, mark = _fake_browser(launch_home)
        # Its host is away (the extension's worker restarted and has not reconnected yet).
        with pytest.raises(ConnectionFailure) as caught:
            launch("solo", browser=str(binary), headless=True, timeout_s=0.5)
        assert caught.value.code == "no_host"
        assert "reins shutdown --profile solo" in caught.value.message
        assert caught.value.details["pid"] == running.pid
        assert not mark.exists(), "a second browser was started on the same profile"
        assert (pdir / "browser.pid").read_text() == str(running.pid)  # never overwritten
    finally:
        running.kill()
        running.wait()


def test_launch_finds_a_running_browser_by_its_profile_lock(launch_home: Path) -> None:
    from reins.setup.launch import launch, shutdown

    pdir = launch_home / "profiles" / "solo"
    data_dir = pdir / "user-data"
    data_dir.mkdir(parents=True)
    running = _running_on(data_dir)
    try:
        # No pid file (lost, or overwritten by an older reins): Chromium's lock still says who.
        os.symlink(f"{socket.gethostname()}-{running.pid}", data_dir / "SingletonLock")
        binary, mark = _fake_browser(launch_home)
        with pytest.raises(ConnectionFailure):
            launch("solo", browser=str(binary), headless=True, timeout_s=0.5)
        assert not mark.exists()
        assert (pdir / "browser.pid").read_text() == str(running.pid)  # recorded, so that…
        assert shutdown("solo")["pid"] == running.pid  # …`reins shutdown` can stop it
        assert running.wait(timeout=5) is not None
    finally:
        running.kill()
        running.wait()


def test_a_recorded_pid_that_is_no_longer_the_browser_does_not_block_launch(
    launch_home: Path,
) -> None:
    from reins.setup.launch import launch

    pdir = launch_home / "profiles" / "solo"
    pdir.mkdir(parents=True)
    (pdir / "browser.pid").write_text(str(os.getpid()))  # alive, but not a browser: pid reused
    binary, mark = _fake_browser(launch_home)
    with pytest.raises(ConnectionFailure) as caught:
        launch("solo", browser=str(binary), headless=True, timeout_s=5)
    assert "exited at start" in caught.value.message
    assert mark.exists()
    assert not (pdir / "browser.pid").exists()  # no dead pid left behind


def test_a_second_launch_of_a_profile_waits_for_the_first(
    launch_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `reins launch` at once: the profile's launch lock is held while one starts its browser,
    so the other waits and then finds that browser instead of starting a second one."""
    import fcntl

    from reins.setup import launch as launching

    seen: list[bool] = []

    def find_browser(explicit: str | None = None) -> str:  # runs inside the launch
        fd = os.open(launch_home / "profiles" / "solo" / "launch.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append(False)  # nobody held it
        except BlockingIOError:
            seen.append(True)
        finally:
            os.close(fd)
        raise ConnectionFailure("stop here", code="no_host")

    monkeypatch.setattr(launching, "find_browser", find_browser)
    with pytest.raises(ConnectionFailure, match="stop here"):
        launching.launch("solo", headless=True, timeout_s=0.5)
    assert seen == [True]
    # released when the launch ends, also by an error
    fd = os.open(launch_home / "profiles" / "solo" / "launch.lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(fd)


def test_a_browser_that_exits_at_start_leaves_another_launchs_pid_file(launch_home: Path) -> None:
    """Chromium hands its URL to a browser already on the profile and exits; the pid file is then
    the other browser's, and stays."""
    from reins.setup.launch import launch

    pdir = launch_home / "profiles" / "solo"
    pdir.mkdir(parents=True)
    script = launch_home / "fake-chromium"
    # the winner's pid, written while this "browser" runs (once launch has recorded this one)
    pid_file = pdir / "browser.pid"
    script.write_text(
        "#!/bin/sh\n"
        f'while [ "$(cat {pid_file} 2>/dev/null)" != "$$" ]; do sleep 0.01; done\n'
        f"printf 4242 > {pid_file}\nexit 0\n"
    )
    script.chmod(0o755)
    with pytest.raises(ConnectionFailure, match="exited at start"):
        launch("solo", browser=str(script), headless=True, timeout_s=5)
    assert (pdir / "browser.pid").read_text() == "4242"
