"""Work held until a command's answer is out (``Host.after_answer``): the registry's writes."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from reins.bridge.context import Host
from reins.bridge.protocol import Request
from reins.bridge.server import ControlServer

from tests.unit.fakes import offline_host


def _ran(host: Host) -> None:
    """Wait until the I/O worker has run what it was given before now."""
    finished = threading.Event()
    host.in_background(finished.set)
    assert finished.wait(10)


def test_held_work_waits_for_its_answer_and_the_latest_per_key_wins(offline: Host) -> None:
    host = offline
    first = Request(id=1, cmd="state")
    done: list[str] = []
    host.after_answer(first, "a", done.append, "a1")
    host.after_answer(first, "b", done.append, "b1")
    host.after_answer(first, "a", done.append, "a2")  # replaces a1, and goes after b1
    assert done == []  # nothing before an answer
    host.answered(first)
    _ran(host)
    assert done == ["b1", "a2"]
    host.answered(first)  # nothing held any more: nothing runs again
    _ran(host)
    assert done == ["b1", "a2"]


def test_another_requests_answer_does_not_release_what_a_request_holds(offline: Host) -> None:
    host = offline
    big, short, later = (Request(id=i, cmd="state") for i in range(3))
    done: list[str] = []
    host.after_answer(big, "registry", done.append, "big")
    host.after_answer(big, "own", done.append, "own")
    host.answered(short)  # a second client's quick answer, while the big one still drains
    host.answered(None)  # a line that was no request
    _ran(host)
    assert done == []
    # A later request saving the same file takes the write over: it waits for *its* answer.
    host.after_answer(later, "registry", done.append, "later")
    host.answered(big)
    _ran(host)
    assert done == ["own"]
    host.answered(later)
    _ran(host)
    assert done == ["own", "later"]


def test_on_loop_work_runs_on_the_loop_once_the_answering_callback_is_over(
    tmp_path: Path,
) -> None:
    host = offline_host(tmp_path)
    request = Request(id=1, cmd="state")
    where: list[str] = []

    async def scenario() -> None:
        host.after_answer(
            request, "compact", lambda: where.append(threading.current_thread().name), on_loop=True
        )
        host.answered(request)
        assert where == []  # not inside the answering code itself
        await asyncio.sleep(0)
        assert where == [threading.current_thread().name]

    asyncio.run(scenario())


def test_a_stopping_host_releases_everything_held(offline: Host) -> None:
    host = offline
    done: list[str] = []
    host.after_answer(Request(id=1, cmd="state"), "a", done.append, "a")
    host.after_answer(Request(id=2, cmd="state"), "b", done.append, "b")
    host.release_held()
    _ran(host)
    assert done == ["a", "b"]


def test_the_server_hands_held_work_over_once_the_answer_is_written(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[Any], list[Request | None], list[int]]:
        calls: list[Request | None] = []  # one per call of `answered`, with its request
        held_during_dispatch: list[int] = []

        async def dispatch(request: Request) -> dict[str, Any]:
            held_during_dispatch.append(len(calls))
            return {"echo": request.cmd, "big": "x" * 2_000_000}  # more than a socket buffer

        server = ControlServer(tmp_path / "s.sock", dispatch, answered=calls.append)
        await server.start()
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(tmp_path / "s.sock"), limit=8_000_000
            )
            answers = []
            for i in range(2):
                writer.write(json.dumps({"id": i, "cmd": f"c{i}"}).encode() + b"\n")
                await writer.drain()
                answers.append(json.loads(await reader.readuntil(b"\n")))
                for _ in range(100):  # the callback follows the drain on the host's side
                    if len(calls) > i:
                        break
                    await asyncio.sleep(0.01)
            writer.close()
        finally:
            await server.close()
        return answers, calls, held_during_dispatch

    answers, calls, during = asyncio.run(scenario())
    assert [a["echo"] for a in answers] == ["c0", "c1"] and all(a["ok"] for a in answers)
    # Once per answer, with the request it answered, never while its command ran.
    assert [c.cmd if c is not None else None for c in calls] == ["c0", "c1"]
    assert during == [0, 1]


def test_a_command_whose_client_left_releases_what_it_held(tmp_path: Path) -> None:
    """The client hangs up while its command runs: the command is cancelled, and what it held
    for its answer is handed over anyway (it would otherwise wait for the host to stop)."""

    async def scenario() -> list[Request | None]:
        calls: list[Request | None] = []
        started = asyncio.Event()

        async def dispatch(request: Request) -> dict[str, Any]:
            started.set()
            await asyncio.sleep(60)  # cancelled when the client goes
            return {}

        server = ControlServer(tmp_path / "s.sock", dispatch, answered=calls.append)
        await server.start()
        try:
            _reader, writer = await asyncio.open_unix_connection(str(tmp_path / "s.sock"))
            writer.write(b'{"id": 5, "cmd": "slow"}\n')
            await writer.drain()
            await asyncio.wait_for(started.wait(), 10)
            writer.close()
            for _ in range(500):
                if calls:
                    break
                await asyncio.sleep(0.01)
        finally:
            await server.close()
        return calls

    calls = asyncio.run(scenario())
    assert len(calls) == 1 and calls[0] is not None and calls[0].id == 5
