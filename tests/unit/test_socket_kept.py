"""The control socket's path is kept while the host runs (issue 46): a deleted socket file is
listened at again, a path another host took over is left alone."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

from reins.bridge.protocol import Request
from reins.bridge.server import ControlServer


async def _ask(path: Path) -> dict[str, Any]:
    reader, writer = await asyncio.open_unix_connection(str(path))
    writer.write(json.dumps({"id": 1, "cmd": "status"}).encode() + b"\n")
    await writer.drain()
    answer = json.loads(await reader.readuntil(b"\n"))
    writer.close()
    return answer  # type: ignore[no-any-return]


async def _echo(request: Request) -> dict[str, Any]:
    return {"echo": request.cmd}


async def _until(predicate: Any) -> None:
    for _ in range(200):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


def test_a_deleted_socket_is_listened_at_again(tmp_path: Path) -> None:
    path = tmp_path / "run" / "p.sock"
    path.parent.mkdir(mode=0o700)

    async def scenario() -> list[dict[str, Any]]:
        server = ControlServer(path, _echo, watch_every=0.02)
        await server.start()
        try:
            first = await _ask(path)
            path.unlink()
            await _until(path.exists)
            second = await _ask(path)
            # the whole folder too (a cleaner of ~/.local/state)
            path.unlink()
            path.parent.rmdir()
            await _until(path.exists)
            third = await _ask(path)
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        finally:
            await server.close()
        assert not path.exists()  # its own socket removed at the end
        return [first, second, third]

    answers = asyncio.run(scenario())
    assert [a["echo"] for a in answers] == ["status"] * 3


def test_a_path_another_host_took_over_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "p.sock"

    async def scenario() -> None:
        server = ControlServer(path, _echo, watch_every=0.02)
        await server.start()
        other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            path.unlink()
            other.bind(str(path))  # a newer host of the same profile
            inode = os.stat(path).st_ino
            await asyncio.sleep(0.2)
            assert os.stat(path).st_ino == inode
        finally:
            await server.close()
            assert os.stat(path).st_ino == inode  # close() leaves the other host's socket
            other.close()

    asyncio.run(scenario())
