from __future__ import annotations

from typing import Any

import pytest
from reins._errors import ResolutionError, UsageError
from reins.observe.imap import Lookup, build_map, find_with_fallback, query_map, tag_for_type


def record(
    i: int, text: str, *, type: str = "button", tag: str | None = None, **extra: Any
) -> dict[str, Any]:
    tag = tag or type.split("-")[0]
    rec: dict[str, Any] = {
        "i": i,
        "frame": "f0",
        "shadow": [],
        "tag": tag,
        "type": type,
        "role": "button",
        "name": text,
        "text": text,
        "value": None,
        "in_viewport": True,
        "visible": True,
        "obscured": False,
        "box": [10, 20 + 30 * i, 80, 20],
        "selectors": {
            "byId": None,
            "byTestId": None,
            "byText": {"sel": f"//{tag}[contains(text(), '{text}')]", "count": 1},
            "byCSS": {"sel": f"{tag}.btn", "count": 4},
            "byRole": None,
            "byAriaLabel": None,
        },
        "best": "byText",
        "attributes": {"class": "btn", "disabled": False},
        "context": {"section": None},
        "reasons": ["native"],
    }
    rec.update(extra)
    return rec


def collected(*records: dict[str, Any]) -> dict[str, Any]:
    return {
        "url": "http://127.0.0.1:8000/static/detect.html",
        "title": "Detect",
        "timestamp": 1732900000000,
        "viewport": {"width": 1280, "height": 800, "scrollX": 0, "scrollY": 0, "dpr": 1},
        "frames": [{"id": "f0", "parent": None, "url": "x", "selector": None, "status": "ok"}],
        "elements": list(records),
        "truncated": False,
    }


PAGE = collected(
    record(0, "Submit", type="button-submit"),
    record(1, "Delete"),
    record(2, "Delete"),
    record(3, "Delete", in_viewport=False),
    record(
        4,
        "",
        type="input-text",
        name="Username",
        selectors={"byId": {"sel": "#user", "count": 1}},
        best="byId",
    ),
    record(5, "", type="input-search", name="Search"),
    record(6, "메뉴로 돌아가기", type="a"),
    record(7, "Main  Menu\n", type="div-clickable"),
    record(8, "Delete all", type="button"),
)


@pytest.fixture
def imap() -> dict[str, Any]:
    return build_map(PAGE)


def test_elements_are_keyed_and_shaped(imap: dict[str, Any]) -> None:
    assert list(imap["elements"]) == [f"elem_{n}" for n in range(9)]
    submit = imap["elements"]["elem_0"]
    assert submit["id"] == "elem_0"
    assert submit["type"] == "button-submit"
    assert submit["tag"] == "button"
    assert submit["position"] == {"x": 50, "y": 30}
    assert submit["visibility"] == {"inViewport": True, "visible": True, "obscured": False}
    assert submit["selectors"]["byText"] == "//button[contains(text(), 'Submit')]"
    assert submit["selectors"]["byCSS"] == "button.btn"
    assert submit["selectors"]["byId"] is None
    assert submit["selectors"]["matchCounts"] == {"byText": 1, "byCSS": 4}
    assert submit["selectors"]["best"] == "//button[contains(text(), 'Submit')]"
    assert imap["url"] == PAGE["url"]
    assert imap["timestamp"] == "2024-11-29T17:06:40.000+00:00"
    assert imap["viewport"]["width"] == 1280


def test_text_falls_back_to_name_and_is_normalized(imap: dict[str, Any]) -> None:
    assert imap["elements"]["elem_4"]["text"] == "Username"
    assert imap["elements"]["elem_4"]["selectors"]["best"] == "#user"
    assert imap["elements"]["elem_7"]["text"] == "Main Menu"


def test_indexes(imap: dict[str, Any]) -> None:
    indexes = imap["indexes"]
    assert indexes["byText"]["Delete"] == ["elem_1", "elem_2", "elem_3"]
    assert indexes["byText"]["Username"] == ["elem_4"]
    assert indexes["byType"]["button"] == ["elem_1", "elem_2", "elem_3", "elem_8"]
    assert indexes["byType"]["input-text"] == ["elem_4"]
    assert "elem_3" not in indexes["inViewport"]
    assert len(indexes["inViewport"]) == 8


def test_statistics(imap: dict[str, Any]) -> None:
    stats = imap["statistics"]
    assert stats["total"] == 9
    assert stats["byType"] == {
        "button-submit": 1,
        "button": 4,
        "input-text": 1,
        "input-search": 1,
        "a": 1,
        "div-clickable": 1,
    }
    assert stats["duplicates"] == 1  # "Delete" is the only text shared


def test_build_map_rejects_other_data() -> None:
    with pytest.raises(UsageError):
        build_map({"timestamp": 1})
    with pytest.raises(UsageError):
        build_map({"elements": []})


def ids(found: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in found]


def test_exact_text_beats_containment(imap: dict[str, Any]) -> None:
    assert ids(query_map(imap, text="Delete")) == ["elem_1", "elem_2", "elem_3"]
    assert ids(query_map(imap, text="  Delete ")) == ["elem_1", "elem_2", "elem_3"]
    assert ids(query_map(imap, text="Dele")) == ["elem_1", "elem_2", "elem_3", "elem_8"]
    assert ids(query_map(imap, text="Main Menu")) == ["elem_7"]


def test_index_is_one_based(imap: dict[str, Any]) -> None:
    assert ids(query_map(imap, text="Delete", index=2)) == ["elem_2"]
    assert ids(query_map(imap, text="Delete", index=4)) == []
    with pytest.raises(UsageError):
        query_map(imap, text="Delete", index=0)


def test_fuzzy_is_case_insensitive_and_works_for_korean(imap: dict[str, Any]) -> None:
    assert ids(query_map(imap, text="menu")) == ["elem_7"]
    assert ids(query_map(imap, text="DELETE ALL")) == ["elem_8"]
    assert ids(query_map(imap, text="돌아가기")) == ["elem_6"]
    assert ids(query_map(imap, text="메뉴")) == ["elem_6"]
    assert query_map(imap, text="nothing like it") == []


def test_type_aliases(imap: dict[str, Any]) -> None:
    assert ids(query_map(imap, type="input")) == ["elem_4", "elem_5"]
    assert ids(query_map(imap, type="input-search")) == ["elem_5"]
    assert ids(query_map(imap, type="button")) == ["elem_0", "elem_1", "elem_2", "elem_3", "elem_8"]
    assert ids(query_map(imap, type="button-submit")) == ["elem_0"]
    assert ids(query_map(imap, type="div")) == []  # only input and button are generic


def test_filters_combine(imap: dict[str, Any]) -> None:
    assert ids(query_map(imap, text="Delete", viewport_only=True)) == ["elem_1", "elem_2"]
    assert ids(query_map(imap, text="Delete", type="button", index=3)) == ["elem_3"]
    assert ids(query_map(imap, tag="INPUT")) == ["elem_4", "elem_5"]
    assert ids(query_map(imap, text="Username", type="input")) == ["elem_4"]
    assert ids(query_map(imap, id="elem_6")) == ["elem_6"]
    assert query_map(imap, id="elem_99") == []
    assert ids(query_map(imap, id="elem_6", type="button")) == []


def test_tag_for_type() -> None:
    assert tag_for_type("input-datetime-local") == "input"
    assert tag_for_type("button-submit") == "button"
    assert tag_for_type("div-clickable") == "div"
    assert tag_for_type("my-widget-clickable") == "my-widget"
    assert tag_for_type("a") == "a"
    assert tag_for_type("svg") == "svg"


class Regenerator:
    def __init__(self, *maps: dict[str, Any]) -> None:
        self.maps = list(maps)
        self.calls = 0

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return self.maps.pop(0) if self.maps else build_map(collected())


def test_fallback_stage_type(imap: dict[str, Any]) -> None:
    regenerate = Regenerator()
    found = find_with_fallback(imap, regenerate, text="Delete", type="button", index=2)
    assert isinstance(found, Lookup)
    assert (found.stage, ids(found.matches), found.regenerations) == ("type", ["elem_2"], 0)
    assert regenerate.calls == 0


def test_fallback_stage_tag(imap: dict[str, Any]) -> None:
    # Asked for a reset button; the map typed it button-submit. The tag search still finds it.
    regenerate = Regenerator()
    found = find_with_fallback(imap, regenerate, text="Submit", type="button-reset")
    assert (found.stage, ids(found.matches)) == ("tag", ["elem_0"])
    assert regenerate.calls == 0


def test_fallback_stage_regenerate(imap: dict[str, Any]) -> None:
    fresh = build_map(collected(record(0, "Checkout"), record(1, "Save")))
    regenerate = Regenerator(build_map(collected()), fresh)
    found = find_with_fallback(imap, regenerate, text="Save", type="button")
    assert (found.stage, ids(found.matches), found.regenerations) == ("regenerate", ["elem_1"], 2)
    assert found.imap is fresh


def test_fallback_gives_up_after_three_maps(imap: dict[str, Any]) -> None:
    regenerate = Regenerator()
    with pytest.raises(ResolutionError) as info:
        find_with_fallback(imap, regenerate, text="Missing", type="button")
    assert info.value.code == "not_found"
    assert info.value.details["query"] == {"text": "Missing", "type": "button"}
    assert regenerate.calls == 3
