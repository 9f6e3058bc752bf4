"""What the listener detection asks before a collection (observe/listeners.py): the first look
hands the candidates over to the page's world; a repeated look at the same list asks Chrome
about them in its first round trip, so it costs that round trip only. The host runs for real;
the extension and Chrome are the one fake (tests/unit/fakes.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from reins.observe.listeners import handler_hints

from tests.unit.fakes import Call, FakeChrome, make_context

_CLICK = {"listeners": [{"type": "click"}]}
_NONE: dict[str, Any] = {"listeners": []}


def _chrome(gens: list[str]) -> FakeChrome:
    """Two candidates, the second with a click listener; ``gens``: the list's generation at
    each look."""
    looks = iter(gens)

    def listeners(call: Call) -> dict[str, Any]:
        return _CLICK if call.params["objectId"] == "page-1" else _NONE

    return FakeChrome(
        functions={
            "listenerCandidates": lambda _call: {"gen": next(looks), "count": 2},
            "handlerHints": {"3": ["react"]},
        },
        cdp={
            "Runtime.getProperties": {
                "result": [
                    {"name": "0", "value": {"objectId": "ours-0"}},
                    {"name": "1", "value": {"objectId": "ours-1"}},
                    {"name": "length", "value": {"value": 2}},
                ]
            },
            "DOM.describeNode": lambda call: {
                "node": {"backendNodeId": 10 + int(call.params["objectId"][-1])}
            },
            "DOM.resolveNode": lambda call: {
                "object": {"objectId": f"page-{call.params['backendNodeId'] - 10}"}
            },
            "DOMDebugger.getEventListeners": listeners,
        },
    )


def _looks(chrome: FakeChrome, n: int) -> list[dict[str, Any]]:
    async def main() -> list[dict[str, Any]]:
        ctx = make_context(chrome)
        return [await handler_hints(ctx) for _ in range(n)]

    return asyncio.run(main())


def _messages(chrome: FakeChrome) -> list[list[str]]:
    return [[c["method"] for c in m.get("commands", [m])] for m in chrome.messages]


def test_a_repeated_look_at_the_same_list_is_one_round_trip() -> None:
    chrome = _chrome(["g1", "g1"])
    first, again = _looks(chrome, 2)
    assert first["listened"] == [1] and again["listened"] == [1]
    assert first["hints"] == again["hints"] == {"3": ["react"]}
    sent = _messages(chrome)
    first_look = sent.index(["Runtime.evaluate", "Runtime.evaluate"])
    assert first_look == 0
    # The repeated look: one message, Chrome asked about both kept handles in it.
    assert sent[-1] == [
        "Runtime.evaluate",
        "Runtime.evaluate",
        "DOMDebugger.getEventListeners",
        "DOMDebugger.getEventListeners",
    ]
    assert "DOM.resolveNode" not in [m for msg in sent[-1:] for m in msg]


def test_a_changed_list_is_handed_over_again_and_asked_anew() -> None:
    chrome = _chrome(["g1", "g2"])
    first, again = _looks(chrome, 2)
    assert first["listened"] == again["listened"] == [1]
    sent = _messages(chrome)
    # The second look's first message asked about the old handles; the list changed, so they
    # were released and the new list handed over and asked about.
    second = [i for i, m in enumerate(sent) if m[:2] == ["Runtime.evaluate", "Runtime.evaluate"]]
    assert len(second) >= 2
    after = [m for msg in sent[second[1] + 1 :] for m in msg]
    assert "Runtime.releaseObjectGroup" in after and "DOM.resolveNode" in after
    assert after[-1] == "DOMDebugger.getEventListeners"
