"""The keeper of a browser that loads reins over its DevTools pipe (`reins launch --load-via pipe`).

Branded Chrome 137+ ignores ``--load-extension``. It loads an unpacked extension when asked with
``Extensions.loadUnpacked`` over ``--remote-debugging-pipe`` (fd 3 in, fd 4 out, one JSON
message per NUL), and exits within seconds of the other end closing (measured here; see
docs/install.md). So this small process starts the browser with the pipe, sends that one
command, prints its answer as one JSON line for `reins launch`, and then holds the pipe for the
browser's life, reading (and dropping) whatever comes back until the browser closes it. It
writes nothing else to the browser: no other process can reach the pipe, and the keeper sends
one command only.

Run as ``python -m reins.setup.keeper SPEC`` (SPEC: JSON ``{"args": [...], "extension": path,
"timeout_s": n}``), POSIX only: `start_keeper` does that for `reins launch`. Its stdout is the
one line; the browser's output goes to the keeper's stderr (the launch log).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import Any

from reins import _platform

BROWSER_IN = 3  # the browser reads commands here
BROWSER_OUT = 4  # and writes answers here
_HIGH = 10  # where the keeper's own ends wait while the browser's are placed at 3 and 4


def _high(fd: int) -> int:
    # POSIX only (`reins launch` refuses the pipe on Windows first; this refuses it again)
    return _platform.move_fd_above(fd, _HIGH)


def start(args: list[str], stderr: int) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the browser with its pipe ends at fds 3 and 4; the keeper's ends come back."""
    to_browser_r, to_browser_w = (_high(fd) for fd in os.pipe())
    from_browser_r, from_browser_w = (_high(fd) for fd in os.pipe())
    os.dup2(to_browser_r, BROWSER_IN)
    os.dup2(from_browser_w, BROWSER_OUT)
    os.close(to_browser_r)
    os.close(from_browser_w)
    try:
        browser = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
            pass_fds=(BROWSER_IN, BROWSER_OUT),
            start_new_session=True,  # its own group, as `reins launch` starts every browser
        )
    finally:
        os.close(BROWSER_IN)
        os.close(BROWSER_OUT)
    return browser, to_browser_w, from_browser_r


def ask(write_fd: int, read_fd: int, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """Send one message and read the answer that carries its id (events before it are dropped)."""
    os.write(write_fd, json.dumps(message).encode() + b"\0")
    deadline = time.monotonic() + timeout_s
    buffered = b""
    while True:
        while b"\0" in buffered:
            raw, _, buffered = buffered.partition(b"\0")
            try:
                answer = json.loads(raw)
            except ValueError:
                continue
            if isinstance(answer, dict) and answer.get("id") == message["id"]:
                return answer
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_fd], [], [], left)[0]:
            return {"error": {"message": f"no answer within {timeout_s:.0f} s"}}
        chunk = os.read(read_fd, 65536)
        if not chunk:
            return {"error": {"message": "the browser closed its DevTools pipe"}}
        buffered += chunk


def drain(read_fd: int) -> None:
    """Read until the browser closes its end (it exited)."""
    while os.read(read_fd, 65536):
        pass


def main(spec_text: str) -> int:
    spec = json.loads(spec_text)
    browser, write_fd, read_fd = start(list(spec["args"]), sys.stderr.fileno())
    answer = ask(
        write_fd,
        read_fd,
        {"id": 1, "method": "Extensions.loadUnpacked", "params": {"path": spec["extension"]}},
        float(spec.get("timeout_s", 20)),
    )
    line: dict[str, Any] = {"pid": browser.pid}
    if isinstance(answer.get("result"), dict):
        line["id"] = answer["result"].get("id")
    else:
        error = answer.get("error")
        line["error"] = str(error.get("message") if isinstance(error, dict) else error)
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # `reins launch` stops reading: nothing more goes to it
    os.close(devnull)
    drain(read_fd)
    return browser.wait()


def start_keeper(
    args: list[str], extension: str, log_fd: int, timeout_s: float
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """For `reins launch`: start the keeper (in a session of its own, so it outlives the CLI)
    and read its line: ``{"pid", "id"}`` or ``{"pid", "error"}`` (``pid`` absent when the
    keeper died first). The keeper's exit is the browser's: poll it to see the browser go."""
    spec = {"args": args, "extension": extension, "timeout_s": timeout_s}
    keeper = subprocess.Popen(
        [sys.executable, "-m", "reins.setup.keeper", json.dumps(spec)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log_fd,
        start_new_session=True,
    )
    assert keeper.stdout is not None
    out = keeper.stdout.fileno()
    deadline = time.monotonic() + timeout_s + 5
    line = b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([out], [], [], left)[0]:
            break
        chunk = os.read(out, 4096)
        if not chunk:
            break
        line += chunk
    keeper.stdout.close()
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return keeper, {"error": "the keeper of the browser's pipe answered nothing"}
    return keeper, answer


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
