"""The reins host: started by Chrome through native messaging, lives as long as the port.

It owns the control socket, the command table and the per-tab state. On stdin EOF it removes its
socket and exits.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reins import __version__
from reins._bridge import ExtensionLink
from reins._client import socket_alive
from reins._commands import Command
from reins._deadline import DEFAULT_TIMEOUT_MS, Deadline
from reins._dialogs import DialogWatch, watch_dialogs
from reins._errors import BrowserError, ConnectionFailure, DeadlineExceeded, ReinsError, UsageError
from reins._native import NativePort
from reins._paths import ensure_private_dir, reins_home, socket_dir, socket_path
from reins._protocol import CdpEvent, Request, validate_args
from reins._server import ControlServer
from reins._stats import Stats

__all__ = ["CommandContext", "Host", "main"]

log = logging.getLogger("reins.host")

# Commands about tabs rather than a page: they neither watch for dialogs nor attach to the page.
_TAB_MANAGEMENT = frozenset({"tabs", "tab_select", "tab_close"})
# Commands that work while a JavaScript dialog is open (they do not touch the page's thread).
_DIALOG_FREE = frozenset({"dialog", "tab_close", "tab_select", "tab_new", "tabs", "status", "stats",
                          "ping"})
# Commands that may start on a tab showing a page reins does not attach to (chrome://…): they
# can take the tab away from it (the extension's `tabs.navigate`), so no dialog watch there.
_LEAVES_REFUSED_PAGE = frozenset({"navigate"})
# How long a command that saw a dialog open gets to report it as its own effect.
_DIALOG_GRACE_S = 0.3


def _dialog_open(dialog: dict[str, Any]) -> BrowserError:
    kind = dialog.get("type") or "dialog"
    return BrowserError(
        f"a {kind} dialog is open: {dialog.get('message', '')!r}", code="dialog_open",
        hint="answer it: `reins dialog accept [TEXT]` or `reins dialog dismiss`",
        details={"dialog": dialog})


# An answer may arrive this much after the deadline at most (serialization, the event loop).
_LATE_MS = 0.2


@dataclass
class TabState:
    """What the host knows about one tab between commands."""

    tab_id: int
    events: set[str] = field(default_factory=set)
    extra: dict[str, Any] = field(default_factory=dict)
    listeners: list[Callable[[CdpEvent], None]] = field(default_factory=list)
    # A command here timed out or was aborted: probe the tab before the next one (tab_unresponsive).
    suspect: bool = False


# ---- tab_unresponsive: a tab whose main thread stays blocked fails fast ----------------------
# How long a suspect tab gets to answer `Runtime.evaluate("1")` before it counts as blocked.
PROBE_MS = 400
# Commands that recover a tab or do not run on its main thread are never held back by the probe.
_NO_PROBE = frozenset({"tabs", "tab_new", "tab_select", "tab_close", "navigate", "reload"})
# ---- end tab_unresponsive --------------------------------------------------------------------


@dataclass
class Host:
    profile: str
    home: Path
    link: ExtensionLink
    table: dict[str, Command[Any]]
    current_tab: int | None = None
    tabs: dict[int, TabState] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)
    started: float = field(default_factory=time.time)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    # One worker: background writes (registries) happen in the order they were asked for.
    _io: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="reins-io"))

    def __post_init__(self) -> None:
        self.link.on_tab_gone(self._tab_gone)
        self.link.on_event(self._event)

    def in_background(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the I/O worker; a failure is logged, never raised."""
        def run() -> None:
            try:
                fn(*args)
            except (OSError, ValueError, ReinsError):
                log.exception("background %s failed", getattr(fn, "__name__", fn))

        self._io.submit(run)

    def tab(self, tab_id: int) -> TabState:
        state = self.tabs.get(tab_id)
        if state is None:
            state = self.tabs[tab_id] = TabState(tab_id)
        return state

    def _tab_gone(self, tab_id: int, code: str) -> None:
        if code == "target_closed":
            self.tabs.pop(tab_id, None)
            if self.current_tab == tab_id:
                self.current_tab = None
        else:
            state = self.tabs.get(tab_id)
            if state is not None:
                # Detached: subscriptions and enabled domains must be made again.
                state.events.clear()
                state.extra.pop("ax_enabled", None)

    def _event(self, event: CdpEvent) -> None:
        state = self.tabs.get(event.tabId)
        if state is not None:
            for listener in list(state.listeners):
                listener(event)

    async def default_tab(self, deadline: Deadline) -> int:
        if self.current_tab is not None:
            return self.current_tab
        tab = await self.link.request("tabs.current", deadline)
        self.current_tab = int(tab["id"])
        return self.current_tab

    async def dispatch(self, request: Request) -> dict[str, Any]:
        started = time.monotonic()
        name = request.cmd
        try:
            result = await self._run(request)
        except ReinsError as exc:
            self.stats.record(name, time.monotonic() - started, exc.code)
            raise
        except asyncio.CancelledError:
            self.stats.record(name, time.monotonic() - started, "aborted")
            raise
        except Exception as exc:  # a bug: answer it typed, keep serving
            log.exception("command %s failed unexpectedly", name)
            self.stats.record(name, time.monotonic() - started, "internal")
            raise ReinsError(f"{name}: internal error {type(exc).__name__}: {exc}") from exc
        self.stats.record(name, time.monotonic() - started, None)
        return result

    async def _run(self, request: Request) -> dict[str, Any]:
        cmd = self.table.get(request.cmd)
        if cmd is None:
            raise UsageError(f"unknown command {request.cmd!r}", code="unknown_command")
        args = validate_args(cmd.args, request.args)
        timeout_ms = request.timeout_ms
        if timeout_ms is None:
            timeout_ms = DEFAULT_TIMEOUT_MS.get(cmd.budget_kind, DEFAULT_TIMEOUT_MS["*"])
        deadline = Deadline.after_ms(timeout_ms)
        tab_id: int | None = None
        if cmd.needs_tab:
            if not self.link.connected.is_set():
                raise ConnectionFailure("the extension is not connected to this host")
            if self.link.paused:
                raise BrowserError("reins is paused in the extension popup", code="paused")
            tab_id = request.tab if request.tab is not None else await self.default_tab(deadline)
        ctx = CommandContext(self, deadline, tab_id, request)
        watch: DialogWatch | None = None
        if tab_id is not None and cmd.name not in _TAB_MANAGEMENT:
            try:
                watch = await watch_dialogs(ctx)
            except BrowserError as exc:
                if exc.code != "page_refused" or cmd.name not in _LEAVES_REFUSED_PAGE:
                    raise
            if watch is not None and watch.current is not None and cmd.name not in _DIALOG_FREE:
                raise _dialog_open(watch.current)
        if tab_id is not None and cmd.name not in _NO_PROBE:
            await self._probe_if_suspect(tab_id, deadline)  # tab_unresponsive
        try:
            return await asyncio.wait_for(self._unless_dialog(cmd.handler(ctx, args), watch),
                                          deadline.remaining() + _LATE_MS)
        except TimeoutError:
            self._mark_suspect(tab_id)  # tab_unresponsive
            raise DeadlineExceeded(
                f"{request.cmd}: the {deadline.budget_ms} ms budget ran out"
            ) from None
        except (DeadlineExceeded, asyncio.CancelledError):
            self._mark_suspect(tab_id)  # tab_unresponsive
            raise

    async def _unless_dialog(self, work: Awaitable[dict[str, Any]], watch: DialogWatch | None,
                             ) -> dict[str, Any]:
        """Run a command; if a dialog opens meanwhile (the page then waits for it, and so would
        the command), give the command a moment to report it itself, else answer dialog_open."""
        task: asyncio.Future[dict[str, Any]] = asyncio.ensure_future(work)
        if watch is None:
            return await task
        opened: asyncio.Future[Any] = asyncio.ensure_future(watch.is_open.wait())
        try:
            await asyncio.wait([task, opened], return_when=asyncio.FIRST_COMPLETED)
            if not task.done():
                done, _ = await asyncio.wait({task}, timeout=_DIALOG_GRACE_S)
                if not done:
                    task.cancel()
                    raise _dialog_open(watch.current or {})
            return task.result()
        finally:
            opened.cancel()
            if not task.done():
                task.cancel()

    # ---- tab_unresponsive ----

    def _mark_suspect(self, tab_id: int | None) -> None:
        if tab_id is not None:
            self.tab(tab_id).suspect = True

    async def _probe_if_suspect(self, tab_id: int, deadline: Deadline) -> None:
        """A tab whose last command timed out must answer a trivial evaluate quickly; one that
        does not is blocked (a loop in a promise continuation, the page's own code): fail fast
        instead of letting every command wait out its budget. chrome.debugger calls queue up
        behind a blocked renderer; the probe's late answer is dropped by the link."""
        state = self.tabs.get(tab_id)
        if state is None or not state.suspect:
            return
        try:
            await self.link.cdp(tab_id, "Runtime.evaluate", {"expression": "1"},
                                deadline=deadline.child(PROBE_MS))
        except DeadlineExceeded:
            self.stats.note("tab_unresponsive")
            raise BrowserError(
                f"tab {tab_id} does not answer: its main thread is blocked (a script that never "
                "yields)", code="tab_unresponsive",
                hint=f"close it (`reins tab close {tab_id}`) and open the page again "
                     "(`reins tab new URL`): a reload queues behind the running script; other "
                     "tabs are not affected",
            ) from None
        state.suspect = False


@dataclass
class CommandContext:
    """One command's view of the host: its deadline, its tab, and CDP on that tab."""

    host: Host
    deadline: Deadline
    tab_id: int | None
    request: Request

    @property
    def tab(self) -> int:
        if self.tab_id is None:
            raise UsageError(f"{self.request.cmd} needs a tab")
        return self.tab_id

    async def cdp(
        self, method: str, params: dict[str, Any] | None = None, *, session_id: str | None = None,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        return await self.host.link.cdp(
            self.tab, method, params, deadline=deadline or self.deadline, session_id=session_id
        )

    async def subscribe(self, *events: str) -> None:
        state = self.host.tab(self.tab)
        wanted = state.events | set(events)
        if wanted != state.events:
            await self.host.link.request(
                "subscribe", self.deadline, tab_id=self.tab, events=sorted(wanted)
            )
            state.events = wanted


# ---- process entry point -----------------------------------------------------------------------


def _pick_profile(requested: str, home: Path) -> str:
    """Keep a live host's socket: a second host for the same name takes ``name-2``, ``name-3``…"""
    for n in range(1, 50):
        name = requested if n == 1 else f"{requested}-{n}"
        path = socket_path(name, home)
        if not path.exists():
            return name
        if not socket_alive(path):
            path.unlink(missing_ok=True)  # left by a host that died
            return name
    raise UsageError(f"too many live hosts named {requested}")


async def _serve(profile: str, home: Path) -> None:
    from reins._command_table import all_commands

    loop = asyncio.get_running_loop()
    eof = asyncio.Event()
    link = ExtensionLink(send=lambda m: port.send(m))
    port = NativePort(loop, link.receive, eof.set)
    host = Host(profile, home, link, all_commands())
    # Chrome closes stdin when the port goes; a browser shut down as a process group sends
    # SIGTERM instead. Either way: remove the socket and exit.
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, eof.set)
    port.start()
    port.send({"type": "host_hello", "version": __version__, "profile": profile})
    server = ControlServer(socket_path(profile, home), host.dispatch)
    await server.start()
    log.info("host %s for profile %s listening on %s", os.getpid(), profile, server.path)
    stopper = asyncio.ensure_future(host.stop.wait())
    eof_wait = asyncio.ensure_future(eof.wait())
    try:
        await asyncio.wait({stopper, eof_wait}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        eof_wait.cancel()
        link.disconnected()
        await server.close()
        port.close()
        log.info("host %s stopped", os.getpid())


def main(argv: list[str] | None = None) -> int:
    """Entry point of the native host (``python -m reins.host chrome-extension://ID/``)."""
    argv = list(sys.argv if argv is None else argv)
    home = reins_home()
    ensure_private_dir(home)
    ensure_private_dir(socket_dir(home))
    logs = ensure_private_dir(home / "logs")
    requested = os.environ.get("REINS_PROFILE") or "default"
    profile = _pick_profile(requested, home)
    logging.basicConfig(
        filename=str(logs / f"host-{profile}.log"),
        level=logging.INFO,
        format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s",
    )
    log.info("started by %s", argv[1:] or "hand")
    try:
        asyncio.run(_serve(profile, home))
    except ReinsError as exc:
        log.error("host could not start: %s", exc.message)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
