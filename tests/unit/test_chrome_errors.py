"""Chrome's errors are classified once, in the extension (extension/errors.js); the host trusts
the code and what the extension says Chrome said (``ReinsError.chrome``), and reads none of
Chrome's words itself.

The guard: every phrase of the extension's table is looked for in the string literals of
host/reins (docstrings and comments aside, where naming Chrome's words explains the code). A
pattern that creeps back into the host (``"context was destroyed" in message``) fails here.
"""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from reins._errors import ReinsError, from_cdp_error
from reins.act import effects
from reins.act.answers import Detached, Instead, Navigated, TabClosed, Unknown
from reins.act.instead import instead_of
from reins.bridge.context import CommandContext
from reins.bridge.deadline import Deadline
from reins.bridge.link import ExtensionLink

from tests.unit.fakes import FakeChrome, make_context

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "reins"
TABLE = ROOT / "extension" / "errors.js"

# Phrases of the table that are also reins's own words: the page_refused hint names chrome://,
# and a bug of reins's is an "internal error". (A reading of Chrome's "Internal error" is caught by
# tests/unit/test_eval_results.py, where those words alone must not stop a script.)
OWN_WORDS = {"chrome://", "chrome-extension://", "internal error"}
# Where the host may still hold one of the phrases, and why it is not a reading of Chrome's errors.
ALLOWED = {
    # exception_error: V8's thrown value in a Runtime answer's exceptionDetails (a result the
    # extension passes on untouched, not an error Chrome answered).
    ("page/call.py", "execution was terminated"),
}


def chrome_phrases() -> set[str]:
    """The phrases of extension/errors.js's table, lowercased: each alternative of each
    ``words: /…/i``."""
    source = TABLE.read_text()
    patterns = re.findall(r"words: /(.+?)/i,", source)
    assert len(patterns) >= 6, "extension/errors.js: the table's `words: /…/i` not found"
    phrases = {alt.replace("\\/", "/").lower() for p in patterns for alt in p.split("|")}
    assert all(re.fullmatch(r"[a-z0-9 ./:-]+", p) for p in phrases), phrases  # plain words only
    return phrases - OWN_WORDS


def literals(tree: ast.AST) -> list[str]:
    """The string constants of a module, its docstrings left out."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_phrases_are_read_from_the_extensions_table() -> None:
    phrases = chrome_phrases()
    for known in ("execution was terminated", "cannot find context", "no target with given id"):
        assert known in phrases


def test_no_chrome_message_text_is_matched_in_the_host() -> None:
    phrases = chrome_phrases()
    found = []
    for path in sorted(HOST.rglob("*.py")):
        rel = path.relative_to(HOST).as_posix()
        for text in literals(ast.parse(path.read_text(), str(path))):
            lowered = text.lower()
            found += [(rel, p) for p in phrases if p in lowered and (rel, p) not in ALLOWED]
    assert not found, (
        "Chrome's error words in host/reins: classify them in extension/errors.js and read "
        f"the code (or ReinsError.chrome) instead: {found}"
    )


def test_the_guard_sees_a_pattern_that_creeps_back() -> None:
    tree = ast.parse(
        'GONE = ("cannot find context",)\n\ndef f():\n    """Cannot find context."""\n'
    )
    assert literals(tree) == ["cannot find context"]
    assert any(p in literals(tree)[0] for p in chrome_phrases())


# ---- the host trusts the code ---------------------------------------------------------------------


def test_the_link_keeps_what_the_extension_said_chrome_said() -> None:
    """Through the real message parsing: code, transient and chrome arrive on the error."""

    async def scenario() -> ReinsError:
        sent: list[dict[str, Any]] = []
        link = ExtensionLink(send=sent.append)
        pending = asyncio.ensure_future(
            link.request("cdp", Deadline.after_ms(1_000), tab_id=1, method="DOM.focus")
        )
        await asyncio.sleep(0)
        request_id = sent[0]["id"]
        error = {
            "code": "ref_stale",
            "message": "No node with given id found",
            "transient": True,
            "chrome": "node_gone",
        }
        link.receive({"id": request_id, "ok": False, "error": error})
        with pytest.raises(ReinsError) as caught:
            await pending
        return caught.value

    error = asyncio.run(scenario())
    assert (error.code, error.transient, error.chrome) == ("ref_stale", True, "node_gone")


def _tab(failure: ReinsError, *, open: bool = False) -> CommandContext:
    """A context on tab 7 for instead_of: every CDP call fails with ``failure``, and the
    browser's tab list holds this tab (``open``) or only another."""
    chrome = FakeChrome(cdp={"Runtime.evaluate": failure}, tabs=[{"id": 7 if open else 8}])
    return make_context(chrome, budget_ms=2_000)


@pytest.mark.parametrize(
    ("answered", "instead"),
    [
        # The document went away: a navigation, its URL not known yet.
        ({"code": "cdp_error", "transient": True, "chrome": "context_gone"}, Navigated(None)),
        ({"code": "cdp_error", "chrome": "object_gone"}, Navigated(None)),
        # Chrome's words without the extension's word decide nothing: unknown.
        (
            {"code": "cdp_error", "message": "Execution context was destroyed."},
            Unknown("the page did not answer the read after the action (cdp_error)"),
        ),
        ({"code": "target_closed"}, TabClosed()),
    ],
)
def test_an_after_read_failure_is_read_by_its_code(
    answered: dict[str, Any], instead: Instead
) -> None:
    failure = from_cdp_error("Runtime.callFunctionOn", {"message": "x", **answered})
    busy = from_cdp_error("Runtime.evaluate", {"code": "cdp_error", "message": "busy"})
    got = asyncio.run(instead_of(_tab(busy), {"top": True, "document": "d1"}, failure))
    assert got == instead


def test_a_let_go_tab_the_browser_still_lists_is_not_called_closed() -> None:
    """target_closed while the tab is still open (a mailto: link replaced its target): the
    browser's tab list decides, and the effect says the tab is open."""
    failure = from_cdp_error("Runtime.callFunctionOn", {"message": "x", "code": "target_closed"})
    busy = from_cdp_error("Runtime.evaluate", {"code": "cdp_error", "message": "busy"})
    tab = _tab(busy, open=True)
    got = asyncio.run(instead_of(tab, {"top": True, "document": "d1"}, failure))
    assert got == Detached()
    effect, warnings = effects.effect_of({"url": "u"}, None, got)
    assert (effect.to_wire(), warnings) == (
        {"detached": True, "tab_open": True},
        ["detached_during_action"],
    )
