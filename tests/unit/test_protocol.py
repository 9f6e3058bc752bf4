"""Validation at the host's boundaries: control-socket requests and native messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from reins._errors import UsageError
from reins.bridge.protocol import (
    MAX_REQUEST_BYTES,
    CdpEvent,
    Detached,
    ExtensionAnswer,
    Hello,
    Paused,
    Request,
    TabRemoved,
    parse_extension_message,
    parse_request,
)


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def bad(raw: bytes) -> UsageError:
    with pytest.raises(UsageError) as info:
        parse_request(raw)
    assert info.value.code == "bad_request"
    return info.value


# ---- control-socket requests -----------------------------------------------------------------


def test_limit_is_one_mebibyte() -> None:
    assert MAX_REQUEST_BYTES == 1024 * 1024


def test_minimal_request_gets_defaults() -> None:
    request = parse_request(b'{"id":1,"cmd":"ping"}')
    assert isinstance(request, Request)
    assert request.id == 1
    assert request.cmd == "ping"
    assert request.args == {}
    assert request.tab is None
    assert request.timeout_ms is None
    assert request.profile is None


def test_full_request() -> None:
    request = parse_request(
        line(
            {
                "id": "abc",
                "cmd": "navigate",
                "args": {"url": "https://x.test/"},
                "tab": 5,
                "timeout_ms": 2500,
                "profile": "work",
            }
        )
    )
    assert request.id == "abc"
    assert request.cmd == "navigate"
    assert request.args == {"url": "https://x.test/"}
    assert request.tab == 5
    assert request.timeout_ms == 2500
    assert request.profile == "work"


def test_int_id_stays_int_and_str_id_stays_str() -> None:
    assert parse_request(line({"id": 42, "cmd": "x"})).id == 42
    assert parse_request(line({"id": "42", "cmd": "x"})).id == "42"


def test_missing_cmd() -> None:
    error = bad(line({"id": 1}))
    assert "cmd" in str(error)
    assert error.details == {"request_id": 1}


def test_missing_id_has_no_request_id() -> None:
    error = bad(line({"cmd": "ping"}))
    assert "id" in str(error)
    assert "request_id" not in error.details


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cmd", 5),
        ("cmd", ""),
        ("cmd", "x" * 65),
        ("cmd", None),
        ("args", [1, 2]),
        ("args", "a=b"),
        ("tab", "first"),
        ("tab", 1.5),
        ("timeout_ms", -1),
        ("timeout_ms", 3_600_001),
        ("timeout_ms", "soon"),
        ("profile", 7),
    ],
)
def test_wrong_types_are_bad_requests_that_keep_the_id(field: str, value: Any) -> None:
    request = {"id": 9, "cmd": "ping", field: value}
    error = bad(line(request))
    assert field in str(error)
    assert error.details["request_id"] == 9


@pytest.mark.parametrize("rid", [1.5, None, [1], {"a": 1}, True])
def test_bad_id_is_not_echoed_as_request_id(rid: Any) -> None:
    if rid is True:
        # pydantic's lax mode may take True as 1; either way it must not crash.
        try:
            parse_request(line({"id": rid, "cmd": "ping"}))
        except UsageError as exc:
            assert exc.code == "bad_request"
        return
    error = bad(line({"id": rid, "cmd": "ping"}))
    assert "request_id" not in error.details


def test_extra_fields_are_rejected_keeping_the_id() -> None:
    error = bad(line({"id": "r1", "cmd": "ping", "sudo": True}))
    assert "sudo" in str(error)
    assert error.details == {"request_id": "r1"}


@pytest.mark.parametrize("raw", [b"[1,2]", b'"ping"', b"42", b"null", b"true"])
def test_non_object_json(raw: bytes) -> None:
    error = bad(raw)
    assert "object" in str(error)
    assert error.details == {}


@pytest.mark.parametrize(
    "raw",
    [b"{nope", b'{"id":1,"cmd":"ping"', b"", b'{"id":1,"cmd":"\xff"}', b"\xff\xfe\x00"],
    ids=["garbage", "truncated", "empty", "bad-utf8", "binary"],
)
def test_invalid_json(raw: bytes) -> None:
    error = bad(raw)
    assert "not JSON" in str(error)
    assert error.details == {}


def test_wire_form_of_a_bad_request_carries_the_id_in_details() -> None:
    error = bad(line({"id": 77, "cmd": 3}))
    wire = error.to_wire()
    assert wire["code"] == "bad_request"
    assert wire["request_id"] == 77
    assert wire["transient"] is False


# ---- native messages from the extension ------------------------------------------------------


def test_answer_ok() -> None:
    message = parse_extension_message({"id": 4, "ok": True, "result": {"value": 2}})
    assert isinstance(message, ExtensionAnswer)
    assert message.id == 4
    assert message.ok is True
    assert message.result == {"value": 2}
    assert message.error is None


def test_answer_error_payload() -> None:
    message = parse_extension_message(
        {"id": 5, "ok": False, "error": {"code": "cdp_blocked", "message": "Storage.getCookies"}}
    )
    assert isinstance(message, ExtensionAnswer)
    assert message.ok is False
    assert message.error is not None
    assert message.error.code == "cdp_blocked"
    assert message.error.message == "Storage.getCookies"


def test_answer_error_defaults_to_cdp_error() -> None:
    message = parse_extension_message({"id": 5, "ok": False, "error": {}})
    assert isinstance(message, ExtensionAnswer)
    assert message.error is not None and message.error.code == "cdp_error"


def test_answer_with_list_result() -> None:
    tabs = [{"id": 5, "url": "u", "title": "t", "active": True}]
    message = parse_extension_message({"id": 6, "ok": True, "result": tabs})
    assert isinstance(message, ExtensionAnswer)
    assert message.result == tabs


def test_answer_without_ok_is_rejected() -> None:
    with pytest.raises(UsageError) as info:
        parse_extension_message({"id": 4, "result": 1})
    assert info.value.code == "bad_request"


def test_hello() -> None:
    message = parse_extension_message(
        {"type": "hello", "version": "0.1.0", "extensionId": "abc", "paused": True}
    )
    assert isinstance(message, Hello)
    assert (message.version, message.extensionId, message.paused) == ("0.1.0", "abc", True)
    minimal = parse_extension_message({"type": "hello"})
    assert isinstance(minimal, Hello) and minimal.paused is False


def test_event() -> None:
    message = parse_extension_message(
        {
            "type": "event",
            "tabId": 3,
            "sessionId": "S1",
            "method": "Page.loadEventFired",
            "params": {"timestamp": 1.5},
        }
    )
    assert isinstance(message, CdpEvent)
    assert message.tabId == 3
    assert message.sessionId == "S1"
    assert message.method == "Page.loadEventFired"
    assert message.params == {"timestamp": 1.5}


def test_event_needs_a_tab_and_method() -> None:
    with pytest.raises(UsageError):
        parse_extension_message({"type": "event", "method": "Page.loadEventFired"})
    with pytest.raises(UsageError):
        parse_extension_message({"type": "event", "tabId": 3})


def test_detached() -> None:
    message = parse_extension_message(
        {"type": "detached", "tabId": 3, "reason": "canceled_by_user", "code": "detached_by_user"}
    )
    assert isinstance(message, Detached)
    assert (message.tabId, message.reason, message.code) == (
        3,
        "canceled_by_user",
        "detached_by_user",
    )
    default = parse_extension_message({"type": "detached", "tabId": 4})
    assert isinstance(default, Detached) and default.code == "target_closed"


def test_tab_removed() -> None:
    message = parse_extension_message({"type": "tab_removed", "tabId": 11})
    assert isinstance(message, TabRemoved)
    assert message.tabId == 11


def test_paused() -> None:
    message = parse_extension_message({"type": "paused", "paused": True})
    assert isinstance(message, Paused)
    assert message.paused is True


def test_typed_message_with_an_id_is_a_notice_not_an_answer() -> None:
    message = parse_extension_message({"id": 1, "type": "tab_removed", "tabId": 2})
    assert isinstance(message, TabRemoved)


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "nope"},
        {"type": "hello!"},
        {},
        {"type": "tab_removed"},
        {"type": "paused"},
        {"type": "detached", "tabId": "three"},
    ],
)
def test_unknown_or_malformed_notice_is_typed(raw: dict[str, Any]) -> None:
    with pytest.raises(UsageError) as info:
        parse_extension_message(raw)
    assert info.value.code == "bad_request"
    assert "extension message" in str(info.value)


@pytest.mark.parametrize("raw", [None, [], "hello", 3])
def test_non_object_extension_message(raw: Any) -> None:
    with pytest.raises(UsageError) as info:
        parse_extension_message(raw)
    assert info.value.code == "bad_request"
