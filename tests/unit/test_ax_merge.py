"""One Accessibility.getPartialAXTree answer merged into a page-script record
(reins.observe.ax.merge_ax), on hand-built CDP answers."""

from __future__ import annotations

from typing import Any

import pytest
from reins._errors import BrowserError, DeadlineExceeded
from reins.observe.ax import merge_ax


def record(**fields: Any) -> dict[str, Any]:
    """A page-script record: its own role, name and states before Chrome's tree is asked."""
    out: dict[str, Any] = {"role": "generic", "name": "page name", "states": {"disabled": False}}
    out.update(fields)
    return out


def node(
    role: str | None = "button",
    name: str | None = "Save",
    *,
    ignored: bool = False,
    backend: int | None = 42,
    properties: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """An AXNode as CDP sends it (camelCase, values wrapped in {"type", "value"})."""
    out: dict[str, Any] = {"nodeId": "7", "ignored": ignored}
    if role is not None:
        out["role"] = {"type": "role", "value": role}
    if name is not None:
        out["name"] = {"type": "computedString", "value": name}
    if backend is not None:
        out["backendDOMNodeId"] = backend
    if properties is not None:
        out["properties"] = properties
    return out


def prop(name: str, value: Any, kind: str = "boolean") -> dict[str, Any]:
    return {"name": name, "value": {"type": kind, "value": value}}


def merged(rec: dict[str, Any], *nodes: dict[str, Any]) -> dict[str, Any]:
    merge_ax(rec, {"nodes": list(nodes)})
    return rec


def test_role_name_and_backend_id_come_from_the_tree() -> None:
    assert merged(record(), node("button", "Save", backend=42)) == {
        "role": "button",
        "name": "Save",
        "states": {"disabled": False},
        "backend_node_id": 42,
    }


@pytest.mark.parametrize(
    "error", [BrowserError("gone", code="target_closed"), DeadlineExceeded("late")]
)
def test_an_error_answer_is_recorded_by_its_code_and_nothing_else_changes(error: Any) -> None:
    rec = record()
    merge_ax(rec, error)
    assert rec == {**record(), "ax_error": error.code}


@pytest.mark.parametrize("answer", [{}, {"nodes": []}, {"nodes": None}])
def test_an_answer_without_nodes_changes_nothing(answer: dict[str, Any]) -> None:
    rec = record()
    merge_ax(rec, answer)
    assert rec == record()


def test_the_first_node_chrome_does_not_ignore_is_used() -> None:
    rec = merged(
        record(),
        node("generic", "wrapper", ignored=True, backend=1),
        node("link", "Home", backend=2),
        node("button", "Later", backend=3),
    )
    assert (rec["role"], rec["name"], rec["backend_node_id"]) == ("link", "Home", 2)
    assert "ax_ignored" not in rec


def test_an_ignored_node_marks_the_record_and_keeps_the_page_role() -> None:
    rec = merged(
        record(),
        node("none", "Label", ignored=True, backend=5),
        node("generic", "", ignored=True, backend=6),
    )
    assert rec["ax_ignored"] is True
    assert rec["role"] == "generic"  # the page script's
    assert rec["name"] == "Label" and rec["backend_node_id"] == 5  # still the first node's


@pytest.mark.parametrize("role", ["none", "", None, 7])
def test_role_none_empty_or_missing_keeps_the_page_role(role: Any) -> None:
    n = node("x")
    if role is None:
        del n["role"]
    else:
        n["role"]["value"] = role
    assert merged(record(), n)["role"] == "generic"


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("  Save  ", "Save"),
        ("\nSave draft\t", "Save draft"),
        ("   ", "page name"),
        ("", "page name"),
        (None, "page name"),
    ],
)
def test_name_is_trimmed_and_a_blank_one_keeps_the_page_name(name: str | None, want: str) -> None:
    assert merged(record(), node(name=name))["name"] == want


def test_a_name_that_is_not_a_string_keeps_the_page_name() -> None:
    n = node()
    n["name"] = {"type": "computedString", "value": 3}
    assert merged(record(), n)["name"] == "page name"


def test_a_missing_backend_id_is_none() -> None:
    assert merged(record(), node(backend=None))["backend_node_id"] is None


def test_states_are_merged_over_the_page_states() -> None:
    rec = record(states={"disabled": False, "focused": True, "invalid": "page"})
    merged(rec, node(properties=[prop("disabled", True), prop("expanded", False)]))
    assert rec["states"] == {
        "disabled": True,
        "focused": True,
        "invalid": "page",
        "expanded": False,
    }


def test_only_known_state_properties_are_taken() -> None:
    props = [
        prop(name, True)
        for name in ("disabled", "expanded", "selected", "focused", "readonly", "required")
    ]
    props += [
        prop("level", 2, "integer"),
        prop("invalid", "false", "token"),
        prop("focusable", True),
        prop("multiline", False),
    ]
    rec = merged(record(states={}), node(properties=props))
    assert rec["states"] == {
        "disabled": True,
        "expanded": True,
        "selected": True,
        "focused": True,
        "readonly": True,
        "required": True,
    }


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("true", True),
        ("false", False),
        ("mixed", "mixed"),
        (True, True),
        (False, False),
    ],
)
def test_checked_tristate(value: Any, want: Any) -> None:
    rec = merged(record(), node(properties=[prop("checked", value, "tristate")]))
    assert rec["states"]["checked"] == want


def test_a_property_without_a_value_is_none() -> None:
    rec = merged(record(states={}), node(properties=[{"name": "expanded"}]))
    assert rec["states"] == {"expanded": None}


def test_no_page_states_and_no_properties_gives_empty_states() -> None:
    rec = {"role": "button", "name": "Go"}
    merge_ax(rec, {"nodes": [node()]})
    assert rec["states"] == {}


def test_the_page_states_dict_is_replaced_not_changed_in_place() -> None:
    page_states = {"disabled": False}
    rec = merged(record(states=page_states), node(properties=[prop("disabled", True)]))
    assert rec["states"] == {"disabled": True}
    assert page_states == {"disabled": False}


def test_a_frame_owner_dressed_as_a_button_stays_a_frame() -> None:
    """Chrome's tree reports `<iframe role=button>` as a button (issue 43): the page script's
    `frame` stands, and Chrome's own frame roles read as `frame`."""
    rec = merged(record(role="frame", tag="iframe"), node("button", "Save draft"))
    assert rec["role"] == "frame" and rec["name"] == "Save draft"
    for chrome_role in ("Iframe", "IframePresentational", "Embed", "PluginObject"):
        assert merged(record(), node(chrome_role, "Pay"))["role"] == "frame", chrome_role


def _field(value: str) -> dict[str, Any]:
    out = node("textbox", "IBAN")
    out["value"] = {"type": "string", "value": value}
    return out


@pytest.mark.parametrize(
    ("ours", "theirs", "flagged"),
    [
        ("DE89 3704", "DE89  3704\n", False),  # whitespace aside, the same
        ("DE89 3704", "DE00 0000", True),  # the world read one value, Chrome shows another
        ("********", "••••••••", False),  # a password: the tree shows it masked
        ("x" * 1000, "x" * 5000, False),  # clipped page-side: compared with the tree's start
        ("x" * 1000, "y" + "x" * 4999, True),
    ],
)
def test_a_value_the_tree_shows_otherwise_is_flagged_unverified(
    ours: str, theirs: str, flagged: bool
) -> None:
    r = record(value=ours)
    merge_ax(r, {"nodes": [_field(theirs)]})
    assert r["states"].get("unverified", False) is flagged


def test_a_value_of_another_role_is_not_compared() -> None:
    r = record(value="12")
    out = node("spinbutton", "Count")
    out["value"] = {"type": "number", "value": 13}
    merge_ax(r, {"nodes": [out]})
    assert "unverified" not in r["states"]


def test_the_clip_length_is_the_page_script_s() -> None:
    """merge_ax compares a clipped value with the start of the tree's: its FIELD_LIMIT must be
    the one the page script clips at (pagescripts/src/text.js)."""
    import re
    from pathlib import Path

    from reins.observe.ax import FIELD_LIMIT

    source = (Path(__file__).parents[2] / "pagescripts" / "src" / "text.js").read_text()
    found = re.search(r"export const FIELD_LIMIT = (\d+);", source)
    assert found is not None and int(found.group(1)) == FIELD_LIMIT
