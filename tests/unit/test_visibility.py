"""Hidden tabs: focus emulation once per attachment, the frame pump around commands, tab_hidden.

The host side runs for real (Host, ExtensionLink, CommandContext); the extension is a function
that answers each CDP call the way the allowlist and Chrome would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from reins._errors import BrowserError
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Request
from reins.page import visibility
from reins.page.visibility import Rendering, keep_rendering, require_rendering

TAB = 7


class Extension:
    """Answers CDP calls at once; records them; refuses the methods in ``blocked``."""

    def __init__(self, blocked: set[str] = frozenset(), visibility_state: str = "visible") -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.blocked = set(blocked)
        self.visibility_state = visibility_state
        self.link = ExtensionLink(send=self._send)

    def _send(self, message: dict[str, Any]) -> None:
        method, params = message.get("method", ""), message.get("params", {})
        self.calls.append((method, params))
        if method in self.blocked:
            answer = {
                "id": message["id"],
                "ok": False,
                "error": {"code": "cdp_blocked", "message": f"{method} is not allowed"},
            }
        elif method == "Runtime.evaluate":
            answer = {
                "id": message["id"],
                "ok": True,
                "result": {"result": {"value": self.visibility_state}},
            }
        else:
            answer = {"id": message["id"], "ok": True, "result": {}}
        asyncio.get_running_loop().call_soon(self.link.receive, answer)

    def methods(self) -> list[str]:
        return [m for m, _ in self.calls]


def _context(host: Host) -> CommandContext:
    return CommandContext(host, Deadline.after_ms(2000), TAB, Request(id=1, cmd="click", args={}))


async def _handler(ctx: CommandContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"ran": args}


def _run(ext: Extension, body: Callable[[Host], Any]) -> Any:
    async def main() -> Any:
        host = Host("test", Path("/nonexistent"), ext.link)
        return await body(host)

    return asyncio.run(main())


@pytest.fixture(autouse=True)
def _short_linger(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(visibility, "LINGER_S", 0.05)


def test_emulation_once_per_attachment_and_the_pump_around_commands() -> None:
    ext = Extension()

    async def body(host: Host) -> None:
        assert await keep_rendering(_context(host), _handler, {"n": 1}) == {"ran": {"n": 1}}
        await keep_rendering(_context(host), _handler, {"n": 2})
        assert ext.methods() == ["Emulation.setFocusEmulationEnabled", "Page.startScreencast"]
        await asyncio.sleep(0.15)  # LINGER_S after the last command the pump stops
        assert ext.methods()[-1] == "Page.stopScreencast"
        await keep_rendering(_context(host), _handler, {"n": 3})
        assert ext.methods()[-1] == "Page.startScreencast"  # emulation stays on: not sent again
        host.tab(TAB).detached()  # Chrome dropped both with the debugger
        await keep_rendering(_context(host), _handler, {"n": 4})
        assert ext.methods()[-2:] == ["Emulation.setFocusEmulationEnabled", "Page.startScreencast"]

    _run(ext, body)
    assert ("Emulation.setFocusEmulationEnabled", {"enabled": True}) in ext.calls
    start = dict(ext.calls)["Page.startScreencast"]
    assert start["maxWidth"] <= 16 and start["maxHeight"] <= 16 and start["format"] == "jpeg"


def test_the_pump_keeps_running_while_another_command_does() -> None:
    ext = Extension()

    async def body(host: Host) -> None:
        release = asyncio.Event()

        async def slow(ctx: CommandContext, args: Any) -> dict[str, Any]:
            await release.wait()
            return {}

        long_one = asyncio.ensure_future(keep_rendering(_context(host), slow, None))
        await asyncio.sleep(0.01)
        await keep_rendering(_context(host), _handler, {})
        await asyncio.sleep(0.15)
        assert "Page.stopScreencast" not in ext.methods()
        release.set()
        await long_one
        await asyncio.sleep(0.15)
        assert ext.methods().count("Page.stopScreencast") == 1

    _run(ext, body)


def test_an_older_extension_without_the_methods_still_runs_commands() -> None:
    ext = Extension(blocked={"Emulation.setFocusEmulationEnabled", "Page.startScreencast"})

    async def body(host: Host) -> None:
        ctx = _context(host)
        assert await keep_rendering(ctx, _handler, {}) == {"ran": {}}
        require_rendering(ctx)  # the tab is shown: act as usual
        await keep_rendering(_context(host), _handler, {})
        # Refused once: not asked again, only the visibility is read each command.
        assert ext.methods().count("Emulation.setFocusEmulationEnabled") == 1
        assert ext.methods().count("Page.startScreencast") == 1
        assert ext.methods().count("Runtime.evaluate") == 2

    _run(ext, body)


def test_a_hidden_tab_without_emulation_answers_tab_hidden_at_once() -> None:
    ext = Extension(blocked={"Emulation.setFocusEmulationEnabled"}, visibility_state="hidden")

    async def body(host: Host) -> None:
        ctx = _context(host)

        async def act(ctx: CommandContext, args: Any) -> dict[str, Any]:
            require_rendering(ctx)
            return {}

        with pytest.raises(BrowserError) as raised:
            await keep_rendering(ctx, act, None)
        assert raised.value.code == "tab_hidden"
        assert "reins tab show" in raised.value.message
        assert ctx.part(Rendering).hidden

    _run(ext, body)


def test_other_failures_are_not_swallowed() -> None:
    ext = Extension()

    def send(message: dict[str, Any]) -> None:
        asyncio.get_running_loop().call_soon(
            ext.link.receive,
            {
                "id": message["id"],
                "ok": False,
                "error": {"code": "target_closed", "message": "No tab with id"},
            },
        )

    ext.link.send = send

    async def body(host: Host) -> None:
        with pytest.raises(BrowserError) as raised:
            await keep_rendering(_context(host), _handler, {})
        assert raised.value.code == "target_closed"
        assert host.tab(TAB).part(Rendering).running == 0

    _run(ext, body)


def test_concurrent_commands_on_one_tab_arm_it_once() -> None:
    ext = Extension()

    async def body(host: Host) -> None:
        answers = await asyncio.gather(
            *(keep_rendering(_context(host), _handler, {"n": n}) for n in range(20))
        )
        assert [a["ran"]["n"] for a in answers] == list(range(20))

    _run(ext, body)
    assert ext.methods() == ["Emulation.setFocusEmulationEnabled", "Page.startScreencast"]


def test_a_pump_chrome_refuses_does_not_fail_the_command() -> None:
    ext = Extension()
    send = ext.link.send

    def refuse_screencast(message: dict[str, Any]) -> None:
        if message.get("method") == "Page.startScreencast":
            asyncio.get_running_loop().call_soon(
                ext.link.receive,
                {
                    "id": message["id"],
                    "ok": False,
                    "error": {"code": "cdp_error", "message": "Screencast is not available"},
                },
            )
        else:
            send(message)

    ext.link.send = refuse_screencast

    async def body(host: Host) -> None:
        assert await keep_rendering(_context(host), _handler, {}) == {"ran": {}}
        assert not host.tab(TAB).part(Rendering).pumping

    _run(ext, body)
