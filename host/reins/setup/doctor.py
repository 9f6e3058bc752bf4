"""`reins doctor`: each link from the browser to reins checked in turn — the registration the
browser reads (``setup/install.registrations_read``), the manifest, the launcher, the host's start,
the extension's files to load (``setup/extension.extension_state``), its connection and version —
and the MCP front end as an MCP client would start it. A Flatpak's registration adds its
permission to start the host outside the sandbox. Before them, what no registration can fix: a
browser that is a Snap here (it cannot start the host), and the managed policies of the selected
browsers that block the host, the extension or the debugger, each named (``policy_findings``, fed
by ``read_policies``)."""

from __future__ import annotations

import getpass
import json
import os
import plistlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reins import _platform
from reins._errors import ReinsError
from reins._paths import EXTENSION_ID, HOST_NAME, reins_home, socket_dir
from reins.bridge.framing import MAX_FROM_BROWSER, encode_frame
from reins.setup.browsers import (
    FLATPAKS,
    POLICIES,
    PolicySource,
    flatpak_launcher,
    flatpak_override_command,
    flatpak_talk_granted,
    is_installed,
    select,
    snap_of_profile,
    snaps_refused,
)
from reins.setup.extension import extension_state
from reins.setup.install import (
    ORIGIN,
    launcher_runnable,
    registrations_read,
    snap_refusal,
)

__all__ = ["doctor", "policy_findings", "read_policies"]


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
        # A launcher written for a profile names its own control file (a socket, or a tcp host's
        # endpoint file); any such file means it started.
        sockets = socket_dir(Path(tmp))

        def listening() -> bool:
            return any(p.suffix in (".sock", ".tcp") for p in sockets.glob("[!.]*"))

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None and not listening():
            time.sleep(0.05)
        started = listening()
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


def _snap_check(browser: str, user_data_dir: str | None) -> dict[str, Any] | None:
    """A failing check naming the selected browsers that are Snaps here (install refuses them
    with the same words), or None when there is none."""
    system = _platform.os_name()
    if system != "linux":
        return None
    if user_data_dir:
        name = snap_of_profile(Path(user_data_dir))
        snaps = {name: Path(user_data_dir).expanduser().absolute()} if name else {}
    else:
        snaps = snaps_refused(select(browser), system)
    if not snaps:
        return None
    refusal = snap_refusal(snaps)
    return _check("snap", False, str(refusal.args[0]), refusal.hint)


# ---- managed policies ------------------------------------------------------------------------

# List policies reins reads, each with the older name Chrome still honours; on Windows each is a
# subkey of the policy key whose values are its items.
_LISTS = {
    "NativeMessagingBlocklist": "NativeMessagingBlacklist",
    "NativeMessagingAllowlist": "NativeMessagingWhitelist",
    "ExtensionInstallBlocklist": "ExtensionInstallBlacklist",
    "ExtensionInstallAllowlist": "ExtensionInstallWhitelist",
}

Policies = dict[str, tuple[object, str]]  # policy name -> (value, where it was read)


def _value(policies: Mapping[str, object], name: str) -> tuple[str, object]:
    """The policy by its name, else by its older name: (the name it was set under, its value)."""
    for key in (name, _LISTS.get(name, "")):
        if key in policies:
            return key, policies[key]
    return name, None


def _items(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list | tuple) else []


def _blocked(
    policies: Mapping[str, object], kind: str, ours: str, consequence: str
) -> tuple[str, str] | None:
    """``{kind}Blocklist`` listing ``*`` or ``ours`` while ``{kind}Allowlist`` does not list
    ``ours``: the policy's name and what it does to reins, else None."""
    block_name, block = _value(policies, f"{kind}Blocklist")
    allow_name, allow = _value(policies, f"{kind}Allowlist")
    blocked = [item for item in ("*", ours) if item in _items(block)]
    if not blocked or ours in _items(allow):
        return None
    listed = " and ".join(repr(b) for b in blocked)
    return block_name, f"lists {listed} and {allow_name} does not list {ours}: {consequence}"


def policy_findings(policies: Mapping[str, object]) -> list[tuple[str, str]]:
    """What in a browser's forced policies stops reins: (the policy's name, why), in the order a
    user meets them (the host, the extension, the debugger). Plain data in, nothing read here."""
    out: list[tuple[str, str]] = []
    user_level = policies.get("NativeMessagingUserLevelHosts")
    if user_level is not None and not isinstance(user_level, str) and user_level == 0:
        out.append(
            (
                "NativeMessagingUserLevelHosts",
                "is false: the browser reads no per-user host manifest, and reins registers per "
                "user",
            )
        )
    for kind, ours, consequence in (
        ("NativeMessaging", HOST_NAME, "the browser will not start reins's host"),
        ("ExtensionInstall", EXTENSION_ID, "the browser will not load the reins extension"),
    ):
        found = _blocked(policies, kind, ours, consequence)
        if found is not None:
            out.append(found)
    tools = policies.get("DeveloperToolsAvailability")
    if not isinstance(tools, str) and tools == 2:
        out.append(
            (
                "DeveloperToolsAvailability",
                "is 2 (developer tools disallowed), which also blocks chrome.debugger: reins "
                "cannot drive a page",
            )
        )
    mode = policies.get("ExtensionDeveloperModeSettings")
    if not isinstance(mode, str) and mode == 1:
        out.append(
            (
                "ExtensionDeveloperModeSettings",
                "is 1 (developer mode forbidden): the unpacked reins extension cannot be loaded",
            )
        )
    return out


def read_policies(source: PolicySource, system: _platform.OsName) -> tuple[Policies, list[str]]:
    """The policies forced on a browser (name -> value and where it was read), and the sources
    that could not be read. Linux: every file of the managed folder, as JSON, merged in name
    order; macOS: the machine's managed preferences, then this user's over them; Windows: HKCU's
    policy key, then HKLM's over it (the machine's win)."""
    out: Policies = {}
    problems: list[str] = []
    root = Path(_platform.system_root())
    if system == "win32":
        registry = _platform.current_registry()
        for machine in (False, True):
            where = f"{'HKLM' if machine else 'HKCU'}\\{source.windows}"
            for name, value in registry.read_values(source.windows, machine=machine).items():
                out[name] = (value, where)
            for name in (*_LISTS, *_LISTS.values()):
                items = registry.read_values(f"{source.windows}\\{name}", machine=machine)
                if items:
                    ordered = [items[k] for k in sorted(items, key=_list_index)]
                    out[name] = (ordered, f"{where}\\{name}")
        return out, problems
    if system == "darwin":
        base = root / "Library" / "Managed Preferences"
        files = [base / f"{source.mac}.plist", base / getpass.getuser() / f"{source.mac}.plist"]
    else:
        folder = root / source.linux
        files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    for path in files:
        if not path.is_file():
            continue
        try:
            with path.open("rb") as handle:
                data = plistlib.load(handle) if system == "darwin" else json.load(handle)
        except (OSError, ValueError, plistlib.InvalidFileException) as exc:
            problems.append(f"{path}: {exc}")
            continue
        if not isinstance(data, dict):
            problems.append(f"{path}: not a dictionary of policies")
            continue
        for name, value in data.items():
            out[str(name)] = (value, str(path))
    return out, problems


def _list_index(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def _policy_check(browser: str) -> dict[str, Any] | None:
    """A check of the policies forced on the selected browsers found here (all selected when none
    is found), or None when no policy is set for any of them."""
    system = _platform.os_name()
    rows = select(browser)
    rows = tuple(r for r in rows if is_installed(r, system)) or rows
    sources: dict[PolicySource, list[str]] = {}
    for row in rows:
        if row.name in POLICIES:
            sources.setdefault(POLICIES[row.name], []).append(row.name)
    findings: list[str] = []
    read: list[str] = []
    for source, names in sources.items():
        policies, problems = read_policies(source, system)
        findings += problems
        read += list(dict.fromkeys(where for _, where in policies.values()))
        values = {name: value for name, (value, _) in policies.items()}
        label = ", ".join(dict.fromkeys(name for name in names))
        for name, why in policy_findings(values):
            findings.append(f"{label}: policy {name} {why} (set in {policies[name][1]})")
    if not findings and not read:
        return None
    return _check(
        "policies",
        not findings,
        "; ".join(findings) or f"read {', '.join(read)}: no policy blocks reins",
        "these policies are set by whoever manages this computer: ask them to allow the reins "
        f"host ({HOST_NAME}), the extension ({EXTENSION_ID}) and developer mode; reins does not "
        "work around a policy",
    )


def doctor(
    browser: str = "all", user_data_dir: str | None = None, *, profile: str | None = None
) -> dict[str, Any]:
    checks: list[dict[str, Any]] = []
    snap = _snap_check(browser, user_data_dir)
    if snap is not None:
        checks.append(snap)
    policies = _policy_check(browser)
    if policies is not None:
        checks.append(policies)
    found = registrations_read(browser, user_data_dir)
    install_cmd = "reins install" + (f" --user-data-dir {user_data_dir}" if user_data_dir else "")
    checks.append(
        _check(
            "manifest",
            bool(found),
            "; ".join(f"{b}: {w}" for b, (w, _) in found.items()) or "no host manifest found",
            install_cmd,
        )
    )
    flatpaks = [app for app in FLATPAKS if app.name in found]
    if flatpaks:
        denied = [app for app in flatpaks if not flatpak_talk_granted(app.app_id)]
        checks.append(
            _check(
                "flatpak permission",
                not denied,
                "; ".join(
                    f"{app.app_id}: "
                    + ("may not" if app in denied else "may")
                    + " start the host outside its sandbox (talk to org.freedesktop.Flatpak)"
                    for app in flatpaks
                ),
                "; ".join(flatpak_override_command(app.app_id) for app in denied)
                + ", then restart the browser",
            )
        )
    manifests: dict[Path, dict[str, Any]] = {}
    unreadable: list[str] = []
    for path in dict.fromkeys(p for _, p in found.values()):
        try:
            manifests[path] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            unreadable.append(f"{path}: {exc}")
    if found:
        bad = [
            str(p)
            for p, m in manifests.items()
            if not (
                m.get("name") == HOST_NAME
                and m.get("type") == "stdio"
                and os.path.isabs(str(m.get("path", "")))
            )
        ]
        detail = "; ".join(unreadable + [f"{p}: wrong name, type or path" for p in bad])
        checks.append(
            _check(
                "manifest content",
                not unreadable and not bad,
                detail or ", ".join(str(p) for p in manifests),
                install_cmd,
            )
        )
    if manifests:
        launchers = list(dict.fromkeys(str(m.get("path", "")) for m in manifests.values()))
        # A Flatpak's manifest names the wrapper that starts the launcher on the host.
        host_side = {path: flatpak_launcher(Path(path)) or path for path in launchers}
        runnable = [
            path
            for path in launchers
            if launcher_runnable(path) and launcher_runnable(host_side[path])
        ]
        checks.append(
            _check(
                "launcher",
                len(runnable) == len(launchers),
                ", ".join(
                    (path or "missing")
                    + (f" (starts {host_side[path]})" if host_side[path] != path else "")
                    for path in launchers
                ),
                install_cmd,
            )
        )
        origins = [list(m.get("allowed_origins") or []) for m in manifests.values()]
        checks.append(
            _check(
                "allowed origin",
                all(ORIGIN in o for o in origins),
                "; ".join(", ".join(o) or "none" for o in origins),
                install_cmd,
            )
        )
        if runnable:
            probes = [_probe_host(path) for path in dict.fromkeys(host_side[p] for p in runnable)]
            checks.append(
                _check(
                    "host start",
                    all(ok for ok, _ in probes),
                    "; ".join(detail for _, detail in probes),
                    "reinstall reins in this Python: pip install -e .",
                )
            )
    files = extension_state()
    checks.append(_check("extension files", files.ok, files.detail, files.fix))
    from reins.bridge.client import live_profiles, request

    names = live_profiles()
    connected = False
    detail = (
        "no browser connected (no live host socket or endpoint under "
        + str(reins_home() / "run")
        + ")"
    )
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
            f"{files.load_from}), then reopen the browser; extension id {EXTENSION_ID}",
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
