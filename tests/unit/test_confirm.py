"""The accessibility tree's word beside reins's own read (act/confirm.py), on hand-built answers of
`Accessibility.getPartialAXTree`: a disagreement is `unverified`; no opinion (no node, ignored,
another role, a masked password, an error) lets reins's read stand."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import ActionError, BrowserError, ReinsError
from reins.act.confirm import (
    confirm_checked,
    confirm_chosen,
    confirm_selected,
    confirm_shown,
    confirm_text,
)
from reins.act.handles import Resolved

from tests.unit.fakes import FakeChrome, make_context


def _browser(answer: dict[str, Any] | ReinsError) -> FakeChrome:
    """Chrome answering every CDP call with ``answer`` (an error: failing with it)."""
    return FakeChrome(otherwise=answer)


def _node(role: str, value: Any = None, **states: str) -> dict[str, Any]:
    node: dict[str, Any] = {"nodeId": "1", "ignored": False, "role": {"value": role}}
    if value is not None:
        node["value"] = {"type": "string", "value": value}
    node["properties"] = [{"name": k, "value": {"value": v}} for k, v in states.items()]
    return {"nodes": [node]}


EL = Resolved("obj-1", session_id="S1")


def _run(check: Any, chrome: FakeChrome, *args: Any) -> None:
    asyncio.run(check(make_context(chrome), EL, *args))


def test_a_text_the_tree_agrees_with_passes_whitespace_aside() -> None:
    chrome = _browser(_node("textbox", "Acme  Corp\n"))
    _run(confirm_text, chrome, "Acme Corp")
    assert chrome.sent == [
        ("Accessibility.getPartialAXTree", {"objectId": "obj-1", "fetchRelatives": False}, "S1")
    ]


def test_a_text_the_tree_disagrees_with_is_unverified() -> None:
    with pytest.raises(ActionError) as caught:
        _run(confirm_text, _browser(_node("textbox", "DE00 0000")), "DE89 3704")
    assert caught.value.code == "unverified"
    assert caught.value.details == {"read": "DE89 3704", "accessibility": "DE00 0000"}


@pytest.mark.parametrize(
    "answer",
    [
        {"nodes": []},
        {"nodes": [{"nodeId": "1", "ignored": True}]},
        _node("spinbutton", "12"),  # another kind of control: its tree value is no text
        _node("textbox", "••••••"),  # a password field shows masked
        BrowserError("gone", code="cdp_error"),
    ],
)
def test_no_opinion_lets_the_read_stand(answer: Any) -> None:
    _run(confirm_text, _browser(answer), "secret")


def test_checked_as_the_tree_has_it() -> None:
    _run(confirm_checked, _browser(_node("checkbox", checked="true")), True)
    _run(confirm_checked, _browser(_node("checkbox", checked="mixed")), True)  # no single answer
    with pytest.raises(ActionError) as caught:
        _run(confirm_checked, _browser(_node("checkbox", checked="false")), True)
    assert caught.value.code == "unverified"


def test_a_select_s_chosen_label_as_the_tree_has_it() -> None:
    _run(confirm_selected, _browser(_node("combobox", "Basic")), ["Basic"])
    _run(confirm_selected, _browser(_node("listbox")), ["Basic", "Pro"])  # several: not compared
    with pytest.raises(ActionError) as caught:
        _run(confirm_selected, _browser(_node("combobox", "Enterprise")), ["Basic"])
    assert caught.value.details == {"read": "Basic", "accessibility": "Enterprise"}


def test_expect_value_leaves_a_select_s_label_alone() -> None:
    """A <select> is a combobox whose tree value is its label; `expect value` compares the
    option's value, so it asks only about text fields."""
    from reins.act.confirm import TEXT_FIELD_ROLES

    chrome = _browser(_node("combobox", "Mango"))
    asyncio.run(confirm_text(make_context(chrome), EL, "mango", roles=TEXT_FIELD_ROLES))
    with pytest.raises(ActionError):
        asyncio.run(confirm_text(make_context(chrome), EL, "mango"))


def test_a_chosen_option_as_a_combobox_s_tree_value_shows_it() -> None:
    _run(confirm_chosen, _browser(_node("combobox", "Category: SOFTWARE")), "Software")
    _run(confirm_chosen, _browser(_node("combobox", "")), "Software")  # an emptied filter field
    _run(confirm_chosen, _browser(_node("button", "Category")), "Software")  # no value of a choice
    with pytest.raises(ActionError) as caught:
        _run(confirm_chosen, _browser(_node("combobox", "Hardware")), "Software")
    assert caught.value.code == "unverified"
    assert caught.value.details == {"read": "Software", "accessibility": "Hardware"}


def _texts(*names: str, ignored: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "nodes": [
            {
                "nodeId": str(i),
                "ignored": n in ignored,
                "role": {"value": "StaticText"},
                "name": {"value": n},
            }
            for i, n in enumerate(names)
        ]
    }


def test_a_text_as_the_tree_s_text_nodes_show_it() -> None:
    chrome = _browser(_texts("Payment ", "RECEIVED", "\n today"))
    _run(confirm_shown, chrome, "payment received")
    assert chrome.sent == [
        ("Accessibility.queryAXTree", {"objectId": "obj-1", "role": "StaticText"}, "S1")
    ]
    _run(confirm_shown, _browser(_texts()), "Payment received")  # no text node: no opinion
    _run(confirm_shown, _browser(BrowserError("gone", code="cdp_error")), "Payment received")
    with pytest.raises(ActionError) as caught:
        _run(confirm_shown, _browser(_texts("Card declined")), "Payment received")
    assert caught.value.details == {"read": "Payment received", "accessibility": "Card declined"}
    with pytest.raises(ActionError):  # text the tree leaves out is not shown
        _run(
            confirm_shown,
            _browser(_texts("Payment received", "x", ignored=("Payment received",))),
            "Payment received",
        )
