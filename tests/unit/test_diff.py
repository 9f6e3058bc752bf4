"""`state --diff` on hand-built observations: exactly the added, removed and changed lines."""

from __future__ import annotations

from reins.observe.diff import MAX_KEPT, diff_lines, lines_of
from reins.observe.render import RefView, approx_tokens, render_state


def page(n: int = 50, **changes: RefView | None) -> list[RefView]:
    views = [RefView(f"btn{i}", "button", f"Button {i}") for i in range(n)]
    out: list[RefView] = []
    for view in views:
        if view.ref in changes:
            replaced = changes[view.ref]
            if replaced is not None:
                out.append(replaced)
        else:
            out.append(view)
    return out


def test_no_change_is_empty() -> None:
    a = lines_of(page(), "d1")
    b = lines_of(page(), "d1")
    assert a is not None and b is not None
    diff = diff_lines(a, b)
    assert diff.empty and diff.text == "" and diff.approx_tokens == 0


def test_added_removed_changed_in_state_format() -> None:
    before = page()
    after = page(btn3=None, btn7=RefView("btn7", "button", "Renamed", disabled=True))
    after.insert(10, RefView("@newbtn", "button", "New"))
    a, b = lines_of(before, "d1"), lines_of(after, "d1")
    assert a is not None and b is not None
    diff = diff_lines(a, b)
    assert diff.removed == ("@btn3",)
    assert diff.added == ("@newbtn",)
    assert diff.changed == ("@btn7",)
    assert diff.text.split("\n") == [
        '- @btn3 button "Button 3"',
        '~ @btn7 button "Renamed" [disabled]',
        '+ @newbtn button "New"',
    ]
    full = render_state(after, []).approx_tokens
    assert diff.approx_tokens * 10 < full  # a few percent of the whole state


def test_position_alone_is_no_change() -> None:
    before = page(5)
    after = [RefView(v.ref, v.role, v.name, in_viewport=False) for v in before]
    a, b = lines_of(before, "d"), lines_of(after, "d")
    assert a is not None and b is not None
    assert diff_lines(a, b).empty


def test_other_frames_are_named_on_the_line() -> None:
    a = lines_of([RefView("a", "button", "A")], "d")
    b = lines_of([RefView("a", "button", "A"), RefView("pay", "textbox", "Card", frame="f1")], "d")
    assert a is not None and b is not None
    assert diff_lines(a, b).text == '+ @pay textbox "Card" [frame f1]'
    assert approx_tokens(diff_lines(a, b).text) == diff_lines(a, b).approx_tokens


def test_value_and_state_changes_show_the_new_line() -> None:
    a = lines_of(
        [RefView("email", "textbox", "Email"), RefView("ok", "checkbox", "OK", checked=False)], "d"
    )
    b = lines_of(
        [
            RefView("email", "textbox", "Email", value="a@b.c", focused=True),
            RefView("ok", "checkbox", "OK", checked=True),
        ],
        "d",
    )
    assert a is not None and b is not None
    assert diff_lines(a, b).text.split("\n") == [
        '~ @email textbox "Email" value="a@b.c" [focused]',
        '~ @ok checkbox "OK" [checked]',
    ]


def test_too_many_elements_keep_nothing() -> None:
    assert lines_of(page(MAX_KEPT + 1), "d") is None
    kept = lines_of(page(10), "doc-7")
    assert kept is not None and kept.document_id == "doc-7" and len(kept) == 10
