"""`reins launch --load-via pipe`: the keeper loads the extension over a browser's DevTools pipe
and holds the pipe for the browser's life. The browser here is a hand-built stand-in that speaks
the pipe's framing (fd 3 in, fd 4 out, NUL-separated JSON), as Chromium does (the real one is
tests/browser/test_launch.py's)."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from reins._errors import ConnectionFailure
from reins.setup import launch as launch_module
from reins.setup.keeper import start_keeper
from reins.setup.launch import browser_flags, load_via

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the pipe is POSIX-only")

STAND_IN = r"""
import json, os, sys
mode, marks = sys.argv[1], sys.argv[2]
open(marks + ".started", "w").write(str(os.getpid()))
if mode == "exit":
    sys.exit(3)
raw = b""
while not raw.endswith(b"\0"):
    raw += os.read(3, 4096)
message = json.loads(raw[:-1])
open(marks + ".asked", "w").write(json.dumps(message))
os.write(4, json.dumps({"method": "Target.targetCreated", "params": {}}).encode() + b"\0")
if mode == "ok":
    answer = {"id": message["id"], "result": {"id": "hlbjhcdhfpclgnhcihccgjneokjkeibl"}}
else:
    answer = {"id": message["id"], "error": {"code": -32601, "message": "'Extensions.loadUnpacked' wasn't found"}}
os.write(4, json.dumps(answer).encode() + b"\0")
while os.read(3, 4096):  # a browser reads its pipe until the other end closes
    pass
open(marks + ".eof", "w").write("")
"""


def _stand_in(tmp_path: Path, mode: str) -> tuple[list[str], Path]:
    script = tmp_path / "browser.py"
    script.write_text(STAND_IN)
    marks = tmp_path / "mark"
    return [sys.executable, str(script), mode, str(marks)], marks


def _wait_for(path: Path, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.02)
    return False


def test_the_keeper_loads_the_extension_and_holds_the_pipe_for_the_browsers_life(
    tmp_path: Path,
) -> None:
    args, marks = _stand_in(tmp_path, "ok")
    log = os.open(tmp_path / "log", os.O_WRONLY | os.O_CREAT, 0o600)
    keeper, answer = start_keeper(args, "/the/extension", log, 10)
    os.close(log)
    try:
        assert answer == {
            "pid": int(Path(f"{marks}.started").read_text()),
            "id": "hlbjhcdhfpclgnhcihccgjneokjkeibl",
        }
        asked = json.loads(Path(f"{marks}.asked").read_text())
        assert asked["method"] == "Extensions.loadUnpacked"
        assert asked["params"] == {"path": "/the/extension"}
        # `reins launch` returned; the browser keeps its pipe (a closed one would end it).
        time.sleep(0.5)
        assert keeper.poll() is None
        assert not Path(f"{marks}.eof").exists()
    finally:
        keeper.send_signal(signal.SIGKILL)
        keeper.wait()
    assert _wait_for(Path(f"{marks}.eof")), "the keeper gone, the browser's pipe closes"


def test_an_error_answer_is_passed_on_with_the_browsers_pid(tmp_path: Path) -> None:
    args, marks = _stand_in(tmp_path, "error")
    keeper, answer = start_keeper(args, "/x", 2, 10)
    try:
        assert answer["pid"] == int(Path(f"{marks}.started").read_text())
        assert "wasn't found" in answer["error"]
    finally:
        keeper.kill()
        keeper.wait()


def test_a_browser_that_exits_at_start_is_an_error_not_a_hang(tmp_path: Path) -> None:
    args, _ = _stand_in(tmp_path, "exit")
    keeper, answer = start_keeper(args, "/x", 2, 10)
    assert "closed its DevTools pipe" in answer["error"]
    assert keeper.wait(timeout=10) == 3, "the keeper ends with the browser's exit code"


def test_launch_stops_a_browser_that_cannot_load_the_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args, marks = _stand_in(tmp_path, "error")
    monkeypatch.setattr(launch_module, "extension_dir", lambda: tmp_path)
    with pytest.raises(ConnectionFailure) as caught:
        launch_module._start_over_pipe(args, 2, 10, tmp_path)
    assert caught.value.code == "no_host"
    assert "Chrome 137+" in (caught.value.hint or "")
    pid = int(Path(f"{marks}.started").read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.02)
    else:
        pytest.fail("the browser that could not load the extension still runs")


@pytest.mark.parametrize(
    ("binary", "way"),
    [
        ("/usr/bin/chromium", "flag"),
        ("/snap/bin/chromium-browser", "flag"),
        ("/opt/google/chrome-for-testing/chrome", "flag"),
        (
            "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
            "flag",
        ),
        ("/usr/bin/google-chrome-stable", "pipe"),
        ("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "pipe"),
        ("/usr/bin/microsoft-edge", "pipe"),
        (r"C:\Program Files\Google\Chrome\Application\chrome.exe", "pipe"),
    ],
)
def test_the_way_in_follows_the_browser(binary: str, way: str) -> None:
    assert load_via(binary) == way
    assert load_via(binary, "flag") == "flag"


def test_a_pipe_launch_has_no_load_extension_flag(tmp_path: Path) -> None:
    flags = browser_flags(tmp_path, headless=True, load="pipe")
    assert "--remote-debugging-pipe" in flags
    assert "--enable-unsafe-extension-debugging" in flags
    assert not [f for f in flags if f.startswith("--load-extension")]
    assert [f for f in browser_flags(tmp_path, headless=True) if f.startswith("--load-extension=")]
