"""The compiled `reins` client and the warm CLI it hands commands to (host/reins/cli/warm.py).

Each test builds the client from its source with the machine's C compiler (scripts/bootstrap
installs one) into a folder of its own, beside a `reins-py` that runs the console script, as an
install lays them out. No host runs: what is compared is the CLI's own behaviour — parsing, usage
errors, exit codes, stdout and stderr — which the warm path must give byte for byte as the console
script does. The warm path against a real browser is tests/browser/test_warm_client.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

if not sys.platform.startswith("linux"):
    pytest.skip(
        "the tests find processes in /proc (Linux); the warm CLI itself runs on any POSIX",
        allow_module_level=True,
    )

from reins.cli import warm  # noqa: E402 - POSIX only: not imported where the module is skipped

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "host" / "reins" / "cli" / "warmclient.c"


class Install:
    """A bin folder with the compiled client and its console script, and a REINS_HOME."""

    def __init__(self, tmp: Path, pythonpath: str | None = None) -> None:
        self.bin = tmp / "bin"
        self.bin.mkdir()
        self.home = tmp / "home"
        cc = shutil.which("cc") or shutil.which("gcc")
        assert cc, "no C compiler: scripts/bootstrap installs gcc"
        subprocess.run([cc, "-O2", "-o", str(self.bin / "reins"), str(SOURCE)], check=True)
        self.console = self.bin / "reins-py"
        self.write_console()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("REINS_")} | {
            "REINS_HOME": str(self.home)
        }
        if pythonpath:
            self.env["PYTHONPATH"] = pythonpath

    def write_console(self, marker: Path | None = None) -> None:
        note = f'echo ran >> "{marker}"\n' if marker else ""
        self.console.write_text(f'#!/bin/sh\n{note}exec "{sys.executable}" -m reins.cli "$@"\n')
        self.console.chmod(0o755)

    def run(
        self, *args: str, warm_path: bool = True, cwd: Path | None = None, **env: str
    ) -> tuple[int, str, str]:
        exe = self.bin / "reins" if warm_path else self.console
        done = subprocess.run(
            [str(exe), *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**self.env, **env},
            cwd=cwd,
        )
        return done.returncode, done.stdout, done.stderr

    def sockets(self) -> list[Path]:
        return sorted((self.home / "warm").glob("*.sock"))

    def wait_warm(self) -> Path:
        """Run once (which starts the warm CLI) and wait for its socket."""
        self.run("--help")
        for _ in range(200):
            found = self.sockets()
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError("no warm CLI started")

    def warm_pids(self) -> dict[int, int]:
        """Every process of this home's warm CLI (the server, its spare, commands): pid → ppid."""
        pids = {}
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    cmd = (proc / "cmdline").read_bytes()
                    ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if b"reins.cli.warm" in cmd and str(self.home).encode() in cmd:
                    pids[int(proc.name)] = ppid
        return pids

    def server_pids(self) -> list[int]:
        """The warm CLI's server: the one whose parent is not one of its own."""
        found = self.warm_pids()
        return [pid for pid, ppid in found.items() if ppid not in found]

    def stop(self) -> None:
        for pid in self.warm_pids():
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


@pytest.fixture
def install(tmp_path: Path) -> Iterator[Install]:
    made = Install(tmp_path)
    yield made
    made.stop()


LINES = [
    ["--help"],
    ["click", "--help"],
    ["nosuchcommand"],
    ["click"],
    ["eval", "1+1"],
    ["--json", "status"],
    ["status", "--json"],
    ["state", "--mode", "nosuch"],
    ["fill", "@e1", "x", "--json"],
    ["--timeout-ms", "abc", "eval", "1"],
    ["-h"],
]


@pytest.mark.parametrize("line", LINES, ids=lambda line: " ".join(line))
def test_the_warm_path_answers_as_the_console_script(install: Install, line: list[str]) -> None:
    install.wait_warm()
    assert install.run(*line) == install.run(*line, warm_path=False)


def test_the_first_call_starts_a_private_warm_cli_the_next_ones_use(
    install: Install, tmp_path: Path
) -> None:
    sock = install.wait_warm()
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert len(install.server_pids()) == 1
    # The console script now fails loudly: an answer can only have come from the warm CLI.
    broken = tmp_path / "broken"
    install.console.write_text(f'#!/bin/sh\necho fallback >> "{broken}"; exit 99\n')
    code, out, err = install.run("eval", "1+1")
    assert (code, out) == (3, "") and "no reins host is running" in err
    assert not broken.exists()


def test_environment_folder_and_exit_code_are_the_callers(install: Install, tmp_path: Path) -> None:
    install.wait_warm()
    code, _out, err = install.run("status", REINS_PROFILE="zed")
    assert code == 3 and "no reins host for profile 'zed'" in err
    here = tmp_path / "here"
    here.mkdir()
    (here / "flow.txt").write_text("eval 1\n")
    # The same relative file: found in the folder it is run from (then no host: 3), not elsewhere.
    assert install.run("run", "flow.txt", cwd=here)[0] == 3
    assert install.run("run", "flow.txt", cwd=tmp_path)[0] == 2


def test_standard_input_is_the_callers(install: Install) -> None:
    install.wait_warm()
    done = subprocess.run(
        [str(install.bin / "reins"), "--json", "batch"],
        input="eval 1\nstatus\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=install.env,
    )
    expected = subprocess.run(
        [str(install.console), "--json", "batch"],
        input="eval 1\nstatus\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=install.env,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        expected.returncode,
        expected.stdout,
        expected.stderr,
    )


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out += [int(t) for t in text]
    return out


INITIALIZE = (
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": '
    b'"2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}\n'
)


def _serving(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`reins mcp` started and past its MCP handshake (so in its loop, waiting on stdin)."""
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    assert b'"id":1' in proc.stdout.readline().replace(b" ", b"")
    return proc


def _start_blocked(install: Install) -> tuple[subprocess.Popen[bytes], int]:
    """`reins mcp` through the warm CLI, waiting on a stdin that stays open: (client, command
    pid)."""
    (server,) = install.server_pids()
    client = _serving([str(install.bin / "reins"), "mcp"], install.env)
    # The command is the child on the client's streams (the MCP server moves them about: any of
    # the three); the other one, all /dev/null, is the next spare.
    (command,) = [
        pid
        for pid in _children(server)
        if any(os.readlink(f"/proc/{pid}/fd/{n}") != os.devnull for n in (0, 1, 2))
    ]
    return client, command


def _gone(pid: int, within: float = 10.0) -> bool:
    until = time.monotonic() + within
    while time.monotonic() < until:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_reaches_the_command_and_ends_the_client_alike(
    install: Install, sig: signal.Signals
) -> None:
    install.wait_warm()
    client, command = _start_blocked(install)
    client.send_signal(sig)
    code = client.wait(timeout=10)
    assert _gone(command)
    # The console script, signalled at the same point, ends the same way (by the signal).
    plain = _serving([str(install.console), "mcp"], install.env)
    plain.send_signal(sig)
    assert code == plain.wait(timeout=10) == -sig
    for proc in (client, plain):
        assert proc.stdin
        proc.stdin.close()


def test_a_killed_client_ends_its_command(install: Install) -> None:
    install.wait_warm()
    client, command = _start_blocked(install)
    client.kill()
    client.wait(timeout=10)
    assert _gone(command), "the command outlived its client"
    assert client.stdin
    client.stdin.close()


def test_changed_code_is_never_run_warm(tmp_path: Path) -> None:
    """A module edited (or upgraded) after the warm CLI started: the command runs through the
    console script, and a new warm CLI replaces the old one."""
    copy = tmp_path / "src"
    shutil.copytree(
        ROOT / "host" / "reins", copy / "reins", ignore=shutil.ignore_patterns("__pycache__")
    )
    made = Install(tmp_path, pythonpath=str(copy))
    try:
        made.wait_warm()
        (old,) = made.server_pids()
        marker = tmp_path / "fallback"
        made.write_console(marker)
        assert made.run("eval", "1")[0] == 3 and not marker.exists()
        module = copy / "reins" / "cli" / "render.py"
        later = module.stat().st_mtime_ns + 5_000_000_000
        os.utime(module, ns=(later, later))
        code, _out, err = made.run("eval", "1")
        assert code == 3 and "no reins host" in err
        assert marker.read_text() == "ran\n"
        assert _gone(old)
        for _ in range(200):
            if made.server_pids():
                break
            time.sleep(0.05)
        assert made.server_pids() and made.server_pids() != [old]
    finally:
        made.stop()


def test_no_warm_runs_the_console_script(install: Install, tmp_path: Path) -> None:
    marker = tmp_path / "fallback"
    install.write_console(marker)
    assert install.run("eval", "1", REINS_NO_WARM="1")[0] == 3
    assert marker.read_text() == "ran\n"
    assert install.sockets() == []


def test_a_server_exits_when_its_socket_is_removed_or_idle(tmp_path: Path) -> None:
    home = tmp_path / "h"
    path = home / "warm" / "x.sock"
    script = "import sys; from reins.cli.warm import serve; serve(sys.argv[1], idle_s=float(sys.argv[2]))"
    idle = subprocess.Popen([sys.executable, "-c", script, str(path), "0.5"])
    assert idle.wait(timeout=20) == 0
    assert not path.exists()
    deadline = time.monotonic() + 5  # and its spare went with it

    def left() -> list[str]:
        out = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and str(path).encode() in (proc / "cmdline").read_bytes():
                    out.append(proc.name)
            except OSError:
                continue
        return out

    while left() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left() == []
    kept = subprocess.Popen([sys.executable, "-c", script, str(path), "600"])
    for _ in range(200):
        if path.exists():
            break
        time.sleep(0.05)
    (home / "run").mkdir()
    (home / "run" / "p.sock").touch()  # a host runs: only the idle limit or the socket end it
    time.sleep(1.5)
    assert kept.poll() is None
    path.unlink()
    assert kept.wait(timeout=10) == 0


def test_a_message_without_its_three_streams_or_too_long_is_refused() -> None:
    for payload, fds in (
        (struct.pack("<I", 3) + b"0\0x", []),
        (struct.pack("<I", 1 << 30), [0, 1, 2]),
    ):
        left, right = socket.socketpair()
        with left, right:
            if fds:
                left.sendmsg(
                    [payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("3i", *fds))]
                )
            else:
                left.sendall(payload)
            left.shutdown(socket.SHUT_WR)
            assert warm._receive(right) is None


def test_the_message_fields_read_as_python_reads_argv_and_environ() -> None:
    body = b"2\0eval\0\xff1\0" + b"2\0A=1\0B=x=y\0" + b"/tmp\0" + b"22"
    argv, env, cwd, umask = warm._fields(body)
    assert argv == ["eval", os.fsdecode(b"\xff1")]
    assert env == {"A": "1", "B": "x=y"}
    assert (cwd, umask) == ("/tmp", 0o22)


def test_a_peer_of_another_uid_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated: this suite runs as one user, so the server is told it runs as another."""
    left, right = socket.socketpair()
    with left, right:
        assert warm._peer_ok(right)
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
        assert not warm._peer_ok(right)


def test_the_spare_ends_with_its_server(install: Install) -> None:
    """The fork is made ahead of the command: a spare waits on the socket. It never outlives its
    server, however the server ends (here: SIGKILL, no clean-up at all)."""
    install.wait_warm()
    (server,) = install.server_pids()
    for _ in range(100):
        if _children(server):
            break
        time.sleep(0.05)
    (spare,) = _children(server)
    os.kill(server, signal.SIGKILL)
    assert _gone(server)
    assert _gone(spare, within=5.0), "the spare outlived its server"


def _fnv1a(text: str) -> str:
    value = 1469598103934665603
    for byte in text.encode():
        value = ((value ^ byte) * 1099511628211) % (1 << 64)
    return f"{value:016x}"


_IMPOSTOR = """
import os, socket, sys
folder = os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY)  # reached through, as root
os.setgid(65534); os.setuid(65534)
sock = socket.socket(socket.AF_UNIX)
sock.bind(f"/proc/self/fd/{folder}/{os.path.basename(sys.argv[1])}"); sock.listen(1)
print("up", flush=True)
sock.settimeout(20)
conn, _ = sock.accept()
conn.settimeout(2)
try:
    data = conn.recv(65536)
except OSError:
    data = b""
print("got", len(data), flush=True)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a process as another user")
def test_a_warm_socket_of_another_user_gets_nothing(install: Install, tmp_path: Path) -> None:
    """A REINS_HOME whose warm folder another user controls: the client sends that user's
    process nothing (no arguments, environment or streams) and the console script runs."""
    warm_dir = install.home / "warm"
    warm_dir.mkdir(parents=True)
    os.chown(warm_dir, 65534, 65534)
    path = warm_dir / f"{_fnv1a(str(install.bin))}.sock"
    impostor = subprocess.Popen(
        [sys.executable, "-c", _IMPOSTOR, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert impostor.stdout and impostor.stdout.readline() == "up\n"
    marker = tmp_path / "fallback"
    install.write_console(marker)
    install.run("status", SECRET_TOKEN="hunter2")
    assert marker.read_text() == "ran\n"
    assert impostor.stdout.readline() == "got 0\n"
    impostor.wait(timeout=10)
