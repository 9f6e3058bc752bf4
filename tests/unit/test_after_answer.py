"""Work held until a command's answer is out (``Host.after_answer``): the registry's writes."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from reins.bridge.context import Host
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Request
from reins.bridge.server import ControlServer


def _host(home: Path) -> Host:
    return Host(profile="p", home=home, link=ExtensionLink(lambda message: None))


def test_held_work_waits_for_an_answer_and_the_latest_per_key_wins(tmp_path: Path) -> None:
    host = _host(tmp_path)
    done: list[str] = []
    finished = threading.Event()
    host.after_answer("a", done.append, "a1")
    host.after_answer("b", done.append, "b1")
    host.after_answer("a", done.append, "a2")  # replaces a1, and goes after b1
    assert done == []  # nothing before an answer
    host.answered()
    host.in_background(finished.set)
    assert finished.wait(10)
    assert done == ["b1", "a2"]
    host.answered()  # nothing held: nothing runs again
    finished.clear()
    host.in_background(finished.set)
    assert finished.wait(10)
    assert done == ["b1", "a2"]


def test_the_server_hands_held_work_over_once_the_answer_is_written(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[Any], list[None], list[int]]:
        calls: list[None] = []  # one per call of `answered`
        held_during_dispatch: list[int] = []

        async def dispatch(request: Request) -> dict[str, Any]:
            held_during_dispatch.append(len(calls))
            return {"echo": request.cmd, "big": "x" * 2_000_000}  # more than a socket buffer

        server = ControlServer(tmp_path / "s.sock", dispatch, answered=lambda: calls.append(None))
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
    # Once per answer, never while its command ran.
    assert len(calls) == 2
    assert during == [0, 1]
