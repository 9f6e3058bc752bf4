from __future__ import annotations

import math

import pytest
from reins._errors import UsageError
from reins.observe.render import FrameView, RefView, approx_tokens, render_state, state_json

MAIN = FrameView("f0", url="https://shop.example/checkout", title="Checkout")
PAY = FrameView("f1", url="https://shop.example/pay", title="Payment", parent="f0")
ADS = FrameView(
    "f2", url="https://ads.example/x", status="cross_origin", reason="cross_origin", parent="f0"
)


def view(
    ref: str,
    name: str,
    *,
    role: str = "button",
    frame: str = "f0",
    in_viewport: bool = True,
    value: str | None = None,
    disabled: bool = False,
    checked: bool | None = None,
    expanded: bool | None = None,
    selected: bool | None = None,
    focused: bool = False,
    unverified: bool = False,
) -> RefView:
    return RefView(
        ref=ref,
        role=role,
        name=name,
        frame=frame,
        in_viewport=in_viewport,
        value=value,
        disabled=disabled,
        checked=checked,
        expanded=expanded,
        selected=selected,
        focused=focused,
        unverified=unverified,
    )


def test_line_format_and_flags() -> None:
    refs = [
        view("@submitbtn", "Submit", disabled=True),
        view("@emailfield", "Email", role="textbox", value="a@b.c", focused=True),
        view("@terms", "I agree", role="checkbox", checked=False),
        view("@news", "Newsletter", role="checkbox", checked=True),
        view("@menu", "Menu", expanded=True, selected=False),
        view("@tab1", "Overview", role="tab", selected=True, expanded=False),
        view("@plain", "Plain", checked=None),
        view("@iban", "IBAN", role="textbox", value="DE89", unverified=True),
    ]
    assert render_state(refs, [MAIN], max_tokens=None).text.splitlines() == [
        '@submitbtn button "Submit" [disabled]',
        '@emailfield textbox "Email" value="a@b.c" [focused]',
        '@terms checkbox "I agree" [unchecked]',
        '@news checkbox "Newsletter" [checked]',
        '@menu button "Menu" [expanded]',
        '@tab1 tab "Overview" [selected]',
        '@plain button "Plain"',
        '@iban textbox "IBAN" value="DE89" [unverified]',
    ]


def test_quotes_and_backslashes_are_escaped() -> None:
    text = render_state([view("@q", 'Say "hi" \\ bye', value='a"b')], [MAIN], max_tokens=None).text
    assert text == '@q button "Say \\"hi\\" \\\\ bye" value="a\\"b"'


def test_long_names_are_cut_to_80_with_ellipsis() -> None:
    text = render_state([view("@long", "word " * 40)], [MAIN], max_tokens=None).text
    name = text.split('"')[1]
    assert len(name) == 80 and name.endswith("…")


def test_ref_without_at_gets_one_and_empty_value_is_not_shown() -> None:
    text = render_state([view("save", "Save", value="")], [MAIN], max_tokens=None).text
    assert text == '@save button "Save"'


def test_frames_are_grouped_main_first_and_unreachable_is_marked() -> None:
    refs = [
        view("@a", "A"),
        view("@card", "Card number", frame="f1", role="textbox"),
        view("@b", "B"),
    ]
    result = render_state(refs, [MAIN, PAY, ADS], max_tokens=None)
    assert result.text.splitlines() == [
        '@a button "A"',
        '@b button "B"',
        '--- frame f1 "https://shop.example/pay" ---',  # by its URL: the title is the page's
        '@card textbox "Card number"',
        '--- frame f2 "https://ads.example/x" frame_unreachable: cross_origin ---',
    ]
    assert result.frame_sections == 2
    assert result.approx_tokens == math.ceil(len(result.text) / 4)


def test_a_frame_is_named_by_its_url_and_an_origin_the_url_does_not_show() -> None:
    srcdoc = FrameView("f1", url="about:srcdoc", origin="https://shop.example", parent="f0")
    same = FrameView("f2", url="https://pay.example/x", origin="https://pay.example", parent="f0")
    unknown = FrameView("f3", url=None, title="Stripe", parent="f0")
    text = render_state(
        [view("@a", "A", frame="f1"), view("@b", "B", frame="f2"), view("@c", "C", frame="f3")],
        [MAIN, srcdoc, same, unknown],
    ).text
    assert [line for line in text.splitlines() if line.startswith("---")] == [
        '--- frame f1 "about:srcdoc" origin "https://shop.example" ---',
        '--- frame f2 "https://pay.example/x" ---',
        "--- frame f3 (no url) ---",
    ]


def test_frame_header_falls_back_to_url_and_status() -> None:
    untitled = FrameView("f1", url="https://a.example/inner", parent="f0")
    blocked = FrameView("f2", url="about:blank", status="timeout", parent="f0")
    text = render_state(
        [view("@x", "X", frame="f1")], [MAIN, untitled, blocked], max_tokens=None
    ).text
    assert text.splitlines() == [
        '--- frame f1 "https://a.example/inner" ---',
        '@x button "X"',
        '--- frame f2 "about:blank" frame_unreachable: timeout ---',
    ]


def test_frame_view_from_record() -> None:
    frame = FrameView.from_record(
        {
            "id": "f2",
            "parent": "f0",
            "url": "http://x/",
            "selector": "iframe",
            "status": "cross_origin",
        }
    )
    assert not frame.reachable and frame.status == "cross_origin"


def page(count: int, *, in_view: range) -> list[RefView]:
    return [view(f"@item{i}", f"Item number {i}", in_viewport=i in in_view) for i in range(count)]


@pytest.mark.parametrize("budget", [45, 60, 100, 250, 1000])
def test_max_tokens_is_a_hard_budget(budget: int) -> None:
    refs = page(300, in_view=range(100, 120))
    result = render_state(refs, [MAIN, ADS], max_tokens=budget)
    assert result.approx_tokens <= budget
    assert result.approx_tokens == approx_tokens(result.text)
    assert result.shown + result.left_out == 300
    assert result.text.splitlines()[-1].startswith(f"… {result.left_out} elements left out")
    assert "frame_unreachable" in result.text  # markers survive the cut


def test_viewport_elements_come_first_then_document_order() -> None:
    refs = page(200, in_view=range(150, 160))
    result = render_state(refs, [MAIN], max_tokens=120)
    shown = [line.split()[0] for line in result.text.splitlines()[:-1]]
    in_view = [f"@item{i}" for i in range(150, 160)]
    assert set(in_view) <= set(shown)
    others = [r for r in shown if r not in in_view]
    assert others == [f"@item{i}" for i in range(len(others))]
    # Lines stay in document order.
    assert shown == sorted(shown, key=lambda r: int(r[5:]))
    assert list(result.shown_refs) == shown
    assert result.text.endswith(
        f"… {result.left_out} elements left out (offscreen); "
        "run with --max-tokens 0 for all, or scroll and run again"
    )
    assert result.left_out_offscreen == result.left_out


def test_budget_too_small_for_the_viewport_says_so() -> None:
    refs = page(100, in_view=range(0, 100))
    result = render_state(refs, [MAIN], max_tokens=60)
    assert result.left_out_in_viewport > 0
    assert f"({result.left_out_in_viewport} in view," in result.text
    assert result.approx_tokens <= 60


def test_frame_header_only_when_its_elements_fit() -> None:
    refs = [view(f"@m{i}", f"Main {i}") for i in range(40)]
    refs += [view(f"@p{i}", f"Pay {i}", frame="f1", in_viewport=False) for i in range(40)]
    result = render_state(refs, [MAIN, PAY], max_tokens=80)
    assert "--- frame f1" not in result.text
    assert result.approx_tokens <= 80


def test_zero_or_none_means_everything() -> None:
    refs = page(50, in_view=range(0))
    assert render_state(refs, [MAIN], max_tokens=0) == render_state(refs, [MAIN], max_tokens=None)
    assert render_state(refs, [MAIN], max_tokens=0).left_out == 0


def test_impossible_budget_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as err:
        render_state(page(10, in_view=range(0)), [MAIN], max_tokens=5)
    assert err.value.details["min_tokens"] > 5
    with pytest.raises(UsageError):
        render_state([], [MAIN], max_tokens=-1)


def test_state_json_in_document_order() -> None:
    refs = [
        view("@a", "A", in_viewport=False, disabled=True),
        view("@card", "Card", frame="f1", role="textbox", value="4242"),
        view("@c", "C", role="checkbox", checked=False),
    ]
    out = state_json(refs)
    assert [r["ref"] for r in out] == ["@a", "@card", "@c"]
    assert out[1] == {
        "ref": "@card",
        "role": "textbox",
        "name": "Card",
        "tag": None,
        "value": "4242",
        "frame": "f1",
        "in_viewport": True,
        "disabled": False,
        "checked": None,
        "expanded": None,
        "selected": None,
        "focused": False,
        "unverified": False,
        "holds": [],
    }
    assert out[2]["checked"] is False
    assert [r["ref"] for r in state_json(refs, include=["c", "@a"])] == ["@a", "@c"]


def test_ref_view_from_record() -> None:
    record = {
        "i": 3,
        "frame": "f1",
        "tag": "input",
        "role": "checkbox",
        "name": "Remember me",
        "value": "on",
        "in_viewport": False,
        "states": {"disabled": False, "checked": False, "expanded": None, "focused": True},
    }
    got = RefView.from_record(record, "@remember")
    assert got == RefView(
        ref="@remember",
        role="checkbox",
        name="Remember me",
        tag="input",
        value="on",
        frame="f1",
        in_viewport=False,
        checked=False,
        focused=True,
    )


def test_the_scroll_line_says_what_is_left_each_way() -> None:
    from reins.observe.state import scroll_line

    line = scroll_line(
        [
            {"target": "page", "label": "page", "below": 1480, "above": 0},
            {"target": "#vlist", "label": 'div#vlist "Row 0"', "below": 19800, "above": 200},
            {"target": None, "label": "div.feed", "below": 0, "above": 400},
        ]
    )
    assert line.startswith(
        "↕ scrollable: page 1,480 px below · #vlist 19,800 px below, 200 above · "
        "div.feed at its end, 400 above"
    )
    assert scroll_line([]) == ""


def test_ref_view_from_record_puts_each_state_in_its_own_field() -> None:
    # Every field a different value, so a field given in the wrong position shows.
    record = {
        "frame": "f2",
        "tag": "div",
        "role": "combobox",
        "name": "Category",
        "value": 7,
        "states": {
            "disabled": True,
            "checked": "mixed",
            "expanded": True,
            "selected": False,
            "focused": False,
        },
    }
    got = RefView.from_record(record, "@cat")
    assert (got.ref, got.role, got.name, got.tag, got.value, got.frame) == (
        "@cat",
        "combobox",
        "Category",
        "div",
        "7",
        "f2",
    )
    assert (got.in_viewport, got.disabled, got.checked, got.expanded, got.selected) == (
        True,
        True,
        "mixed",
        True,
        False,
    )
    assert got.focused is False
    bare = RefView.from_record({"role": "button", "states": "odd"}, "@b")
    assert bare == RefView(ref="@b", role="button", name=None)
