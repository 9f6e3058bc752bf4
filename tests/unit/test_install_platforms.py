"""Registration on every desktop, in simulation: this machine is Linux, so macOS and Windows run
here with ``reins._platform.os_name`` replaced, HOME / LOCALAPPDATA / XDG_CONFIG_HOME /
CHROME_CONFIG_HOME pointed into tmp_path, and a fake registry in place of ``winreg``. These test
reins's table and code paths, not what a real Windows or macOS browser reads (docs/install.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import reins._platform
from reins._errors import UsageError
from reins._paths import HOST_NAME, ensure_private_dir, home_str
from reins.setup import doctor as checkup
from reins.setup import install as setup
from reins.setup.browsers import BROWSERS, CHOICES, browser_folder, linux_config_home, select

CHROME = "Software\\Google\\Chrome\\NativeMessagingHosts"
CHROMIUM = "Software\\Chromium\\NativeMessagingHosts"
EDGE = "Software\\Microsoft\\Edge\\NativeMessagingHosts"

# The table, cell by cell, as docs/install.md gives it.
LINUX = {
    "chrome": "google-chrome",
    "chrome-beta": "google-chrome-beta",
    "chrome-dev": "google-chrome-unstable",
    "chrome-canary": "google-chrome-canary",
    "chrome-for-testing": "google-chrome-for-testing",
    "chromium": "chromium",
    "edge": "microsoft-edge",
    "edge-beta": "microsoft-edge-beta",
    "edge-dev": "microsoft-edge-dev",
    "edge-canary": None,
    "brave": "BraveSoftware/Brave-Browser",
    "brave-beta": "BraveSoftware/Brave-Browser-Beta",
    "brave-dev": "BraveSoftware/Brave-Browser-Dev",
    "brave-nightly": "BraveSoftware/Brave-Browser-Nightly",
    "vivaldi": "vivaldi",
    "opera": "opera",
}
MAC = {
    "chrome": "Google/Chrome",
    "chrome-beta": "Google/Chrome Beta",
    "chrome-dev": "Google/Chrome Dev",
    "chrome-canary": "Google/Chrome Canary",
    "chrome-for-testing": "Google/Chrome for Testing",
    "chromium": "Chromium",
    "edge": "Microsoft Edge",
    "edge-beta": "Microsoft Edge Beta",
    "edge-dev": "Microsoft Edge Dev",
    "edge-canary": "Microsoft Edge Canary",
    "brave": "BraveSoftware/Brave-Browser",
    "brave-beta": "BraveSoftware/Brave-Browser-Beta",
    "brave-dev": "BraveSoftware/Brave-Browser-Dev",
    "brave-nightly": "BraveSoftware/Brave-Browser-Nightly",
    "vivaldi": "Vivaldi",
    "opera": "com.operasoftware.Opera",
}
# (user-data folder below %LOCALAPPDATA% or %APPDATA%, keys read in order, key reins writes)
WINDOWS = {
    "chrome": ("Local/Google/Chrome/User Data", (CHROME,), CHROME),
    "chrome-beta": ("Local/Google/Chrome Beta/User Data", (CHROME,), CHROME),
    "chrome-dev": ("Local/Google/Chrome Dev/User Data", (CHROME,), CHROME),
    "chrome-canary": ("Local/Google/Chrome SxS/User Data", (CHROME,), CHROME),
    "chrome-for-testing": ("Local/Google/Chrome for Testing/User Data", (CHROME,), CHROME),
    "chromium": ("Local/Chromium/User Data", (CHROMIUM, CHROME), CHROMIUM),
    "edge": ("Local/Microsoft/Edge/User Data", (EDGE,), EDGE),
    "edge-beta": ("Local/Microsoft/Edge Beta/User Data", (EDGE,), EDGE),
    "edge-dev": ("Local/Microsoft/Edge Dev/User Data", (EDGE,), EDGE),
    "edge-canary": ("Local/Microsoft/Edge SxS/User Data", (EDGE,), EDGE),
    "brave": ("Local/BraveSoftware/Brave-Browser/User Data", (CHROMIUM, CHROME), CHROME),
    "brave-beta": ("Local/BraveSoftware/Brave-Browser-Beta/User Data", (CHROMIUM, CHROME), CHROME),
    "brave-dev": ("Local/BraveSoftware/Brave-Browser-Dev/User Data", (CHROMIUM, CHROME), CHROME),
    "brave-nightly": (
        "Local/BraveSoftware/Brave-Browser-Nightly/User Data",
        (CHROMIUM, CHROME),
        CHROME,
    ),
    "vivaldi": ("Local/Vivaldi/User Data", (CHROMIUM, CHROME), CHROME),
    "opera": ("Roaming/Opera Software/Opera Stable", (CHROMIUM, CHROME), CHROME),
}


ROWS = {b.name: b for b in BROWSERS}


class FakeRegistry:
    """HKEY_CURRENT_USER as a dict of key -> default value (keys compare case-insensitively, as
    Windows's do)."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def key_exists(self, key: str) -> bool:
        low = key.lower()
        return any(k == low or k.startswith(low + "\\") for k in self.values)

    def read_default(self, key: str) -> str | None:
        return self.values.get(key.lower())

    def write_default(self, key: str, value: str) -> None:
        self.values[key.lower()] = value

    def delete_key(self, key: str) -> bool:
        return self.values.pop(key.lower(), None) is not None

    def read_values(self, key: str, *, machine: bool = False) -> dict[str, str | int]:
        return {}  # no policy set (tests/unit/test_policies.py sets some)


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's home with no browser yet; REINS_HOME and every variable the table reads cleared."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REINS_HOME", str(tmp_path / "state"))
    for name in ("REINS_PROFILE", "XDG_CONFIG_HOME", "CHROME_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOCALAPPDATA", str(home / "AppData" / "Local"))
    monkeypatch.setenv("APPDATA", str(home / "AppData" / "Roaming"))
    monkeypatch.setattr(checkup, "_probe_mcp", lambda: (True, "not run: simulated"))
    return home


def simulate(monkeypatch: pytest.MonkeyPatch, system: reins._platform.OsName) -> FakeRegistry:
    registry = FakeRegistry()
    monkeypatch.setattr(reins._platform, "os_name", lambda: system)
    monkeypatch.setattr(reins._platform, "current_registry", lambda: registry)
    if system == "win32":
        # Windows Python has no os.getuid: nothing on the Windows path may reach for it.
        monkeypatch.delattr(os, "getuid")
    return registry


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


# ---- the table, each case ----------------------------------------------------------------------


def test_the_table_has_every_row_the_docs_give() -> None:
    assert [b.name for b in BROWSERS] == list(LINUX) == list(MAC) == list(WINDOWS)
    assert CHOICES[:6] == ("chrome", "chromium", "edge", "brave", "vivaldi", "opera")
    assert CHOICES[-1] == "all" and "brave-nightly" in CHOICES
    assert [b.name for b in select("edge")] == ["edge", "edge-beta", "edge-dev", "edge-canary"]
    assert [b.name for b in select("chrome-dev")] == ["chrome-dev"]


@pytest.mark.parametrize("name", list(LINUX))
def test_linux_folder(name: str, user: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row = ROWS[name]
    rel = LINUX[name]
    expected = None if rel is None else user / ".config" / rel
    assert browser_folder(row, "linux") == expected


@pytest.mark.parametrize("name", list(MAC))
def test_macos_folder(name: str, user: Path) -> None:
    row = ROWS[name]
    assert browser_folder(row, "darwin") == user / "Library/Application Support" / MAC[name]


@pytest.mark.parametrize("name", list(WINDOWS))
def test_windows_folder_and_keys(name: str, user: Path) -> None:
    row = ROWS[name]
    folder, reads, written = WINDOWS[name]
    assert browser_folder(row, "win32") == user / "AppData" / folder
    assert row.windows_reads == reads and row.windows_key == written
    assert written in reads  # reins writes a key the browser reads


def test_linux_config_home_order(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert linux_config_home() == user / ".config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert linux_config_home() == tmp_path / "xdg"
    monkeypatch.setenv("CHROME_CONFIG_HOME", str(tmp_path / "cch"))
    assert linux_config_home() == tmp_path / "cch"  # Chrome's own variable comes first
    monkeypatch.setenv("CHROME_CONFIG_HOME", "")
    assert linux_config_home() == tmp_path / "xdg"  # an empty one counts as unset
    row = ROWS["brave"]
    assert browser_folder(row, "linux") == tmp_path / "xdg/BraveSoftware/Brave-Browser"


# ---- Linux: XDG_CONFIG_HOME / CHROME_CONFIG_HOME, only the browsers found ------------------------


@pytest.mark.parametrize("variable", ["XDG_CONFIG_HOME", "CHROME_CONFIG_HOME"])
def test_linux_install_goes_where_the_browser_reads(
    variable: str, user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulate(monkeypatch, "linux")
    config = tmp_path / "config"
    monkeypatch.setenv(variable, str(config))
    (config / "google-chrome").mkdir(parents=True)
    (user / ".config" / "google-chrome").mkdir(parents=True)  # not read while the variable is set
    result = setup.install("all")
    target = config / "google-chrome" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    assert result["manifests"] == [str(target)] and result["browsers"] == {"chrome": str(target)}
    assert json.loads(target.read_text())["path"] == result["launcher"]
    assert files_under(user / ".config") == set()


def test_install_with_no_browser_found_writes_nothing(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulate(monkeypatch, "linux")
    (user / ".config" / "google-chrome").mkdir(parents=True)
    with pytest.raises(UsageError) as caught:
        setup.install("edge")
    assert caught.value.code == "no_browser"
    assert (
        "microsoft-edge" in caught.value.message and "start the browser once" in caught.value.hint
    )
    assert not (tmp_path / "state").exists()
    assert files_under(user) == set()


# ---- macOS ---------------------------------------------------------------------------------------


def test_macos_install_into_the_browsers_found(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulate(monkeypatch, "darwin")
    support = user / "Library/Application Support"
    for rel in ("Google/Chrome", "Microsoft Edge Beta", "BraveSoftware/Brave-Browser"):
        (support / rel).mkdir(parents=True)
    result = setup.install("all")
    assert sorted(result["browsers"]) == ["brave", "chrome", "edge-beta"]
    for rel in ("Google/Chrome", "Microsoft Edge Beta", "BraveSoftware/Brave-Browser"):
        assert (support / rel / "NativeMessagingHosts" / f"{HOST_NAME}.json").is_file()
    assert not (support / "Chromium").exists() and not (support / "Microsoft Edge").exists()


# ---- Windows: the registry, no folders, no getuid ------------------------------------------------


def test_windows_private_state_without_getuid(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulate(monkeypatch, "win32")
    made = ensure_private_dir(tmp_path / "state" / "bin", root=tmp_path / "state")
    assert made.is_dir()
    monkeypatch.delenv("REINS_HOME")
    assert home_str() == str(user / "AppData" / "Local" / "reins")


def test_windows_install_writes_keys_and_no_file_but_the_manifest(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = simulate(monkeypatch, "win32")
    local = user / "AppData" / "Local"
    for rel in ("Google/Chrome/User Data", "Google/Chrome Beta/User Data", "Chromium/User Data"):
        (local / rel).mkdir(parents=True)
    (local / "BraveSoftware/Brave-Browser/User Data").mkdir(parents=True)
    before = files_under(user)
    result = setup.install("all")
    state = tmp_path / "state"
    manifest = state / "bin" / f"{HOST_NAME}.json"
    assert files_under(user) == before  # nothing in any browser's folder
    # The extension's copy to load is REINS_HOME's too (reins._paths.data_home).
    assert {f for f in files_under(state) if not f.startswith("extension/")} == {
        "bin/reins-host-default.bat",
        f"bin/{HOST_NAME}.json",
        "registrations.json",
    }
    assert result["extension"] == str(state / "extension")
    # Chrome (both channels) and Brave share Chrome's key; Chromium reads its own first.
    assert registry.values == {
        f"{CHROME}\\{HOST_NAME}".lower(): str(manifest),
        f"{CHROMIUM}\\{HOST_NAME}".lower(): str(manifest),
    }
    assert result["browsers"] == {
        "chrome": f"HKCU\\{CHROME}\\{HOST_NAME}",
        "chrome-beta": f"HKCU\\{CHROME}\\{HOST_NAME}",
        "chromium": f"HKCU\\{CHROMIUM}\\{HOST_NAME}",
        "brave": f"HKCU\\{CHROME}\\{HOST_NAME}",
    }
    written = json.loads(manifest.read_text())
    assert written["path"] == result["launcher"] and written["path"].endswith(".bat")
    launcher = Path(result["launcher"]).read_bytes()
    assert launcher.startswith(b"@echo off\r\n") and b"-m reins._host %*" in launcher


def test_windows_brave_alone_gets_a_key_brave_reads(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = simulate(monkeypatch, "win32")
    (user / "AppData/Local/BraveSoftware/Brave-Browser/User Data").mkdir(parents=True)
    setup.install("brave")
    (key,) = registry.values
    assert key == f"{CHROME}\\{HOST_NAME}".lower()  # no BraveSoftware key: Brave never reads one


def test_windows_refuses_a_user_data_dir(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = simulate(monkeypatch, "win32")
    for call in (setup.install, setup.uninstall, checkup.doctor):
        with pytest.raises(UsageError) as caught:
            call("all", str(tmp_path / "profile"))
        assert caught.value.code == "platform_unsupported"
        assert "registry" in caught.value.message
    assert registry.values == {} and not (tmp_path / "state").exists()


def test_windows_uninstall_deletes_the_keys_and_the_manifest(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = simulate(monkeypatch, "win32")
    (user / "AppData/Local/Microsoft/Edge/User Data").mkdir(parents=True)
    (user / "AppData/Local/Chromium/User Data").mkdir(parents=True)
    setup.install("all")
    removed = setup.uninstall("all")["removed"]
    assert f"HKCU\\{EDGE}\\{HOST_NAME}" in removed and f"HKCU\\{CHROMIUM}\\{HOST_NAME}" in removed
    assert str(tmp_path / "state" / "bin" / f"{HOST_NAME}.json") in removed
    assert registry.values == {}


# ---- doctor after install, on each desktop -------------------------------------------------------


@pytest.fixture
def connected(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's start and the extension's connection are the transport's (Unix sockets today,
    not yet Windows): simulated here, so doctor checks the registration links only."""
    import reins.bridge.client
    from reins.bridge.protocol import EXTENSION_FEATURES

    monkeypatch.setattr(checkup, "_probe_host", lambda launcher: (True, "simulated"))
    monkeypatch.setattr(reins.bridge.client, "live_profiles", lambda: ["default"])
    answer = {"ok": True, "connected": True, "extension": {"features": list(EXTENSION_FEATURES)}}
    monkeypatch.setattr(reins.bridge.client, "request", lambda *a, **k: answer)


@pytest.mark.parametrize(
    ("system", "folder"),
    [
        ("linux", ".config/BraveSoftware/Brave-Browser"),
        ("darwin", "Library/Application Support/BraveSoftware/Brave-Browser"),
        ("win32", "AppData/Local/BraveSoftware/Brave-Browser/User Data"),
    ],
)
def test_doctor_is_green_after_install(
    system: reins._platform.OsName,
    folder: str,
    user: Path,
    monkeypatch: pytest.MonkeyPatch,
    connected: None,
) -> None:
    simulate(monkeypatch, system)
    (user / folder).mkdir(parents=True)
    setup.install("all")
    report = checkup.doctor()
    assert report["healthy"] is True, report["first_failure"]
    manifest = report["checks"][0]
    assert manifest["name"] == "manifest" and manifest["detail"].startswith("brave: ")


def test_windows_doctor_reads_keys_in_the_browsers_order(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, connected: None
) -> None:
    # Brave reads Chromium's key before Chrome's: a stale registration there wins over reins's.
    registry = simulate(monkeypatch, "win32")
    (user / "AppData/Local/BraveSoftware/Brave-Browser/User Data").mkdir(parents=True)
    setup.install("brave")
    stale = str(tmp_path / "old" / f"{HOST_NAME}.json")
    registry.write_default(f"{CHROMIUM}\\{HOST_NAME}", stale)
    report = checkup.doctor("brave")
    by_name = {c["name"]: c for c in report["checks"]}
    assert f"HKCU\\{CHROMIUM}\\{HOST_NAME} = {stale}" in by_name["manifest"]["detail"]
    assert (
        by_name["manifest content"]["ok"] is False
        and stale in by_name["manifest content"]["detail"]
    )
    assert report["first_failure"]["name"] == "manifest content"


def test_windows_doctor_with_nothing_registered(
    user: Path, monkeypatch: pytest.MonkeyPatch, connected: None
) -> None:
    simulate(monkeypatch, "win32")
    report = checkup.doctor()
    assert report["first_failure"]["name"] == "manifest"
    assert report["first_failure"]["detail"] == "no host manifest found"
