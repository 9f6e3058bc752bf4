"""A repeated `state` receives only what changed (observe/sent.py), and answers exactly what a full
collection answers: renamed, removed, added and scrolled elements; what the page script keeps
for it lives in reins's own world, out of the page's reach."""

from __future__ import annotations

from typing import Any

from .conftest import Browser


def _seen(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    return body["text"], body["refs"]


def test_a_repeated_state_is_sent_as_a_delta_and_equals_a_full_one(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/big.html", n=300)
    t = str(tab)
    first = browser.ok("state", "--tab", t, "--max-tokens", "0")
    assert "@btn4 " in first["text"]
    before = browser.events()

    browser.js(
        "document.getElementById('btn-4').textContent = 'Renamed three';"
        "document.getElementById('btn-8').remove();"
        "const b = document.createElement('button'); b.id = 'newcomer';"
        "b.textContent = 'Newcomer'; document.body.prepend(b);"
        "window.scrollBy(0, 400);"
    )
    delta = browser.ok("state", "--tab", t, "--max-tokens", "0")
    after = browser.events()
    assert after.get("collect_delta", 0) == before.get("collect_delta", 0) + 1, after
    # The page is the oracle: what it shows now.
    assert browser.js("return document.getElementById('btn-4').textContent") == "Renamed three"
    assert '@btn4 button "Renamed three"' in delta["text"]
    assert "@btn8 " not in delta["text"] and '@newcomer button "Newcomer"' in delta["text"]
    assert browser.js("return window.scrollY") > 0

    # The same page collected in full (a new host holds nothing sent): the same answer.
    browser.restart_host()
    full = browser.ok("state", "--tab", t, "--max-tokens", "0")
    assert browser.events().get("collect_full", 0) >= 1
    assert _seen(delta) == _seen(full)


def test_a_page_cannot_reach_what_the_script_kept(browser: Browser, page: Any) -> None:
    tab, _ = page("static/big.html", n=50)
    t = str(tab)
    first = browser.ok("state", "--tab", t, "--max-tokens", "0")
    before = browser.events()
    # What the page script keeps is not on the page's window; a page that plants its own
    # (pointing every record at an index the host never received) changes nothing.
    assert browser.js("return Symbol.for('reins.lastSent') in window") is False
    browser.js(
        "window[Symbol.for('reins.lastSent')] = { index: new Map([['x', 1000000]]), gen: 'g' };"
    )
    again = browser.ok("state", "--tab", t, "--max-tokens", "0")
    after = browser.events()
    assert after.get("collect_delta", 0) == before.get("collect_delta", 0) + 1
    assert after.get("collect_delta_refused", 0) == before.get("collect_delta_refused", 0)
    assert _seen(again) == _seen(first)


def test_a_repeated_ax_state_keeps_chromes_answers_only_for_the_same_nodes(
    browser: Browser, page: Any
) -> None:
    tab, _ = page("static/big.html", n=40)
    t = str(tab)

    def ax() -> dict[str, Any]:
        return browser.ok("state", "--tab", t, "--source", "ax", "--max-tokens", "0")

    def backend(body: dict[str, Any], ref: str) -> int:
        return int(next(r for r in body["refs"] if r["ref"] == ref)["backend_node_id"])

    first = ax()
    before = browser.events().get("ax_answers_carried", 0)
    again = ax()
    assert browser.events().get("ax_answers_carried", 0) == before + 1
    assert _seen(again) == _seen(first)
    # The same text from another node (a re-render): Chrome is asked about the new node.
    browser.js(
        "const b = document.getElementById('btn-4'); b.replaceWith(b.cloneNode(true));"
        "document.getElementById('btn-8').setAttribute('aria-label', 'Relabelled');"
    )
    after = ax()
    assert backend(after, "@btn4") != backend(first, "@btn4")
    assert backend(after, "@btn0") == backend(first, "@btn0")
    assert '@btn8 button "Relabelled"' in after["text"], after["text"]


def test_the_collection_is_sent_once_per_document_and_a_page_cannot_plant_one(
    browser: Browser, page: Any
) -> None:
    """The bundle goes to a document once (it installs itself in reins's world); later `state`
    calls run what the world holds. A new document gets it again, and a collection the page
    plants on its own window under the same key is never what runs."""
    tab, _ = page("static/big.html", n=30)
    t = str(tab)
    browser.ok("state", "--tab", t, "--max-tokens", "0")
    sent = browser.events().get("collect_bundle", 0)
    browser.js(
        "window[Symbol.for('reins.api')] = { version: 'x', collect: () => '{}', describe: null };"
        "document.getElementById('btn-4').textContent = 'Renamed after install';"
    )
    again = browser.ok("state", "--tab", t, "--max-tokens", "0")
    assert browser.events().get("collect_bundle", 0) == sent
    assert browser.js("return document.getElementById('btn-4').textContent") == (
        "Renamed after install"
    )
    assert '@btn4 button "Renamed after install"' in again["text"]

    browser.ok("reload", "--tab", t)
    fresh = browser.ok("state", "--tab", t, "--max-tokens", "0")
    assert browser.events().get("collect_bundle", 0) == sent + 1
    assert '@btn4 button "Button 4"' in fresh["text"]
