"""The reins host process: started by Chrome through native messaging, lives as long as the port.

This module is the process entry (``python -m reins._host ORIGIN``) and the dispatcher: each
request from the control socket is validated against its command's argument model, given one
deadline, run through the command's policy gates (connected and not paused, the dialog gate, the
unresponsive-tab probe) and answered once. On stdin EOF (or SIGTERM/SIGINT/SIGHUP) the host removes
its socket and exits.

The host opens its socket only once the extension has said ``hello``: the socket is named after the
browser profile, which the extension's id for it tells (``reins.bridge.names``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reins import __version__, _platform
from reins._errors import BrowserError, ConnectionFailure, DeadlineExceeded, ReinsError, UsageError
from reins._paths import (
    control_path,
    ensure_private_dir,
    open_private_append,
    reins_home,
    socket_dir,
)
from reins.bridge.client import host_alive, socket_alive
from reins.bridge.command import Command
from reins.bridge.context import CommandContext, Host
from reins.bridge.current import CurrentTab
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink
from reins.bridge.memory import tune_allocator
from reins.bridge.names import claim_name
from reins.bridge.native import NativePort
from reins.bridge.protocol import Request, validate_args
from reins.bridge.server import ControlServer
from reins.commands.table import all_commands
from reins.page.dialogs import DIALOG_EVENTS, DialogWatch
from reins.page.gates import arm_page
from reins.page.health import probe_if_suspect
from reins.trace.recorder import record

__all__ = ["Dispatcher", "main"]

log = logging.getLogger("reins.host")

# An answer may arrive this much after the deadline at most (serialization, the event loop).
_LATE_MS = 0.2
# A new host for a profile whose previous host still answers waits this long for it to go (Chrome
# ends a host whose port closed after 2 s), then takes the socket over.
_TAKEOVER_WAIT_S = 3.0


@dataclass
class Dispatcher:
    """Runs requests against the command table, one deadline each."""

    host: Host
    table: dict[str, Command[Any]]
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def dispatch(self, request: Request) -> dict[str, Any]:
        # While a trace runs, every command is recorded as a step (reins/trace/recorder.py).
        return await record(self.host, request, self.table.get(request.cmd), self._answer)

    async def _answer(self, request: Request) -> dict[str, Any]:
        started = time.monotonic()
        name = request.cmd
        stats = self.host.stats
        try:
            result = await self._run(request)
        except ReinsError as exc:
            stats.record(name, time.monotonic() - started, exc.code)
            raise
        except asyncio.CancelledError:
            stats.record(name, time.monotonic() - started, "aborted")
            raise
        except Exception as exc:  # a bug: answer it typed, keep serving
            log.exception("command %s failed unexpectedly", name)
            stats.record(name, time.monotonic() - started, "internal")
            raise ReinsError(f"{name}: internal error {type(exc).__name__}: {exc}") from exc
        stats.record(name, time.monotonic() - started, None)
        return result

    async def _run(self, request: Request) -> dict[str, Any]:
        cmd = self.table.get(request.cmd)
        if cmd is None:
            raise UsageError(f"unknown command {request.cmd!r}", code="unknown_command")
        args = validate_args(cmd.args, request.args)
        deadline = Deadline.after_ms(
            request.timeout_ms if request.timeout_ms is not None else cmd.timeout_ms
        )
        host = self.host
        tab_id: int | None = None
        if cmd.needs_tab:
            if not host.link.connected.is_set():
                raise ConnectionFailure("the extension is not connected to this host")
            if host.link.paused:
                raise BrowserError("reins is paused in the extension popup", code="paused")
            tab_id = request.tab if request.tab is not None else await host.default_tab(deadline)
        if tab_id is not None:
            host.refuse_closed(tab_id)
        ctx = CommandContext(host, deadline, tab_id, request)
        gates = await arm_page(ctx, cmd)
        if tab_id is not None and cmd.probe:
            await probe_if_suspect(ctx)
        try:
            return await asyncio.wait_for(
                gates.run(ctx, cmd, args), deadline.remaining() + _LATE_MS
            )
        except TimeoutError:
            self._mark_suspect(cmd, tab_id)
            raise DeadlineExceeded(
                f"{request.cmd}: the {deadline.budget_ms} ms budget ran out"
            ) from None
        except (DeadlineExceeded, asyncio.CancelledError):
            self._mark_suspect(cmd, tab_id)
            raise

    def _mark_suspect(self, cmd: Command[Any], tab_id: int | None) -> None:
        """The next command on this tab probes it first (`tab_unresponsive`). Only a command that
        runs on the page's main thread (one that is probed) can tell that thread is blocked: a
        navigation that timed out is a slow page, not a blocked one."""
        if tab_id is not None and cmd.probe:
            self.host.tab(tab_id).suspect = True


# ---- process entry point -----------------------------------------------------------------------


def _pick_profile(requested: str, home: Path) -> str:
    """For an extension too old to say which profile it is: keep a live host's socket (a second
    host for the same name takes ``name-2``, ``name-3``…)."""
    for n in range(1, 50):
        name = requested if n == 1 else f"{requested}-{n}"
        path = control_path(name, home)
        if not path.exists():
            return name
        if not socket_alive(path):
            path.unlink(missing_ok=True)  # left by a host that died
            return name
    raise UsageError(f"too many live hosts named {requested}")


def _name_profile(link: ExtensionLink, home: Path, wanted: str | None, launched: bool) -> str:
    instance = link.hello.instance if link.hello else None
    if instance is None:
        return _pick_profile(wanted or "default", home)
    return claim_name(
        home,
        instance=instance,
        wanted=wanted,
        launched=launched,
        is_live=lambda name: host_alive(name, home),
    )


async def _leave_to_us(profile: str, home: Path) -> None:
    """The profile's previous host (its port closed) is on its way out: give it a moment."""
    loop = asyncio.get_running_loop()
    deadline = time.monotonic() + _TAKEOVER_WAIT_S
    while time.monotonic() < deadline and await loop.run_in_executor(
        None, host_alive, profile, home
    ):
        await asyncio.sleep(0.1)


def _log_to(path: Path) -> None:
    stream = os.fdopen(open_private_append(path), "a", encoding="utf-8")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


async def _serve(home: Path, wanted: str | None, launched: bool) -> None:
    loop = asyncio.get_running_loop()
    eof = asyncio.Event()
    link = ExtensionLink(send=lambda m: port.send(m))
    port = NativePort(loop, link.receive, eof.set)
    # Chrome closes stdin when the port goes; a browser shut down as a process group sends
    # SIGTERM instead (POSIX). Either way: remove the socket and exit.
    for signum in _platform.stop_signals():
        loop.add_signal_handler(signum, eof.set)
    port.start()
    eof_wait = asyncio.ensure_future(eof.wait())
    hello_wait = asyncio.ensure_future(link.connected.wait())
    await asyncio.wait({eof_wait, hello_wait}, return_when=asyncio.FIRST_COMPLETED)
    hello_wait.cancel()
    if eof.is_set():
        eof_wait.cancel()
        port.close()
        log.info("host %s: the browser left before saying hello", os.getpid())
        return
    profile = await loop.run_in_executor(None, _name_profile, link, home, wanted, launched)
    _log_to(home / "logs" / f"host-{profile}.log")
    session = link.browser_run
    current = CurrentTab.load(
        ensure_private_dir(home / "tabs") / f"{profile}.json", session, launched=launched
    )
    host = Host(
        profile,
        home,
        link,
        launched=launched,
        current=current,
        adopted=dict.fromkeys(DIALOG_EVENTS, DialogWatch),
    )
    dispatcher = Dispatcher(host, all_commands())
    port.send(
        {"type": "host_hello", "version": __version__, "profile": profile, "launched": launched}
    )
    await _leave_to_us(profile, home)
    server = ControlServer(
        control_path(profile, home),
        dispatcher.dispatch,
        answered=host.answered,
        transport=_platform.transport(),
    )
    await server.start()
    log.info(
        "host %s for profile %s (%s) listening on %s",
        os.getpid(),
        profile,
        "launched" if launched else "own",
        server.path,
    )
    stopper = asyncio.ensure_future(dispatcher.stop.wait())
    try:
        await asyncio.wait({stopper, eof_wait}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        eof_wait.cancel()
        link.disconnected()
        await server.close()
        host.release_held()  # what was held for an answer is written before the worker stops
        port.close()
        log.info("host %s stopped", os.getpid())


def main(argv: list[str] | None = None) -> int:
    """Entry point of the native host (``python -m reins._host chrome-extension://ID/``).

    The launcher says which name it was installed for (``REINS_PROFILE``) and whether ``reins
    launch`` started the browser (``REINS_LAUNCHED=1``: every tab in it is reins's)."""
    argv = list(sys.argv if argv is None else argv)
    tune_allocator()
    home = reins_home()
    ensure_private_dir(home)
    ensure_private_dir(socket_dir(home))
    logs = ensure_private_dir(home / "logs")
    _log_to(logs / "host.log")  # until the extension says which profile this is
    log.info("started by %s", argv[1:] or "hand")
    wanted = os.environ.get("REINS_PROFILE") or None
    launched = os.environ.get("REINS_LAUNCHED") == "1"
    try:
        asyncio.run(_serve(home, wanted, launched))
    except ReinsError as exc:
        log.error("host could not start: %s", exc.message)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
