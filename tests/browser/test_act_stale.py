"""Stale refs in real Chromium: the ref taken before a re-render must hit the same logical element.

Each run is `state` -> the page replaces its nodes -> `click @ref`, through the socket client
(one connection per call, as the CLI does, without 100 process starts). The page's click log is
the oracle: a run counts as right when the page logged exactly the element the ref named, as
`ref_stale` when reins refused and the page logged nothing, and as wrong otherwise.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from ._act_support import eventually
from .conftest import Browser

NAMES = ["Approve", "Reject", "Archive"]


def _refs(browser: Browser, tab: int) -> dict[str, str]:
    answer = browser.call("state", {}, tab=tab)
    assert answer.get("ok"), answer
    out: dict[str, str] = {}
    for item in answer["refs"]:
        out.setdefault(item["name"], item["ref"])
    return out


def _react_replace(browser: Browser, how: str) -> None:
    """Call window.__rerender / __shuffle on stale.html and wait until React has committed."""
    gen = browser.js("return window.__generation")
    browser.js(f"window.__{how}()")
    done = eventually(
        lambda: browser.js(
            "const b = document.querySelectorAll('#actions button');"
            "return [window.__generation, ...[...b].map(x => +x.dataset.generation)]"
        ),
        lambda v: all(g == gen + 1 for g in v),
    )
    assert all(g == gen + 1 for g in done), done


def _run(browser: Browser, tab: int, ref: str, wanted: str) -> tuple[str, dict[str, Any]]:
    """Click REF; classify the run by what the page logged."""
    before = browser.js("return window.__clicks.length")
    answer = browser.call("click", {"target": ref}, tab=tab, timeout_ms=10_000)
    clicks = browser.js("return window.__clicks.slice(arguments[0])", before)
    if answer.get("ok"):
        return ("right" if clicks == [wanted] else "wrong"), answer
    if answer["error"]["code"] == "ref_stale" and clicks == []:
        return "ref_stale", answer
    return "wrong", answer


def test_100_react_rerenders_between_state_and_click(browser: Browser, page: Any) -> None:
    tab, _ = page("app/stale.html")
    outcomes: Counter[str] = Counter()
    failures = []
    for i in range(100):
        name = NAMES[i % 3]
        ref = _refs(browser, tab)[name]
        _react_replace(browser, "rerender")
        outcome, answer = _run(browser, tab, ref, name)
        if outcome == "right" and (answer.get("recovered") or {}).get("confidence", 0) < 0.75:
            outcome = "right but not reported as recovered"
        outcomes[outcome] += 1
        if outcome != "right":
            failures.append((i, name, ref, answer))
    print(f"\nre-render: {dict(outcomes)}")
    assert outcomes["right"] == 100, failures[:3]
    counts = [
        browser.js(f"return document.querySelector('#count-{n.lower()}').textContent")
        for n in NAMES
    ]
    assert counts == ["34", "33", "33"]


def test_shuffled_rerenders_never_click_another_element(browser: Browser, page: Any) -> None:
    tab, _ = page("app/stale.html")
    outcomes: Counter[str] = Counter()
    wrong = []
    for i in range(30):
        name = NAMES[i % 3]
        ref = _refs(browser, tab)[name]
        _react_replace(browser, "shuffle")
        outcome, answer = _run(browser, tab, ref, name)
        outcomes[outcome] += 1
        if outcome == "wrong":
            wrong.append((i, name, ref, answer))
    print(f"\nshuffle (testid refs): {dict(outcomes)}")
    assert outcomes["wrong"] == 0, wrong[:3]
    assert outcomes["right"] + outcomes["ref_stale"] == 30


def _plain_refs(browser: Browser, tab: int) -> dict[str, str]:
    """Refs of rerender.html's toolbar buttons and row Edit buttons ("Edit:Alpha", ...)."""
    answer = browser.call("state", {}, tab=tab)
    assert answer.get("ok"), answer
    out = {r["name"]: r["ref"] for r in answer["refs"] if r["name"] in NAMES}
    rows = browser.js(
        "return [...document.querySelectorAll('.rows li span')]"
        ".map(s => s.textContent.trim().split(' ')[1])"
    )
    edits = [r["ref"] for r in answer["refs"] if r["name"] == "Edit"]
    assert len(edits) == 3, answer["text"]
    out.update({f"Edit:{row}": ref for row, ref in zip(rows, edits, strict=True)})
    return out


def test_hash_only_ref_survives_a_rerender(browser: Browser, page: Any) -> None:
    tab, _ = page("static/rerender.html")
    refs = _plain_refs(browser, tab)
    assert all(not ref[1:].startswith(n.lower()) for n, ref in refs.items() if n in NAMES), refs
    outcomes: Counter[str] = Counter()
    for i in range(30):
        name = NAMES[i % 3]
        ref = _plain_refs(browser, tab)[name]
        browser.js("window.__rerender()")
        outcome, answer = _run(browser, tab, ref, name)
        outcomes[outcome] += 1
        assert outcome == "right", (i, name, ref, answer)
        assert answer["recovered"]["via"] == "identity", answer
        assert answer["recovered"]["confidence"] >= 0.75, answer
    assert outcomes["right"] == 30


def test_look_alike_hash_refs_without_a_rerender_click_their_own_element(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/rerender.html")
    refs = _plain_refs(browser, tab)
    for row in ("Gamma", "Alpha", "Beta"):
        answer = browser.call("click", {"target": refs[f"Edit:{row}"]}, tab=tab)
        assert answer.get("ok") and "recovered" not in answer, answer
    assert browser.js("return window.__clicks") == ["Edit:Gamma", "Edit:Alpha", "Edit:Beta"]


def test_hash_only_ref_after_shuffle_is_right_or_stale(browser: Browser, page: Any) -> None:
    tab, _ = page("static/rerender.html")
    outcomes: Counter[str] = Counter()
    wrong = []
    for i in range(30):
        name = NAMES[i % 3]
        ref = _plain_refs(browser, tab)[name]
        browser.js("window.__shuffle()")
        outcome, answer = _run(browser, tab, ref, name)
        outcomes[outcome] += 1
        if outcome == "wrong":
            wrong.append((i, name, ref, answer))
    print(f"\nshuffle (hash refs, distinct names): {dict(outcomes)}")
    assert outcomes["wrong"] == 0, wrong[:3]


def test_duplicate_named_hash_ref_after_shuffle_never_hits_another_row(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/rerender.html")
    outcomes: Counter[str] = Counter()
    wrong = []
    for i in range(12):
        refs = _plain_refs(browser, tab)
        row = ["Alpha", "Beta", "Gamma"][i % 3]
        browser.js("window.__shuffle()")
        outcome, answer = _run(browser, tab, refs[f"Edit:{row}"], f"Edit:{row}")
        outcomes[outcome] += 1
        if outcome == "wrong":
            wrong.append(
                (i, row, refs[f"Edit:{row}"], answer, browser.js("return window.__clicks.at(-1)"))
            )
    print(f"\nshuffle (hash refs, duplicate names): {dict(outcomes)}")
    assert outcomes["wrong"] == 0, wrong[:3]


@pytest.mark.parametrize("how", ["rerender", "shuffle"])
def test_recovered_answers_say_so_or_refuse(browser: Browser, page: Any, how: str) -> None:
    tab, _ = page("static/rerender.html")
    ref = _plain_refs(browser, tab)["Reject"]
    browser.js(f"window.__{how}()")
    answer = browser.call("click", {"target": ref}, tab=tab, timeout_ms=10_000)
    assert answer.get("ok"), answer
    assert browser.js("return window.__clicks") == ["Reject"]
    if "recovered" in answer:
        assert answer["recovered"]["confidence"] >= 0.75
        assert answer["recovered"]["via"]
