"""The controls a closed shadow root holds (observe/sealed.py), on hand-built `DOM.describeNode`
trees and CDP answers: only controls inside a *closed* root count, the outermost ones, named by
Chrome's accessibility tree; a host Chrome cannot describe lists nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from reins._errors import BrowserError
from reins.observe.collect import PageSnapshot
from reins.observe.render import RefView, render_line
from reins.observe.sealed import held_controls, sealed

from tests.unit.fakes import Call, FakeChrome, make_context


def el(name: str, backend: int, *children: dict[str, Any], **attrs: str) -> dict[str, Any]:
    flat = [x for kv in attrs.items() for x in kv]
    return {
        "nodeName": name.upper(),
        "backendNodeId": backend,
        "attributes": flat,
        "children": list(children),
    }


def root(kind: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"nodeName": "#document-fragment", "shadowRootType": kind, "children": list(children)}


def host(*roots: dict[str, Any], children: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    out = el("save-draft", 1, *children)
    out["shadowRoots"] = list(roots)
    return out


def test_controls_of_a_closed_root_are_held_the_outermost_only() -> None:
    tree = host(
        root(
            "closed",
            el("div", 2, el("button", 3, el("span", 4, tabindex="0")), el("a", 5, href="/x")),
            el("a", 6),  # no href: no control
            el("div", 7, role="switch"),
        )
    )
    assert held_controls(tree) == [3, 5, 7]


def test_an_open_root_and_the_light_tree_hold_nothing_but_a_closed_root_inside_them_does() -> None:
    assert held_controls(host(root("open", el("button", 2)), children=(el("input", 3),))) == []
    inner = el("x-inner", 4)
    inner["shadowRoots"] = [root("closed", el("textarea", 5))]
    assert held_controls(host(root("open", inner))) == [5]


def _browser(trees: list[Any], ax: dict[int, tuple[str, str] | None]) -> FakeChrome:
    """Chrome answering each sealed host's `DOM.describeNode` with the next of ``trees`` (an
    error: failing with it), and the accessibility tree's role and name of a node by its backend
    node id (None: ignored)."""
    left = list(trees)

    def describe(call: Call) -> Any:
        tree = left.pop(0)
        return tree if isinstance(tree, Exception) else {"node": tree}

    def named(call: Call) -> dict[str, Any]:
        got = ax[call.params["backendNodeId"]]
        node: dict[str, Any] = {"nodeId": "1", "ignored": got is None}
        if got is not None:
            node["role"] = {"value": got[0]}
            node["name"] = {"value": got[1]}
        return {"nodes": [node]}

    return FakeChrome(cdp={"DOM.describeNode": describe, "Accessibility.getPartialAXTree": named})


def _snap(n: int) -> PageSnapshot:
    return PageSnapshot(
        url="u", title="t", viewport={}, frames=[], elements=[], truncated=False,
        document_id="d", timestamp=0.0, homes=[(None, i) for i in range(n)],
    )  # fmt: skip


def test_sealed_hosts_get_what_they_hold_as_chrome_s_tree_names_it() -> None:
    records = [
        {"role": "button", "name": "Save draft", "sealed": True},
        {"role": "button", "name": "Plain"},
        {"role": "generic", "name": "", "sealed": True},
        {"role": "generic", "name": "", "sealed": True},
    ]
    trees = [
        host(root("closed", el("button", 10), el("button", 11))),
        host(root("closed")),
        BrowserError("gone", code="cdp_error"),
    ]
    chrome = _browser(trees, {10: ("button", " Delete my account "), 11: None})
    out = asyncio.run(sealed(make_context(chrome), _snap(4), records))
    assert out[0]["holds"] == [{"role": "button", "name": "Delete my account"}]  # 11 is hidden
    assert out[1] is records[1] and "holds" not in out[2] and "holds" not in out[3]
    assert "holds" not in records[0]  # the collection's records are not changed
    assert "Runtime.releaseObjectGroup" in [c.method for c in chrome.calls]
    line = render_line(RefView.from_record(out[0], "@draft"))
    assert line == '@draft button "Save draft" [holds button "Delete my account"]'


def test_a_page_without_sealed_hosts_costs_no_round_trip() -> None:
    chrome = _browser([], {})
    records = [{"role": "button", "name": "Save"}]
    assert asyncio.run(sealed(make_context(chrome), _snap(1), records)) is records
    assert chrome.calls == []
