"""The public Python surface (reins.__all__: the error types) and the error contract behind it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import reins
from reins import _errors
from reins._errors import (
    KNOWN_CODES,
    ActionError,
    BrowserError,
    ConnectionFailure,
    DeadlineExceeded,
    EvaluateError,
    ReinsError,
    ResolutionError,
    UsageError,
    error_from_wire,
    from_cdp_error,
    from_os_error,
)

ERROR_CLASSES: dict[type[ReinsError], str] = {
    ReinsError: "internal",
    UsageError: "bad_request",
    ConnectionFailure: "not_connected",
    BrowserError: "cdp_error",
    ResolutionError: "not_found",
    ActionError: "check_failed",
    EvaluateError: "eval_exception",
    DeadlineExceeded: "timeout",
}


def test_all_is_pinned() -> None:
    assert reins.__all__ == [
        "ActionError",
        "BrowserError",
        "ConnectionFailure",
        "DeadlineExceeded",
        "EvaluateError",
        "ReinsError",
        "ResolutionError",
        "UsageError",
        "__version__",
    ]


def test_everything_in_all_exists_and_errors_are_the_real_classes() -> None:
    for name in reins.__all__:
        assert hasattr(reins, name), name
    for name in reins.__all__:
        if name != "__version__":
            assert getattr(reins, name) is getattr(_errors, name)
    assert re.fullmatch(r"\d+\.\d+\.\d+", reins.__version__)


# ---- the hierarchy ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "code"), ERROR_CLASSES.items(), ids=lambda x: getattr(x, "__name__", x)
)
def test_default_code_of_every_class(cls: type[ReinsError], code: str) -> None:
    assert cls.code == code
    error = cls("something went wrong")
    assert error.code == code
    assert isinstance(error, ReinsError)
    assert isinstance(error, Exception)


def test_only_timeout_is_transient_by_default() -> None:
    transient = {cls for cls in ERROR_CLASSES if cls("x").transient}
    assert transient == {DeadlineExceeded}


def test_code_and_transient_can_be_overridden_per_instance() -> None:
    error = BrowserError("gone", code="target_closed", transient=True)
    assert (error.code, error.transient) == ("target_closed", True)
    assert BrowserError.code == "cdp_error"  # the class default is untouched
    assert BrowserError("x").code == "cdp_error"


def test_docstring_tree_matches_the_code_table() -> None:
    """The hierarchy drawn at the top of _errors.py is the table error_from_wire uses."""
    doc = _errors.__doc__ or ""
    drawn: dict[str, str] = {}
    current = None
    for line in doc.splitlines():
        match = re.match(r"\s*[│├└─ ]*(\w+Error|\w+Failure|\w+Exceeded)\s+(.*)$", line)
        if match and match.group(1) != "ReinsError":
            current = match.group(1)
            text = match.group(2)
        elif current and re.match(r"\s*│?\s{10,}\S", line):
            text = line
        else:
            continue
        text = text.split("(")[0]
        for code in re.findall(r"\b[a-z]+(?:_[a-z]+)*\b", text):
            drawn[code] = current
    for code, cls_name in drawn.items():
        assert type(error_from_wire({"code": code})).__name__ == cls_name, code
    assert set(drawn) | {"internal"} == set(KNOWN_CODES)


@pytest.mark.parametrize("code", sorted(KNOWN_CODES))
def test_every_code_has_a_next_step(code: str) -> None:
    error = error_from_wire({"code": code})
    fresh = type(error)("it failed", code=code)
    assert fresh.hint, f"{code} has no next step"
    assert fresh.message.startswith("it failed; ")
    assert re.fullmatch(r"[a-z]+(_[a-z]+)*", code)


# ---- wire form -------------------------------------------------------------------------------


def test_to_wire_has_code_message_transient() -> None:
    wire = ResolutionError("no element matches #save", code="not_found").to_wire()
    assert set(wire) == {"code", "message", "transient"}
    assert wire["code"] == "not_found"
    assert wire["transient"] is False
    assert wire["message"].startswith("no element matches #save")
    assert "reins state" in wire["message"]  # the next step


def test_to_wire_includes_details() -> None:
    wire = ResolutionError(
        "two match", code="ambiguous", details={"candidates": ["@a", "@b"]}
    ).to_wire()
    assert wire["candidates"] == ["@a", "@b"]
    assert wire["code"] == "ambiguous"


def test_explicit_hint_replaces_the_default_and_is_not_repeated() -> None:
    error = UsageError("bad thing; do X", hint="do X")
    assert error.message == "bad thing; do X"
    assert UsageError("bad thing", hint="").message == "bad thing"
    assert UsageError("bad thing", hint="do Y").message == "bad thing; do Y"


@pytest.mark.parametrize(
    ("cls", "code"), ERROR_CLASSES.items(), ids=lambda x: getattr(x, "__name__", x)
)
def test_error_from_wire_round_trip(cls: type[ReinsError], code: str) -> None:
    original = cls("it broke", details={"request_id": 7, "candidates": ["@x"]})
    wire = original.to_wire()
    again = error_from_wire(wire)
    assert type(again) is cls
    assert again.code == code
    assert again.transient == original.transient
    assert again.details == {"request_id": 7, "candidates": ["@x"]}
    assert again.to_wire() == wire  # stable: the hint is not appended twice


@pytest.mark.parametrize("code", sorted(KNOWN_CODES))
def test_error_from_wire_picks_the_class_by_code(code: str) -> None:
    again = error_from_wire({"code": code, "message": "m", "transient": False})
    assert again.code == code
    assert isinstance(again, ReinsError)


def test_error_from_wire_keeps_transient_and_unknown_codes() -> None:
    assert (
        error_from_wire({"code": "obscured", "message": "m", "transient": True}).transient is True
    )
    unknown = error_from_wire({"code": "brand_new_code", "message": "m", "extra": 1})
    assert type(unknown) is ReinsError
    assert unknown.code == "brand_new_code"
    assert unknown.details == {"extra": 1}
    empty = error_from_wire({})
    assert empty.code == "internal"
    assert error_from_wire({"code": "timeout"}).transient is True


# ---- foreign errors --------------------------------------------------------------------------


# What the extension answers for Chrome's messages (extension/errors.js classifies them, and
# tests/extension/errors.test.mjs pins which message is which): the host trusts the code.
@pytest.mark.parametrize(
    ("answered", "cls", "code", "transient", "said"),
    [
        (
            {"code": "timeout", "transient": True, "chrome": "script_terminated"},
            DeadlineExceeded,
            "timeout",
            True,
            "Runtime.evaluate: the script ran past its budget and was stopped",
        ),
        (
            {"code": "ref_stale", "transient": True, "chrome": "node_gone"},
            ResolutionError,
            "ref_stale",
            True,
            "Runtime.evaluate: the node is gone from the page",
        ),
        (
            {"code": "cdp_error", "transient": True, "chrome": "context_gone"},
            BrowserError,
            "cdp_error",
            True,
            "Runtime.evaluate: the page navigated while the call ran",
        ),
        (
            {"code": "cdp_error", "chrome": "object_gone"},
            BrowserError,
            "cdp_error",
            False,
            "Runtime.evaluate: Chrome's words",
        ),
        ({"code": "target_closed"}, BrowserError, "target_closed", False, "Chrome's words"),
        ({"code": "page_refused"}, BrowserError, "page_refused", False, "Chrome's words"),
        (
            {"code": "cdp_error"},
            BrowserError,
            "cdp_error",
            False,
            "Runtime.evaluate: Chrome's words",
        ),
        # A code this host does not know (a raw CDP error code) is a cdp_error.
        ({"code": -32000}, BrowserError, "cdp_error", False, "Runtime.evaluate: Chrome's words"),
    ],
)
def test_from_cdp_error_trusts_the_extensions_code(
    answered: dict[str, Any], cls: type[ReinsError], code: str, transient: bool, said: str
) -> None:
    error = from_cdp_error("Runtime.evaluate", {"message": "Chrome's words", **answered})
    assert type(error) is cls
    assert error.code == code
    assert error.transient is transient
    assert error.chrome == answered.get("chrome")
    assert str(error) == said
    assert "chrome" not in error.to_wire()


@pytest.mark.parametrize(
    "message",
    [
        "Execution was terminated",
        "No node with given id found",
        "No target with given id found",
        "Debugger is not attached to the tab with id: 5. Detached while handling command.",
        "No tab with id: 12.",
        "Cannot access a chrome:// URL",
        "Execution context was destroyed.",
        "Cannot find context with specified id",
        "Could not find object with given id",
    ],
)
def test_chromes_words_decide_nothing_in_the_host(message: str) -> None:
    """Only the extension reads Chrome's message: a cdp_error with any of its words stays a plain
    cdp_error, with no cause attached."""
    for answered in ({"code": "cdp_error"}, {"code": -32000}, {}):
        error = from_cdp_error("Runtime.evaluate", {**answered, "message": message})
        assert type(error) is BrowserError
        assert (error.code, error.transient, error.chrome) == ("cdp_error", False, None)
        assert str(error) == f"Runtime.evaluate: {message}"


def test_from_cdp_error_keeps_a_typed_code_from_the_extension() -> None:
    error = from_cdp_error("Storage.getCookies", {"code": "cdp_blocked", "message": "not allowed"})
    assert type(error) is BrowserError
    assert error.code == "cdp_blocked"
    paused = from_cdp_error("Page.navigate", {"code": "paused", "message": "paused by the user"})
    assert paused.code == "paused"
    timeout = from_cdp_error("Page.navigate", {"code": "timeout", "message": "slow"})
    assert type(timeout) is DeadlineExceeded and timeout.transient is True
    stale = from_cdp_error("DOM.focus", {"code": "ref_stale", "message": "x", "transient": True})
    assert type(stale) is ResolutionError and stale.transient is True


def test_from_cdp_error_with_no_information() -> None:
    error = from_cdp_error("DOM.focus", {})
    assert type(error) is BrowserError
    assert error.code == "cdp_error"
    assert "DOM.focus" in str(error)


def test_from_os_error_is_no_host() -> None:
    error = from_os_error(ConnectionRefusedError(111, "Connection refused"), "connect")
    assert type(error) is ConnectionFailure
    assert error.code == "no_host"
    assert "Connection refused" in str(error)


# ---- scripts/check_typed_errors.py -----------------------------------------------------------

CHECK = Path(__file__).resolve().parents[2] / "scripts" / "check_typed_errors.py"

GOOD = """\
from reins._errors import BrowserError, ReinsError, UsageError, from_cdp_error
from reins import _errors as errs
from ._errors import ResolutionError as Missing


class ParseError(UsageError):
    pass


class DeeperError(ParseError):
    pass


def _unreadable(what: str) -> ReinsError:
    return ReinsError(what, code="internal")


def run(value: object) -> None:
    assert value is not None, "asserts are not raises"
    if value == 1:
        raise UsageError("bad")
    if value == 2:
        raise BrowserError
    if value == 3:
        raise DeeperError("deep")
    if value == 4:
        raise _unreadable("state")
    if value == 5:
        raise from_cdp_error("Page.navigate", {})
    if value == 6:
        raise errs.DeadlineExceeded("late")
    if value == 7:
        raise Missing("gone")
    try:
        int("x")
    except ValueError as exc:
        if value == 8:
            raise
        if value == 9:
            raise UsageError("not a number") from exc
        raise Missing("x") from None


async def retry(value: object) -> None:
    last: ReinsError | None = None
    for _attempt in range(3):
        last = Missing("moving", code="not_stable")
    if value:
        raise last
    cls = BrowserError if value == 0 else Missing
    raise cls("either", code="x")
"""

BAD = """\
import click
from reins._errors import UsageError


def run(value: object) -> None:
    if value == 1:
        raise ValueError("plain")
    if value == 2:
        raise RuntimeError
    if value == 3:
        raise click.UsageError("click's")
    try:
        pass
    except KeyError as exc:
        raise TypeError("x") from exc
    error = ValueError("kept in a variable")
    raise error


def mixed(value: object) -> None:
    problem = UsageError("typed")
    if value:
        problem = OSError("not typed")
    raise problem


def loop(errors: list[Exception]) -> None:
    for err in errors:
        raise err
"""


def _run_check(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), *map(str, paths)], capture_output=True, text=True, timeout=30
    )


def test_check_typed_errors_passes_a_good_file(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD)
    done = _run_check(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok: 1 file(s)")


def test_check_typed_errors_fails_a_bad_file_listing_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD)
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    done = _run_check(tmp_path)
    assert done.returncode == 1
    flagged = [line.split(": ", 1)[0] for line in done.stdout.splitlines()]
    assert flagged == [f"{bad}:{n}" for n in (7, 9, 11, 15, 17, 24, 29)]
    assert "ValueError" in done.stdout and "click.UsageError" in done.stdout
    assert "good.py" not in done.stdout
    assert "7 untyped raise(s) in 2 file(s)" in done.stderr


def test_check_typed_errors_on_a_single_file_and_a_missing_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("raise NotImplementedError\n")
    assert _run_check(bad).returncode == 1
    assert _run_check(tmp_path / "nope.py").returncode == 2


def test_check_typed_errors_allows_the_root_inside_errors_module(tmp_path: Path) -> None:
    (tmp_path / "_errors.py").write_text(
        "class ReinsError(Exception):\n    pass\n\n\nclass UsageError(ReinsError):\n    pass\n\n\n"
        "def f() -> None:\n    raise UsageError('x')\n"
    )
    assert _run_check(tmp_path).returncode == 0


def test_check_typed_errors_follows_error_classes_across_reins_modules(tmp_path: Path) -> None:
    pkg = tmp_path / "reins" / "page"
    pkg.mkdir(parents=True)
    (pkg / "poll.py").write_text(
        "from reins._errors import DeadlineExceeded\n\n\nclass NotYet(DeadlineExceeded):\n"
        "    pass\n"
    )
    (pkg / "user.py").write_text(
        "from collections.abc import Callable\n\nfrom reins._errors import ReinsError\n"
        "from reins.page.poll import NotYet\n\n\n"
        "def f(gave_up: Callable[[ReinsError], ReinsError], last: ReinsError) -> None:\n"
        "    if last.transient:\n        raise NotYet('x')\n    raise gave_up(last)\n"
    )
    assert _run_check(tmp_path).returncode == 0
    (pkg / "other.py").write_text(
        "from collections.abc import Callable\n\n"
        "def g(make: Callable[[], Exception]) -> None:\n    raise make()\n"
    )
    done = _run_check(tmp_path)
    assert done.returncode == 1 and "other.py:4" in done.stdout


def test_check_typed_errors_allows_attribute_error_only_in_getattr(tmp_path: Path) -> None:
    (tmp_path / "lazy.py").write_text(
        "def __getattr__(name: str) -> object:\n    raise AttributeError(name)\n"
    )
    assert _run_check(tmp_path).returncode == 0
    (tmp_path / "other.py").write_text(
        "def get(name: str) -> object:\n    raise AttributeError(name)\n"
    )
    assert _run_check(tmp_path).returncode == 1


def test_check_typed_errors_follows_an_isinstance_guard(tmp_path: Path) -> None:
    """`if isinstance(x, ReinsError): raise x` is typed (a batch's answers are results or
    errors); the same name raised outside that body, or under another class's guard, is not."""
    (tmp_path / "guarded.py").write_text(
        "from reins._errors import ReinsError\n"
        "\n"
        "\n"
        "def first(answers: list[object]) -> None:\n"
        "    for answer in answers:\n"
        "        if isinstance(answer, ReinsError):\n"
        "            raise answer\n"
        "        if isinstance(answer, ValueError):\n"
        "            raise answer\n"
        "    raise answers[0]\n"
    )
    done = _run_check(tmp_path)
    assert done.returncode == 1
    flagged = [line.split(": ", 1)[0] for line in done.stdout.splitlines()]
    assert flagged == [f"{tmp_path / 'guarded.py'}:{n}" for n in (9, 10)], done.stdout
