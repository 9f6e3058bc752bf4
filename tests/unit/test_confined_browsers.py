"""Confined browsers on Linux, in simulation: a Snap (refused, with the way out) and a Flatpak
(registered in its own folder, through a wrapper that leaves the sandbox). HOME, REINS_HOME and
the machine's root (``reins._platform.system_root``) point into tmp_path; no Snap or Flatpak is
installed on this machine, so nothing here shows what a real confined browser does
(docs/install.md)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import reins._platform
from reins._errors import UsageError, error_from_wire
from reins._paths import HOST_NAME
from reins.setup import doctor as checkup
from reins.setup import install as setup
from reins.setup.browsers import FLATPAK_WRAPPER, FLATPAKS, flatpak_launcher, flatpak_talk_granted


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


def test_the_cli_prints_a_refused_snap_beside_what_it_registered(user: Path) -> None:
    from click.testing import CliRunner
    from reins.cli import main

    (user / ".config" / "google-chrome").mkdir(parents=True)
    (user / "snap" / "chromium").mkdir(parents=True)
    shown = CliRunner().invoke(main, ["install"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert any(line.startswith("registered for chrome: ") for line in lines), lines
    refused = [line for line in lines if line.startswith("refused chromium: ")]
    assert len(refused) == 1 and "Chrome for Testing" in refused[0], lines


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


# ---- Flatpak: its own folder, a wrapper out of the sandbox, one permission -----------------------

FLATPAK_FOLDERS = {
    "chrome-flatpak": ".var/app/com.google.Chrome/config/google-chrome",
    "chromium-flatpak": ".var/app/org.chromium.Chromium/config/chromium",
    "edge-flatpak": ".var/app/com.microsoft.Edge/config/microsoft-edge",
    "brave-flatpak": ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser",
}
OVERRIDE = "flatpak override --user --talk-name=org.freedesktop.Flatpak {}"


def test_flatpak_table() -> None:
    assert {app.name: str(app.folder().relative_to(Path.home())) for app in FLATPAKS} == (
        FLATPAK_FOLDERS
    )


def grant(folder: Path, name: str, value: str = "talk") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"[Session Bus Policy]\norg.freedesktop.Flatpak={value}\n")


@pytest.mark.parametrize("name", list(FLATPAK_FOLDERS))
def test_flatpak_install_writes_into_its_own_folder(user: Path, tmp_path: Path, name: str) -> None:
    app = next(a for a in FLATPAKS if a.name == name)
    folder = user / FLATPAK_FOLDERS[name]
    folder.mkdir(parents=True)
    result = setup.install(app.browser)
    hosts = folder / "NativeMessagingHosts"
    target = hosts / f"{HOST_NAME}.json"
    wrapper = hosts / FLATPAK_WRAPPER
    command = OVERRIDE.format(app.app_id)
    assert result["manifests"] == [str(target)]
    assert result["browsers"] == {name: f"{target}; then run once: {command}"}
    assert result["next_steps"] == [command]
    assert app.browser not in result["not_found"]
    # The manifest names the wrapper, inside what the sandbox sees; the wrapper starts the launcher.
    assert json.loads(target.read_text())["path"] == str(wrapper)
    assert os.access(wrapper, os.X_OK) and wrapper.stat().st_mode & 0o077 == 0
    assert flatpak_launcher(wrapper) == result["launcher"]
    assert f'exec flatpak-spawn --host --watch-bus {result["launcher"]} "$@"' in (
        wrapper.read_text()
    )
    assert files_under(user) == {
        f"{FLATPAK_FOLDERS[name]}/NativeMessagingHosts/{HOST_NAME}.json",
        f"{FLATPAK_FOLDERS[name]}/NativeMessagingHosts/{FLATPAK_WRAPPER}",
    }


def test_the_wrapper_hands_stdio_and_arguments_to_flatpak_spawn(user: Path, tmp_path: Path) -> None:
    # flatpak-spawn exists only inside a sandbox: a stand-in on PATH records how it is called.
    (user / FLATPAK_FOLDERS["chromium-flatpak"]).mkdir(parents=True)
    launcher = setup.install("chromium")["launcher"]
    wrapper = user / FLATPAK_FOLDERS["chromium-flatpak"] / "NativeMessagingHosts"
    bin_dir = tmp_path / "sandbox-bin"
    bin_dir.mkdir()
    spawn = bin_dir / "flatpak-spawn"
    spawn.write_text('#!/bin/sh\nprintf "%s\\n" "$@"; cat\n')
    spawn.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(
        [str(wrapper / FLATPAK_WRAPPER), "chrome-extension://x/", "--parent-window=0"],
        input=b"framed bytes",
        capture_output=True,
        env=env,
        timeout=10,
        check=True,
    )
    said = done.stdout.decode().split("\n")
    assert said[:5] == [
        "--host",
        "--watch-bus",
        launcher,
        "chrome-extension://x/",
        "--parent-window=0",
    ]
    assert said[5] == "framed bytes"  # stdin reaches the host's side untouched


@pytest.mark.parametrize(
    "where", ["user", "user-global", "system"], ids=["user", "global", "system installation"]
)
def test_a_granted_override_needs_no_step(user: Path, tmp_path: Path, where: str) -> None:
    (user / FLATPAK_FOLDERS["brave-flatpak"]).mkdir(parents=True)
    if where == "system":
        grant(tmp_path / "root/var/lib/flatpak/overrides", "com.brave.Browser")
    else:
        name = "global" if where == "user-global" else "com.brave.Browser"
        grant(user / ".local/share/flatpak/overrides", name)
    result = setup.install("brave")
    assert result["next_steps"] == []
    assert not result["browsers"]["brave-flatpak"].endswith("com.brave.Browser")


def test_an_override_in_xdg_data_home_and_one_that_denies(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grant(user / ".local/share/flatpak/overrides", "com.brave.Browser", "none")
    assert flatpak_talk_granted("com.brave.Browser") is False
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    grant(tmp_path / "data/flatpak/overrides", "com.brave.Browser")
    assert flatpak_talk_granted("com.brave.Browser") is True


def test_doctor_checks_the_flatpak_registration_and_its_permission(
    user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probed: list[str] = []
    monkeypatch.setattr(checkup, "_probe_host", lambda path: (probed.append(path) or True, "ok"))
    (user / FLATPAK_FOLDERS["chromium-flatpak"]).mkdir(parents=True)
    launcher = setup.install("chromium")["launcher"]
    report = checkup.doctor("chromium")
    by_name = checks_of(report)
    target = (
        user / FLATPAK_FOLDERS["chromium-flatpak"] / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    )
    assert by_name["manifest"]["detail"] == f"chromium-flatpak: {target}"
    permission = by_name["flatpak permission"]
    assert permission["ok"] is False and report["first_failure"] == permission
    assert permission["fix"].startswith(OVERRIDE.format("org.chromium.Chromium"))
    assert (
        by_name["launcher"]["ok"] is True
        and f"(starts {launcher})" in by_name["launcher"]["detail"]
    )
    assert probed == [launcher]  # the host is probed as the host side starts it, not the wrapper
    grant(user / ".local/share/flatpak/overrides", "org.chromium.Chromium")
    assert checks_of(checkup.doctor("chromium"))["flatpak permission"]["ok"] is True


def test_doctor_fails_the_launcher_when_the_wrapper_starts_nothing(user: Path) -> None:
    (user / FLATPAK_FOLDERS["edge-flatpak"]).mkdir(parents=True)
    launcher = Path(setup.install("edge")["launcher"])
    launcher.unlink()
    by_name = checks_of(checkup.doctor("edge"))
    assert by_name["launcher"]["ok"] is False and "host start" not in by_name


def test_flatpak_uninstall_removes_the_manifest_and_the_wrapper(user: Path) -> None:
    (user / FLATPAK_FOLDERS["chrome-flatpak"]).mkdir(parents=True)
    (user / ".config" / "google-chrome").mkdir(parents=True)
    setup.install("chrome")
    hosts = user / FLATPAK_FOLDERS["chrome-flatpak"] / "NativeMessagingHosts"
    removed = setup.uninstall("chrome")["removed"]
    assert str(hosts / f"{HOST_NAME}.json") in removed
    assert str(hosts / FLATPAK_WRAPPER) in removed
    assert files_under(user) == set()


def test_a_flatpak_beside_a_snap_is_registered_and_the_snap_not_refused(user: Path) -> None:
    (user / "snap" / "chromium").mkdir(parents=True)
    (user / FLATPAK_FOLDERS["chromium-flatpak"]).mkdir(parents=True)
    result = setup.install("chromium")
    assert list(result["browsers"]) == ["chromium-flatpak"] and result["refused"] == {}
    assert "snap" not in checks_of(checkup.doctor("chromium"))
