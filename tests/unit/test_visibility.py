"""Hidden tabs: focus emulation once per attachment, the frame pump around commands, tab_hidden.

The host side runs for real (Host, ExtensionLink, CommandContext); the extension is the one fake
Chrome (tests/unit/fakes.py), answering each CDP call the way the allowlist and Chrome would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from reins._errors import BrowserError
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.protocol import Request
from reins.page import visibility
from reins.page.visibility import Rendering, keep_rendering, require_rendering

from tests.unit.fakes import Fail, FakeChrome, make_host

TAB = 7


def _chrome(blocked: set[str] = frozenset(), visibility_state: str = "visible") -> FakeChrome:
    """Chrome as the allowlist lets it answer: the methods in ``blocked`` refused, the page's
    visibility state ``visibility_state``, the rest ok."""
    refused = {m: Fail({"code": "cdp_blocked", "message": f"{m} is not allowed"}) for m in blocked}
    return FakeChrome(
        cdp={"Runtime.evaluate": {"result": {"value": visibility_state}}, **refused}, hello=False
    )


def _methods(ext: FakeChrome) -> list[str]:
    return [c.method for c in ext.calls]


def _context(host: Host) -> CommandContext:
    return CommandContext(host, Deadline.after_ms(2000), TAB, Request(id=1, cmd="click", args={}))


async def _handler(ctx: CommandContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"ran": args}


def _run(ext: FakeChrome, body: Callable[[Host], Any]) -> Any:
    async def main() -> Any:
        return await body(make_host(ext))

    return asyncio.run(main())


@pytest.fixture(autouse=True)
def _short_linger(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(visibility, "LINGER_S", 0.05)


def test_emulation_once_per_attachment_and_the_pump_around_commands() -> None:
    ext = _chrome()

    async def body(host: Host) -> None:
        assert await keep_rendering(_context(host), _handler, {"n": 1}) == {"ran": {"n": 1}}
        await keep_rendering(_context(host), _handler, {"n": 2})
        assert _methods(ext) == ["Emulation.setFocusEmulationEnabled", "Page.startScreencast"]
        await asyncio.sleep(0.15)  # LINGER_S after the last command the pump stops
        assert _methods(ext)[-1] == "Page.stopScreencast"
        await keep_rendering(_context(host), _handler, {"n": 3})
        assert _methods(ext)[-1] == "Page.startScreencast"  # emulation stays on: not sent again
        host.tab(TAB).detached()  # Chrome dropped both with the debugger
        await keep_rendering(_context(host), _handler, {"n": 4})
        assert _methods(ext)[-2:] == ["Emulation.setFocusEmulationEnabled", "Page.startScreencast"]

    _run(ext, body)
    assert ("Emulation.setFocusEmulationEnabled", {"enabled": True}) in ext.sent_params
    start = dict(ext.sent_params)["Page.startScreencast"]
    assert start["maxWidth"] <= 16 and start["maxHeight"] <= 16 and start["format"] == "jpeg"


def test_the_pump_keeps_running_while_another_command_does() -> None:
    ext = _chrome()

    async def body(host: Host) -> None:
        release = asyncio.Event()

        async def slow(ctx: CommandContext, args: Any) -> dict[str, Any]:
            await release.wait()
            return {}

        long_one = asyncio.ensure_future(keep_rendering(_context(host), slow, None))
        await asyncio.sleep(0.01)
        await keep_rendering(_context(host), _handler, {})
        await asyncio.sleep(0.15)
        assert "Page.stopScreencast" not in _methods(ext)
        release.set()
        await long_one
        await asyncio.sleep(0.15)
        assert _methods(ext).count("Page.stopScreencast") == 1

    _run(ext, body)


def test_an_older_extension_without_the_methods_still_runs_commands() -> None:
    ext = _chrome(blocked={"Emulation.setFocusEmulationEnabled", "Page.startScreencast"})

    async def body(host: Host) -> None:
        ctx = _context(host)
        assert await keep_rendering(ctx, _handler, {}) == {"ran": {}}
        require_rendering(ctx)  # the tab is shown: act as usual
        await keep_rendering(_context(host), _handler, {})
        # Refused once: not asked again, only the visibility is read each command.
        assert _methods(ext).count("Emulation.setFocusEmulationEnabled") == 1
        assert _methods(ext).count("Page.startScreencast") == 1
        assert _methods(ext).count("Runtime.evaluate") == 2

    _run(ext, body)


def test_a_hidden_tab_without_emulation_answers_tab_hidden_at_once() -> None:
    ext = _chrome(blocked={"Emulation.setFocusEmulationEnabled"}, visibility_state="hidden")

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
    ext = FakeChrome(fail_whole={"code": "target_closed", "message": "No tab with id"}, hello=False)

    async def body(host: Host) -> None:
        with pytest.raises(BrowserError) as raised:
            await keep_rendering(_context(host), _handler, {})
        assert raised.value.code == "target_closed"
        assert host.tab(TAB).part(Rendering).running == 0

    _run(ext, body)


def test_concurrent_commands_on_one_tab_arm_it_once() -> None:
    ext = _chrome()

    async def body(host: Host) -> None:
        answers = await asyncio.gather(
            *(keep_rendering(_context(host), _handler, {"n": n}) for n in range(20))
        )
        assert [a["ran"]["n"] for a in answers] == list(range(20))

    _run(ext, body)
    assert _methods(ext) == ["Emulation.setFocusEmulationEnabled", "Page.startScreencast"]


def test_a_pump_chrome_refuses_does_not_fail_the_command() -> None:
    unavailable = Fail({"code": "cdp_error", "message": "Screencast is not available"})
    ext = _chrome()
    ext.cdp["Page.startScreencast"] = unavailable

    async def body(host: Host) -> None:
        assert await keep_rendering(_context(host), _handler, {}) == {"ran": {}}
        assert not host.tab(TAB).part(Rendering).pumping

    _run(ext, body)
