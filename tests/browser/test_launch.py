"""`reins launch` / `reins shutdown` and `reins batch`, as a new user would run them."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from reins.setup.install import extension_dir, mimalloc_library

from .conftest import Browser, Site
from .support import run_cli


def _reins(home: Path, *args: str, timeout: float = 90) -> tuple[int, list[dict[str, Any]]]:
    """`reins ARGS` exactly as given (each test passes its own --profile and --json)."""
    run = run_cli(home, *args, profile=None, as_json=False, timeout=timeout)
    return run.code, run.json_lines()


@pytest.fixture
def scratch_home() -> Any:
    home = Path(tempfile.mkdtemp(prefix="rl-", dir="/tmp"))
    yield home
    _reins(home, "shutdown", "--profile", "solo")


def test_launch_navigate_status_shutdown(scratch_home: Path, site: Site) -> None:
    home = scratch_home
    code, out = _reins(home, "launch", "--headless", "--profile", "solo", "--json")
    assert code == 0, out
    pid = out[0]["pid"]
    url = site.url("static/bridge.html")
    code, out = _reins(home, "navigate", url, "--profile", "solo", "--json")
    assert code == 0 and out[0]["title"] == "Bridge fixture"
    code, out = _reins(home, "status", "--json")  # the only host: no --profile needed
    assert code == 0 and out[0]["connected"] is True and out[0]["tab"]["url"] == url
    assert out[0]["host"]["profile"] == "solo"
    # Everything reins wrote is under this REINS_HOME.
    assert (home / "run" / "solo.sock").exists()
    assert (home / "profiles" / "solo" / "user-data" / "NativeMessagingHosts").is_dir()

    code, out = _reins(home, "shutdown", "--json")
    assert code == 0 and out[0]["pid"] == pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (home / "run" / "solo.sock").exists():
        time.sleep(0.1)
    assert not (home / "run" / "solo.sock").exists(), (
        "the host removes its socket when the browser exits"
    )
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    code, out = _reins(home, "status", "--json")
    assert code == 3 and out[0]["error"]["code"] == "no_host"


def test_launch_loads_the_extension_over_the_devtools_pipe(scratch_home: Path, site: Site) -> None:
    """The way branded Chrome 137+ needs (it ignores --load-extension), run with Chromium."""
    home = scratch_home
    code, out = _reins(
        home, "launch", "--headless", "--load-via", "pipe", "--profile", "solo", "--json"
    )
    assert code == 0, out
    pid = out[0]["pid"]
    assert out[0]["loaded_via"] == "pipe"
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    assert "--remote-debugging-pipe" in args
    assert not [
        a for a in args if a.startswith("--load-extension=") and a != "--load-extension="
    ], "the extension came over the pipe, not the flag (Debian's wrapper adds an empty one)"
    keeper = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    assert "reins.setup.keeper" in Path(f"/proc/{keeper}/cmdline").read_bytes().decode()
    time.sleep(4)  # a browser whose pipe closed would be gone by now (PLATFORM.md: within 3 s)
    url = site.url("static/bridge.html")
    code, out = _reins(home, "navigate", url, "--profile", "solo", "--json")
    assert code == 0 and out[0]["title"] == "Bridge fixture"

    code, out = _reins(home, "shutdown", "--profile", "solo", "--json")
    assert code == 0 and out[0]["pid"] == pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{keeper}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{keeper}").exists(), "the keeper goes with its browser"


def test_closing_the_last_tab_of_a_launched_browser_keeps_the_browser(
    scratch_home: Path, site: Site
) -> None:
    """Issue 46: the last tab closing ended `reins launch`'s browser and its host (`reins tab new`
    then answered `no_host`). A blank tab of reins's takes its place; the browser stays."""
    code, out = _reins(scratch_home, "launch", "--headless", "--profile", "solo", "--json")
    assert code == 0, out
    pid = out[0]["pid"]
    code, out = _reins(scratch_home, "navigate", site.url("static/bridge.html"), "--json")
    assert code == 0, out
    code, out = _reins(scratch_home, "tabs", "--json")
    assert code == 0 and len(out[0]["tabs"]) == 1, out
    only = out[0]["tabs"][0]["id"]
    code, out = _reins(scratch_home, "tab", "close", "--json")
    assert code == 0 and out[0]["closed"] == only, out
    blank = out[0]["replaced_by"]
    os.kill(pid, 0)  # the browser is still there
    code, out = _reins(scratch_home, "tabs", "--json")
    assert code == 0 and [t["id"] for t in out[0]["tabs"]] == [blank], out
    code, out = _reins(scratch_home, "tab", "new", site.url("static/bridge.html"), "--json")
    assert code == 0 and "/static/bridge.html" in out[0]["url"], out
    shown = run_cli(scratch_home, "tab", "close", str(blank), profile=None, as_json=False)
    assert shown.code == 0 and f"tab {blank} closed" in shown.stdout


def test_a_launched_profile_downloads_into_reins_home(scratch_home: Path, site: Site) -> None:
    """Issue 46: `reins launch`'s own profile saved downloads into ~/Downloads."""
    code, out = _reins(scratch_home, "launch", "--headless", "--profile", "solo", "--json")
    assert code == 0, out
    code, out = _reins(scratch_home, "navigate", site.url("static/download.html"), "--json")
    assert code == 0, out
    code, out = _reins(scratch_home, "click", "#export", "--json")
    assert code == 0, out
    (got,) = out[0]["effect"]["downloads"]
    folder = scratch_home / "profiles" / "solo" / "downloads"
    assert Path(got["folder"]) == folder and got["file"] == "export-2026-12.csv", got
    assert "2026-12-01,42.00" in (folder / "export-2026-12.csv").read_text()
    assert folder.stat().st_mode & 0o777 == 0o700


def test_the_host_the_browser_starts_runs_on_mimalloc_when_the_system_has_it(
    scratch_home: Path, site: Site
) -> None:
    # The launcher `reins launch` writes is what the browser runs; the host's own memory map
    # (/proc) says which allocator it got. The bootstrap installs mimalloc; without it the host
    # runs on CPython's allocator, and this says so.
    code, out = _reins(scratch_home, "launch", "--headless", "--profile", "solo", "--json")
    assert code == 0, out
    code, out = _reins(scratch_home, "navigate", site.url("static/big.html?n=300"), "--json")
    assert code == 0, out
    code, out = _reins(scratch_home, "state", "--json")
    assert code == 0 and len(out[0]["refs"]) == 300
    code, out = _reins(scratch_home, "status", "--json")
    pid = out[0]["host"]["pid"]
    mapped = Path(f"/proc/{pid}/maps").read_text()
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    library = mimalloc_library()
    # And `status` says which one, as the host itself finds it.
    if library is not None:
        assert str(library) in mapped
        assert b"PYTHONMALLOC=malloc" in environ
        assert out[0]["host"]["allocator"] == "mimalloc"
    else:
        assert "libmimalloc" not in mapped and b"PYTHONMALLOC=malloc" not in environ
        assert out[0]["host"]["allocator"] == "pymalloc"
    shown = run_cli(scratch_home, "status", profile=None, as_json=False).stdout
    assert f"allocator {'mimalloc' if library is not None else 'pymalloc'}" in shown


def test_batch_runs_lines_over_one_connection(browser: Browser, page: Any) -> None:
    tab, _ = page("static/actions.html")
    lines = (
        "\n".join(
            [
                f"state --tab {tab}",
                "# a comment, skipped",
                f"click '#load-btn' --tab {tab}",
                f"wait --text Loaded! --tab {tab}",
                f"click @nosuchref --tab {tab}",
                "not-a-command",
                f"fill '#name' 'an unclosed quote --tab {tab}",
                f"eval 'document.querySelector(\"#loaded\").textContent' --tab {tab}",
            ]
        )
        + "\n"
    )
    proc = run_cli(browser.home, "batch", as_json=False, stdin=lines)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [True, True, True, False, False, False, True]
    assert answers[0]["refs"], "state answered its refs"
    assert answers[3]["error"]["code"] == "not_found"
    assert answers[4]["error"]["code"] == "bad_request"
    unclosed = answers[5]["error"]
    assert unclosed["code"] == "bad_request" and "No closing quotation" in unclosed["message"]
    assert answers[6]["value"] == "Loaded!"
    assert proc.code == 1  # some lines failed
    assert "Loaded!" in browser.js("return document.body.innerText")
    # The page as the oracle: the unreadable line filled nothing.
    assert browser.js("return document.querySelector('#name').value") == ""


def test_a_relaunch_after_the_extension_changed_runs_the_new_extension(
    scratch_home: Path, tmp_path: Path
) -> None:
    """Chrome keeps the extension's first service worker across restarts of a profile; `reins
    launch` drops the profile's worker store when the extension's files changed, so an updated
    reins runs its updated extension (its hello says what the files say)."""
    home = scratch_home
    ext = tmp_path / "extension"
    shutil.copytree(extension_dir(), ext)
    env = {"REINS_EXTENSION_DIR": str(ext)}

    def features() -> list[str]:
        run = run_cli(home, "launch", "--headless", "--profile", "solo", env=env, timeout=90)
        assert run.code == 0, run.stderr
        status = run_cli(home, "status", "--profile", "solo", env=env).json_lines()[0]
        _reins(home, "shutdown", "--profile", "solo")
        return list(status["extension"]["features"])

    background = ext / "background.js"
    text = background.read_text()
    declared = _declared_features(text)
    assert "stopIfThrown" in declared
    assert features() == declared  # the files' own list
    assert features() == declared  # unchanged files: the same worker, nothing dropped
    marked = _with_features(text, [*declared, "test-mark"])
    assert marked != text
    background.write_text(marked)
    assert features() == [*declared, "test-mark"]


_FEATURES = re.compile(r"const FEATURES = (\[[^\]]*\]);")


def _declared_features(background: str) -> list[str]:
    found = _FEATURES.search(background)
    assert found, "background.js declares its FEATURES"
    return list(json.loads(found.group(1)))


def _with_features(background: str, features: list[str]) -> str:
    return _FEATURES.sub(f"const FEATURES = {json.dumps(features)};", background, count=1)


def test_doctor_says_when_the_running_extension_is_older_than_the_host(
    scratch_home: Path, tmp_path: Path
) -> None:
    """An extension that does not say `stopIfThrown` (as before it existed): the host still
    works with it, and `reins doctor` says to reload it."""
    home = scratch_home
    ext = tmp_path / "extension"
    shutil.copytree(extension_dir(), ext)
    background = ext / "background.js"
    old = _with_features(background.read_text(), [])
    assert _declared_features(old) == []
    background.write_text(old)
    env = {"REINS_EXTENSION_DIR": str(ext)}
    run = run_cli(home, "launch", "--headless", "--profile", "solo", env=env, timeout=90)
    assert run.code == 0, run.stderr
    report = run_cli(home, "doctor", "--profile", "solo", env=env, timeout=90).json_lines()[0]
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["extension connected"]["ok"] is True, by_name
    stale = by_name["extension up to date"]
    assert stale["ok"] is False and "stopIfThrown" in stale["detail"], stale
    assert "chrome://extensions" in stale["fix"]
    # The files brought up to date: the relaunch runs them, and doctor is content.
    background.write_text((extension_dir() / "background.js").read_text())
    _reins(home, "shutdown", "--profile", "solo")
    run = run_cli(home, "launch", "--headless", "--profile", "solo", env=env, timeout=90)
    assert run.code == 0, run.stderr
    report = run_cli(home, "doctor", "--profile", "solo", env=env, timeout=90).json_lines()[0]
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["extension up to date"]["ok"] is True, by_name
