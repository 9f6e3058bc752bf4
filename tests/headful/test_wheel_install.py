"""A user's install from the wheel alone (issue 33's "done when"): the wheel built from this
checkout, installed with pip into a fresh venv, run from a folder outside the checkout. `reins
install` places the packaged extension and prints its folder; the launcher it registers starts
the venv's reins, not this checkout's (doctor's host-start probe runs it). Then Chromium started
as a person starts it, on the desktop, loads the printed folder; `reins doctor` is all green, and
the demo's flow (the expense form: fill, pick Meals in the Radix select, save) runs through the
installed reins, the page saying what it saved. Slow (a venv and the dependencies, from pip's
cache or the index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.headful._desktop import Desktop, browser_command, stop_browser
from tests.headful.conftest import Site
from tests.unit.test_wheel import ROOT, build_wheel

pytestmark = [pytest.mark.browser, pytest.mark.headful]

BIN = "Scripts" if os.name == "nt" else "bin"


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.timeout(900)
@pytest.mark.skipif(os.name == "nt", reason="--user-data-dir is refused on Windows")
def test_a_wheel_alone_installs_a_working_reins(
    tmp_path: Path, desktop: Desktop, site: Site
) -> None:
    wheel = build_wheel(tmp_path / "wheel")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = _run(
        [str(venv / BIN / "python"), "-m", "pip", "install", "-q", str(wheel)],
        cwd=tmp_path,
        env=dict(os.environ),
    )
    assert pip.returncode == 0, pip.stderr[-2000:]

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "PIP_CACHE_DIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env |= {"HOME": str(tmp_path / "user"), "REINS_HOME": str(tmp_path / "reins-home")}
    reins = str(venv / BIN / "reins")
    profile = tmp_path / "profile"
    done = _run([reins, "install", "--user-data-dir", str(profile), "--json"], cwd=outside, env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    placed = Path(answer["extension"])
    assert placed == tmp_path / "reins-home" / "extension"
    assert (placed / "manifest.json").read_bytes() == (
        ROOT / "extension" / "manifest.json"
    ).read_bytes()
    assert answer["extension_change"] == "new"

    # The launcher runs the venv's Python, whose reins is the installed package.
    launcher = Path(answer["launcher"]).read_text()
    assert str(venv / BIN / "python") in launcher.splitlines()[-1]
    where = _run(
        [
            str(venv / BIN / "python"),
            "-c",
            "import reins.setup.extension as e; print(e.extension_path())",
        ],
        cwd=outside,
        env=env,
    )
    packaged = Path(where.stdout.strip())
    assert packaged.parent.name == "reins" and "site-packages" in packaged.parts, packaged
    assert not packaged.is_relative_to(ROOT)

    report = _run(
        [reins, "doctor", "--user-data-dir", str(profile), "--json"], cwd=outside, env=env
    )
    checks = {c["name"]: c for c in json.loads(report.stdout)["checks"]}
    for name in ("manifest", "launcher", "host start", "extension files", "mcp server"):
        assert checks[name]["ok"] is True, checks[name]
    assert str(placed) in checks["extension files"]["detail"]
    assert checks["extension connected"]["ok"] is False  # no browser yet
    assert str(placed) in checks["extension connected"]["fix"]

    # The person starts their browser with the printed folder loaded (Load unpacked's effect).
    log = (tmp_path / "browser.log").open("ab")
    browser = subprocess.Popen(
        browser_command(profile, "about:blank", extension=placed),
        env={**env, "DISPLAY": desktop.display},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        status: dict[str, object] = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not status.get("connected"):
            time.sleep(0.5)
            done = _run([reins, "status", "--json"], cwd=outside, env=env)
            status = json.loads(done.stdout or "{}") if done.stdout.startswith("{") else {}
        assert status.get("connected") is True, status

        report = _run(
            [reins, "doctor", "--user-data-dir", str(profile), "--json"], cwd=outside, env=env
        )
        checks = json.loads(report.stdout)["checks"]
        assert report.returncode == 0 and all(c["ok"] for c in checks), checks

        # The demo's flow, through the installed reins.
        def ok(*args: str) -> dict[str, object]:
            done = _run([reins, *args, "--json"], cwd=outside, env=env)
            assert done.returncode == 0, (args, done.stdout, done.stderr)
            return dict(json.loads(done.stdout.splitlines()[-1]))

        tab = ok("tab", "new", site.url("app/expense.html", "wheel"))["id"]
        ok("tab", "select", str(tab))
        ok("fill", "role=textbox[name='Merchant']", "Blue Bottle Coffee")
        ok("fill", "#amount", "12.50")
        ok("choose", "#category", "Meals")
        ok("click", "role=button[name='Save']")
        ok("expect", "text", "#saved", "Saved: Blue Bottle Coffee · 12.50 · Meals")
        saved = ok("eval", "JSON.stringify(window.__saved)")
        assert json.loads(str(saved["value"])) == [
            {"merchant": "Blue Bottle Coffee", "amount": "12.50", "category": "Meals"}
        ]
    finally:
        stop_browser(browser)
        log.close()
