"""What fill sends (act/forms.py): the "before" read rides with the focus; the field's text, the
read after (with the field's text once the page has settled) and the accessibility tree's word
on the field ride with the keys, so a fill after its lookup (and its probe, which rides with a
ref's or a CSS/XPath lookup) is two round trips: the focus, the keys.

The host runs for real (Host, ExtensionLink, CommandContext); the extension and Chrome are the
one fake (tests/unit/fakes.py), answering as Chrome would for a text field holding "old".
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reins._errors import ActionError
from reins.act.forms import fill_element
from reins.act.handles import Resolved

from tests.unit.fakes import Call, Fail, FakeChrome, function_name, make_context

_PROBE = {
    "state": "ok",
    "visible": True,
    "disabled": False,
    "readonly": False,
    "stable": True,
    "x": 50,
    "y": 10,
    "cover": None,
}
_STATE = {"connected": True, "value": "old", "url": "u", "top": True, "document": 1.0}


def _args(call: Call) -> list[Any]:
    """A page function's JSON arguments (after the element it is called on)."""
    return [a.get("value") for a in call.params.get("arguments", [])[1:]]


def _field(
    *, kept: str = "new", settled: str | None = None, before_fails: bool = False, **functions: Any
) -> FakeChrome:
    """Chrome with a text field holding "old" (``functions``: other answers by name)."""

    def read_state(call: Call) -> Any:
        if _args(call)[0] == "before":
            return Fail({"code": "cdp_error", "message": "busy"}) if before_fails else _STATE
        return {**_STATE, "value": kept, "field": kept if settled is None else settled}

    page = {
        "readState": read_state,
        "enterField": {"ok": True, "original": "old"},
        "fieldValue": kept,
        "keysGoTo": True,
        "probe": _PROBE,
    }
    return FakeChrome(functions={**page, **functions}, features=("stopIfThrown",))


def _sent(field: FakeChrome) -> list[list[tuple[str, str]]]:
    """Per message: each command's method and page function, or its key for a key event ("?"
    for anything else)."""

    def what(command: dict[str, Any]) -> str:
        params = command.get("params", {})
        if command["method"] == "Input.dispatchKeyEvent":
            return str(params.get("key"))
        return function_name(command["method"], params) or "?"

    return [
        [(c["method"], what(c)) for c in m.get("commands", [m])]
        for m in field.messages
        if m["type"] in ("cdp", "cdp_batch")
    ]


def _after_options(field: FakeChrome) -> list[Any]:
    return [_args(c)[1] for c in field.called("readState") if _args(c)[0] == "after"]


def _fill(field: FakeChrome, text: str = "new") -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        ctx = make_context(field, budget_ms=5000, cmd="fill")
        el = Resolved(
            "node-1", None, via="ref", ref="@name", seen_box=[0, 0, 100, 20], probed=dict(_PROBE)
        )
        return (await fill_element(ctx, el, text)).to_wire()

    return asyncio.run(main())


def test_fill_is_the_focus_the_keys_and_the_read_after() -> None:
    field = _field()
    answer = _fill(field)
    assert _sent(field) == [
        [
            ("Runtime.callFunctionOn", "readState"),  # before, in the focus's round trip
            ("DOM.focus", "?"),
            ("Runtime.callFunctionOn", "enterField"),
        ],
        [
            # Focus checked on the field right before the key, in the same batch (it stops
            # there when focus went elsewhere); the whole text is selected: the text inserted
            # replaces it (no Delete first).
            ("Runtime.callFunctionOn", "keysGoTo"),
            ("Input.insertText", "?"),
            ("Runtime.callFunctionOn", "fieldValue"),
            ("Runtime.callFunctionOn", "readState"),  # after, with the field's text
            # The browser's accessibility tree on what the field holds (act/confirm.py).
            ("Accessibility.getPartialAXTree", "?"),
        ],
    ]
    after_options = _after_options(field)
    assert after_options[0]["field"] is True and after_options[0]["settle"] == "frame"
    assert answer["value"] == "new"
    assert answer["effect"]["value"] == {"from": "old", "to": "new"}
    assert "field" not in answer and "field" not in answer["effect"]


def test_a_field_changed_once_the_page_settled_is_a_mismatch() -> None:
    with pytest.raises(ActionError) as raised:
        _fill(_field(settled="NEW (reformatted)"))
    assert raised.value.code == "fill_mismatch"
    assert raised.value.details == {"kept": "NEW (reformatted)", "expected": "new"}


def test_a_before_read_that_fails_leaves_the_focus_and_an_unknown_effect() -> None:
    field = _field(before_fails=True)
    answer = _fill(field)
    assert _sent(field)[0] == [
        ("Runtime.callFunctionOn", "readState"),
        ("DOM.focus", "?"),
        ("Runtime.callFunctionOn", "enterField"),
    ]
    # The batch ended at the failed read: the focus is given on its own, then the fill goes on.
    assert _sent(field)[1] == [("DOM.focus", "?"), ("Runtime.callFunctionOn", "enterField")]
    assert answer["value"] == "new" and answer["effect"].get("unknown") is True


def test_clearing_a_field_deletes_its_selected_text() -> None:
    field = _field(kept="")
    answer = _fill(field, "")
    keys = _sent(field)[1]
    # The focus checked before the key down; the key up follows it.
    assert keys[:3] == [
        ("Runtime.callFunctionOn", "keysGoTo"),
        ("Input.dispatchKeyEvent", "Delete"),
        ("Input.dispatchKeyEvent", "Delete"),
    ]
    assert keys[3] == ("Runtime.callFunctionOn", "fieldValue")
    assert answer["value"] == "" and answer["effect"]["value"] == {"from": "old", "to": ""}


def test_keys_stop_where_focus_went_elsewhere() -> None:
    # The page moved focus away between the focus and the keys: the check throws, the batch
    # stops there (stopIfThrown), and no key is sent.
    thrown = {"description": "Error: reins: focus is on iframe#pay (a frame of https://x)"}
    field = _field(keysGoTo={"exceptionDetails": {"exception": thrown}})
    with pytest.raises(Exception) as caught:
        _fill(field)
    error = caught.value
    assert getattr(error, "code", None) == "focus_elsewhere", error
    assert "iframe#pay" in str(error)


def test_an_after_read_that_fails_in_the_keys_round_trip_asks_the_tab() -> None:
    """The read after riding with the keys failed (the document went away): the fill still
    answers what it kept, and the effect says what the tab did, asked of it (act/instead.py)."""

    def read_state(call: Call) -> Any:
        if _args(call)[0] == "before":
            return _STATE
        return Fail({"code": "cdp_error", "message": "gone", "chrome": "context_gone"})

    field = _field(readState=read_state)
    answer = _fill(field)
    sent = _sent(field)
    # The batch ended at the failed read; what it would have asked comes after, on its own:
    # the tab's document, the field's text, the tree's word on it.
    assert sent[1][-2:] == [
        ("Runtime.callFunctionOn", "readState"),
        ("Accessibility.getPartialAXTree", "?"),
    ]
    assert sent[2:] == [
        [("Runtime.evaluate", "documentIdentity")],
        [("Runtime.callFunctionOn", "fieldValue")],
        [("Accessibility.getPartialAXTree", "?")],
    ]
    assert answer["value"] == "new"
    assert answer["effect"] == {"navigated": True}, answer


def test_the_trees_word_from_the_keys_round_trip_is_judged() -> None:
    """The accessibility tree, asked in the keys' round trip, holds another value than the one
    reins's world read: `unverified`, never ok."""
    node = {"nodes": [{"role": {"value": "textbox"}, "value": {"value": "IBAN-OF-SOMEONE"}}]}
    field = _field()
    field.cdp["Accessibility.getPartialAXTree"] = node
    with pytest.raises(ActionError) as raised:
        _fill(field)
    assert raised.value.code == "unverified"
