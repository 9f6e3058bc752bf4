"""Native-host registration and `reins doctor`, in a throwaway HOME and REINS_HOME."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from reins._errors import UsageError
from reins._paths import EXTENSION_ID, HOST_NAME
from reins.setup.doctor import doctor
from reins.setup.install import (
    ORIGIN,
    install,
    manifest_dirs,
    mimalloc_library,
    uninstall,
    write_launcher,
    write_manifest,
)

LINUX_DIRS = {
    "chrome": ".config/google-chrome/NativeMessagingHosts",
    "chromium": ".config/chromium/NativeMessagingHosts",
    "edge": ".config/microsoft-edge/NativeMessagingHosts",
    "brave": ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
}
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="Linux manifest locations")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    user_home = tmp_path / "home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("REINS_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("REINS_PROFILE", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CHROME_CONFIG_HOME", raising=False)
    return user_home


def _env_of_launcher(launcher: Path, env: dict[str, str]) -> dict[str, str]:
    """Run the launcher's shell lines with `env` in place of the host, and read what it exported."""
    script = launcher.read_text()
    lines = script.splitlines()
    assert lines[-1].startswith("exec ") and "-m reins._host" in lines[-1]
    probe = launcher.with_name(launcher.name + ".probe")
    probe.write_text("\n".join(lines[:-1] + ["exec env"]) + "\n")
    probe.chmod(0o700)
    done = subprocess.run(
        [str(probe)], env=env, capture_output=True, text=True, timeout=10, check=True
    )
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


# ---- launcher and manifest -------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_launcher_is_executable_and_runs_this_python(tmp_path: Path) -> None:
    launcher = write_launcher(tmp_path / "bin" / "reins-host-p", home=tmp_path / "st", profile="p")
    mode = launcher.stat().st_mode
    assert mode & stat.S_IXUSR and mode & stat.S_IRUSR
    text = launcher.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert sys.executable in text
    assert "-m reins._host" in text


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_launcher_sets_profile_and_a_default_home(tmp_path: Path) -> None:
    launcher = write_launcher(tmp_path / "bin" / "reins-host-p", home=tmp_path / "st", profile="p")
    env = _env_of_launcher(launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert env["REINS_PROFILE"] == "p"
    assert env["REINS_HOME"] == str(tmp_path / "st")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_launcher_default_home_with_a_space(tmp_path: Path) -> None:
    home = tmp_path / "My State"
    launcher = write_launcher(tmp_path / "bin" / "reins-host-p", home=home, profile="p")
    env = _env_of_launcher(launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert env["REINS_HOME"] == str(home)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_launcher_profile_with_shell_characters_is_quoted(tmp_path: Path) -> None:
    launcher = write_launcher(
        tmp_path / "bin" / "reins-host-x", home=tmp_path / "st", profile="a b;$(false)"
    )
    env = _env_of_launcher(launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert env["REINS_PROFILE"] == "a b;$(false)"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_launcher_keeps_a_preset_reins_home(tmp_path: Path) -> None:
    launcher = write_launcher(tmp_path / "bin" / "reins-host-p", home=tmp_path / "st", profile="p")
    env = _env_of_launcher(
        launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "REINS_HOME": "/elsewhere/home"}
    )
    assert env["REINS_HOME"] == "/elsewhere/home"
    assert env["REINS_PROFILE"] == "p"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_launcher_without_profile_ignores_one_in_the_browsers_environment(tmp_path: Path) -> None:
    # REINS_PROFILE in the shell Chrome was started from selects a profile for the CLI; it must not
    # rename the browser's profile (names come from the extension's id, reins.bridge.names).
    launcher = write_launcher(tmp_path / "bin" / "reins-host", home=tmp_path / "st", profile=None)
    env = _env_of_launcher(
        launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "REINS_PROFILE": "work"}
    )
    assert "REINS_PROFILE" not in env


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_only_a_launcher_for_a_browser_reins_starts_says_every_tab_is_reins(tmp_path: Path) -> None:
    path = os.environ.get("PATH", "/usr/bin:/bin")
    own = write_launcher(tmp_path / "bin" / "own", home=tmp_path / "st", profile=None)
    launched = write_launcher(
        tmp_path / "bin" / "launched", home=tmp_path / "st", profile="l", launched=True
    )
    assert _env_of_launcher(own, {"PATH": path, "REINS_LAUNCHED": "1"})["REINS_LAUNCHED"] == "0"
    assert _env_of_launcher(launched, {"PATH": path})["REINS_LAUNCHED"] == "1"


@linux_only
def test_mimalloc_is_found_under_the_names_distributions_give_it(tmp_path: Path) -> None:
    empty, lib64, lib = tmp_path / "none", tmp_path / "lib64", tmp_path / "lib"
    for folder in (empty, lib64, lib):
        folder.mkdir()
    assert mimalloc_library([empty]) is None
    (lib / "libmimalloc.so").write_bytes(b"")
    (lib64 / "libmimalloc.so.2").write_bytes(b"")
    assert mimalloc_library([empty, lib64, lib]) == lib64 / "libmimalloc.so.2"
    assert mimalloc_library([empty, lib]) == lib / "libmimalloc.so"
    # One that others may write (or in a folder they may write) is code they could swap in.
    (lib64 / "libmimalloc.so.2").chmod(0o666)
    assert mimalloc_library([lib64, lib]) == lib / "libmimalloc.so"
    lib.chmod(0o777)
    assert mimalloc_library([lib64, lib]) is None


@linux_only
def test_launcher_runs_the_host_on_mimalloc_while_the_library_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = tmp_path / "odd dir" / "libmimalloc.so.2"
    library.parent.mkdir()
    library.write_bytes(b"")
    monkeypatch.setattr("reins.setup.install.mimalloc_library", lambda: library)
    launcher = write_launcher(tmp_path / "bin" / "reins-host-p", home=tmp_path / "st", profile="p")
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = _env_of_launcher(launcher, {"PATH": path, "LD_PRELOAD": "/opt/other.so"})
    assert env["LD_PRELOAD"] == f"{library}:/opt/other.so"  # the user's own preload kept
    assert env["PYTHONMALLOC"] == "malloc"  # CPython's small objects go to it as well
    assert env["MIMALLOC_PURGE_DELAY"] == env["MIMALLOC_RESET_DELAY"] == "0"
    assert _env_of_launcher(launcher, {"PATH": path})["LD_PRELOAD"] == str(library)
    # Removed after the launcher was written: the host starts on CPython's allocator.
    library.unlink()
    env = _env_of_launcher(launcher, {"PATH": path})
    assert "LD_PRELOAD" not in env and "PYTHONMALLOC" not in env


@linux_only
def test_launcher_without_mimalloc_runs_the_host_on_cpythons_allocator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("reins.setup.install.mimalloc_library", lambda: None)
    launcher = write_launcher(tmp_path / "bin" / "reins-host-p", home=tmp_path / "st", profile="p")
    assert "LD_PRELOAD" not in launcher.read_text()
    env = _env_of_launcher(launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert "LD_PRELOAD" not in env and "PYTHONMALLOC" not in env


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_cli_install_profile_bakes_the_name_into_the_launcher(home: Path, tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(home), REINS_HOME=str(tmp_path / "state"))
    env.pop("REINS_PROFILE", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "reins.cli",
            "install",
            "--user-data-dir",
            str(tmp_path / "ud"),
            "--profile",
            "work",
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["profile"] == "work"
    launcher = Path(report["launcher"])
    assert launcher.name == "reins-host-work"
    exported = _env_of_launcher(launcher, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert exported["REINS_PROFILE"] == "work" and exported["REINS_LAUNCHED"] == "0"
    manifest = json.loads(
        (tmp_path / "ud" / "NativeMessagingHosts" / "dev.reins.host.json").read_text()
    )
    assert manifest["path"] == str(launcher)


def test_install_refuses_a_bad_profile_name(home: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        install(user_data_dir=str(tmp_path / "ud"), profile="../evil")


def test_write_manifest(tmp_path: Path) -> None:
    launcher = tmp_path / "bin" / "reins-host"
    target = write_manifest(tmp_path / "NMH", launcher)
    assert target == tmp_path / "NMH" / f"{HOST_NAME}.json"
    manifest = json.loads(target.read_text())
    assert manifest == {
        "name": "dev.reins.host",
        "description": manifest["description"],
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [f"chrome-extension://{EXTENSION_ID}/"],
    }


def test_origin_is_the_extension_id() -> None:
    assert ORIGIN == f"chrome-extension://{EXTENSION_ID}/"


# ---- install / uninstall ---------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_install_into_a_user_data_dir(home: Path, tmp_path: Path) -> None:
    profile_dir = tmp_path / "profile"
    result = install(user_data_dir=str(profile_dir), profile="p")
    target = profile_dir / "NativeMessagingHosts" / "dev.reins.host.json"
    assert result["manifests"] == [str(target)]
    assert result["extension_id"] == EXTENSION_ID
    manifest = json.loads(target.read_text())
    assert manifest["name"] == "dev.reins.host"
    assert manifest["type"] == "stdio"
    assert os.path.isabs(manifest["path"])
    assert manifest["path"] == result["launcher"]
    assert manifest["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/"]
    launcher = Path(manifest["path"])
    assert launcher.is_file() and os.access(launcher, os.X_OK)
    assert launcher.parent == tmp_path / "state" / "bin"
    assert stat.S_IMODE((tmp_path / "state").stat().st_mode) == 0o700
    env = _env_of_launcher(
        launcher,
        {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "REINS_HOME": str(tmp_path / "preset")},
    )
    assert env["REINS_PROFILE"] == "p"
    assert env["REINS_HOME"] == str(tmp_path / "preset")
    # Nothing leaks into the user's browser folders.
    assert not (home / ".config").exists()


def test_uninstall_from_a_user_data_dir(home: Path, tmp_path: Path) -> None:
    profile_dir = tmp_path / "profile"
    install(user_data_dir=str(profile_dir), profile="p")
    target = profile_dir / "NativeMessagingHosts" / "dev.reins.host.json"
    assert target.exists()
    # The last registration gone, the extension's copy goes with it.
    copy = tmp_path / "state" / "extension"
    assert uninstall(user_data_dir=str(profile_dir)) == {"removed": [str(target), str(copy)]}
    assert not target.exists() and not copy.exists()
    assert uninstall(user_data_dir=str(profile_dir)) == {"removed": []}


@linux_only
def test_manifest_dirs_for_linux_browsers(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CHROME_CONFIG_HOME", raising=False)
    dirs = manifest_dirs("all")
    assert {name: dirs[name] for name in LINUX_DIRS} == {
        name: home / rel for name, rel in LINUX_DIRS.items()
    }
    assert manifest_dirs("brave")["brave"] == home / LINUX_DIRS["brave"]
    assert set(manifest_dirs("chrome")) == {
        "chrome",
        "chrome-beta",
        "chrome-dev",
        "chrome-canary",
        "chrome-for-testing",
        "chrome-flatpak",  # the Flatpak's own folder (tests/unit/test_confined_browsers.py)
    }
    assert manifest_dirs("chrome")["chrome-flatpak"] == (
        home / ".var/app/com.google.Chrome/config/google-chrome/NativeMessagingHosts"
    )
    assert manifest_dirs("chrome-beta") == {
        "chrome-beta": home / ".config/google-chrome-beta/NativeMessagingHosts"
    }


def test_manifest_dirs_for_a_user_data_dir(tmp_path: Path) -> None:
    assert manifest_dirs("all", str(tmp_path / "p")) == {
        "profile": tmp_path / "p" / "NativeMessagingHosts"
    }


def test_unknown_browser_is_a_usage_error(home: Path) -> None:
    with pytest.raises(UsageError) as info:
        manifest_dirs("firefox")
    assert info.value.code == "bad_request"


@linux_only
def test_cli_install_all_writes_into_the_four_browsers_found(tmp_path: Path) -> None:
    user_home = tmp_path / "home"
    for rel in LINUX_DIRS.values():  # each browser has run once: its folder is there
        (user_home / rel).parent.mkdir(parents=True)
    (user_home / ".config" / "unrelated").mkdir()
    env = dict(os.environ, HOME=str(user_home), REINS_HOME=str(tmp_path / "state"))
    env.pop("REINS_PROFILE", None)
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("CHROME_CONFIG_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "reins.cli", "install", "--browser", "all", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    expected = [user_home / rel / "dev.reins.host.json" for rel in LINUX_DIRS.values()]
    assert sorted(report["manifests"]) == sorted(str(p) for p in expected)
    assert set(report["browsers"]) == set(LINUX_DIRS)
    assert "chrome-beta" in report["not_found"] and "vivaldi" in report["not_found"]
    # Nothing written into a browser this user does not have.
    assert sorted(p.name for p in (user_home / ".config").iterdir()) == [
        "BraveSoftware",
        "chromium",
        "google-chrome",
        "microsoft-edge",
        "unrelated",
    ]
    for path in expected:
        assert path.is_file(), path
        manifest = json.loads(path.read_text())
        assert manifest["name"] == "dev.reins.host"
        assert manifest["type"] == "stdio"
        assert manifest["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/"]
        assert os.path.isabs(manifest["path"])
        assert Path(manifest["path"]).parent == tmp_path / "state" / "bin"
        assert os.access(manifest["path"], os.X_OK)

    # uninstall in this process, with the same HOME and REINS_HOME, removes all four.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(user_home))
        mp.setenv("REINS_HOME", str(tmp_path / "state"))
        mp.delenv("XDG_CONFIG_HOME", raising=False)
        mp.delenv("CHROME_CONFIG_HOME", raising=False)
        removed = uninstall("all")["removed"]
    copy = tmp_path / "state" / "extension"  # placed by install, removed with the last registration
    assert sorted(removed) == sorted([*(str(p) for p in expected), str(copy)])
    assert not any(p.exists() for p in expected)


# ---- doctor ----------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="POSIX manifest locations")
def test_doctor_with_nothing_installed(home: Path) -> None:
    report = doctor()
    assert report["healthy"] is False
    assert report["first_failure"]["name"] == "manifest"
    assert report["first_failure"]["fix"].startswith("reins install")
    by_name = {c["name"]: c for c in report["checks"]}
    assert list(by_name) == ["manifest", "extension files", "extension connected", "mcp server"]
    assert by_name["extension files"]["ok"] is True  # from a checkout: load its extension/
    assert by_name["manifest"]["ok"] is False and by_name["extension connected"]["ok"] is False
    # `reins mcp --check` ran in a process of its own and built every tool.
    assert by_name["mcp server"]["ok"] is True, by_name["mcp server"]
    assert "tools, MCP SDK" in by_name["mcp server"]["detail"]


@pytest.fixture
def mcp_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP check's own process is tested once (above); the other doctor tests skip it."""
    import reins.setup.doctor

    monkeypatch.setattr(reins.setup.doctor, "_probe_mcp", lambda: (True, "checked"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_doctor_after_install_fails_only_on_the_extension(
    home: Path, tmp_path: Path, mcp_checked: None
) -> None:
    profile_dir = tmp_path / "profile"
    install(user_data_dir=str(profile_dir))  # as `reins install --user-data-dir X` does
    report = doctor(user_data_dir=str(profile_dir))
    by_name = {c["name"]: c for c in report["checks"]}
    assert list(by_name) == [
        "manifest",
        "manifest content",
        "launcher",
        "allowed origin",
        "host start",
        "extension files",
        "extension connected",
        "mcp server",
    ]
    copy = tmp_path / "state" / "extension"
    assert (
        by_name["extension files"]["ok"] is True
        and str(copy) in by_name["extension files"]["detail"]
    )
    assert str(copy) in by_name["extension connected"]["fix"]  # the folder install placed
    for name in ("manifest", "manifest content", "launcher", "allowed origin", "host start"):
        assert by_name[name]["ok"] is True, by_name[name]
    assert by_name["extension connected"]["ok"] is False
    assert EXTENSION_ID in by_name["extension connected"]["fix"]
    assert report["healthy"] is False
    assert report["first_failure"]["name"] == "extension connected"
    # The probe host ran in its own scratch home: nothing was left in ours.
    assert not (tmp_path / "state" / "run").exists() or not any(
        (tmp_path / "state" / "run").iterdir()
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_doctor_reports_a_wrong_origin_and_a_broken_launcher(
    home: Path, tmp_path: Path, mcp_checked: None
) -> None:
    profile_dir = tmp_path / "profile"
    install(user_data_dir=str(profile_dir), profile="p")
    target = profile_dir / "NativeMessagingHosts" / "dev.reins.host.json"
    manifest = json.loads(target.read_text())
    manifest["allowed_origins"] = ["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"]
    manifest["path"] = str(tmp_path / "missing-launcher")
    target.write_text(json.dumps(manifest))
    report = doctor(user_data_dir=str(profile_dir))
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["manifest"]["ok"] is True
    assert by_name["launcher"]["ok"] is False
    assert by_name["allowed origin"]["ok"] is False
    assert "host start" not in by_name  # not probed when the launcher cannot run
    assert report["first_failure"]["name"] == "launcher"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_doctor_host_start_with_a_profile_launcher(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mcp_checked: None
) -> None:
    # The real clock: a working probe returns as soon as the socket shows, and a loaded machine
    # may take seconds to start the host (a 10x clock failed here at load 12).
    profile_dir = tmp_path / "profile"
    install(user_data_dir=str(profile_dir), profile="p")
    report = doctor(user_data_dir=str(profile_dir))
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["host start"]["ok"] is True, by_name["host start"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX launcher")
def test_doctor_finds_the_user_data_dir_registration_install_made(
    home: Path, tmp_path: Path, mcp_checked: None
) -> None:
    # Before: after `install --user-data-dir P`, with that browser connected, a plain `reins
    # doctor` answered "no host manifest found". install records it; doctor reads the record.
    profile_dir = tmp_path / "profile"
    install(user_data_dir=str(profile_dir), profile="p")
    target = profile_dir / "NativeMessagingHosts" / "dev.reins.host.json"
    by_name = {c["name"]: c for c in doctor()["checks"]}
    assert by_name["manifest"]["ok"] is True and str(target) in by_name["manifest"]["detail"]
    for name in ("manifest content", "launcher", "allowed origin", "host start"):
        assert by_name[name]["ok"] is True, by_name[name]
    # A plain uninstall removes it as well, and doctor no longer reports it.
    assert uninstall()["removed"] == [str(target), str(tmp_path / "state" / "extension")]
    assert doctor()["checks"][0]["ok"] is False
