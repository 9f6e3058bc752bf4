"""The warm CLI: a process that has the CLI imported, and a copy of itself per command.

A command's whole-process time is mostly the interpreter starting and importing the CLI (~30 ms
here, `docs/benchmarks.md`), not the request. The small compiled client (``warmclient.c``, the
``reins`` executable of a build with a C compiler) starts in about a millisecond and hands its
arguments, environment, working folder, umask and its three standard streams (the descriptors
themselves, over the Unix socket) to this process's spare — a fork made ahead of time, waiting
on the socket with its signals and its watch on the client set up; the server forks the next
spare as soon as one takes a client — and the spare becomes the command —
the same Python code the console script runs (``reins.cli.console``), on the caller's own
terminal or pipes — and sends back its exit code. So the warm path parses, answers and fails
exactly as the console script does: it is the console script, started early.

The socket is ``<REINS_HOME>/warm/<install>.sock`` (a private folder beside the host sockets'
``run``; the install is a hash of the client's folder, so two installs never share a server),
0600 from the start, and a peer of another uid is refused. The server exits (its spare with it)
when its socket is gone or taken over, after ``IDLE_S`` without a command, a minute after the
last host of its REINS_HOME stopped, and answers ``stale`` (the
client then runs the console script, which starts a fresh server) once any of the reins modules
it imported has changed on disk — an upgrade or an edit never runs old code.

Wire (client → server): one message, ``u32 length`` then NUL-separated fields — the argument
count, the arguments, the environment count, ``KEY=VALUE`` entries, the working folder, the umask
in octal — with descriptors 0, 1, 2 attached (SCM_RIGHTS). Server → client: ``b"S"`` (stale: run
the console script), or ``b"F"`` + u32 pid, then ``b"X"`` + i32 exit code from the command (negative: the
signal the command ended by, which the client raises on itself).
Client → command, while it runs: one byte, a signal number to raise in the command (Ctrl-C
reaches the client, the foreground process); the client gone means SIGHUP.
"""

from __future__ import annotations

import array
import os
import signal
import socket
import struct
import sys
import threading
import time
from typing import NoReturn

# POSIX only (fork, descriptor passing): on Windows the console script is `reins` (setup.py)
# and nothing imports this module; mypy's Windows pass reads no further.
assert sys.platform != "win32"

__all__ = ["IDLE_S", "main", "serve"]

IDLE_S = 900.0  # a server no command reached for 15 minutes exits
NO_HOST_IDLE_S = 60.0  # …or for a minute while no host runs in its REINS_HOME (after shutdown)
_MAX_MESSAGE = 1 << 20
_CHECK_S = 1.0


def _imported_files() -> list[tuple[str, int]]:
    """(file, mtime) of every reins module this process imported, and the command table."""
    out: list[tuple[str, int]] = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and (name == "reins" or name.startswith("reins.")):
            try:
                out.append((path, os.stat(path).st_mtime_ns))
            except OSError:
                out.append((path, -1))
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    table = os.path.join(here, "_generated", "table.json")
    try:
        out.append((table, os.stat(table).st_mtime_ns))
    except OSError:
        pass
    return out


def _changed(files: list[tuple[str, int]]) -> bool:
    for path, mtime in files:
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return True
        except OSError:
            if mtime != -1:
                return True
    return False


def _preload() -> None:
    """Import what any command may need, so a forked child imports nothing (or little)."""
    import click  # noqa: F401

    import reins._pagetext  # noqa: F401
    import reins.bridge.client  # noqa: F401
    import reins.cli.contract  # noqa: F401
    import reins.cli.fast  # noqa: F401
    import reins.cli.group  # noqa: F401
    import reins.cli.render  # noqa: F401
    from reins.cli import fast

    fast._table()  # read once here, for every child


def _listen(path: str) -> socket.socket:
    tmp = f"{path}.{os.getpid()}"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(tmp)
    finally:
        os.umask(old)
    sock.listen(64)
    os.replace(tmp, path)
    return sock


def _peer_ok(conn: socket.socket) -> bool:
    if hasattr(socket, "SO_PEERCRED"):
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", creds)[1]) == os.getuid()
    return True  # macOS: the 0700 run folder is the guard (as for the host's socket)


def _receive(conn: socket.socket) -> tuple[bytes, list[int]] | None:
    """The client's one message and its descriptors, or None when it is not one."""
    fds = array.array("i")
    data = b""
    want: int | None = None
    conn.settimeout(2.0)  # the client sends at once; a stuck one holds the others up this long
    while want is None or len(data) < want + 4:
        chunk, ancdata, _flags, _addr = conn.recvmsg(65536, socket.CMSG_LEN(3 * fds.itemsize))
        if not chunk:
            break
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % fds.itemsize
                fds.frombytes(payload[:usable])
        data += chunk
        if want is None and len(data) >= 4:
            want = struct.unpack("<I", data[:4])[0]
            if want > _MAX_MESSAGE:
                break
    conn.settimeout(None)
    if want is None or len(data) < want + 4 or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None
    return data[4 : 4 + want], list(fds)


def _fields(body: bytes) -> tuple[list[str], dict[str, str], str, int]:
    parts = body.split(b"\0")
    pos = 0

    def take() -> bytes:
        nonlocal pos
        pos += 1
        return parts[pos - 1]

    argv = [os.fsdecode(take()) for _ in range(int(take()))]
    env: dict[str, str] = {}
    for _ in range(int(take())):
        key, _eq, value = os.fsdecode(take()).partition("=")
        if key:
            env[key] = value
    cwd = os.fsdecode(take())
    umask = int(take(), 8)
    return argv, env, cwd, umask


def _streams() -> None:
    """New sys.stdin/stdout/stderr over descriptors 0-2 (now the client's), buffered as a fresh
    interpreter would buffer them: a terminal by line, anything else by block."""
    enc = os.environ.get("PYTHONIOENCODING", "utf-8").split(":")[0] or "utf-8"
    sys.stdin = open(0, encoding=enc, closefd=False)  # noqa: SIM115
    sys.stdout = open(  # noqa: SIM115
        1, "w", buffering=1 if os.isatty(1) else -1, encoding=enc, closefd=False
    )
    sys.stderr = open(  # noqa: SIM115
        2, "w", buffering=1, encoding=enc, errors="backslashreplace", closefd=False
    )


class _Watch:
    """In the command: a byte from the client is a signal to raise; the client gone, SIGHUP.
    Raised in the main thread, as a terminal's Ctrl-C lands: a blocking call there is
    interrupted (a signal taken by this thread would wait for the main thread to wake). Its
    thread starts in the spare, before there is a client: off the command's path."""

    def __init__(self) -> None:
        self._main = threading.main_thread().ident or threading.get_ident()
        self._conn: socket.socket | None = None
        self._given = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def begin(self, conn: socket.socket) -> None:
        self._conn = conn
        self._given.set()

    def _run(self) -> None:
        self._given.wait()
        assert self._conn is not None
        while True:
            try:
                data = self._conn.recv(16)
            except OSError:
                data = b""
            if not data:
                signal.pthread_kill(self._main, signal.SIGHUP)
                return
            for number in data:
                if number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
                    signal.pthread_kill(self._main, number)


def _as_a_command() -> _Watch:
    """A forked child made ready to become a command: signals as a fresh interpreter has them,
    and the watch on its client."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    return _Watch()


def _environ(env: dict[str, str]) -> None:
    """``os.environ`` made ``env``, touching only what differs (the caller's environment is
    mostly the one the warm CLI was started with: each change is a putenv)."""
    for key in [k for k in os.environ if k not in env]:
        del os.environ[key]
    for key, value in env.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def _command(conn: socket.socket, body: bytes, fds: list[int], watch: _Watch) -> NoReturn:
    """The forked child: become the command the client asked for, then send its exit code."""
    code = 1
    try:
        argv, env, cwd, umask = _fields(body)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _environ(env)
        os.chdir(cwd)
        os.umask(umask)
        _streams()
        conn.sendall(b"F" + struct.pack("<I", os.getpid()))
        watch.begin(conn)
        sys.argv = ["reins", *argv]
        from reins.cli import console

        try:
            console()
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            # Python ends an uncaught Ctrl-C by SIGINT: the client raises it on itself.
            code = -int(signal.SIGINT)
    except BaseException:  # noqa: BLE001 - the command's own crash, shown as Python shows it
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            conn.sendall(b"X" + struct.pack("<i", code))
        except OSError:
            pass
        os._exit(1 if code < 0 else code & 0xFF)


def serve(path: str, *, idle_s: float = IDLE_S) -> None:
    """Listen at ``path`` until idle, replaced, or stale. The fork is made ahead of the command:
    a spare child waits on the socket, takes the next client and tells this process, which forks
    the next spare while the first becomes the command."""
    import select
    from pathlib import Path

    from reins._paths import ensure_private_dir

    ensure_private_dir(Path(path).parent)
    _preload()
    files = _imported_files()
    sock = _listen(path)
    mine = os.stat(path)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    took_r, took_w = os.pipe()
    last = time.monotonic()
    import gc

    gc.freeze()  # the children share the imported modules' pages instead of copying them
    spare = _fork_spare(sock, took_w, files)
    while True:
        if select.select([took_r], [], [], _CHECK_S)[0]:
            taken = os.read(took_r, 64)
            last = time.monotonic()
            if b"S" in taken:  # a spare found changed code: it answered stale
                _end(spare, sock, path, mine)
                return
            spare = _fork_spare(sock, took_w, files)
            continue
        try:
            now = os.stat(path)
        except OSError:
            _end(spare, sock, path, mine)  # the socket (or the whole REINS_HOME) was removed
            return
        if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
            _end(spare, sock, path, mine)  # a newer server took the path
            return
        idle = time.monotonic() - last
        if idle > idle_s or (idle > NO_HOST_IDLE_S and not _host_runs(path)) or _changed(files):
            _end(spare, sock, path, mine)
            return


def _fork_spare(sock: socket.socket, took: int, files: list[tuple[str, int]]) -> int:
    """A child that takes the next client: it writes ``T`` to ``took`` once it has one (``S``
    after answering stale), then becomes that client's command. It ends by itself when this
    process is gone (checked each second)."""
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    watch = _as_a_command()
    sock.settimeout(_CHECK_S)  # only the spares accept: the listening socket is theirs
    while True:
        try:
            conn, _addr = sock.accept()
            break
        except TimeoutError:
            if os.getppid() != parent:
                os._exit(0)
        except OSError:
            os._exit(0)
    os.write(took, b"T")
    sock.close()
    if not _peer_ok(conn):
        os._exit(0)
    got = _receive(conn)
    if got is None:
        os._exit(0)
    body, fds = got
    if _changed(files):
        conn.sendall(b"S")
        os.write(took, b"S")
        os._exit(0)
    _command(conn, body, fds, watch)


def _end(spare: int, sock: socket.socket, path: str, mine: os.stat_result) -> None:
    try:
        os.kill(spare, signal.SIGTERM)
    except ProcessLookupError:
        pass
    _close(sock, path, mine)


def _host_runs(path: str) -> bool:
    """Is there a host's socket or endpoint file in this REINS_HOME's run folder
    (``<home>/warm/x.sock`` → ``<home>/run/*.sock``, ``*.tcp``)?"""
    run = os.path.join(os.path.dirname(os.path.dirname(path)), "run")
    try:
        return any(name.endswith((".sock", ".tcp")) for name in os.listdir(run))
    except OSError:
        return False


def _close(sock: socket.socket, path: str, mine: os.stat_result) -> None:
    sock.close()
    try:
        now = os.stat(path)
        if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
            os.unlink(path)
    except OSError:
        pass


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m reins.cli.warm SOCKET")
    serve(sys.argv[1])


if __name__ == "__main__":
    main()
