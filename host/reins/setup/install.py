"""Registration of the native host: the launcher, and the manifests or registry keys that make
each browser find it (`reins install` / `reins uninstall`; `reins doctor` is ``setup/doctor.py``).

Where each browser reads host manifests, per desktop, is the table in ``setup/browsers.py``
(sources in docs/install.md). ``install`` writes only into browsers found on this machine and
records what it wrote (``registrations.json`` in REINS_HOME), so ``doctor`` and ``uninstall``
find every registration it made, a ``--user-data-dir`` one included. On Windows a manifest file
sits in REINS_HOME and registry keys point at it; Windows browsers read nothing else, so
``--user-data-dir`` is refused there. A Snap browser cannot start a host outside its snap: it is
refused (``snap_confined``) with the builds that can. A Flatpak browser reads manifests in its
own folder and can start only what its sandbox holds: its manifest names a wrapper in that folder
that starts reins's launcher on the host (``flatpak-spawn --host``), which the user allows once
with ``flatpak override`` (the command is printed). ``install`` also places the copy of the
extension the user loads (``setup/extension.py``); ``uninstall`` removes it with the last
registration.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import sysconfig
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reins import _platform
from reins._errors import UsageError
from reins._paths import (
    EXTENSION_ID,
    HOST_NAME,
    ensure_private_dir,
    reins_home,
    valid_profile_name,
    write_private,
)
from reins.setup.browsers import (
    FLATPAK_WRAPPER,
    Browser,
    Flatpak,
    browser_folder,
    flatpak_override_command,
    flatpak_rows,
    flatpak_talk_granted,
    flatpaks_found,
    is_installed,
    select,
    snap_of_profile,
    snaps_refused,
)
from reins.setup.extension import (
    extension_dir,
    extension_path,
    place_extension,
    remove_placed_extension,
)

__all__ = [
    "Registration",
    "extension_dir",
    "extension_path",
    "install",
    "launcher_runnable",
    "manifest_dirs",
    "registrations_read",
    "registry_keys",
    "mimalloc_library",
    "snap_refusal",
    "uninstall",
    "write_launcher",
    "write_manifest",
]

ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
MANIFEST_NAME = f"{HOST_NAME}.json"
_RECORD = "registrations.json"


@dataclass(frozen=True)
class Registration:
    """One place a browser will find the host: a manifest file in a folder it reads, or (Windows)
    a registry key whose default value is the manifest's path."""

    browser: str  # a row of setup/browsers.py, or "profile" for --user-data-dir
    where: str  # the manifest file, or HKCU\\...\\dev.reins.host
    manifest: str  # the manifest file


def _refuse_user_data_dir_on_windows() -> UsageError:
    return UsageError(
        "--user-data-dir cannot register a native host on Windows: Windows browsers read host "
        "manifests from the registry only, never from a profile's folder",
        code="platform_unsupported",
        hint="run `reins install` without --user-data-dir: it registers the host for every "
        "profile of the browsers found",
    )


# Where a Snap user goes instead: builds that start a native host (docs/install.md, "Snap").
_SNAP_WAY_OUT = (
    "use a build that can: Google Chrome (https://www.google.com/chrome/) or Chromium from a "
    ".deb/.rpm package; the Flatpak (`flatpak install flathub org.chromium.Chromium`, then "
    "`reins install` prints the one permission to grant); or Chrome for Testing (`npx "
    "@puppeteer/browsers install chrome@stable`). Start it once, then run `reins install` again"
)


def snap_refusal(snaps: dict[str, Path]) -> UsageError:
    """The error for browsers that are Snaps here (name -> where the Snap shows)."""
    shown = ", ".join(f"{name} ({where})" for name, where in snaps.items())
    return UsageError(
        f"{shown}: {'a Snap' if len(snaps) == 1 else 'Snaps'}, and a Snap's confinement lets the "
        "browser start no program from outside its snap, so reins's native host cannot run",
        code="snap_confined",
        hint=_SNAP_WAY_OUT,
    )


# ---- Flatpak ---------------------------------------------------------------------------------


def _write_flatpak_wrapper(path: Path, launcher: Path, app: Flatpak) -> Path:
    """The program the Flatpak's manifest names: it runs inside the sandbox and starts reins's
    launcher on the host, stdin and stdout passed through; --watch-bus ends the host's side when
    the browser ends this one."""
    lines = [
        "#!/bin/sh",
        f"# reins native host for the {app.app_id} Flatpak (written by `reins install`).",
        f"# Needs, once: {flatpak_override_command(app.app_id)}",
        f'exec flatpak-spawn --host --watch-bus {shlex.quote(str(launcher))} "$@"',
    ]
    write_private(path, ("\n".join(lines) + "\n").encode(), mode=0o700)
    return path


def manifest_dirs(browser: str, user_data_dir: str | None = None) -> dict[str, Path]:
    """The folders a manifest goes in, by browser row (every row of the selection that has a
    build on this desktop), or ``{"profile": ...}`` for --user-data-dir. Empty on Windows, where
    registration is a registry key (``registry_keys``)."""
    system = _platform.os_name()
    if user_data_dir:
        if system == "win32":
            raise _refuse_user_data_dir_on_windows()
        return {"profile": Path(user_data_dir).expanduser().absolute() / "NativeMessagingHosts"}
    rows = select(browser)
    if system == "win32":
        return {}
    out: dict[str, Path] = {}
    for row in rows:
        folder = browser_folder(row, system)
        if folder is not None:
            out[row.name] = folder / "NativeMessagingHosts"
    if system == "linux":
        for name, app in flatpak_rows(browser).items():
            out[name] = app.folder() / "NativeMessagingHosts"
    return out


def registry_keys(browser: str) -> dict[str, str]:
    """Windows: the key (below HKCU) reins writes for each browser row of the selection."""
    return {row.name: f"{row.windows_key}\\{HOST_NAME}" for row in select(browser)}


# mimalloc's shared library under the names Debian, Fedora, Arch and Homebrew-on-Linux give it.
_MIMALLOC_NAMES = ("libmimalloc.so.2", "libmimalloc.so")


def mimalloc_library(dirs: list[Path] | None = None) -> Path | None:
    """The mimalloc shared library the host can run on, if this Linux system has one.

    The host's observations of big pages make hundreds of thousands of small objects at once;
    CPython's own allocator gives a 1 MiB arena back only once every object in it is gone, so a
    few survivors kept a big page's memory (docs/benchmarks.md, "Memory"). mimalloc, told to
    return freed pages at once, hands them back; it allocates about as fast."""
    if not sys.platform.startswith("linux"):
        return None
    if dirs is None:
        arch = sysconfig.get_config_var("MULTIARCH")
        found = [Path("/usr/lib") / arch] if isinstance(arch, str) and arch else []
        dirs = [*found, Path("/usr/lib64"), Path("/usr/lib"), Path("/usr/local/lib")]
    for folder in dirs:
        for name in _MIMALLOC_NAMES:
            candidate = folder / name
            if candidate.is_file() and _trusted(candidate) and _trusted(folder):
                return candidate
    return None


def _trusted(path: Path) -> bool:
    """Root's or the user's, and writable by nobody else: a library the host preloads is code
    that runs as the user in every host, so nobody else may replace it. (Stricter than
    ``_paths._check_parent``, which accepts a sticky world-writable folder such as /tmp: there
    anyone may create the library's name before it exists.)"""
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_uid in (0, _platform.user_id()) and not st.st_mode & 0o022


def _allocator_lines(library: Path | None) -> list[str]:
    """The launcher's lines that run the host on ``library`` (mimalloc) while the file is there;
    without it (or once it is removed) the host runs on CPython's own allocator."""
    if library is None:
        return []
    quoted = shlex.quote(str(library))
    return [
        "# The allocator: mimalloc, returning freed pages at once (reins.setup.install.mimalloc_library).",
        f"if [ -r {quoted} ]; then",
        f'  LD_PRELOAD={quoted}"${{LD_PRELOAD:+:$LD_PRELOAD}}"; PYTHONMALLOC=malloc',
        "  MIMALLOC_PURGE_DELAY=0; MIMALLOC_RESET_DELAY=0",
        "  export LD_PRELOAD PYTHONMALLOC MIMALLOC_PURGE_DELAY MIMALLOC_RESET_DELAY",
        "fi",
    ]


def write_launcher(path: Path, *, home: Path, profile: str | None, launched: bool = False) -> Path:
    """A small script that runs the host with this Python, this REINS_HOME and this profile name.

    ``launched``: the browser is one reins started (`reins launch`), so every tab in it is reins's;
    otherwise it is the user's own, where reins drives only the tabs it opened or was handed.
    Without a profile name the launcher clears ``REINS_PROFILE``: a browser started from a shell
    where it selects a profile for the CLI must not take that name (``reins.bridge.names``)."""
    ensure_private_dir(path.parent, root=home)
    if _platform.os_name() == "win32":
        path = path.with_suffix(".bat")
        lines = ["@echo off", f'if "%REINS_HOME%"=="" set "REINS_HOME={home}"']
        lines.append(f'set "REINS_PROFILE={profile or ""}"')
        lines.append(f'set "REINS_LAUNCHED={1 if launched else 0}"')
        lines.append(f'"{sys.executable}" -u -m reins._host %*')
        write_private(path, ("\r\n".join(lines) + "\r\n").encode())
        return path
    lines = [
        "#!/bin/sh",
        "# reins native host launcher (written by `reins install` / `reins launch`)",
        f'[ -n "${{REINS_HOME:-}}" ] || REINS_HOME={shlex.quote(str(home))}',
        "export REINS_HOME",
    ]
    if profile:
        lines.append(f"REINS_PROFILE={shlex.quote(profile)}; export REINS_PROFILE")
    else:
        lines.append("unset REINS_PROFILE")
    lines.append(f"REINS_LAUNCHED={1 if launched else 0}; export REINS_LAUNCHED")
    lines += _allocator_lines(mimalloc_library())
    lines.append(f'exec {shlex.quote(sys.executable)} -u -m reins._host "$@"')
    # Chrome runs this file as the user: written without following a planted symlink, 0700.
    write_private(path, ("\n".join(lines) + "\n").encode(), mode=0o700)
    return path


def _manifest(launcher: Path) -> dict[str, Any]:
    return {
        "name": HOST_NAME,
        "description": "reins native host",
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [ORIGIN],
    }


def write_manifest(directory: Path, launcher: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{HOST_NAME}.json"
    write_private(target, (json.dumps(_manifest(launcher), indent=2) + "\n").encode(), mode=0o644)
    return target


def _launcher_path(home: Path, profile: str | None) -> Path:
    return home / "bin" / f"reins-host-{profile or 'default'}"


def install(
    browser: str = "all",
    user_data_dir: str | None = None,
    *,
    profile: str | None = None,
    launched: bool = False,
) -> dict[str, Any]:
    """Register the host in the browsers found on this machine (or in one profile's folder,
    ``user_data_dir``), and place the extension's copy to load (``place_extension``). ``profile`` names the browser profiles this registration serves (see
    ``reins.bridge.names``); ``launched`` marks a browser reins started itself (every tab is
    reins's) — `reins launch` and the test harness, never a user's own browser."""
    system = _platform.os_name()
    if user_data_dir and system == "win32":
        raise _refuse_user_data_dir_on_windows()
    if profile is not None and not valid_profile_name(profile):
        raise UsageError(f"profile name {profile!r}: use letters, digits, . _ - (at most 64)")
    rows = select(browser)
    if user_data_dir and system == "linux":
        snap = snap_of_profile(Path(user_data_dir))
        if snap is not None:
            raise snap_refusal({snap: Path(user_data_dir).expanduser().absolute()})
    found = [row for row in rows if is_installed(row, system)]
    flatpaks = flatpaks_found(rows) if system == "linux" and not user_data_dir else []
    snaps = {} if user_data_dir else snaps_refused(rows, system)
    if not user_data_dir and not found and not flatpaks and snaps:
        raise snap_refusal(snaps)
    if not user_data_dir and not found and not flatpaks:
        raise _no_browser(browser, rows, system)
    # The folder the user loads, placed before any registration names a host it would serve.
    placed = None if launched else place_extension(extension_dir())
    home = reins_home()
    ensure_private_dir(home)
    launcher = write_launcher(
        _launcher_path(home, profile), home=home, profile=profile, launched=launched
    )
    made: list[Registration] = []
    if user_data_dir:
        target = write_manifest(manifest_dirs(browser, user_data_dir)["profile"], launcher)
        made.append(Registration("profile", str(target), str(target)))
    elif system == "win32":
        manifest = str(write_manifest(launcher.parent, launcher))
        registry = _platform.current_registry()
        keys = registry_keys(browser)
        for key in dict.fromkeys(keys[row.name] for row in found):  # channels share a key
            registry.write_default(key, manifest)
        made += [Registration(row.name, f"HKCU\\{keys[row.name]}", manifest) for row in found]
    else:
        for row in found:
            folder = browser_folder(row, system)
            assert folder is not None  # found: its folder exists
            target = write_manifest(folder / "NativeMessagingHosts", launcher)
            made.append(Registration(row.name, str(target), str(target)))
    steps: dict[str, str] = {}
    for app in flatpaks:
        folder = app.folder() / "NativeMessagingHosts"
        folder.mkdir(parents=True, exist_ok=True)
        wrapper = _write_flatpak_wrapper(folder / FLATPAK_WRAPPER, launcher, app)
        target = write_manifest(folder, wrapper)
        made.append(Registration(app.name, str(target), str(target)))
        if not flatpak_talk_granted(app.app_id):
            steps[app.name] = flatpak_override_command(app.app_id)
    _record(home, added=tuple(made))
    with_flatpak = {row.name for row in found} | {app.browser for app in flatpaks}
    return {
        "launcher": str(launcher),
        "manifests": list(dict.fromkeys(r.where for r in made)),
        # The permission a Flatpak needs is said beside its registration, where it is read.
        "browsers": {
            r.browser: r.where
            + (f"; then run once: {steps[r.browser]}" if r.browser in steps else "")
            for r in made
        },
        "next_steps": list(steps.values()),
        "not_found": [
            row.name for row in rows if row.name not in with_flatpak and row.name not in snaps
        ]
        if not user_data_dir
        else [],
        "refused": {name: snap_refusal({name: where}).message for name, where in snaps.items()},
        "extension_id": EXTENSION_ID,
        # The one folder to Load unpacked (None for a browser reins starts: it loads its own).
        "extension": str(placed.path) if placed else None,
        "extension_change": placed.change if placed else None,
        "profile": profile,
    }


def _no_browser(browser: str, rows: tuple[Browser, ...], system: _platform.OsName) -> UsageError:
    looked = [str(f) for f in (browser_folder(row, system) for row in rows) if f is not None]
    shown = ", ".join(looked[:4]) + (f" and {len(looked) - 4} more" if len(looked) > 4 else "")
    return UsageError(
        f"no {'supported browser' if browser == 'all' else browser} found for this user "
        f"(looked for {shown or 'nothing: no such build on this desktop'})",
        code="no_browser",
        hint="start the browser once (it makes its folder on its first start) and run `reins "
        "install` again; for a browser started with --user-data-dir DIR, `reins install "
        "--user-data-dir DIR`",
    )


def _records(home: Path) -> list[Registration]:
    try:
        data = json.loads((home / _RECORD).read_text(encoding="utf-8"))
        return [
            Registration(**{k: str(item[k]) for k in ("browser", "where", "manifest")})
            for item in data
        ]
    except (OSError, ValueError, TypeError, KeyError):
        return []


def _record(
    home: Path, *, added: tuple[Registration, ...] = (), removed: frozenset[str] = frozenset()
) -> None:
    """Keep the list of what `install` registered (a later install in the same place replaces
    the entry), so doctor and uninstall find a --user-data-dir registration too."""
    new = {r.where for r in added}
    kept = [r for r in _records(home) if r.where not in new and r.where not in removed]
    entries = [asdict(r) for r in (*kept, *added)]
    if not entries and not (home / _RECORD).exists():
        return
    ensure_private_dir(home)
    write_private(home / _RECORD, (json.dumps(entries, indent=1) + "\n").encode())


def _recorded(browser: str, home: Path) -> list[Registration]:
    """The registrations install recorded that the selection covers (a profile's only for all)."""
    names = {row.name for row in select(browser)} | set(flatpak_rows(browser))
    return [
        r
        for r in _records(home)
        if r.browser in names or (browser == "all" and r.browser == "profile")
    ]


def uninstall(browser: str = "all", user_data_dir: str | None = None) -> dict[str, Any]:
    """Remove the registrations: the manifests in the selected browsers' folders, those install
    recorded (a --user-data-dir one's with ``all``), and on Windows the keys reins wrote."""
    system = _platform.os_name()
    home = reins_home()
    removed: list[str] = []
    if user_data_dir:
        targets = [manifest_dirs(browser, user_data_dir)["profile"] / MANIFEST_NAME]
    elif system == "win32":
        registry = _platform.current_registry()
        for key in dict.fromkeys(registry_keys(browser).values()):
            if registry.delete_key(key):
                removed.append(f"HKCU\\{key}")
        targets = [Path(r.manifest) for r in _recorded(browser, home) if r.browser == "profile"]
        if browser == "all":
            targets.append(home / "bin" / MANIFEST_NAME)
    else:
        dirs = manifest_dirs(browser)
        targets = [d / MANIFEST_NAME for d in dirs.values()]
        targets += [dirs[name] / FLATPAK_WRAPPER for name in flatpak_rows(browser)]
        targets += [Path(r.where) for r in _recorded(browser, home)]
    for target in dict.fromkeys(targets):
        if target.is_file():
            target.unlink()
            removed.append(str(target))
    gone = frozenset(
        r.where
        for r in (_recorded(browser, home) if not user_data_dir else _records(home))
        if r.where in removed or not Path(r.manifest).is_file()
    )
    _record(home, removed=gone)
    if not _records(home):  # the extension copy goes with the last registration
        copy = remove_placed_extension()
        removed += [str(copy)] if copy else []
    return {"removed": removed}


def launcher_runnable(launcher: str) -> bool:
    """A file the browser can start (Windows has no execute bit: a .bat is run by its name)."""
    if not os.path.isfile(launcher):
        return False
    return _platform.os_name() == "win32" or os.access(launcher, os.X_OK)


def registrations_read(browser: str, user_data_dir: str | None) -> dict[str, tuple[str, Path]]:
    """For each browser, the registration it will read — where (a file, or on Windows the first
    key in its read order that has a value) and the manifest file that names — plus the
    --user-data-dir registrations install recorded when ``browser`` is all."""
    system = _platform.os_name()
    if user_data_dir:
        target = manifest_dirs(browser, user_data_dir)["profile"] / MANIFEST_NAME
        return {"profile": (str(target), target)} if target.is_file() else {}
    out: dict[str, tuple[str, Path]] = {}
    if system == "win32":
        registry = _platform.current_registry()
        rows = select(browser)
        for row in [r for r in rows if is_installed(r, system)] or rows:
            for key in row.windows_reads:
                value = registry.read_default(f"{key}\\{HOST_NAME}")
                if value:  # the browser stops at the first key that names a manifest
                    out[row.name] = (f"HKCU\\{key}\\{HOST_NAME} = {value}", Path(value))
                    break
    else:
        for name, folder in manifest_dirs(browser).items():
            if (folder / MANIFEST_NAME).is_file():
                out[name] = (str(folder / MANIFEST_NAME), folder / MANIFEST_NAME)
    for r in _recorded(browser, reins_home()):
        if r.browser == "profile" and Path(r.manifest).is_file():
            out[f"profile {Path(r.manifest).parent.parent}"] = (r.where, Path(r.manifest))
    return out
