"""The console script's fast lane: argument-less host commands without click, same contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from reins.cli import lane
from reins.cli.host_commands import description
from reins.cli.quirks import QUIRKS


@pytest.mark.parametrize(("argv", "name", "opts"), [
    (["status"], "status", {}),
    (["--json", "status"], "status", {"json_out": True}),
    (["tabs", "--profile", "work", "--json"], "tabs", {"profile": "work", "json_out": True}),
    (["--tab=12", "back", "--timeout-ms", "500"], "back", {"tab": 12, "timeout_ms": 500}),
    (["--profile=p", "stats"], "stats", {"profile": "p"}),
])
def test_plain_requests(argv: list[str], name: str, opts: dict[str, object]) -> None:
    found = lane.plain_request(argv)
    assert found is not None
    assert found[0]["name"] == name and found[1] == opts


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["status", "--help"], ["status", "-h"], ["--version"], ["status", "extra"],
    ["navigate", "https://x"], ["tab", "new"], ["state"], ["cdp", "X.y"], ["--tab", "x", "status"],
    ["--tab"], ["status", "--tab"], ["--timeout-ms", "9999999999", "status"], ["status", "--jsn"],
    ["--profile", "--json", "status"], ["launch"], ["trace", "stop"], ["status", "tabs"],
])
def test_everything_else_goes_to_click(argv: list[str]) -> None:
    assert lane.plain_request(argv) is None


def test_the_lane_knows_which_argumentless_commands_have_quirks() -> None:
    argless = {c["name"] for c in description() if not c["arguments"] and not c["options"]}
    assert argless & set(QUIRKS) == set(lane._HAS_QUIRK)


def _run(home: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, REINS_HOME=str(home))
    env.pop("REINS_PROFILE", None)
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=30)


_LANE = "import sys; from reins.cli.lane import main; main()"
_CLICK = "import sys; from reins.cli.main import main; main()"


@pytest.mark.parametrize("args", [["--json", "status"], ["status"], ["tabs", "--json"],
                                  ["--profile", "nope", "back"]])
def test_same_output_and_exit_code_as_the_click_group(tmp_path: Path, args: list[str]) -> None:
    fast, slow = _run(tmp_path, _LANE, *args), _run(tmp_path, _CLICK, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout,
                                                           slow.stderr)
    assert fast.returncode == 3


def test_the_lane_does_not_import_click(tmp_path: Path) -> None:
    probe = ("import json, sys\nfrom reins.cli.lane import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(json.dumps(sorted(sys.modules)))")
    done = _run(tmp_path, probe, "--json", "status")
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "click" not in modules and "reins.bridge.client" in modules
    assert not {m for m in modules if m.startswith(("pydantic", "reins._host", "asyncio"))}
