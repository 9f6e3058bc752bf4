"""One fake Chrome for the unit tests: the extension's side of the link, answered from tables.

``FakeChrome`` plays the extension on an ``ExtensionLink`` (the real one): a CDP method → answer
table, page functions answered by name (the host sends their declarations; the fake names them
back from the generated bundle), the extension's batch semantics in one place, and a call log.

The batch semantics are the extension's (extension/sequencer.js, tests/extension): a sequential
batch runs in order and ends at the first failure; a command marked ``stopIfThrown`` ends it after
an answer whose script threw. Messages of other types (``subscribe``, ``world``, ``pause_probe``)
are answered ok.

``make_host`` and ``make_context`` build a real ``Host`` and ``CommandContext`` on the fake's link;
``dispatch`` runs one request through the real dispatcher.

``FakeExtension`` plays the same extension on a real host process's stdio (``python -m
reins._host``, as Chrome starts it), with ``Client`` on its control socket: the test answers what it
cares about, and ``routine_answer`` (FakeChrome's too) what the host sends to arm a tab.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reins._errors import ReinsError
from reins._host import Dispatcher
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.framing import MAX_FROM_BROWSER, FrameDecoder, encode_frame
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Hello, Request
from reins.commands.table import all_commands
from reins.page.call import FUNCTION_GROUP, _bundle

__all__ = [
    "ARMING",
    "PROFILE",
    "SILENT",
    "Call",
    "Client",
    "FakeChrome",
    "FakeExtension",
    "Fail",
    "OpensDialog",
    "Thrown",
    "answer_next",
    "connect_extension",
    "dispatch",
    "filled",
    "function_name",
    "guard_refuses",
    "held_back",
    "log_of",
    "make_context",
    "make_host",
    "offline_host",
    "routine_answer",
    "value",
]

TAB = 7


@dataclass(frozen=True)
class Fail:
    """A command the browser refused: the extension's error object (``{code, message, …}``)."""

    error: dict[str, Any]


@dataclass(frozen=True)
class Thrown:
    """A page function that threw ``exception`` (a RemoteObject's ``value``)."""

    exception: Any

    def result(self) -> dict[str, Any]:
        return {
            "exceptionDetails": {
                "text": "Uncaught",
                "exception": {"type": "string", "value": self.exception},
            }
        }


def value(v: Any) -> dict[str, Any]:
    """What Chrome answers for a script that returned ``v`` by value."""
    return {"result": {"type": type(v).__name__, "value": v}}


@dataclass(frozen=True)
class Call:
    """One command the fake was sent: its method, parameters, session, the page function it
    calls (by name, or None), and the batch it came in (None: alone)."""

    method: str
    params: dict[str, Any]
    session: str | None
    function: str | None
    batch: int | None


# An answer: a CDP result, a Fail, or a function of the Call giving either. For a page function
# the answer is the script's value (wrapped as Chrome wraps it), a Thrown, a Fail, Chrome's own
# answer (a dict with ``result`` or ``exceptionDetails``), or a function of the Call.
Answer = Any


def _raw(given: Any) -> bool:
    """Is a page function's answer Chrome's own (not a value to wrap)?"""
    return isinstance(given, dict) and ("result" in given or "exceptionDetails" in given)


@functools.cache
def _names() -> dict[str, str]:
    """Page function declaration → its name."""
    return {str(src): name for name, src in _bundle()["functions"].items()}


def function_name(method: str, params: dict[str, Any]) -> str | None:
    """The page function a ``Runtime.evaluate`` or ``callFunctionOn`` calls (or compiles)."""
    if method == "Runtime.callFunctionOn":
        return _names().get(str(params.get("functionDeclaration")))
    if method == "Runtime.evaluate":
        expression = str(params.get("expression") or "")
        if expression.startswith("("):
            for src, name in _names().items():
                if expression.startswith(f"({src})"):
                    return name
    return None


# A command never answered (the link's deadline ends the wait).
SILENT = object()


@dataclass(frozen=True)
class OpensDialog:
    """A command that opens a JavaScript dialog (``params``: Page.javascriptDialogOpening's):
    Chrome sends the event and answers nothing while the dialog is open, nor anything after it
    in its batch."""

    params: dict[str, Any]


@dataclass
class FakeChrome:
    """The extension and the browser behind it, answering from ``cdp`` (method → answer) and
    ``functions`` (page function name → answer); what is in neither answers ``{}`` (a page
    function: undefined). ``replies``: answers taken in order, before the tables, by every
    command while any is left (``SILENT``: none at all). ``worlds``: reins's world per frame
    (None: the session's top frame), the context ids the extension answers in turn.
    ``features``: what the extension's hello says it has; ``session``: the browser run it names;
    ``hello``: False for an extension that has not said hello (not connected)."""

    cdp: dict[str, Answer] = field(default_factory=dict)
    functions: dict[str, Answer] = field(default_factory=dict)
    replies: list[Answer] = field(default_factory=list)
    worlds: dict[str | None, list[int]] = field(default_factory=dict)
    tabs: list[dict[str, Any]] = field(default_factory=list)  # what tabs.list answers
    otherwise: Answer = field(default_factory=dict)  # a CDP method in no table
    features: tuple[str, ...] = ()
    session: str | None = None
    hello: bool = True
    delay_s: float = 0.0  # how long each answer takes
    fail_whole: dict[str, Any] | None = None  # every message answered with this error
    dialogs_in_batch: int = 0  # JavaScript dialogs a batch's commands open (onlyIf's noDialog)
    calls: list[Call] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    _batches: int = 0
    _held: dict[str, str] = field(default_factory=dict)  # handle of a held function → its name

    def __post_init__(self) -> None:
        self.link = ExtensionLink(send=self._send)
        if self.hello:
            hello = {"type": "hello", "version": "test", "features": list(self.features)}
            if self.session is not None:
                hello["session"] = self.session
            self.link.receive(hello)
            assert isinstance(self.link.hello, Hello)

    # ---- the call log ----

    def called(self, name: str) -> list[Call]:
        """The calls of page function or CDP method ``name``, in order."""
        return [c for c in self.calls if name in (c.function, c.method)]

    @property
    def batches(self) -> list[list[dict[str, Any]]]:
        """The commands of each ``cdp_batch`` message, as sent (with ``stopIfThrown``, ``fill``,
        ``onlyIf``, ``noWait``)."""
        return [m["commands"] for m in self.messages if m.get("type") == "cdp_batch"]

    @property
    def singles(self) -> list[dict[str, Any]]:
        """The ``cdp`` messages: commands sent alone."""
        return [m for m in self.messages if m.get("type") == "cdp"]

    @property
    def sent(self) -> list[tuple[str, dict[str, Any], str | None]]:
        """Every command as (method, parameters, session), in order."""
        return [(c.method, c.params, c.session) for c in self.calls]

    @property
    def sent_params(self) -> list[tuple[str, dict[str, Any]]]:
        """Every command as (method, parameters), in order."""
        return [(c.method, c.params) for c in self.calls]

    @property
    def asked_worlds(self) -> list[tuple[str | None, str | None]]:
        """The ``world`` requests as (session, frame)."""
        return [
            (m.get("sessionId"), m.get("frameId"))
            for m in self.messages
            if m.get("type") == "world"
        ]

    # ---- answering ----

    def _send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        kind = message.get("type")
        reply: dict[str, Any]
        if self.fail_whole is not None and kind in ("cdp", "cdp_batch"):
            reply = {"id": message["id"], "ok": False, "error": self.fail_whole}
        elif kind == "cdp":
            one = self.answer(message["method"], message.get("params") or {}, message, None)
            if isinstance(one, OpensDialog):
                self._dialog(message, one)
                return
            if one is SILENT:
                return
            reply = (
                {"id": message["id"], "ok": False, "error": one.error}
                if isinstance(one, Fail)
                else {"id": message["id"], "ok": True, "result": one}
            )
        elif kind == "cdp_batch":
            answers = self._batch(message)
            if isinstance(answers, OpensDialog):
                self._dialog(message, answers)
                return
            reply = {"id": message["id"], "ok": True, "result": answers}
        elif kind == "world":
            frame = message.get("frameId")
            ids = self.worlds[frame]
            reply = {
                "id": message["id"],
                "ok": True,
                "result": {"executionContextId": ids.pop(0), "frameId": frame or "TOP"},
            }
        elif kind == "tabs.list":
            reply = {"id": message["id"], "ok": True, "result": self.tabs}
        else:
            reply = routine_answer(message) or {"id": message["id"], "ok": True, "result": {}}
        asyncio.get_running_loop().call_later(self.delay_s, self.link.receive, reply)

    def _dialog(self, message: dict[str, Any], opens: OpensDialog) -> None:
        event = {
            "type": "event",
            "tabId": message.get("tabId", TAB),
            "method": "Page.javascriptDialogOpening",
            "params": opens.params,
        }
        asyncio.get_running_loop().call_later(self.delay_s, self.link.receive, event)

    def _batch(self, message: dict[str, Any]) -> list[dict[str, Any]] | OpensDialog:
        """A batch as the extension runs it (sequencer.js, hitguard.js): a sequential one in
        order, ending at the first failure, after an answer that threw for a ``stopIfThrown``
        command, or before a command whose ``onlyIf`` does not hold (``held_back``); ``fill``
        takes a handle from an earlier answer."""
        self._batches += 1
        sequential = bool(message.get("sequential"))
        out: list[dict[str, Any]] = []
        for command in message["commands"]:
            if sequential and (command.get("fill") or command.get("onlyIf")):
                why = guard_refuses(command.get("onlyIf"), out, self.dialogs_in_batch)
                if why is not None:
                    return [*out, held_back(why)]
                try:
                    command = filled(command, out)
                except KeyError:
                    return [*out, {"ok": False, "error": _FILL_MISSING}]
            one = self.answer(command["method"], command.get("params") or {}, message, command)
            if isinstance(one, OpensDialog):
                return one
            if isinstance(one, Fail):
                out.append({"ok": False, "error": one.error})
                if sequential:
                    break
                continue
            out.append({"ok": True, "result": one})
            if sequential and command.get("stopIfThrown") and "exceptionDetails" in one:
                break
        return out

    def answer(
        self,
        method: str,
        params: dict[str, Any],
        message: dict[str, Any],
        command: dict[str, Any] | None,
    ) -> Any:
        """Chrome's answer to one command: a result, a ``Fail`` or ``SILENT``."""
        session = (command or {}).get("sessionId") or message.get("sessionId")
        name = function_name(method, params) or self._held.get(str(params.get("objectId")))
        compiled = name is not None and params.get("objectGroup") == FUNCTION_GROUP
        batch = self._batches if command is not None else None
        call = Call(method, params, session, name, batch)
        self.calls.append(call)
        if self.replies:
            return self._given(self.replies.pop(0), call)
        if compiled and name is not None:  # a page function compiled to be held: its handle,
            # named by the command's place in its batch (or message)
            where = message["commands"].index(command) if command is not None else message["id"]
            handle = f"fn-{where}"
            self._held[handle] = name
            return {"result": {"type": "function", "objectId": handle}}
        if name is not None:
            given: Any = self.functions.get(name)
            if callable(given):
                given = given(call)
            if isinstance(given, Fail):
                return given
            if isinstance(given, Thrown):
                return given.result()
            if params.get("returnByValue") is False and not _raw(given):
                return {"result": {"type": "object", "objectId": f"{name}-handle"}}
            return dict(given) if _raw(given) else value(given)
        return self._given(self.cdp.get(method, self.otherwise), call)

    def _given(self, given: Answer, call: Call) -> Any:
        if callable(given):
            given = given(call)
        if isinstance(given, ReinsError):  # as the link would make it from the error
            return Fail(given.to_wire() | ({"chrome": given.chrome} if given.chrome else {}))
        if isinstance(given, (Fail, OpensDialog)) or given is SILENT:
            return given
        return dict(given)


_FILL_MISSING = {
    "code": "ref_stale",
    "message": "the batch has no objectId: what it looked up is gone",
    "transient": True,
    "chrome": "fill_missing",
}
_FRAME_OWNERS = frozenset({"IFRAME", "FRAME", "OBJECT", "EMBED", "FENCEDFRAME", "PORTAL"})


def _owns_frame(node: dict[str, Any]) -> bool:
    name = str(node.get("nodeName") or "").upper()
    return name in _FRAME_OWNERS or bool(node.get("frameId") or node.get("contentDocument"))


def _path_to(tree: dict[str, Any], hit: Any) -> list[dict[str, Any]] | None:
    if not isinstance(hit, int):
        return None
    stack: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [(tree, [tree])]
    if isinstance(tree.get("contentDocument"), dict):
        stack.append((tree["contentDocument"], [tree, tree["contentDocument"]]))
    while stack:
        node, path = stack.pop()
        if node.get("backendNodeId") == hit:
            return path
        for key in ("children", "shadowRoots", "pseudoElements"):
            for kid in node.get(key) or []:
                if isinstance(kid, dict):
                    stack.append((kid, [*path, kid]))
    return None


def _hit_reaches(tree: dict[str, Any], hit: Any) -> bool:
    path = _path_to(tree, hit)
    if path is None or any(n.get("shadowRootType") == "closed" for n in path):
        return False
    return hit == tree.get("backendNodeId") or not _owns_frame(path[-1])


def _result_at(out: list[dict[str, Any]], index: Any) -> Any:
    if not isinstance(index, int) or index >= len(out) or not out[index].get("ok"):
        return None
    return out[index].get("result")


def guard_refuses(only_if: Any, out: list[dict[str, Any]], dialogs: int = 0) -> str | None:
    """Why a command may not be sent by its ``onlyIf`` (hitguard.js ``guardRefuses``)."""
    if not isinstance(only_if, dict):
        return None
    if only_if.get("noDialog") and dialogs > 0:
        return "a dialog opened"
    if "tree" in only_if:
        tree = (_result_at(out, only_if["tree"]) or {}).get("node")
        if not isinstance(tree, dict) or _owns_frame(tree):
            return "the target is not known, or is a frame"
        if "hit" in only_if:
            hit = (_result_at(out, only_if["hit"]) or {}).get("backendNodeId")
            if not _hit_reaches(tree, hit):
                return "the hit test found another node"
    if "metrics" in only_if:
        viewport = (_result_at(out, only_if["metrics"]) or {}).get("cssLayoutViewport")
        x, y = (float(v) for v in only_if.get("scroll") or (float("nan"), float("nan")))
        if not isinstance(viewport, dict) or not (
            abs(float(viewport.get("pageX", 0)) - x) < 0.5
            and abs(float(viewport.get("pageY", 0)) - y) < 0.5
        ):
            return "the page scrolled"
    return None


def held_back(why: str) -> dict[str, Any]:
    """The answer a batch ends with when a guard held its command back (hitguard.js)."""
    error = {"code": "obscured", "transient": True, "chrome": "held_back"}
    return {"ok": False, "error": {**error, "message": f"not sent: {why}"}}


def filled(command: dict[str, Any], out: list[dict[str, Any]]) -> dict[str, Any]:
    """The command with its ``fill`` parameters taken from the answers so far (hitguard.js
    ``filled``); KeyError when one is not there."""
    fill = command.get("fill")
    if not isinstance(fill, dict):
        return command
    params = copy.deepcopy(command.get("params") or {})
    for name, path in fill.items():
        found: Any = _result_at(out, path[0])
        for key in path[1:]:
            found = found.get(key) if isinstance(found, dict) else None
        if not isinstance(found, (str, int)):
            raise KeyError(name)
        *keys, last = name.split(".")
        place: Any = params
        for key in keys:
            place = place[int(key)] if isinstance(place, list) else place[key]
        place[last] = found
    return {**command, "params": params}


def make_host(chrome: FakeChrome, home: Path | None = None, *, profile: str = "test") -> Host:
    """A real host of ``profile`` on the fake's link (``home``: none by default, nothing is
    written)."""
    return Host(profile, home or Path("/nonexistent"), chrome.link)


def offline_host(home: Path, run: str | None = None) -> Host:
    """A host of profile ``p`` at ``home`` whose extension has not said hello (``run``: it has,
    naming that browser run, and answers every command ``{}``)."""
    return make_host(FakeChrome(hello=run is not None, session=run), home, profile="p")


def make_context(
    chrome: FakeChrome, *, host: Host | None = None, budget_ms: int = 3_000, cmd: str = "click"
) -> CommandContext:
    """A real command context on tab ``TAB`` of a host on the fake's link."""
    return CommandContext(
        host or make_host(chrome), Deadline.after_ms(budget_ms), TAB, Request(id=1, cmd=cmd)
    )


async def dispatch(
    chrome: FakeChrome,
    cmd: str,
    args: dict[str, Any],
    *,
    host: Host | None = None,
    timeout_ms: int = 3_000,
) -> dict[str, Any]:
    """One request through the real dispatcher on tab ``TAB``: what the control socket would
    write for it, without the request id (``{**answer, "ok": true}`` or the typed error)."""
    dispatcher = Dispatcher(host or make_host(chrome), all_commands())
    request = Request(id=1, cmd=cmd, args=args, tab=TAB, timeout_ms=timeout_ms)
    try:
        return {**(await dispatcher.dispatch(request)), "ok": True}
    except ReinsError as exc:
        return {"ok": False, "error": exc.to_wire()}


def log_of(chrome: FakeChrome) -> list[str]:
    """The call log as short lines (method, or method:function), for readable assertions."""
    return [f"{c.method}:{c.function}" if c.function else c.method for c in chrome.calls]


# ---- a real host process, played from its stdio ---------------------------------------------

PROFILE = "unit"
STARTUP_S = 10.0
# What the host sends to arm a tab it drives (the crash, pause and dialog watches, focus emulation and
# the frame pump that keep a hidden tab rendering): answered by the fake extension.
ARMING = (
    "Inspector.enable",
    "Page.enable",
    "Emulation.setFocusEmulationEnabled",
    "Page.startScreencast",
    "Page.stopScreencast",
)


def routine_answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The extension's answer to what the host sends to arm a tab it drives (``subscribe``, the
    ``ARMING`` CDP methods) and to its pause probe (the page runs); None for anything else."""
    kind = message.get("type")
    if kind == "pause_probe":  # a command took long: the page runs
        return {"id": message["id"], "ok": True, "result": {"paused": False}}
    if kind == "subscribe" or (kind == "cdp" and message.get("method") in ARMING):
        return {"id": message["id"], "ok": True, "result": {}}
    return None


class FakeExtension:
    """Both ends of the host process: frames on stdio, JSON lines on the socket.

    It says hello at once, as the extension does when it connects, naming its browser profile
    (``instance``) and browser run (``session``); ``profile`` is what the launcher sets
    (REINS_PROFILE, None for none) and ``name`` the socket name the test expects."""

    def __init__(
        self,
        home: Path,
        *,
        instance: str | None = "profile-a",
        session: str = "run-1",
        profile: str | None = PROFILE,
        name: str | None = None,
        launched: bool = False,
        hello: bool = True,
        features: tuple[str, ...] = ("pauseProbe",),
    ) -> None:
        self.home = home
        self.features = features
        env = dict(os.environ, REINS_HOME=str(home), REINS_LAUNCHED="1" if launched else "0")
        env.pop("REINS_PROFILE", None)
        if profile is not None:
            env["REINS_PROFILE"] = profile
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reins._host", "chrome-extension://x/"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.frames: queue.Queue[Any] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.name = name or profile or "default"
        self.socket_path = home / "run" / f"{self.name}.sock"
        self.instance, self.session = instance, session
        if hello:
            self.say_hello()

    def say_hello(self) -> None:
        hello: dict[str, Any] = {
            "type": "hello",
            "version": "t",
            "session": self.session,
            "features": list(self.features),
        }
        if self.instance is not None:
            hello["instance"] = self.instance
        self.send_frame(hello)

    def _read(self) -> None:
        decoder = FrameDecoder()
        assert self.proc.stdout is not None
        while True:
            data = self.proc.stdout.read1(65536)
            if not data:
                return
            for message in decoder.feed(data):
                self.frames.put(message)

    def next_frame(self, timeout: float = 5.0) -> Any:
        """The next frame a test cares about. The host's arming of a tab it drives (subscribe to
        the crash and dialog events, Inspector.enable, Page.enable, the pause probe; focus
        emulation and the frame pump) is answered here, as the extension would."""
        while True:
            try:
                frame = self.frames.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no frame from the host within {timeout} s") from None
            routine = routine_answer(frame)
            if routine is None:
                return frame
            self.send_frame(routine)

    def send_frame(self, message: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(encode_frame(message, max_size=MAX_FROM_BROWSER))
        self.proc.stdin.flush()

    def wait_for_socket(self) -> None:
        """Until the socket accepts a connection: the file appears at bind(), a moment before
        listen(), and a client connecting in between is refused (seen on a loaded machine)."""
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.socket_path.exists() and self._accepts():
                return
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise AssertionError(f"host exited {self.proc.returncode}: {err}")
            time.sleep(0.02)
        raise AssertionError("the host never opened its socket")

    def _accepts(self) -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(str(self.socket_path))
            except ConnectionRefusedError:
                return False
        return True

    def close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()

    def stop(self) -> None:
        self.close_stdin()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


class Client:
    """A control-socket client that reads answers line by line."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(path))
        self.buffer = b""

    def send(self, request: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(request).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def answer(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise AssertionError("the host closed the connection")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        result: dict[str, Any] = json.loads(line)
        return result

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        self.send(request)
        return self.answer()

    def close(self) -> None:
        self.sock.close()


def connect_extension(host: FakeExtension, client: Client) -> None:
    """The extension said hello at start; the host answered host_hello and counts it connected."""
    assert host.next_frame()["type"] == "host_hello"
    assert client.call({"id": "wait", "cmd": "ping"})["connected"] is True


def answer_next(host: FakeExtension, kind: str, result: Any) -> dict[str, Any]:
    frame = host.next_frame()
    assert frame.get("type") == kind, frame
    assert isinstance(frame.get("id"), int)
    host.send_frame({"id": frame["id"], "ok": True, "result": result})
    return dict(frame)
