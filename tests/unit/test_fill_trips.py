"""What fill sends (act/forms.py): the "before" read rides with the focus, and the field's text
once the page has settled rides with the read after, so a fill after its lookup is four round
trips (the probe, the focus, the keys, the read after) and no fifth call for the check.

The host runs for real (Host, ExtensionLink, CommandContext); the extension is a function that
answers each message as Chrome would for a text field holding "old".
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from reins._errors import ActionError
from reins.act.forms import fill_element
from reins.act.handles import Resolved
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Hello, Request
from reins.page.call import page_function

TAB = 3
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


def _function(params: dict[str, Any]) -> tuple[str, list[Any]]:
    """Which page function a Runtime.callFunctionOn calls, and its JSON arguments."""
    declaration = params.get("functionDeclaration", "")
    for name in ("readState", "enterField", "fieldValue", "probe", "keysGoTo"):
        if declaration == page_function(name):
            return name, [a.get("value") for a in params.get("arguments", [])[1:]]
    return "?", []


def _what(command: dict[str, Any]) -> str:
    """A command's page function, or the key of a key event ("?" for anything else)."""
    params = command.get("params", {})
    if command["method"] == "Input.dispatchKeyEvent":
        return str(params.get("key"))
    return _function(params)[0]


class Field:
    """A text field holding "old": answers every message, and keeps what was sent."""

    def __init__(
        self, *, kept: str = "new", settled: str | None = None, before_fails: bool = False
    ) -> None:
        self.sent: list[list[tuple[str, str]]] = []  # per message: (method, page function)
        self.after_options: list[Any] = []
        self.kept = kept
        self.settled = kept if settled is None else settled
        self.before_fails = before_fails
        self.link = ExtensionLink(send=self._send)
        self.link.hello = Hello(type="hello", features=["stopIfThrown"])

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method != "Runtime.callFunctionOn":
            return {"ok": True, "result": {}}
        name, args = _function(params)
        if name == "readState" and args[0] == "before":
            if self.before_fails:
                return {"ok": False, "error": {"code": "cdp_error", "message": "busy"}}
            value: Any = _STATE
        elif name == "readState":
            self.after_options.append(args[1])
            value = {**_STATE, "value": self.kept, "field": self.settled}
        elif name == "enterField":
            value = {"ok": True, "original": "old"}
        elif name == "fieldValue":
            value = self.kept
        elif name == "keysGoTo":
            value = True
        else:
            value = _PROBE
        return {"ok": True, "result": {"result": {"value": value}}}

    def _send(self, message: dict[str, Any]) -> None:
        commands = message["commands"] if message["type"] == "cdp_batch" else [message]
        self.sent.append([(c["method"], _what(c)) for c in commands])
        answers = []
        for c in commands:
            answers.append(self._answer(c["method"], c.get("params", {})))
            if not answers[-1]["ok"] and message.get("sequential"):
                break  # a sequential batch ends at its first failure
        if message["type"] == "cdp_batch":
            reply = {"id": message["id"], "ok": True, "result": answers}
        else:
            first = answers[0]
            reply = {"id": message["id"], **first}
        asyncio.get_running_loop().call_soon(self.link.receive, reply)


def _fill(field: Field, text: str = "new") -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        host = Host("test", Path("/nonexistent"), field.link)
        ctx = CommandContext(host, Deadline.after_ms(5000), TAB, Request(id=1, cmd="fill"))
        el = Resolved("node-1", None, via="ref", ref="@name", seen_box=[0, 0, 100, 20])
        el.probed = dict(_PROBE)
        return await fill_element(ctx, el, text)

    return asyncio.run(main())


def test_fill_is_the_focus_the_keys_and_the_read_after() -> None:
    field = Field()
    answer = _fill(field)
    assert field.sent == [
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
        ],
        [("Runtime.callFunctionOn", "readState")],  # after, with the field's text
        # The browser's accessibility tree on what the field holds (act/confirm.py).
        [("Accessibility.getPartialAXTree", "?")],
    ]
    assert field.after_options[0]["field"] is True and field.after_options[0]["settle"] == "frame"
    assert answer["value"] == "new"
    assert answer["effect"]["value"] == {"from": "old", "to": "new"}
    assert "field" not in answer and "field" not in answer["effect"]


def test_a_field_changed_once_the_page_settled_is_a_mismatch() -> None:
    with pytest.raises(ActionError) as raised:
        _fill(Field(settled="NEW (reformatted)"))
    assert raised.value.code == "fill_mismatch"
    assert raised.value.details == {"kept": "NEW (reformatted)", "expected": "new"}


def test_a_before_read_that_fails_leaves_the_focus_and_an_unknown_effect() -> None:
    field = Field(before_fails=True)
    answer = _fill(field)
    assert field.sent[0] == [
        ("Runtime.callFunctionOn", "readState"),
        ("DOM.focus", "?"),
        ("Runtime.callFunctionOn", "enterField"),
    ]
    # The batch ended at the failed read: the focus is given on its own, then the fill goes on.
    assert field.sent[1] == [("DOM.focus", "?"), ("Runtime.callFunctionOn", "enterField")]
    assert answer["value"] == "new" and answer["effect"].get("unknown") is True


def test_clearing_a_field_deletes_its_selected_text() -> None:
    field = Field(kept="")
    answer = _fill(field, "")
    keys = field.sent[1]
    # The focus checked before the key down; the key up follows it.
    assert keys[:-1] == [
        ("Runtime.callFunctionOn", "keysGoTo"),
        ("Input.dispatchKeyEvent", "Delete"),
        ("Input.dispatchKeyEvent", "Delete"),
    ]
    assert keys[-1] == ("Runtime.callFunctionOn", "fieldValue")
    assert answer["value"] == "" and answer["effect"]["value"] == {"from": "old", "to": ""}


def test_keys_stop_where_focus_went_elsewhere() -> None:
    # The page moved focus away between the focus and the keys: the check throws, the batch
    # stops there (stopIfThrown), and no key is sent.
    field = Field()
    original = field._answer

    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "Runtime.callFunctionOn" and _function(params)[0] == "keysGoTo":
            thrown = {"description": "Error: reins: focus is on iframe#pay (a frame of https://x)"}
            return {"ok": True, "result": {"exceptionDetails": {"exception": thrown}}}
        return original(method, params)

    def send(message: dict[str, Any]) -> None:
        commands = message["commands"] if message["type"] == "cdp_batch" else [message]
        field.sent.append([(c["method"], _what(c)) for c in commands])
        answers = []
        for c in commands:
            answers.append(answer(c["method"], c.get("params", {})))
            if c.get("stopIfThrown") and answers[-1]["result"].get("exceptionDetails"):
                break
        reply = (
            {"id": message["id"], "ok": True, "result": answers}
            if message["type"] == "cdp_batch"
            else {"id": message["id"], **answers[0]}
        )
        asyncio.get_running_loop().call_soon(field.link.receive, reply)

    field.link.send = send
    with pytest.raises(Exception) as caught:
        _fill(field)
    error = caught.value
    assert getattr(error, "code", None) == "focus_elsewhere", error
    assert "iframe#pay" in str(error)
