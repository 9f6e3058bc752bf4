"""Registration of the native host: launcher, manifests, and `reins doctor` (which also checks the
MCP front end, `reins mcp`, as an MCP client would start it).

Where browsers look for native-messaging host manifests (per user):
- Linux: ~/.config/{google-chrome,chromium,microsoft-edge,BraveSoftware/Brave-Browser}/NativeMessagingHosts
- macOS: ~/Library/Application Support/{Google/Chrome,Chromium,Microsoft Edge,BraveSoftware/Brave-Browser}/…
- Windows: HKCU\\Software\\{Google\\Chrome,Microsoft\\Edge,BraveSoftware\\Brave-Browser}\\NativeMessagingHosts\\<name>
- any profile started with --user-data-dir=X: X/NativeMessagingHosts (not Brave)
nativemessaging-ng writes Chrome's and Chromium's; Edge, Brave and custom profiles are written here.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from reins._errors import ReinsError, UsageError
from reins._paths import (
    EXTENSION_ID,
    HOST_NAME,
    ensure_private_dir,
    reins_home,
    socket_dir,
    valid_profile_name,
    write_private,
)
from reins.bridge.framing import MAX_FROM_BROWSER, encode_frame

__all__ = [
    "doctor",
    "install",
    "manifest_dirs",
    "mimalloc_library",
    "uninstall",
    "write_launcher",
    "write_manifest",
]

ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
_BROWSERS = ("chrome", "chromium", "edge", "brave")

_UNIX_DIRS = {
    "linux": {
        "chrome": ".config/google-chrome",
        "chromium": ".config/chromium",
        "edge": ".config/microsoft-edge",
        "brave": ".config/BraveSoftware/Brave-Browser",
    },
    "darwin": {
        "chrome": "Library/Application Support/Google/Chrome",
        "chromium": "Library/Application Support/Chromium",
        "edge": "Library/Application Support/Microsoft Edge",
        "brave": "Library/Application Support/BraveSoftware/Brave-Browser",
    },
}
_WIN_KEYS = {
    "edge": "Software\\Microsoft\\Edge\\NativeMessagingHosts",
    "brave": "Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts",
}


def _selected(browser: str) -> tuple[str, ...]:
    if browser == "all":
        return _BROWSERS
    if browser not in _BROWSERS:
        raise UsageError(f"unknown browser {browser!r}; one of {', '.join(_BROWSERS)} or all")
    return (browser,)


def manifest_dirs(browser: str, user_data_dir: str | None = None) -> dict[str, Path]:
    """The folders (Linux/macOS) a manifest goes in, by browser or "profile" for --user-data-dir."""
    if user_data_dir:
        return {"profile": Path(user_data_dir).expanduser().absolute() / "NativeMessagingHosts"}
    table = _UNIX_DIRS.get(sys.platform)
    if table is None:
        return {}
    home = Path.home()
    return {b: home / table[b] / "NativeMessagingHosts" for b in _selected(browser)}


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
    return st.st_uid in (0, os.getuid()) and not st.st_mode & 0o022


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
    if sys.platform == "win32":
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
    """Register the host. ``profile`` names the browser profiles this registration serves (see
    ``reins.bridge.names``); ``launched`` marks a browser reins started itself (every tab is
    reins's) — `reins launch` and the test harness, never a user's own browser."""
    home = reins_home()
    ensure_private_dir(home)
    if profile is not None and not valid_profile_name(profile):
        raise UsageError(f"profile name {profile!r}: use letters, digits, . _ - (at most 64)")
    launcher = write_launcher(
        _launcher_path(home, profile), home=home, profile=profile, launched=launched
    )
    written: list[str] = []
    if sys.platform == "win32" and not user_data_dir:
        written += _install_windows(_selected(browser), launcher)
    elif user_data_dir:
        for directory in manifest_dirs(browser, user_data_dir).values():
            written.append(str(write_manifest(directory, launcher)))
    else:
        import nativemessaging

        master = write_manifest(launcher.parent, launcher)
        for name, directory in manifest_dirs(browser).items():
            directory.mkdir(parents=True, exist_ok=True)
            if name in ("chrome", "chromium"):
                nativemessaging.install([name], str(master))  # the library's own locations
            else:
                write_manifest(directory, launcher)
            written.append(str(directory / f"{HOST_NAME}.json"))
    return {
        "launcher": str(launcher),
        "manifests": written,
        "extension_id": EXTENSION_ID,
        "profile": profile,
    }


def _install_windows(browsers: tuple[str, ...], launcher: Path) -> list[str]:  # pragma: no cover
    import importlib

    import nativemessaging

    winreg: Any = importlib.import_module("winreg")

    manifest_file = write_manifest(launcher.parent, launcher)
    done: list[str] = []
    native = [b for b in browsers if b in ("chrome", "chromium")]
    if native:
        nativemessaging.install(native, str(manifest_file))
        done.append(f"HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\{HOST_NAME}")
    for b in browsers:
        if b in _WIN_KEYS:
            key = f"{_WIN_KEYS[b]}\\{HOST_NAME}"
            winreg.SetValue(winreg.HKEY_CURRENT_USER, key, winreg.REG_SZ, str(manifest_file))
            done.append(f"HKCU\\{key}")
    return done


def uninstall(browser: str = "all", user_data_dir: str | None = None) -> dict[str, Any]:
    removed: list[str] = []
    for directory in manifest_dirs(browser, user_data_dir).values():
        target = directory / f"{HOST_NAME}.json"
        if target.exists():
            target.unlink()
            removed.append(str(target))
    return {"removed": removed}


# ---- doctor -----------------------------------------------------------------------------------


def _check(name: str, ok: bool, detail: str, fix: str = "") -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail, "fix": fix}


def _probe_host(launcher: str) -> tuple[bool, str]:
    """Start the host as Chrome would, in a scratch REINS_HOME; it must open its socket and exit on EOF."""
    with tempfile.TemporaryDirectory(
        prefix="reins-doctor-", dir="/tmp" if os.name != "nt" else None
    ) as tmp:
        env = dict(os.environ, REINS_HOME=tmp)
        try:
            proc = subprocess.Popen(
                [launcher, ORIGIN],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            return False, f"cannot run {launcher}: {exc.strerror}"
        assert proc.stdin is not None
        # The host opens its socket once the extension says which profile it is: say it.
        hello = {"type": "hello", "version": "doctor", "instance": "reins-doctor"}
        try:
            proc.stdin.write(encode_frame(hello, max_size=MAX_FROM_BROWSER))
            proc.stdin.flush()
        except OSError:
            pass  # it exited already: reported below
        # A launcher written for a profile names its own socket; any socket means it started.
        sockets = socket_dir(Path(tmp))
        deadline = time.monotonic() + 10
        while (
            time.monotonic() < deadline and proc.poll() is None and not any(sockets.glob("*.sock"))
        ):
            time.sleep(0.05)
        started = any(sockets.glob("*.sock"))
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            return False, "the host did not exit when its input closed"
        if not started:
            err = (proc.stderr.read() if proc.stderr else b"").decode(errors="replace")[-400:]
            return False, f"the host exited ({code}) before opening its socket: {err.strip()}"
        return True, "starts, opens its socket and exits on EOF"


def _probe_mcp() -> tuple[bool, str]:
    """Build `reins mcp`'s server and tool list in a process of its own, as a host would start it
    (`reins mcp --check`: the SDK imports and every tool's schema is made from the table)."""
    argv = [sys.executable, "-m", "reins.cli", "mcp", "--check", "--json"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"`reins mcp --check` did not run: {exc}"
    try:
        summary = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        summary = {}
    if done.returncode != 0 or not summary.get("tools"):
        return (
            False,
            f"`reins mcp --check` failed ({done.returncode}): {done.stderr.strip()[-400:]}",
        )
    exe = shutil.which("reins")
    where = (
        f"hosts start `{exe} mcp`"
        if exe
        else f"reins is not on PATH: give hosts the full path, {Path(sys.executable).parent / 'reins'}"
    )
    return True, f"{len(summary['tools'])} tools, MCP SDK {summary.get('sdk')}; {where}"


def doctor(
    browser: str = "all", user_data_dir: str | None = None, *, profile: str | None = None
) -> dict[str, Any]:
    checks: list[dict[str, Any]] = []
    dirs = manifest_dirs(browser, user_data_dir)
    found = {
        b: d / f"{HOST_NAME}.json" for b, d in dirs.items() if (d / f"{HOST_NAME}.json").exists()
    }
    install_cmd = "reins install" + (f" --user-data-dir {user_data_dir}" if user_data_dir else "")
    checks.append(
        _check(
            "manifest",
            bool(found),
            ", ".join(f"{b}: {p}" for b, p in found.items()) or "no host manifest found",
            install_cmd,
        )
    )
    manifest: dict[str, Any] = {}
    if found:
        path = next(iter(found.values()))
        try:
            manifest = json.loads(path.read_text())
            good = (
                manifest.get("name") == HOST_NAME
                and manifest.get("type") == "stdio"
                and os.path.isabs(str(manifest.get("path", "")))
            )
            checks.append(_check("manifest content", good, f"{path}", install_cmd))
        except (OSError, json.JSONDecodeError) as exc:
            checks.append(_check("manifest content", False, f"{path}: {exc}", install_cmd))
    launcher = str(manifest.get("path", ""))
    if manifest:
        runnable = os.path.isfile(launcher) and os.access(launcher, os.X_OK)
        checks.append(_check("launcher", runnable, launcher or "missing", install_cmd))
        origins = manifest.get("allowed_origins") or []
        checks.append(
            _check("allowed origin", ORIGIN in origins, ", ".join(origins) or "none", install_cmd)
        )
        if runnable:
            ok, detail = _probe_host(launcher)
            checks.append(
                _check("host start", ok, detail, "reinstall reins in this Python: pip install -e .")
            )
    from reins.bridge.client import live_profiles, request

    names = live_profiles()
    connected = False
    detail = "no browser connected (no live host socket under " + str(reins_home() / "run") + ")"
    answer: dict[str, Any] = {}
    if names:
        try:
            answer = request(
                "status",
                profile=profile or (names[0] if len(names) == 1 else None),
                timeout_ms=3000,
            )
            connected = bool(answer.get("ok") and answer.get("connected"))
            detail = f"profiles: {', '.join(names)}; connected: {connected}"
        except ReinsError as exc:
            detail = exc.message
    checks.append(
        _check(
            "extension connected",
            connected,
            detail,
            f"load the unpacked extension (chrome://extensions → Developer mode → Load unpacked → "
            f"{_extension_dir()}), then reopen the browser; extension id {EXTENSION_ID}",
        )
    )
    if connected:
        from reins.bridge.protocol import EXTENSION_FEATURES

        said = (answer.get("extension") or {}).get("features") or []
        missing = [f for f in EXTENSION_FEATURES if f not in said]
        checks.append(
            _check(
                "extension up to date",
                not missing,
                "it does "
                + (", ".join(said) or "none of the newer features")
                + (f"; this reins also uses {', '.join(missing)}" if missing else ""),
                "Chrome keeps running the extension code it started with: press reload on reins "
                "in chrome://extensions (a `reins launch` profile: `reins shutdown`, then "
                "`reins launch`)",
            )
        )
    ok, detail = _probe_mcp()
    checks.append(
        _check(
            "mcp server",
            ok,
            detail,
            "install reins with its dependencies in this Python (pip install -e .)",
        )
    )
    healthy = all(c["ok"] for c in checks)
    first = next((c for c in checks if not c["ok"]), None)
    return {"healthy": healthy, "checks": checks, "first_failure": first}


def _extension_dir() -> Path:
    env = os.environ.get("REINS_EXTENSION_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "extension"


def extension_dir() -> Path:
    path = _extension_dir()
    if not (path / "manifest.json").exists():
        raise UsageError(f"the reins extension is not at {path}; set REINS_EXTENSION_DIR")
    return path
