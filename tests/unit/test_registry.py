from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from reins._errors import ReinsError, ResolutionError, UsageError
from reins.observe.entries import Bounds, RegistryEntry
from reins.observe.identity import Identity, ref_for
from reins.observe.registry import Locator, Registry

DOC = "doc-1"


def el(
    i: int,
    *,
    name: str,
    role: str = "button",
    tag: str = "button",
    testid: str | None = None,
    id: str | None = None,
    aria_label: str | None = None,
    parent_role: str | None = "form",
    sibling_index: int | None = 0,
    selector: str | None = None,
    frame: str = "f0",
    shadow: list[str] | None = None,
    backend: int | None = None,
) -> dict[str, Any]:
    """An element record as the page script produces it (docs/element-record.md)."""
    selectors = {"byCSS": {"sel": selector, "count": 1}} if selector else {}
    return {
        "i": i,
        "frame": frame,
        "shadow": shadow or [],
        "tag": tag,
        "type": tag,
        "role": role,
        "name": name,
        "text": name,
        "value": None,
        "testid": testid,
        "id": id,
        "aria_label": aria_label,
        "name_attr": None,
        "parent_role": parent_role,
        "sibling_index": sibling_index,
        "in_viewport": True,
        "box": [0, i * 10, 50, 10],
        "selectors": selectors,
        "best": "byCSS" if selector else None,
        **({"backend_node_id": backend} if backend is not None else {}),
    }


def ax(
    name: str, *, role: str = "button", backend: int, tag: str | None = "button"
) -> dict[str, Any]:
    """An AX-source record: same keys where it has them, no attributes or selectors."""
    return {"role": role, "name": name, "tag": tag, "backend_node_id": backend, "frame": "f0"}


def form_page() -> list[dict[str, Any]]:
    return [
        el(0, name="Email", role="textbox", tag="input", id="email-field", selector="#email-field"),
        el(1, name="Submit", testid="submit-btn", selector="[data-testid=submit-btn]"),
        el(2, name="X", aria_label="Close dialog", selector="button.close"),
        el(3, name="Learn more", role="link", tag="a", sibling_index=4, selector="a.more"),
        el(4, name="Save", sibling_index=5, selector="button:nth-child(6)"),
        el(5, name="Save", sibling_index=5, parent_role="dialog", selector="dialog button"),
    ]


def test_refs_follow_identity_signals() -> None:
    reg = Registry()
    refs = reg.observe(form_page(), now=0.0, document_id=DOC)
    assert refs[:3] == ["@emailfield", "@submitbtn", "@closedialog"]
    assert all(r.startswith("@e") and len(r) == 7 for r in refs[3:])
    assert len(set(refs)) == len(refs)


def test_unchanged_page_keeps_refs() -> None:
    reg = Registry()
    first = reg.observe(form_page(), now=0.0, document_id=DOC)
    second = reg.observe(form_page(), now=5.0, document_id=DOC)
    assert first == second
    entry = reg.lookup(first[0])
    assert (entry.first_seen, entry.last_seen) == (0.0, 5.0)


def test_duplicate_elements_keep_their_suffixes() -> None:
    page = [el(i, name="Delete", parent_role="row", selector=None) for i in range(3)]
    reg = Registry()
    first = reg.observe(page, now=0.0, document_id=DOC)
    base = first[0]
    assert first == [base, base + "2", base + "3"]
    assert reg.observe(page, now=1.0, document_id=DOC) == first


def test_rerender_with_new_locators_keeps_refs() -> None:
    reg = Registry()
    first = reg.observe(form_page(), now=0.0, document_id=DOC)
    rerendered = form_page()
    for record in rerendered:
        record["selectors"] = {"byCSS": {"sel": f"div.v2 > :nth-child({record['i']})", "count": 1}}
    second = reg.observe(rerendered, now=1.0, document_id=DOC)
    assert second == first
    assert reg.lookup(first[3]).locator.selector == "div.v2 > :nth-child(3)"


def test_moved_element_keeps_ref_through_its_locator() -> None:
    # The sibling index changes (so the hash does), the unique selector and the rest do not.
    reg = Registry()
    [ref] = reg.observe(
        [el(0, name="Learn more", sibling_index=1, selector="a.more")], now=0, document_id=DOC
    )
    moved = el(0, name="Learn more", sibling_index=2, selector="a.more")
    assert ref_for(Identity.from_record(moved)) != ref
    assert reg.observe([moved], now=1, document_id=DOC) == [ref]


def test_different_element_with_same_locator_gets_new_ref() -> None:
    reg = Registry()
    [ref] = reg.observe([el(0, name="Save", selector="#main button")], now=0, document_id=DOC)
    other = el(0, name="Delete forever", role="link", tag="a", selector="#main button")
    [new] = reg.observe([other], now=1, document_id=DOC)
    assert new != ref


def test_lookup_accepts_refs_with_or_without_at() -> None:
    reg = Registry()
    reg.observe(form_page(), now=0, document_id=DOC)
    assert reg.lookup("submitbtn").ref == "@submitbtn"
    assert reg.lookup("@SubmitBtn").ref == "@submitbtn"
    with pytest.raises(UsageError) as bad:
        reg.lookup("@not a ref")
    assert bad.value.code == "invalid_selector"


def test_unknown_ref_is_not_found_with_next_step() -> None:
    reg = Registry()
    reg.observe(form_page(), now=0, document_id=DOC)
    with pytest.raises(ResolutionError) as err:
        reg.lookup("@nosuchthing")
    assert err.value.code == "not_found"
    assert "reins state" in err.value.message


def test_locator_carries_shadow_and_frame_chain() -> None:
    frames: list[dict[str, Any]] = [
        {"id": "f0", "parent": None, "url": "https://a/", "selector": None, "status": "ok"},
        {
            "id": "f1",
            "parent": "f0",
            "url": "https://a/pay",
            "selector": "iframe#pay",
            "status": "ok",
        },
        {
            "id": "f2",
            "parent": "f1",
            "url": "https://a/card",
            "selector": "iframe.card",
            "status": "ok",
        },
    ]
    record = el(0, name="Card", selector="input.num", frame="f2", shadow=["#host"])
    reg = Registry()
    [ref] = reg.observe([record], now=0, document_id=DOC, frames=frames)
    entry = reg.lookup(ref)
    assert entry.locator == Locator(
        selector="input.num",
        strategy="byCSS",
        shadow=("#host",),
        frames=("iframe#pay", "iframe.card"),
    )
    assert entry.frame == "f2"
    assert entry.bounds is not None and entry.bounds.width == 50


# -- bounds ---------------------------------------------------------------------------------------


def churn_page(start: int, count: int) -> list[dict[str, Any]]:
    return [el(i, name=f"Item {i}", id=f"item{i}") for i in range(start, start + count)]


def test_cap_evicts_oldest_not_in_latest_observation() -> None:
    reg = Registry()
    reg.observe(churn_page(0, 1000), now=0, document_id=DOC)
    reg.observe(churn_page(1000, 1000), now=1, document_id=DOC)
    reg.observe(churn_page(2000, 500), now=2, document_id=DOC)
    assert len(reg) == 2000
    # The 500 entries seen longest ago went first.
    assert "@item0" not in reg and "@item499" not in reg
    assert "@item500" in reg and "@item1999" in reg
    assert all(f"@item{i}" in reg for i in range(2000, 2500))
    with pytest.raises(ResolutionError) as err:
        reg.lookup("@item0")
    assert err.value.code == "ref_stale"


def test_latest_observation_is_never_evicted() -> None:
    reg = Registry()
    refs = reg.observe(churn_page(0, 20_000), now=0, document_id=DOC)
    assert len(reg) == 20_000 and len(set(refs)) == 20_000
    assert reg.observe(churn_page(0, 20_000), now=500, document_id=DOC) == refs
    assert len(reg) == 20_000
    reg.lookup("@item19999")


def test_entries_go_stale_after_sixty_seconds_unseen() -> None:
    reg = Registry()
    reg.observe(churn_page(0, 3), now=0, document_id=DOC)
    reg.observe(churn_page(3, 3), now=30, document_id=DOC)
    reg.observe(churn_page(6, 3), now=60, document_id=DOC)
    assert "@item0" in reg  # exactly 60 s: not yet
    reg.observe(churn_page(6, 3), now=60.5, document_id=DOC)
    assert "@item0" not in reg and "@item3" in reg
    assert reg.prune(now=91) == ["@item3", "@item4", "@item5"]
    assert sorted(e.ref for e in reg.entries()) == ["@item6", "@item7", "@item8"]
    with pytest.raises(ResolutionError) as err:
        reg.lookup("item4")
    assert err.value.code == "ref_stale"


def test_reappearing_element_takes_its_ref_back_after_eviction() -> None:
    reg = Registry()
    reg.observe(churn_page(0, 1), now=0, document_id=DOC)
    reg.observe([], now=100, document_id=DOC)
    assert "@item0" not in reg
    assert reg.observe(churn_page(0, 1), now=101, document_id=DOC) == ["@item0"]
    assert reg.lookup("@item0").first_seen == 101


# -- sources --------------------------------------------------------------------------------------


def test_dom_and_ax_share_refs_by_backend_id() -> None:
    reg = Registry()
    dom = [
        el(0, name="Save", id="save", backend=11),
        el(1, name="Learn more", role="link", tag="a", backend=12),
    ]
    dom_refs = reg.observe(dom, now=0, document_id=DOC)
    ax_refs = reg.observe(
        [ax("Learn more", role="link", tag="a", backend=12), ax("Save", backend=11)],
        now=1,
        document_id=DOC,
        source="ax",
    )
    assert ax_refs == [dom_refs[1], dom_refs[0]]
    assert len(reg) == 2
    # The AX pass did not wipe what only the DOM knows.
    assert reg.lookup("@save").identity.id == "save"
    assert reg.observe(dom, now=2, document_id=DOC) == dom_refs


def test_ax_without_backend_ids_matches_by_role_and_name_in_order() -> None:
    reg = Registry()
    dom = [el(i, name="Delete", id=f"del-{i}", selector=f"#del-{i}") for i in range(3)]
    dom_refs = reg.observe(dom, now=0, document_id=DOC)
    ax_records = [{"role": "button", "name": "Delete", "tag": "button"} for _ in range(3)]
    assert reg.observe(ax_records, now=1, document_id=DOC, source="ax") == dom_refs


def test_ax_first_then_dom() -> None:
    reg = Registry()
    [ax_ref] = reg.observe([ax("Open menu", backend=5)], now=0, document_id=DOC, source="ax")
    [dom_ref] = reg.observe([el(0, name="Open menu", backend=5)], now=1, document_id=DOC)
    assert dom_ref == ax_ref
    assert reg.lookup(ax_ref).source == "dom"


def test_ax_latest_observation_is_protected_too() -> None:
    reg = Registry(max_entries=2)
    reg.observe(churn_page(0, 3), now=0, document_id=DOC)
    reg.observe(
        [ax(f"AX {i}", backend=100 + i) for i in range(3)], now=1, document_id=DOC, source="ax"
    )
    assert len(reg) == 6


# -- new documents -----------------------------------------------------------------------------


def test_new_document_carries_strong_refs_and_tombstones_hash_refs() -> None:
    reg = Registry()
    refs = reg.observe(form_page(), now=0, document_id=DOC)
    hash_ref = refs[3]
    reg.observe(
        [el(0, name="Search", role="searchbox", tag="input", id="q")], now=1, document_id="doc-2"
    )
    assert reg.document_id == "doc-2" and reg.generation == 1

    carried = reg.lookup("@submitbtn")
    assert carried.carried_over and not carried.reidentified
    assert carried.backend_node_id is None

    with pytest.raises(ResolutionError) as err:
        reg.lookup(hash_ref)
    assert err.value.code == "ref_stale"
    assert "new snapshot" in err.value.message and "navigated" in err.value.message


def test_carried_over_ref_is_reidentified_in_the_new_document() -> None:
    reg = Registry()
    reg.observe(form_page(), now=0, document_id=DOC)
    new_page = [
        el(0, name="Submit", testid="submit-btn", selector="form > button", sibling_index=3),
        el(1, name="Learn more", role="link", tag="a", sibling_index=4, selector="a.more"),
    ]
    refs = reg.observe(new_page, now=1, document_id="doc-2")
    assert refs[0] == "@submitbtn"
    entry = reg.lookup("@submitbtn")
    assert not entry.carried_over and entry.reidentified
    assert entry.document_id == "doc-2" and entry.locator.selector == "form > button"
    # An identical-looking hash element of the new page may take the tombstoned name.
    assert reg.lookup(refs[1]).document_id == "doc-2"


def test_carried_over_entry_is_not_taken_by_a_different_element() -> None:
    reg = Registry()
    reg.observe([el(0, name="Submit", testid="submit-btn")], now=0, document_id=DOC)
    other = el(0, name="Unsubscribe", role="link", tag="a", testid="submit-btn", parent_role="nav")
    [ref] = reg.observe([other], now=1, document_id="doc-2")
    assert ref == "@submitbtn2"
    assert reg.lookup("@submitbtn").carried_over


# -- recovery -------------------------------------------------------------------------------------


def test_candidates_rank_by_confidence_then_document_order() -> None:
    reg = Registry()
    [ref] = reg.observe(
        [el(0, name="Pay now", parent_role="form", sibling_index=3)], now=0, document_id=DOC
    )
    entry = reg.lookup(ref)
    now_records = [
        el(0, name="Cancel", sibling_index=0),
        el(1, name="Pay now", parent_role="form", sibling_index=4),
        el(2, name="Pay now", parent_role="form", sibling_index=3),
        el(3, name="Pay now", parent_role="dialog", sibling_index=4),
    ]
    got = reg.candidates(entry, now_records)
    assert [i for i, _ in got] == [2, 1, 3, 0]
    assert got[0][1] == 1.0
    assert got == reg.candidates(entry, now_records)
    assert all(0.5 <= c <= 1.0 for _, c in got)


def test_candidates_prefer_the_same_backend_node() -> None:
    reg = Registry()
    [ref] = reg.observe([el(0, name="Go", backend=42)], now=0, document_id=DOC)
    records = [el(0, name="Go"), el(1, name="Go!", backend=42)]
    assert reg.candidates(reg.lookup(ref), records)[0] == (1, 1.0)


# -- persistence ------------------------------------------------------------------------------------


def test_round_trip_through_json() -> None:
    reg = Registry()
    first = reg.observe(form_page(), now=0, document_id=DOC)
    reg.observe([ax("Save", backend=9)], now=1, document_id=DOC, source="ax")
    reg.observe([el(0, name="Search", id="q")], now=2, document_id="doc-2")
    saved = json.loads(json.dumps(reg.to_json()))

    restored = Registry.from_json(saved)
    assert restored.to_json() == reg.to_json()
    assert restored.entries() == reg.entries()
    assert restored.lookup("@submitbtn").carried_over
    with pytest.raises(ResolutionError) as err:
        restored.lookup(first[3])
    assert err.value.code == "ref_stale"
    # And it goes on assigning the same refs.
    assert restored.observe([el(0, name="Search", id="q")], now=3, document_id="doc-2") == ["@q"]


def test_unreadable_state_raises_a_typed_error() -> None:
    for bad in ({}, {"version": 99}, {**Registry().to_json(), "entries": [{"ref": 3}]}):
        with pytest.raises(ReinsError) as err:
            Registry.from_json(bad)
        assert err.value.code == "internal"


def test_a_renamed_element_that_moved_keeps_its_id_ref() -> None:
    """Text and position changed together (under the threshold on weights alone): the same id in
    the same frame and tag, unique on both sides, is the same element."""
    reg = Registry()
    first = reg.observe(
        [
            el(0, name="Remove me", id="doomed", sibling_index=2),
            el(1, name="Old name", id="renamed", sibling_index=3),
        ],
        now=0.0,
        document_id=DOC,
    )
    assert first == ["@doomed", "@renamed"]
    again = reg.observe(
        [el(0, name="New name", id="renamed", sibling_index=2)], now=1.0, document_id=DOC
    )
    assert again == ["@renamed"]
    # Across a navigation too: the carried-over entry is re-identified.
    after = reg.observe(
        [el(0, name="Newest", id="renamed", sibling_index=5)], now=2.0, document_id="doc-2"
    )
    assert after == ["@renamed"] and reg.lookup("@renamed").reidentified


def test_a_duplicated_id_is_no_proof_of_identity() -> None:
    reg = Registry()
    reg.observe([el(0, name="Old", id="dup", sibling_index=0)], now=0.0, document_id=DOC)
    refs = reg.observe(
        [el(0, name="A", id="dup", sibling_index=4), el(1, name="B", id="dup", sibling_index=5)],
        now=1.0,
        document_id=DOC,
    )
    assert "@dup" not in refs or refs.count("@dup") == 1
    assert len(set(refs)) == 2


def test_a_carried_over_entry_is_the_entry_without_its_node() -> None:
    entry = RegistryEntry(
        "save",
        Identity(id="save", role="button"),
        "ax",
        "f1",
        Locator("#save", "byId"),
        42,
        Bounds(1.0, 2.0, 3.0, 4.0),
        1.0,
        2.0,
        "doc",
        False,
        True,
        "id",
    )
    assert entry.carried() == replace(
        entry, carried_over=True, reidentified=False, backend_node_id=None
    )
