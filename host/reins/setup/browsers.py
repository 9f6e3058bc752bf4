"""Where each Chromium browser reads per-user native-messaging host manifests, on each desktop.

One row per browser and channel; docs/install.md ("Where browsers read host manifests") gives the
source of each cell (Chromium's code, a vendor's documentation, or inferred) and what is not known.

- Linux: ``<config home>/<linux>/NativeMessagingHosts``, the config home being
  ``$CHROME_CONFIG_HOME``, else ``$XDG_CONFIG_HOME``, else ``~/.config`` (chrome_paths_linux.cc;
  the forks keep that code and change only the folder's name).
- macOS: ``~/Library/Application Support/<mac>/NativeMessagingHosts`` (chrome_paths_mac.mm; the
  folder is the app bundle's ``CrProductDirName``).
- Windows: no folder: the default value of ``HKCU\\<key>\\<host name>`` is the manifest's path
  (native_process_launcher_win.cc). ``windows_reads`` is the order the browser reads keys in;
  reins writes ``windows_key``. A browser is found by its user-data folder (``windows``, under
  ``%LOCALAPPDATA%``, or ``%APPDATA%`` for Opera).
- Any OS but Windows, a browser started with ``--user-data-dir=X`` reads ``X/NativeMessagingHosts``
  (the user-level folder is the user-data folder's, chrome_paths.cc). Windows reads the registry only.
- Linux, confined builds: a **Snap** (``SNAPS``) cannot start a program outside its snap, so no
  native host runs there; reins refuses it and names the builds that can. A **Flatpak**
  (``FLATPAKS``) keeps its user-data folder in ``~/.var/app/<app id>/config/<linux>`` and reads
  host manifests there; the host is started outside the sandbox by a wrapper (setup/install.py).
- Managed policies (``POLICIES``, by family; `reins doctor` reads them): Linux, JSON files in a
  folder under /etc (components/policy/core/common/policy_paths.cc); macOS, the managed
  preferences of the browser's bundle id; Windows, ``HKLM``/``HKCU\\Software\\Policies\\…``.
"""

from __future__ import annotations

import configparser
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reins import _platform
from reins._errors import UsageError
from reins._platform import OsName

__all__ = [
    "BROWSERS",
    "CHOICES",
    "FLATPAKS",
    "POLICIES",
    "SNAPS",
    "Browser",
    "Flatpak",
    "PolicySource",
    "FLATPAK_WRAPPER",
    "browser_folder",
    "flatpak_launcher",
    "flatpak_override_command",
    "flatpak_rows",
    "flatpak_talk_granted",
    "flatpaks_found",
    "is_installed",
    "linux_config_home",
    "select",
    "snap_of",
    "snap_of_profile",
    "snaps_refused",
]

CHROME_KEY = "Software\\Google\\Chrome\\NativeMessagingHosts"
CHROMIUM_KEY = "Software\\Chromium\\NativeMessagingHosts"
EDGE_KEY = "Software\\Microsoft\\Edge\\NativeMessagingHosts"
# A Chromium-branded build reads Chromium's key, then Chrome's (native_process_launcher_win.cc).
_CHROMIUM_BRANDED = (CHROMIUM_KEY, CHROME_KEY)

Family = Literal["chrome", "chromium", "edge", "brave", "vivaldi", "opera"]


@dataclass(frozen=True)
class Browser:
    name: str  # what `--browser` takes, e.g. "chrome-beta"
    family: Family  # `--browser chrome` selects every channel of the family
    label: str
    linux: str | None  # folder under the config home; None: no such build on Linux
    mac: str | None  # folder under ~/Library/Application Support
    windows: tuple[str, str] | None  # (environment variable, user-data folder below it)
    windows_reads: tuple[str, ...]  # HKCU keys the browser reads, in order
    windows_key: str  # the one of them reins writes

    def folder(self, system: OsName) -> str | None:
        return {"linux": self.linux, "darwin": self.mac, "win32": None}[system]


def _chrome(name: str, label: str, linux: str | None, mac: str, win: str) -> Browser:
    # Google-branded builds (every channel, Chrome for Testing too) read Chrome's key only.
    return Browser(
        name, "chrome", label, linux, mac, ("LOCALAPPDATA", win), (CHROME_KEY,), CHROME_KEY
    )


def _edge(name: str, label: str, linux: str | None, suffix: str, win: str) -> Browser:
    return Browser(
        name,
        "edge",
        label,
        linux,
        f"Microsoft Edge{suffix}",
        ("LOCALAPPDATA", win),
        (EDGE_KEY,),
        EDGE_KEY,
    )


def _brave(name: str, label: str, suffix: str) -> Browser:
    # No Brave key in Chromium's launcher: Brave reads Chromium's key, then Chrome's. reins writes
    # Chrome's, which is read whether or not the build is Chromium-branded (inferred; see docs).
    folder = f"BraveSoftware/Brave-Browser{suffix}"
    return Browser(
        name,
        "brave",
        label,
        folder,
        folder,
        ("LOCALAPPDATA", f"{folder}/User Data"),
        _CHROMIUM_BRANDED,
        CHROME_KEY,
    )


BROWSERS: tuple[Browser, ...] = (
    _chrome("chrome", "Google Chrome", "google-chrome", "Google/Chrome", "Google/Chrome/User Data"),
    _chrome(
        "chrome-beta",
        "Google Chrome Beta",
        "google-chrome-beta",
        "Google/Chrome Beta",
        "Google/Chrome Beta/User Data",
    ),
    _chrome(
        "chrome-dev",
        "Google Chrome Dev",
        "google-chrome-unstable",
        "Google/Chrome Dev",
        "Google/Chrome Dev/User Data",
    ),
    _chrome(
        "chrome-canary",
        "Google Chrome Canary",
        "google-chrome-canary",
        "Google/Chrome Canary",
        "Google/Chrome SxS/User Data",
    ),
    _chrome(
        "chrome-for-testing",
        "Google Chrome for Testing",
        "google-chrome-for-testing",
        "Google/Chrome for Testing",
        "Google/Chrome for Testing/User Data",
    ),
    Browser(
        "chromium",
        "chromium",
        "Chromium",
        "chromium",
        "Chromium",
        ("LOCALAPPDATA", "Chromium/User Data"),
        _CHROMIUM_BRANDED,
        CHROMIUM_KEY,
    ),
    _edge("edge", "Microsoft Edge", "microsoft-edge", "", "Microsoft/Edge/User Data"),
    _edge(
        "edge-beta",
        "Microsoft Edge Beta",
        "microsoft-edge-beta",
        " Beta",
        "Microsoft/Edge Beta/User Data",
    ),
    _edge(
        "edge-dev",
        "Microsoft Edge Dev",
        "microsoft-edge-dev",
        " Dev",
        "Microsoft/Edge Dev/User Data",
    ),
    _edge("edge-canary", "Microsoft Edge Canary", None, " Canary", "Microsoft/Edge SxS/User Data"),
    _brave("brave", "Brave", ""),
    _brave("brave-beta", "Brave Beta", "-Beta"),
    _brave("brave-dev", "Brave Dev", "-Dev"),
    _brave("brave-nightly", "Brave Nightly", "-Nightly"),
    Browser(
        "vivaldi",
        "vivaldi",
        "Vivaldi",
        "vivaldi",
        "Vivaldi",
        ("LOCALAPPDATA", "Vivaldi/User Data"),
        _CHROMIUM_BRANDED,
        CHROME_KEY,
    ),
    Browser(
        "opera",
        "opera",
        "Opera",
        "opera",
        "com.operasoftware.Opera",
        ("APPDATA", "Opera Software/Opera Stable"),
        _CHROMIUM_BRANDED,
        CHROME_KEY,
    ),
)


@dataclass(frozen=True)
class Flatpak:
    """A Linux row's Flatpak build (docs/install.md, "Flatpak")."""

    browser: str  # the row it is a build of
    app_id: str

    @property
    def name(self) -> str:
        """What install and doctor call it, beside the row's own name."""
        return f"{self.browser}-flatpak"

    def folder(self) -> Path:
        """Its user-data folder: the row's Linux folder below the app's own config home."""
        row = next(b for b in BROWSERS if b.name == self.browser)
        assert row.linux is not None  # every Flatpak row has a Linux folder
        return Path.home().joinpath(".var", "app", self.app_id, "config", *row.linux.split("/"))


FLATPAKS: tuple[Flatpak, ...] = (
    Flatpak("chrome", "com.google.Chrome"),
    Flatpak("chromium", "org.chromium.Chromium"),
    Flatpak("edge", "com.microsoft.Edge"),
    Flatpak("brave", "com.brave.Browser"),
)


@dataclass(frozen=True)
class PolicySource:
    """Where a browser reads the policies an administrator forces (docs/install.md, "Policies")."""

    linux: str  # folder of *.json files, below the machine's root
    mac: str  # the managed-preferences domain: /Library/Managed Preferences[/<user>]/<mac>.plist
    windows: str  # key below HKLM (machine) and HKCU (user); a list policy is a subkey of it


_CHROME_POLICIES = PolicySource(
    "etc/opt/chrome/policies/managed", "com.google.Chrome", "Software\\Policies\\Google\\Chrome"
)
# Policies by row; a row not listed has no policy source reins knows (Vivaldi, Opera).
POLICIES: dict[str, PolicySource] = {
    **{name: _CHROME_POLICIES for name in ("chrome", "chrome-beta", "chrome-dev", "chrome-canary")},
    "chrome-for-testing": PolicySource(
        "etc/opt/chrome_for_testing/policies/managed",
        "com.google.chrome.for.testing",
        "Software\\Policies\\Google\\Chrome for Testing",
    ),
    "chromium": PolicySource(
        "etc/chromium/policies/managed", "org.chromium.Chromium", "Software\\Policies\\Chromium"
    ),
    **{
        name: PolicySource(
            "etc/opt/edge/policies/managed",
            "com.microsoft.Edge",
            "Software\\Policies\\Microsoft\\Edge",
        )
        for name in ("edge", "edge-beta", "edge-dev", "edge-canary")
    },
    **{
        name: PolicySource(
            "etc/brave/policies/managed",
            "com.brave.Browser",
            "Software\\Policies\\BraveSoftware\\Brave",
        )
        for name in ("brave", "brave-beta", "brave-dev", "brave-nightly")
    },
}

# Linux rows that also come as a Snap, and the snap's name. Snap confinement lets the browser
# start no program from outside its snap, so a native host cannot run (docs/install.md, "Snap").
SNAPS: dict[str, str] = {
    "chromium": "chromium",
    "brave": "brave",
    "vivaldi": "vivaldi",
    "opera": "opera",
}

_FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(b.family for b in BROWSERS))
CHOICES: tuple[str, ...] = (
    *_FAMILIES,
    *(b.name for b in BROWSERS if b.name not in _FAMILIES),
    "all",
)


def select(browser: str) -> tuple[Browser, ...]:
    """The rows ``--browser`` names: ``all``, a family (every channel of it) or one channel."""
    if browser == "all":
        return BROWSERS
    chosen = tuple(b for b in BROWSERS if browser in (b.family, b.name))
    if not chosen:
        raise UsageError(f"unknown browser {browser!r}; one of {', '.join(CHOICES)}")
    return chosen


def linux_config_home(env: dict[str, str] | None = None) -> Path:
    """Where Chromium on Linux keeps its user-data folders: $CHROME_CONFIG_HOME, else
    $XDG_CONFIG_HOME, else ~/.config (an empty variable counts as unset)."""
    environ = os.environ if env is None else env
    for name in ("CHROME_CONFIG_HOME", "XDG_CONFIG_HOME"):
        value = environ.get(name)
        if value:
            return Path(value).expanduser().absolute()
    return Path.home() / ".config"


def browser_folder(browser: Browser, system: OsName) -> Path | None:
    """The browser's own user-data folder on this desktop (None: no such build there)."""
    if system == "win32":
        if browser.windows is None:
            return None
        variable, below = browser.windows
        base = os.environ.get(variable)
        if not base:
            roaming = "Roaming" if variable == "APPDATA" else "Local"
            base = str(Path.home() / "AppData" / roaming)
        return Path(base, *below.split("/"))
    folder = browser.folder(system)
    if folder is None:
        return None
    root = linux_config_home() if system == "linux" else Path.home() / "Library/Application Support"
    return root.joinpath(*folder.split("/"))


def is_installed(browser: Browser, system: OsName) -> bool:
    """The browser has run for this user here: its user-data folder exists (it makes it on its
    first start). Installing only into these keeps reins out of browsers the user does not have."""
    folder = browser_folder(browser, system)
    return folder is not None and folder.is_dir()


def snap_of(browser: Browser) -> Path | None:
    """Where this browser shows as a Snap on this Linux machine: its per-user snap folder
    (``~/snap/<name>``, made on its first start) or its command (``/snap/bin/<name>``); None when
    it is no Snap here."""
    name = SNAPS.get(browser.name)
    if name is None:
        return None
    places = (Path.home() / "snap" / name, Path(_platform.system_root(), "snap", "bin", name))
    return next((place for place in places if os.path.lexists(place)), None)


def snap_of_profile(user_data_dir: Path) -> str | None:
    """The snap a user-data folder belongs to (``~/snap/<name>/...``: a Snap's own), or None."""
    snaps = Path.home() / "snap"
    path = user_data_dir.expanduser().absolute()
    if snaps not in path.parents:
        return None
    return path.relative_to(snaps).parts[0]


def flatpaks_found(rows: tuple[Browser, ...]) -> list[Flatpak]:
    """The Flatpak builds of these rows that have run for this user (their folder exists)."""
    names = {row.name for row in rows}
    return [app for app in FLATPAKS if app.browser in names and app.folder().is_dir()]


def snaps_refused(rows: tuple[Browser, ...], system: OsName) -> dict[str, Path]:
    """The rows of the selection found here only as a Snap (a build that is no Snap, found too,
    is the one registered): name -> where the Snap shows."""
    if system != "linux":
        return {}
    flatpaks = {app.browser for app in flatpaks_found(rows)}
    out: dict[str, Path] = {}
    for row in rows:
        other = is_installed(row, system) or row.name in flatpaks
        where = None if other else snap_of(row)
        if where is not None:
            out[row.name] = where
    return out


FLATPAK_WRAPPER = "reins-host-flatpak"  # beside the manifest, inside what the sandbox sees
# The D-Bus name whose use lets a sandboxed app run a command on the host (flatpak-spawn --host).
_HOST_COMMANDS = "org.freedesktop.Flatpak"


def flatpak_override_command(app_id: str) -> str:
    return f"flatpak override --user --talk-name={_HOST_COMMANDS} {app_id}"


def flatpak_talk_granted(app_id: str) -> bool:
    """The app may use flatpak-spawn --host: an override (this user's, under $XDG_DATA_HOME, or
    the system installation's) gives it talk access to org.freedesktop.Flatpak, for it or for
    every app ("global")."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    folders = (
        Path(data, "flatpak", "overrides"),
        Path(_platform.system_root(), "var", "lib", "flatpak", "overrides"),
    )
    for folder in folders:
        for name in (app_id, "global"):
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.optionxform = str  # type: ignore[assignment,method-assign]
            try:
                parser.read(folder / name, encoding="utf-8")
            except configparser.Error:
                continue
            if parser.get("Session Bus Policy", _HOST_COMMANDS, fallback="") in ("talk", "own"):
                return True
    return False


def flatpak_launcher(wrapper: Path) -> str | None:
    """The launcher a Flatpak wrapper (written by setup/install.py) starts on the host, or None
    when ``wrapper`` is none."""
    if wrapper.name != FLATPAK_WRAPPER:
        return None
    try:
        text = wrapper.read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        words = shlex.split(line) if line.startswith("exec flatpak-spawn") else []
        if len(words) >= 5:
            return words[4]
    return None


def flatpak_rows(browser: str) -> dict[str, Flatpak]:
    """The Flatpak builds of the rows ``--browser`` names, by their name (``chrome-flatpak``)."""
    names = {row.name for row in select(browser)}
    return {app.name: app for app in FLATPAKS if app.browser in names}
