"""`reins eval` without a browser: the script's budget, result shaping and limits on hand-built CDP
RemoteObjects, exception reports, and the per-profile gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from reins._errors import BrowserError, DeadlineExceeded, UsageError, from_cdp_error
from reins.bridge.deadline import HEADROOM_MS, Deadline
from reins.commands.eval import SCRIPT_HEADROOM_MS, script_timeout_ms
from reins.page.call import SOURCE_URL, exception_error, was_terminated
from reins.page.remote import MAX_RESULT_BYTES, describe_remote, from_serialized
from reins.setup.config import config_path, evaluate_enabled, read_config, write_setting

# ---- the script's budget -----------------------------------------------------------------------


def test_the_script_gets_what_is_left_minus_the_headroom() -> None:
    deadline = Deadline.after_ms(1000, now=50.0)
    assert SCRIPT_HEADROOM_MS >= HEADROOM_MS
    assert script_timeout_ms(deadline, now=50.0) == 1000 - SCRIPT_HEADROOM_MS
    assert script_timeout_ms(deadline, now=50.4) == 600 - SCRIPT_HEADROOM_MS


def test_no_time_for_the_script_once_only_the_headroom_is_left() -> None:
    deadline = Deadline.after_ms(1000, now=50.0)
    assert script_timeout_ms(deadline, now=50.0 + (1000 - SCRIPT_HEADROOM_MS) / 1000) == 0
    assert script_timeout_ms(deadline, now=50.99) == 0
    assert script_timeout_ms(deadline, now=60.0) == 0
    assert deadline.expired(now=51.0)


def test_a_child_deadline_never_outlives_its_parent() -> None:
    parent = Deadline.after_ms(100, now=0.0)
    probe = parent.child(400)
    assert probe.at <= parent.at


def _chrome(message: str, code: str = "cdp_error", **meaning: Any) -> Any:
    """The error for what the extension answers when Chrome said ``message`` (its code and
    ``chrome`` from extension/errors.js)."""
    return from_cdp_error("Runtime.evaluate", {"code": code, "message": message, **meaning})


@pytest.mark.parametrize(
    ("error", "elapsed", "timeout", "expected"),
    [
        (
            _chrome("Execution was terminated", "timeout", chrome="script_terminated"),
            5,
            950,
            True,
        ),
        (
            _chrome('{"code":-32603,"message":"Internal error"}', chrome="internal_error"),
            952,
            950,
            True,
        ),
        # An "Internal error" well before the timeout is not V8 stopping the script.
        (
            _chrome('{"code":-32603,"message":"Internal error"}', chrome="internal_error"),
            10,
            950,
            False,
        ),
        (
            DeadlineExceeded("Runtime.evaluate: no answer within the 1000 ms budget"),
            1000,
            950,
            False,
        ),
        (
            _chrome("Cannot find context with specified id", transient=True, chrome="context_gone"),
            3,
            950,
            False,
        ),
        # The host reads the extension's word, never Chrome's: the words alone decide nothing.
        (BrowserError("Runtime.evaluate: Execution was terminated"), 950, 950, False),
        (_chrome("Execution was terminated"), 950, 950, False),
        (_chrome("Internal error"), 952, 950, False),
    ],
)
def test_termination_by_v8_is_told_apart(
    error: Any, elapsed: float, timeout: int, expected: bool
) -> None:
    assert was_terminated(error, elapsed_ms=elapsed, timeout_ms=timeout) is expected


# ---- results --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        ({"type": "number", "value": 2, "description": "2"}, {"value": 2}),
        ({"type": "boolean", "value": False}, {"value": False}),
        ({"type": "string", "value": "hé"}, {"value": "hé"}),
        ({"type": "object", "subtype": "null", "value": None}, {"value": None}),
        ({"type": "undefined"}, {"type": "undefined", "description": "undefined"}),
        (
            {"type": "number", "unserializableValue": "NaN", "description": "NaN"},
            {"type": "number", "description": "NaN"},
        ),
        (
            {"type": "number", "unserializableValue": "-0", "description": "-0"},
            {"type": "number", "description": "-0"},
        ),
        (
            {"type": "number", "unserializableValue": "-Infinity"},
            {"type": "number", "description": "-Infinity"},
        ),
        (
            {"type": "bigint", "unserializableValue": "12n", "description": "12n"},
            {"type": "bigint", "description": "12n"},
        ),
        (
            {"type": "symbol", "description": "Symbol(x)", "objectId": "1.1.1"},
            {"type": "symbol", "description": "Symbol(x)"},
        ),
        (
            {
                "type": "function",
                "className": "Function",
                "description": "el => el.id",
                "objectId": "1.1.2",
            },
            {"type": "function", "class_name": "Function", "description": "el => el.id"},
        ),
        (
            {
                "type": "object",
                "subtype": "node",
                "className": "HTMLButtonElement",
                "description": "button#press",
                "objectId": "1.1.3",
            },
            {
                "type": "object",
                "subtype": "node",
                "class_name": "HTMLButtonElement",
                "description": "button#press",
            },
        ),
        (
            {
                "type": "object",
                "subtype": "map",
                "className": "Map",
                "description": "Map(0)",
                "objectId": "1.1.4",
            },
            {"type": "object", "subtype": "map", "class_name": "Map", "description": "Map(0)"},
        ),
        ({"type": "object", "subtype": "array", "value": [1, 2]}, {"value": [1, 2]}),
    ],
)
def test_values_and_descriptions(remote: dict[str, Any], expected: dict[str, Any]) -> None:
    assert describe_remote(remote) == expected


@pytest.mark.parametrize("subtype", [None, "array"])
def test_objects_and_arrays_go_back_to_the_page_for_json(subtype: str | None) -> None:
    remote: dict[str, Any] = {
        "type": "object",
        "className": "Object",
        "description": "Object",
        "objectId": "9.9.9",
    }
    if subtype:
        remote["subtype"] = subtype
    assert describe_remote(remote) is None


def test_a_long_string_is_cut_at_the_limit_on_a_character_boundary() -> None:
    text = "é" * 10  # 20 bytes of UTF-8
    assert describe_remote({"type": "string", "value": text}, limit=20) == {"value": text}
    cut = describe_remote({"type": "string", "value": text}, limit=7)
    assert cut == {"value": "ééé", "truncated": True, "size": 20}


def test_the_documented_limit_is_256_kib() -> None:
    assert MAX_RESULT_BYTES == 256 * 1024
    text = "a" * (MAX_RESULT_BYTES + 1)
    cut = describe_remote({"type": "string", "value": text})
    assert cut is not None and cut["truncated"] is True and cut["size"] == MAX_RESULT_BYTES + 1
    assert len(cut["value"]) == MAX_RESULT_BYTES


def test_a_long_description_is_cut_too() -> None:
    remote = {"type": "function", "description": "x" * 100, "objectId": "1"}
    assert describe_remote(remote, limit=10) == {
        "type": "function",
        "description": "x" * 10,
        "truncated": True,
        "size": 100,
    }


def test_serialized_json_is_parsed_and_a_cut_one_kept_as_text() -> None:
    remote = {"type": "object", "subtype": "array", "description": "Array(2)", "objectId": "1"}
    text = json.dumps([{"i": 0}, {"i": 1}])
    assert from_serialized({"ok": True, "text": text, "size": len(text)}, remote) == {
        "value": [{"i": 0}, {"i": 1}]
    }
    cut = {"ok": True, "text": text[:5], "size": len(text), "truncated": True}
    assert from_serialized(cut, remote) == {"value": text[:5], "truncated": True, "size": len(text)}


def test_an_object_json_refuses_is_described_with_the_reason() -> None:
    remote = {"type": "object", "className": "Object", "description": "Object", "objectId": "1"}
    payload = {"ok": False, "reason": "Converting circular structure to JSON"}
    assert from_serialized(payload, remote) == {
        "type": "object",
        "class_name": "Object",
        "description": "Object",
        "reason": "Converting circular structure to JSON",
    }


# ---- exceptions -----------------------------------------------------------------------------------


def _details(description: str | None = None, **extra: Any) -> dict[str, Any]:
    exception: dict[str, Any] = {"type": "object", "subtype": "error", "className": "Error"}
    if description is not None:
        exception["description"] = description
    return {"text": "Uncaught", "lineNumber": 0, "columnNumber": 0, "exception": exception, **extra}


def test_an_exception_names_its_message_and_place_in_the_script() -> None:
    error = exception_error(_details(f"Error: boom\n    at {SOURCE_URL}:2:7"))
    assert error.code == "eval_exception"
    assert error.details["exception"] == "Error: boom"
    assert (error.details["line"], error.details["column"]) == (2, 7)
    assert "boom" in error.message and "line 2" in error.message
    assert error.to_wire()["line"] == 2


def test_element_scripts_count_lines_in_the_function_as_given() -> None:
    stack = f"TypeError: nope\n    at fn ({SOURCE_URL}:8:9)\n    at {SOURCE_URL}:11:10"
    error = exception_error(_details(stack), line_offset=6, source_lines=3)
    assert (error.details["line"], error.details["column"]) == (2, 9)
    # Thrown by the wrapper itself (outside the user's lines): no line is claimed.
    error = exception_error(
        _details(f"TypeError: x\n    at {SOURCE_URL}:11:10"), line_offset=6, source_lines=3
    )
    assert "line" not in error.details


def test_an_exception_from_page_code_names_that_url() -> None:
    stack = (
        f"TypeError: bad\n    at check (http://127.0.0.1:8000/app.js:40:3)\n    at {SOURCE_URL}:1:1"
    )
    error = exception_error(_details(stack))
    assert error.details["url"] == "http://127.0.0.1:8000/app.js"
    assert error.details["url_line"] == 40
    assert error.details["line"] == 1


def test_a_thrown_non_error_value() -> None:
    details = {"text": "Uncaught", "exception": {"type": "string", "value": "plain"}}
    assert exception_error(details).details == {"exception": "plain"}
    details = {"text": "Uncaught", "exception": {"type": "object", "value": {"a": 1}}}
    assert exception_error(details).details["exception"] == '{"a": 1}'


# ---- the gate -------------------------------------------------------------------------------------


def test_evaluate_is_on_until_switched_off_per_profile(tmp_path: Path) -> None:
    assert evaluate_enabled("p1", tmp_path) is True
    assert write_setting("p1", "evaluate", False, tmp_path) == {
        "evaluate": False,
        "downloads": True,
    }
    assert evaluate_enabled("p1", tmp_path) is False
    assert evaluate_enabled("p2", tmp_path) is True
    assert json.loads(config_path("p1", tmp_path).read_text()) == {
        "evaluate": False,
        "downloads": True,
    }
    assert (config_path("p1", tmp_path).parent.stat().st_mode & 0o777) == 0o700
    write_setting("p1", "evaluate", True, tmp_path)
    assert evaluate_enabled("p1", tmp_path) is True


def test_a_broken_config_file_counts_as_the_defaults(tmp_path: Path) -> None:
    path = config_path("p", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert read_config("p", tmp_path) == {"evaluate": True, "downloads": True}
    path.write_text(json.dumps({"evaluate": "no", "other": 1}))
    assert read_config("p", tmp_path) == {"evaluate": True, "downloads": True}


def test_unknown_settings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        write_setting("p", "telemetry", True, tmp_path)
