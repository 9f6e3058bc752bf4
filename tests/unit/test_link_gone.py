"""What a word that a tab was let go of, or closed, fails among the requests in flight."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import ReinsError
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink


async def _in_flight(
    link: ExtensionLink, sent: list[dict[str, Any]]
) -> dict[str, asyncio.Future[Any]]:
    kinds = {
        "cdp": {"method": "Runtime.evaluate"},
        "cdp_batch": {"commands": []},
        "world": {},
        "tabs.navigate": {"url": "https://example.com/"},
    }
    out = {
        kind: asyncio.ensure_future(
            link.request(kind, Deadline.after_ms(2_000), tab_id=7, **fields)
        )
        for kind, fields in kinds.items()
    }
    await asyncio.sleep(0)
    assert [m["type"] for m in sent] == list(kinds)
    return out


def test_a_tab_let_go_fails_its_session_requests_not_its_navigate() -> None:
    """The late word that the tab went to a chrome:// page must not fail the navigate that
    leads it out (seen in the headful tier: navigate answered page_refused)."""

    async def scenario() -> tuple[dict[str, str | None], bool]:
        sent: list[dict[str, Any]] = []
        link = ExtensionLink(send=sent.append)
        flight = await _in_flight(link, sent)
        link.receive(
            {"type": "detached", "tabId": 7, "reason": "target_closed", "code": "page_refused"}
        )
        codes: dict[str, str | None] = {}
        for kind in ("cdp", "cdp_batch", "world"):
            with pytest.raises(ReinsError) as caught:
                await flight[kind]
            codes[kind] = caught.value.code
        navigate_open = not flight["tabs.navigate"].done()
        navigate_id = next(m["id"] for m in sent if m["type"] == "tabs.navigate")
        link.receive(
            {"id": navigate_id, "ok": True, "result": {"id": 7, "url": "https://example.com/"}}
        )
        assert (await flight["tabs.navigate"])["url"] == "https://example.com/"
        return codes, navigate_open

    codes, navigate_open = asyncio.run(scenario())
    assert codes == {"cdp": "page_refused", "cdp_batch": "page_refused", "world": "page_refused"}
    assert navigate_open


def test_a_closed_tab_fails_everything_in_flight_for_it() -> None:
    async def scenario() -> dict[str, str | None]:
        sent: list[dict[str, Any]] = []
        link = ExtensionLink(send=sent.append)
        flight = await _in_flight(link, sent)
        link.receive({"type": "tab_removed", "tabId": 7})
        codes: dict[str, str | None] = {}
        for kind, future in flight.items():
            with pytest.raises(ReinsError) as caught:
                await future
            codes[kind] = caught.value.code
        return codes

    assert set(asyncio.run(scenario()).values()) == {"target_closed"}
