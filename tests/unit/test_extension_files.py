"""The extension's files: which folder this reins carries, the copy `reins install` places for
Load unpacked (replaced whole, regular files only, never through a symlink), what doctor says
of it, and where it goes on each desktop. On tmp folders; no browser."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import reins._platform
import reins.setup.extension as ext
from click.testing import CliRunner
from reins._errors import UsageError
from reins._paths import data_home
from reins.cli.group import main as cli_main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and REINS_HOME in tmp_path, no override of the extension's folder."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("REINS_HOME", str(tmp_path / "state"))
    for name in ("REINS_EXTENSION_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "CHROME_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _extension(folder: Path, version: str = "1.0", **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"manifest_version": 3, "name": "reins", "version": version}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for name, text in {"background.js": "// sw", **files}.items():
        (folder / name.replace("__", "/")).parent.mkdir(parents=True, exist_ok=True)
        (folder / name.replace("__", "/")).write_text(text)
    return folder


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ---- which extension this reins carries --------------------------------------------------------


def test_from_this_checkout_the_repos_extension_folder(isolated: Path) -> None:
    assert ext.extension_path() == ROOT / "extension"
    assert ext.extension_dir() == ROOT / "extension"


def test_the_override_comes_first(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REINS_EXTENSION_DIR", str(isolated / "mine"))
    assert ext.extension_path() == isolated / "mine"
    with pytest.raises(UsageError, match="not at") as missing:
        ext.extension_dir()  # nothing there
    assert "REINS_EXTENSION_DIR" in str(missing.value.hint)


def test_installed_from_a_wheel_the_packages_copy(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # site-packages/reins: no host/ folder above it, so an extension/ three levels up (as the
    # old parents[3] rule would have found) is not taken for a checkout's.
    package = isolated / "venv" / "lib" / "python3.11" / "site-packages" / "reins"
    _extension(package / "extension")
    _extension(isolated / "venv" / "lib" / "extension")
    monkeypatch.setattr(ext, "_package", lambda: package)
    assert ext.extension_path() == package / "extension"
    # A checkout is host/reins beside pyproject.toml and extension/.
    checkout = isolated / "repo"
    (checkout / "host" / "reins").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    _extension(checkout / "extension")
    monkeypatch.setattr(ext, "_package", lambda: checkout / "host" / "reins")
    assert ext.extension_path() == checkout / "extension"


# ---- where the copy goes -----------------------------------------------------------------------


def test_the_copy_goes_to_the_desktops_data_folder(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolated / "home"
    assert data_home() == isolated / "state"  # a REINS_HOME of its own keeps its own copy
    monkeypatch.delenv("REINS_HOME")
    monkeypatch.setattr(reins._platform, "os_name", lambda: "linux")
    assert data_home() == home / ".local" / "share" / "reins"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert data_home() == home / ".local" / "share" / "reins"
    monkeypatch.setenv("XDG_DATA_HOME", str(isolated / "data"))
    assert ext.placed_extension_path() == isolated / "data" / "reins" / "extension"
    monkeypatch.setattr(reins._platform, "os_name", lambda: "darwin")
    assert data_home() == home / "Library" / "Application Support" / "reins"
    monkeypatch.setattr(reins._platform, "os_name", lambda: "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(isolated / "Local"))
    assert data_home() == isolated / "Local" / "reins"


# ---- the copy ----------------------------------------------------------------------------------


def test_placing_copies_new_then_same_then_replaces_whole(isolated: Path) -> None:
    source = _extension(isolated / "src", "1.0", **{"lib__util.js": "// 1", "old.js": "// old"})
    target = isolated / "data" / "extension"
    first = ext.place_extension(source, target)
    assert first == ext.Placement(target, "new")
    assert _tree(target) == _tree(source)
    assert ext.place_extension(source, target).change == "same"
    # An update: a file changed, one gone, one new; the copy holds exactly the new set.
    (source / "old.js").unlink()
    (source / "lib" / "util.js").write_text("// 2")
    (source / "added.js").write_text("// new")
    assert ext.place_extension(source, target).change == "updated"
    assert _tree(target) == _tree(source)
    assert ext.extension_digest(target) == ext.extension_digest(source)
    # Nothing left beside it: no staging folder, no retired copy.
    assert sorted(p.name for p in target.parent.iterdir()) == ["extension"]


def test_a_failed_copy_leaves_the_old_one_whole(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _extension(isolated / "src", "1.0")
    target = isolated / "data" / "extension"
    ext.place_extension(source, target)
    before = _tree(target)
    _extension(source, "2.0", **{"more.js": "// more"})

    def half_copy(src: Path, staging: Path) -> None:
        (staging / "manifest.json").write_text("{}")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ext, "_copy_files", half_copy)
    with pytest.raises(UsageError, match="No space left on device"):
        ext.place_extension(source, target)
    assert _tree(target) == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["extension"]


def test_a_symlink_or_a_file_in_the_copys_place_is_refused(isolated: Path) -> None:
    source = _extension(isolated / "src")
    elsewhere = _extension(isolated / "elsewhere", "9.9")
    before = _tree(elsewhere)
    target = isolated / "data" / "extension"
    target.parent.mkdir()
    target.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UsageError, match="a symlink") as refused:
        ext.place_extension(source, target)
    assert refused.value.code == "unsafe_home"
    assert _tree(elsewhere) == before  # nothing written through the link
    target.unlink()
    target.write_text("not a folder")
    with pytest.raises(UsageError, match="not a folder"):
        ext.place_extension(source, target)


def test_only_regular_files_are_copied(isolated: Path) -> None:
    source = _extension(isolated / "src")
    outside = isolated / "secret.txt"
    outside.write_text("not the extension's")
    (source / "link.js").symlink_to(outside)
    (source / "linked-folder").symlink_to(isolated, target_is_directory=True)
    target = isolated / "data" / "extension"
    ext.place_extension(source, target)
    assert set(_tree(target)) == {"manifest.json", "background.js"}
    for path in target.rglob("*"):
        assert path.is_dir() or (path.is_file() and not path.is_symlink()), path


def test_leftovers_of_an_interrupted_install_are_cleared_when_old(isolated: Path) -> None:
    source = _extension(isolated / "src")
    target = isolated / "data" / "extension"
    ext.place_extension(source, target)
    stale, young = target.with_name(".extension-new-dead"), target.with_name(".extension-old-live")
    for folder in (stale, young):
        _extension(folder)
    hour_ago = time.time() - 2 * 3600
    os.utime(stale, (hour_ago, hour_ago))
    (source / "background.js").write_text("// v2")
    ext.place_extension(source, target)
    assert not stale.exists() and young.exists()  # another install's may be running


def test_removing_the_copy(isolated: Path) -> None:
    source = _extension(isolated / "src")
    target = isolated / "data" / "extension"
    assert ext.remove_placed_extension(target) is None
    ext.place_extension(source, target)
    assert ext.remove_placed_extension(target) == target
    assert not target.exists() and list(target.parent.iterdir()) == []
    ext.place_extension(source, target)
    held = OSError(13, "Permission denied")  # Windows, a browser holding a file open

    def refuse(*_: object) -> None:
        raise held

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ext.os, "rename", refuse)
        with pytest.raises(UsageError, match="Permission denied"):
            ext.remove_placed_extension(target)
    assert ext.remove_placed_extension(target) == target
    target.symlink_to(source, target_is_directory=True)  # not reins's: left alone
    assert ext.remove_placed_extension(target) is None
    assert target.is_symlink() and (source / "manifest.json").is_file()


# ---- what doctor says ----------------------------------------------------------------------------


def test_doctor_points_at_the_copy_and_says_when_it_is_stale(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _extension(isolated / "src", "1.0")
    monkeypatch.setenv("REINS_EXTENSION_DIR", str(source))
    placed = isolated / "state" / "extension"
    state = ext.extension_state()
    assert (state.ok, state.load_from) == (True, source)  # nothing placed: load the source
    ext.place_extension(source)
    state = ext.extension_state()
    assert (state.ok, state.load_from) == (True, placed) and "1.0" in state.detail
    _extension(source, "1.1")
    state = ext.extension_state()
    assert state.ok is False and state.load_from == placed
    assert "version 1.0" in state.detail and "version 1.1" in state.detail
    assert state.fix.startswith("reins install, then press reload")


def test_doctor_from_a_wheel_with_nothing_placed_says_install(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = isolated / "site-packages" / "reins"
    _extension(package / "extension")
    monkeypatch.setattr(ext, "_package", lambda: package)
    state = ext.extension_state()
    assert state.ok is False and state.fix.startswith("reins install")
    assert state.load_from == isolated / "state" / "extension"


# ---- the CLI -----------------------------------------------------------------------------------


@pytest.mark.skipif(os.name == "nt", reason="--user-data-dir is refused on Windows")
def test_cli_install_prints_the_folder_to_load(isolated: Path) -> None:
    runner = CliRunner()
    args = ["install", "--user-data-dir", str(isolated / "profile")]
    done = runner.invoke(cli_main, args)
    placed = isolated / "state" / "extension"
    assert done.exit_code == 0, done.output
    assert f"extension to load: {placed}\n" in done.output
    assert "Load unpacked" in done.output
    assert _tree(placed) == _tree(ROOT / "extension")
    answer = json.loads(runner.invoke(cli_main, [*args, "--json"]).output)
    assert answer["extension"] == str(placed) and answer["extension_change"] == "same"
