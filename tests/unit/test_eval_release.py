"""`reins eval` answers first and lets go of what it left in the page after (commands/eval.py):
the Runtime.releaseObjectGroup round trip is made once the answer is out (Host.after_answer),
never before it, and never forgotten."""

from __future__ import annotations

import asyncio

from reins._host import Dispatcher
from reins.bridge.protocol import Request
from reins.commands.table import all_commands

from tests.unit.fakes import TAB, FakeChrome, make_host
from tests.unit.wire.scenarios import SCENARIOS


def test_eval_answers_then_releases_its_object_group() -> None:
    scenario = SCENARIOS["eval"]
    chrome = FakeChrome(cdp=dict(scenario.cdp), functions=dict(scenario.functions))
    host = make_host(chrome)

    async def run() -> None:
        dispatcher = Dispatcher(host, all_commands())
        request = Request(id=1, cmd="eval", args={"expression": "1 + 1"}, tab=TAB, timeout_ms=3000)
        answer = await dispatcher.dispatch(request)
        assert answer["value"] == 2
        (evaluated,) = chrome.called("Runtime.evaluate")
        group = evaluated.params["objectGroup"]
        assert chrome.called("Runtime.releaseObjectGroup") == []  # the answer did not wait
        host.answered(request)  # the control server wrote it
        for _ in range(50):
            if chrome.called("Runtime.releaseObjectGroup"):
                break
            await asyncio.sleep(0.01)
        (released,) = chrome.called("Runtime.releaseObjectGroup")
        assert released.params == {"objectGroup": group}

    asyncio.run(run())
