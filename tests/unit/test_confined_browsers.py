"""Confined browsers on Linux, in simulation: a Snap (refused, with the way out) and a Flatpak
(registered in its own folder, through a wrapper that leaves the sandbox). HOME, REINS_HOME and
the machine's root (``reins._platform.system_root``) point into tmp_path; no Snap or Flatpak is
installed on this machine, so nothing here shows what a real confined browser does
(docs/install.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import reins._platform
from reins._errors import UsageError, error_from_wire
from reins._paths import HOST_NAME
from reins.setup import doctor as checkup
from reins.setup import install as setup


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Linux user's home with no browser yet, a machine root of its own, REINS_HOME apart."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "root").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REINS_HOME", str(tmp_path / "state"))
    for name in ("REINS_PROFILE", "XDG_CONFIG_HOME", "CHROME_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(reins._platform, "os_name", lambda: "linux")
    monkeypatch.setattr(reins._platform, "system_root", lambda: str(tmp_path / "root"))
    monkeypatch.setattr(checkup, "_probe_mcp", lambda: (True, "not run: simulated"))
    monkeypatch.setattr(checkup, "_probe_host", lambda launcher: (True, "simulated"))
    return home


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def checks_of(report: dict[str, object]) -> dict[str, dict[str, object]]:
    checks = report["checks"]
    assert isinstance(checks, list)
    return {c["name"]: c for c in checks}


# ---- Snap: refused, with the way out -------------------------------------------------------------


def test_snap_chromium_alone_is_refused_with_the_way_out(user: Path, tmp_path: Path) -> None:
    (user / "snap" / "chromium" / "common" / "chromium").mkdir(parents=True)
    with pytest.raises(UsageError) as caught:
        setup.install("all")
    error = caught.value
    assert error.code == "snap_confined"
    assert str(user / "snap" / "chromium") in error.message and "Snap" in error.message
    for way_out in (".deb", "Flatpak", "Chrome for Testing"):
        assert way_out in error.hint, way_out
    # Typed on the wire too: a CLI or MCP client rebuilds the same class from the code.
    assert type(error_from_wire(error.to_wire())) is UsageError
    assert not (tmp_path / "state").exists()  # nothing written, not even the launcher
    assert files_under(user) == set()


def test_snap_command_without_a_profile_yet_is_refused(user: Path, tmp_path: Path) -> None:
    # Installed (/snap/bin/chromium, a symlink to snap's own launcher) but never started.
    bin_dir = tmp_path / "root" / "snap" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "chromium").symlink_to("/usr/bin/snap")
    with pytest.raises(UsageError) as caught:
        setup.install("chromium")
    assert caught.value.code == "snap_confined"
    assert str(bin_dir / "chromium") in caught.value.message


def test_without_a_snap_a_missing_browser_is_still_no_browser(user: Path) -> None:
    (user / "snap" / "firefox").mkdir(parents=True)  # a Snap, but not a browser of the table
    with pytest.raises(UsageError) as caught:
        setup.install("chromium")
    assert caught.value.code == "no_browser"


def test_snap_beside_a_browser_that_can_run_the_host(user: Path) -> None:
    # Chrome from its .deb is registered; the Snap Chromium is refused by name, not skipped.
    (user / ".config" / "google-chrome").mkdir(parents=True)
    (user / "snap" / "chromium").mkdir(parents=True)
    result = setup.install("all")
    assert list(result["browsers"]) == ["chrome"]
    assert "chromium" not in result["not_found"]
    assert list(result["refused"]) == ["chromium"]
    assert "Chrome for Testing" in result["refused"]["chromium"]
    assert not (user / "snap" / "chromium" / "NativeMessagingHosts").exists()


def test_a_deb_chromium_found_is_registered_even_with_a_snap_present(user: Path) -> None:
    (user / ".config" / "chromium").mkdir(parents=True)
    (user / "snap" / "chromium").mkdir(parents=True)
    result = setup.install("chromium")
    target = user / ".config" / "chromium" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    assert result["browsers"] == {"chromium": str(target)} and result["refused"] == {}
    assert checkup.doctor("chromium")["checks"][0]["name"] == "manifest"  # no snap check


def test_a_snap_profile_folder_is_refused_for_user_data_dir(user: Path) -> None:
    profile = user / "snap" / "chromium" / "common" / "chromium"
    profile.mkdir(parents=True)
    with pytest.raises(UsageError) as caught:
        setup.install("all", str(profile))
    assert caught.value.code == "snap_confined" and "chromium (" in caught.value.message
    assert not (profile / "NativeMessagingHosts").exists()
    report = checkup.doctor("all", str(profile))
    assert report["first_failure"]["name"] == "snap"


def test_doctor_says_the_same_as_a_failing_check(user: Path) -> None:
    (user / "snap" / "brave").mkdir(parents=True)
    with pytest.raises(UsageError) as caught:
        setup.install("brave")
    report = checkup.doctor("brave")
    snap = checks_of(report)["snap"]
    assert report["healthy"] is False and report["first_failure"] == snap
    assert snap["ok"] is False
    assert snap["detail"] == str(caught.value.args[0]) and snap["fix"] == caught.value.hint
    assert "brave" in str(snap["detail"]) and "Flatpak" in str(snap["fix"])


def test_no_snap_check_on_other_desktops(user: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (user / "snap" / "chromium").mkdir(parents=True)
    monkeypatch.setattr(reins._platform, "os_name", lambda: "darwin")
    assert "snap" not in checks_of(checkup.doctor("chromium"))
    monkeypatch.setattr(reins._platform, "os_name", lambda: "linux")
    assert "snap" in checks_of(checkup.doctor("chromium"))


def test_snap_check_follows_the_selection(user: Path) -> None:
    (user / "snap" / "chromium").mkdir(parents=True)
    assert "snap" not in checks_of(checkup.doctor("chrome"))
    assert "snap" in checks_of(checkup.doctor("all"))


def test_refusal_lists_every_snap(user: Path) -> None:
    for name in ("chromium", "opera"):
        (user / "snap" / name).mkdir(parents=True)
    with pytest.raises(UsageError) as caught:
        setup.install("all")
    assert "chromium (" in caught.value.message and "opera (" in caught.value.message
    assert "Snaps" in caught.value.message
