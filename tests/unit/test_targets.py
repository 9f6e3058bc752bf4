"""TARGET strings (reins.act.targets.parse_target): every form an agent writes, and the errors."""

from __future__ import annotations

import pytest
from reins._errors import UsageError
from reins.act.targets import Target, parse_target


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        # refs
        ("@save", Target("ref", "@save")),
        ("@e7f3a2", Target("ref", "@e7f3a2")),
        ("@save_2-b", Target("ref", "@save_2-b")),
        # CSS: the default, and css= for what would otherwise read as another form
        ("#name", Target("css", "#name")),
        ("button.primary > span", Target("css", "button.primary > span")),
        ("css=#a", Target("css", "#a")),
        ("css=text=x", Target("css", "text=x")),
        ("  #padded  ", Target("css", "#padded")),
        # XPath
        ("//a", Target("xpath", "//a")),
        ("(//a)[2]", Target("xpath", "(//a)[2]")),
        ("./span", Target("xpath", "./span")),
        ("..", Target("xpath", "..")),
        ("xpath=//b", Target("xpath", "//b")),
        ("xpath=id('x')", Target("xpath", "id('x')")),
        # role, with an optional name; the s flag makes the name exact, i (or none) does not
        ("role=link", Target("role", "link")),
        ("role=Button", Target("role", "button")),
        ('role=button[name="Save"]', Target("role", "button", name="Save")),
        ("role=button[name='Save']", Target("role", "button", name="Save")),
        ('role=button[name="Save" s]', Target("role", "button", name="Save", exact=True)),
        ('role=button[name="Save" i]', Target("role", "button", name="Save", exact=False)),
        (
            "role=menu-item [ name = 'Save as…' s ]",
            Target("role", "menu-item", name="Save as…", exact=True),
        ),
        ('role=button[name=""]', Target("role", "button", name="")),
        ("role=button[name=\"Say 'hi'\"]", Target("role", "button", name="Say 'hi'")),
        # text: a substring, or exact when quoted
        ("text=Sign in", Target("text", "Sign in")),
        ('text="Sign in"', Target("text", "Sign in", exact=True)),
        ("text='Sign in'", Target("text", "Sign in", exact=True)),
        (
            "text= Sign in ",
            Target("text", " Sign in"),
        ),  # the whole TARGET is stripped, not the body
        ('text="Sign in', Target("text", '"Sign in')),  # unbalanced quotes: a substring
    ],
)
def test_each_target_form(raw: str, want: Target) -> None:
    assert parse_target(raw) == want


@pytest.mark.parametrize(
    ("raw", "kind", "value"),
    [
        ("#inside", "css", "#inside"),
        ("css=#inside", "css", "#inside"),
        ("//button", "xpath", "//button"),
        ("xpath=//button", "xpath", "//button"),
        ("role=button", "role", "button"),
        ("text=Pay", "text", "Pay"),
    ],
)
def test_frame_is_carried_by_every_form_but_a_ref(raw: str, kind: str, value: str) -> None:
    target = parse_target(raw, frame="iframe#pay")
    assert (target.kind, target.value, target.frame) == (kind, value, "iframe#pay")


def test_no_frame_by_default() -> None:
    assert parse_target("#a").frame is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "empty target"),
        ("   ", "empty target"),
        ("@", "'@' is not a ref"),
        ("@a b", "'@a b' is not a ref"),
        ("@a.b", "'@a.b' is not a ref"),
        ("@#x", "'@#x' is not a ref"),
        ("role=", "use role=ROLE"),
        ("role=button[name=Save]", "use role=ROLE"),
        ('role=button[name="Save" x]', "use role=ROLE"),
        ('role=button[label="Save"]', "use role=ROLE"),
        ("role=1button", "use role=ROLE"),
        ("text=", "text= needs some text"),
        ("text=   ", "text= needs some text"),
    ],
)
def test_invalid_targets(raw: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_target(raw)
    assert info.value.code == "invalid_selector"
    assert message in str(info.value.args[0])


def test_a_ref_cannot_be_scoped_to_a_frame() -> None:
    with pytest.raises(UsageError) as info:
        parse_target("@save", frame="iframe#pay")
    assert info.value.code == "invalid_selector"
    assert "a ref knows its frame" in str(info.value.args[0])


def test_the_error_says_how_targets_look() -> None:
    with pytest.raises(UsageError) as info:
        parse_target("@")
    assert "@save" in info.value.message and "@e7f3a2" in info.value.message
