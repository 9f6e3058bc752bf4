"""Managed policies that stop reins, as `reins doctor` reads them — in simulation: the rules on
hand-built policy dicts; Linux JSON folders and macOS managed-preferences plists under a machine
root in tmp_path (``reins._platform.system_root``); Windows policy keys in a fake registry. No
real policy was set on this machine (docs/install.md, "Policies")."""

from __future__ import annotations

import json
import plistlib
from pathlib import Path
from typing import Any

import pytest
import reins._platform
from reins._paths import EXTENSION_ID, HOST_NAME
from reins.setup import doctor as checkup
from reins.setup.browsers import POLICIES
from reins.setup.doctor import policy_findings, read_policies

CHROME = "Software\\Policies\\Google\\Chrome"


class PolicyRegistry:
    """HKLM and HKCU as dicts of key -> named values (keys compare case-insensitively)."""

    def __init__(self) -> None:
        self.hives: dict[bool, dict[str, dict[str, str | int]]] = {True: {}, False: {}}

    def set(self, key: str, values: dict[str, str | int], *, machine: bool) -> None:
        self.hives[machine][key.lower()] = values

    def key_exists(self, key: str) -> bool:
        return False

    def read_default(self, key: str) -> str | None:
        return None

    def write_default(self, key: str, value: str) -> None:
        raise AssertionError("doctor writes nothing")

    def delete_key(self, key: str) -> bool:
        raise AssertionError("doctor deletes nothing")

    def read_values(self, key: str, *, machine: bool = False) -> dict[str, str | int]:
        return dict(self.hives[machine].get(key.lower(), {}))


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine root of its own, a user ("ada") with Chrome found on every desktop, doctor's
    process probes and the extension's connection simulated."""
    import reins.bridge.client
    from reins.bridge.protocol import EXTENSION_FEATURES

    home = tmp_path / "home"
    (home / ".config" / "google-chrome").mkdir(parents=True)
    (home / "Library" / "Application Support" / "Google" / "Chrome").mkdir(parents=True)
    (home / "AppData" / "Local" / "Google" / "Chrome" / "User Data").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LOCALAPPDATA", str(home / "AppData" / "Local"))
    monkeypatch.setenv("REINS_HOME", str(tmp_path / "state"))
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, "ada")
    for name in ("REINS_PROFILE", "XDG_CONFIG_HOME", "CHROME_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.setattr(reins._platform, "system_root", lambda: str(root))
    monkeypatch.setattr(reins._platform, "os_name", lambda: "linux")
    monkeypatch.setattr(checkup, "_probe_mcp", lambda: (True, "simulated"))
    monkeypatch.setattr(checkup, "_probe_host", lambda launcher: (True, "simulated"))
    monkeypatch.setattr(reins.bridge.client, "live_profiles", lambda: ["default"])
    answer = {"ok": True, "connected": True, "extension": {"features": list(EXTENSION_FEATURES)}}
    monkeypatch.setattr(reins.bridge.client, "request", lambda *a, **k: answer)
    return root


def policy_check(report: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in report["checks"] if c["name"] == "policies"), None)


def linux_policy(root: Path, folder: str, name: str, policies: dict[str, Any]) -> Path:
    path = root / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(policies))
    return path


# ---- the rules, on hand-built policies -------------------------------------------------------


@pytest.mark.parametrize(
    ("policies", "named"),
    [
        ({"NativeMessagingUserLevelHosts": False}, ["NativeMessagingUserLevelHosts"]),
        ({"NativeMessagingUserLevelHosts": 0}, ["NativeMessagingUserLevelHosts"]),  # a DWORD
        ({"NativeMessagingBlocklist": ["*"]}, ["NativeMessagingBlocklist"]),
        ({"NativeMessagingBlocklist": [HOST_NAME]}, ["NativeMessagingBlocklist"]),
        ({"NativeMessagingBlacklist": ["*"]}, ["NativeMessagingBlacklist"]),  # the older name
        ({"ExtensionInstallBlocklist": ["*"]}, ["ExtensionInstallBlocklist"]),
        ({"ExtensionInstallBlocklist": [EXTENSION_ID]}, ["ExtensionInstallBlocklist"]),
        ({"ExtensionInstallBlacklist": ["*"]}, ["ExtensionInstallBlacklist"]),
        ({"DeveloperToolsAvailability": 2}, ["DeveloperToolsAvailability"]),
        ({"ExtensionDeveloperModeSettings": 1}, ["ExtensionDeveloperModeSettings"]),
        (
            {
                "NativeMessagingUserLevelHosts": False,
                "NativeMessagingBlocklist": ["*"],
                "ExtensionInstallBlocklist": ["*"],
                "DeveloperToolsAvailability": 2,
                "ExtensionDeveloperModeSettings": 1,
            },
            [
                "NativeMessagingUserLevelHosts",
                "NativeMessagingBlocklist",
                "ExtensionInstallBlocklist",
                "DeveloperToolsAvailability",
                "ExtensionDeveloperModeSettings",
            ],
        ),
    ],
)
def test_a_policy_that_stops_reins_is_named(policies: dict[str, Any], named: list[str]) -> None:
    assert [name for name, _ in policy_findings(policies)] == named


@pytest.mark.parametrize(
    "policies",
    [
        {},
        {"NativeMessagingUserLevelHosts": True},
        {"NativeMessagingUserLevelHosts": 1},
        {"NativeMessagingBlocklist": ["*"], "NativeMessagingAllowlist": [HOST_NAME]},
        {"NativeMessagingBlocklist": ["*"], "NativeMessagingWhitelist": [HOST_NAME]},
        {"NativeMessagingBlocklist": ["com.other.host"]},
        {"ExtensionInstallBlocklist": ["*"], "ExtensionInstallAllowlist": [EXTENSION_ID]},
        {"ExtensionInstallBlocklist": ["a" * 32]},
        {"DeveloperToolsAvailability": 0},
        {"DeveloperToolsAvailability": 1},
        {"ExtensionDeveloperModeSettings": 0},
        {"DeveloperToolsAvailability": "2"},  # not the policy's type: ignored, as Chrome does
    ],
)
def test_policies_that_let_reins_work_say_nothing(policies: dict[str, Any]) -> None:
    assert policy_findings(policies) == []


def test_an_allowlist_for_someone_else_does_not_help() -> None:
    (finding,) = policy_findings(
        {"NativeMessagingBlocklist": ["*"], "NativeMessagingAllowlist": ["com.other.host"]}
    )
    assert finding[0] == "NativeMessagingBlocklist"
    assert "'*'" in finding[1] and HOST_NAME in finding[1]


# ---- where each desktop keeps them ------------------------------------------------------------


def test_policy_table() -> None:
    chrome, chromium = POLICIES["chrome"], POLICIES["chromium"]
    assert chrome.linux == "etc/opt/chrome/policies/managed" and chrome.mac == "com.google.Chrome"
    assert chrome.windows == CHROME and POLICIES["chrome-beta"] == chrome
    assert chromium.linux == "etc/chromium/policies/managed"
    assert chromium.windows == "Software\\Policies\\Chromium"
    assert POLICIES["chrome-for-testing"].linux == "etc/opt/chrome_for_testing/policies/managed"
    assert POLICIES["edge"].linux == "etc/opt/edge/policies/managed"
    assert POLICIES["edge-dev"].windows == "Software\\Policies\\Microsoft\\Edge"
    assert POLICIES["brave"].linux == "etc/brave/policies/managed"
    assert POLICIES["brave-nightly"].mac == "com.brave.Browser"
    assert "vivaldi" not in POLICIES and "opera" not in POLICIES


def test_linux_reads_every_file_of_the_managed_folder(machine: Path) -> None:
    folder = "etc/opt/chrome/policies/managed"
    first = linux_policy(machine, folder, "a.json", {"NativeMessagingUserLevelHosts": False})
    second = linux_policy(machine, folder, "b-no-suffix", {"DeveloperToolsAvailability": 2})
    linux_policy(machine, "etc/opt/chrome/policies/recommended", "r.json", {"X": 1})
    policies, problems = read_policies(POLICIES["chrome"], "linux")
    assert policies == {
        "NativeMessagingUserLevelHosts": (False, str(first)),
        "DeveloperToolsAvailability": (2, str(second)),
    }
    assert problems == []


def test_linux_an_unreadable_policy_file_is_said(machine: Path) -> None:
    broken = machine / "etc/chromium/policies/managed/broken.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json")
    policies, problems = read_policies(POLICIES["chromium"], "linux")
    assert policies == {} and len(problems) == 1 and problems[0].startswith(str(broken))


def test_macos_managed_preferences_the_users_over_the_machines(machine: Path) -> None:
    base = machine / "Library" / "Managed Preferences"
    (base / "ada").mkdir(parents=True)
    with (base / "com.google.Chrome.plist").open("wb") as out:
        plistlib.dump({"DeveloperToolsAvailability": 2, "ExtensionDeveloperModeSettings": 1}, out)
    with (base / "ada" / "com.google.Chrome.plist").open("wb") as out:
        plistlib.dump({"DeveloperToolsAvailability": 0}, out)
    policies, _ = read_policies(POLICIES["chrome"], "darwin")
    assert policies["DeveloperToolsAvailability"] == (0, str(base / "ada/com.google.Chrome.plist"))
    assert policies["ExtensionDeveloperModeSettings"][0] == 1


def test_windows_policy_keys_the_machines_over_the_users(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = PolicyRegistry()
    monkeypatch.setattr(reins._platform, "current_registry", lambda: registry)
    registry.set(CHROME, {"NativeMessagingUserLevelHosts": 1}, machine=False)
    registry.set(CHROME, {"NativeMessagingUserLevelHosts": 0}, machine=True)
    registry.set(f"{CHROME}\\NativeMessagingBlocklist", {"2": HOST_NAME, "1": "*"}, machine=True)
    policies, _ = read_policies(POLICIES["chrome"], "win32")
    assert policies["NativeMessagingUserLevelHosts"] == (0, f"HKLM\\{CHROME}")
    assert policies["NativeMessagingBlocklist"] == (
        ["*", HOST_NAME],
        f"HKLM\\{CHROME}\\NativeMessagingBlocklist",
    )


# ---- doctor ------------------------------------------------------------------------------------


def test_doctor_names_the_policy_and_where_it_is_set(machine: Path) -> None:
    path = linux_policy(
        machine,
        "etc/opt/chrome/policies/managed",
        "corp.json",
        {"NativeMessagingBlocklist": ["*"], "ExtensionDeveloperModeSettings": 1},
    )
    report = checkup.doctor("chrome")
    check = policy_check(report)
    assert check is not None and check["ok"] is False
    assert report["first_failure"] == check and report["healthy"] is False
    assert "policy NativeMessagingBlocklist" in check["detail"]
    assert "policy ExtensionDeveloperModeSettings" in check["detail"]
    assert str(path) in check["detail"] and check["detail"].startswith("chrome: ")
    assert HOST_NAME in check["fix"] and EXTENSION_ID in check["fix"]


def test_doctor_without_policies_has_no_policy_check(machine: Path) -> None:
    assert policy_check(checkup.doctor("chrome")) is None


def test_doctor_with_harmless_policies_says_what_it_read(machine: Path) -> None:
    path = linux_policy(
        machine, "etc/opt/chrome/policies/managed", "p.json", {"HomepageLocation": "x"}
    )
    check = policy_check(checkup.doctor("chrome"))
    assert check is not None and check["ok"] is True and str(path) in check["detail"]


def test_doctor_reads_the_policies_of_the_browsers_found(machine: Path) -> None:
    # Chromium's policies do not concern a user who has only Chrome.
    linux_policy(
        machine, "etc/chromium/policies/managed", "p.json", {"DeveloperToolsAvailability": 2}
    )
    assert policy_check(checkup.doctor("all")) is None
    check = policy_check(checkup.doctor("chromium"))  # selected and none found: read them all
    assert check is not None and "DeveloperToolsAvailability" in check["detail"]


def test_doctor_on_macos_and_windows(machine: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = machine / "Library" / "Managed Preferences" / "ada"
    base.mkdir(parents=True)
    with (base / "com.google.Chrome.plist").open("wb") as out:
        plistlib.dump({"ExtensionInstallBlocklist": ["*"]}, out)
    monkeypatch.setattr(reins._platform, "os_name", lambda: "darwin")
    check = policy_check(checkup.doctor("chrome"))
    assert check is not None and "policy ExtensionInstallBlocklist" in check["detail"]

    registry = PolicyRegistry()
    registry.set(CHROME, {"DeveloperToolsAvailability": 2}, machine=False)
    monkeypatch.setattr(reins._platform, "current_registry", lambda: registry)
    monkeypatch.setattr(reins._platform, "os_name", lambda: "win32")
    check = policy_check(checkup.doctor("chrome"))
    assert check is not None and "policy DeveloperToolsAvailability" in check["detail"]
    assert f"HKCU\\{CHROME}" in check["detail"]
