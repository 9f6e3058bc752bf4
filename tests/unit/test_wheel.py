"""The wheel carries the extension: built from a copy of this checkout's sources as pip builds
any package (`pip wheel`, an isolated build with the setuptools pyproject.toml asks for, from
pip's cache or the index), it holds ``reins/extension/`` with every file of the repo's
``extension/``, byte for byte. About 3 s here; the wheel installed in a fresh venv is
tests/headful/test_wheel_install.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "host", "extension")


def build_wheel(out: Path) -> Path:
    """This checkout's sources copied to ``out/src`` (so the build's folders stay out of the
    checkout), built into a wheel in ``out``; its path."""
    src = out / "src"
    src.mkdir(parents=True)
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=skip)
        else:
            shutil.copy2(path, src / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("reins-*.whl")
    return wheel


@pytest.mark.timeout(300)
def test_the_wheel_holds_the_extension(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    repo = {
        p.relative_to(ROOT / "extension").as_posix(): p.read_bytes()
        for p in (ROOT / "extension").rglob("*")
        if p.is_file()
    }
    with zipfile.ZipFile(wheel) as archive:
        packaged = {
            name.removeprefix("reins/extension/"): archive.read(name)
            for name in archive.namelist()
            if name.startswith("reins/extension/")
        }
        names = set(archive.namelist())
    assert "manifest.json" in packaged and "background.js" in packaged
    assert packaged == repo  # every file, the same bytes, nothing else
    assert {"reins/cli/group.py", "reins/_generated/collect.js", "reins/agent-guide.md"} <= names
