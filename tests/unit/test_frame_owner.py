"""A frame owner is never pressed (issue 43): ``refuse_frame_owner`` goes by what the browser
says of the node (`DOM.describeNode`: its node name, the frame it owns), on hand-built answers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import ResolutionError
from reins.act.handles import Resolved, refuse_frame_owner

from tests.unit.fakes import FakeChrome, make_context


def _refuse(node: dict[str, Any], ref: str | None = "@pay") -> FakeChrome:
    """``refuse_frame_owner`` with Chrome answering `DOM.describeNode` with ``node``."""
    browser = FakeChrome(cdp={"DOM.describeNode": {"node": node}})
    resolved = Resolved("obj-1", "session-1", ref=ref)
    asyncio.run(refuse_frame_owner(make_context(browser), resolved))
    return browser


@pytest.mark.parametrize(
    "node",
    [
        {"nodeName": "IFRAME", "frameId": "F1"},
        {"nodeName": "IFRAME"},  # no frame of its own yet: still a frame owner
        {"nodeName": "FRAME", "frameId": "F2", "contentDocument": {"nodeName": "#document"}},
        {"nodeName": "FENCEDFRAME"},
        {"nodeName": "EMBED"},
        {"nodeName": "OBJECT", "frameId": "F3"},  # an object that holds a document
    ],
)
def test_a_frame_owner_is_refused_whatever_the_page_says(node: dict[str, Any]) -> None:
    with pytest.raises(ResolutionError) as caught:
        _refuse(node)
    error = caught.value
    assert error.code == "target_is_frame" and not error.transient
    assert "--frame" in error.message and error.details == {"ref": "@pay"}


@pytest.mark.parametrize(
    "node",
    [
        {"nodeName": "BUTTON"},
        {"nodeName": "DIV"},
        {"nodeName": "OBJECT"},  # an image in an object: no frame
        {"nodeName": "A"},
    ],
)
def test_other_elements_pass(node: dict[str, Any]) -> None:
    browser = _refuse(node)
    assert browser.sent == [("DOM.describeNode", {"objectId": "obj-1", "depth": 0}, "session-1")]
