"""`reins launch`'s own profile saves downloads under REINS_HOME: its Preferences, written before
the browser starts, merged into what Chrome wrote there before."""

from __future__ import annotations

import json
from pathlib import Path

from reins.setup.launch import _downloads_into


def test_a_new_profile_gets_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    _downloads_into(tmp_path / "user-data", folder)
    prefs = json.loads((tmp_path / "user-data" / "Default" / "Preferences").read_text())
    assert prefs == {"download": {"default_directory": str(folder), "prompt_for_download": False}}


def test_what_chrome_wrote_is_kept(tmp_path: Path) -> None:
    prefs_path = tmp_path / "Default" / "Preferences"
    prefs_path.parent.mkdir()
    prefs_path.write_text(json.dumps({"profile": {"name": "x"}, "download": {"extensions": 1}}))
    _downloads_into(tmp_path, tmp_path / "dl")
    prefs = json.loads(prefs_path.read_text())
    assert prefs["profile"] == {"name": "x"}
    assert prefs["download"] == {
        "extensions": 1,
        "default_directory": str(tmp_path / "dl"),
        "prompt_for_download": False,
    }


def test_a_file_that_cannot_be_read_is_left_alone(tmp_path: Path) -> None:
    prefs_path = tmp_path / "Default" / "Preferences"
    prefs_path.parent.mkdir()
    prefs_path.write_text("{not json")
    _downloads_into(tmp_path, tmp_path / "dl")
    assert prefs_path.read_text() == "{not json"


def test_downloads_are_allowed_until_switched_off_per_profile(tmp_path: Path) -> None:
    from reins.setup.config import downloads_allowed, write_setting

    assert downloads_allowed("p", tmp_path) is True
    write_setting("p", "downloads", False, tmp_path)
    assert downloads_allowed("p", tmp_path) is False
    assert downloads_allowed("other", tmp_path) is True
