"""Step 0 of the registry: records unchanged since the latest observation keep their entry
without being identified again (observe/unchanged.py), and give what the full matching gives."""

from __future__ import annotations

import copy
import random
from typing import Any

from reins.observe.identity import Identity
from reins.observe.registry import Registry
from reins.observe.unchanged import record_key, unique_keys

from tests.unit.test_registry import DOC, ax, el, form_page


def _full_only(registry: Registry) -> Registry:
    """The same registry with step 0 off: it forgets the latest observation's keys before each
    observation, so every record takes the full matching (the behaviour before step 0)."""
    original = registry.observe

    def observe(records: Any, **kwargs: Any) -> list[str]:
        registry._last_seen.clear()
        return original(records, **kwargs)

    registry.observe = observe  # type: ignore[method-assign]
    return registry


def test_an_unchanged_record_keeps_its_entry_without_a_new_identity() -> None:
    reg = Registry()
    first = reg.observe(form_page(), now=0.0, document_id=DOC)
    before = {ref: reg.lookup(ref) for ref in first}
    second = reg.observe(form_page(), now=5.0, document_id=DOC)
    assert second == first
    for ref in first:
        after = reg.lookup(ref)
        # The very objects: nothing was built for them (the full matching makes new ones).
        assert after.identity is before[ref].identity
        assert after.locator is before[ref].locator
        assert (after.first_seen, after.last_seen) == (0.0, 5.0)
        # Not even a new entry: its time moved in place (``RegistryEntry.seen``).
        assert after is before[ref]


def test_a_kept_entry_takes_the_new_box() -> None:
    reg = Registry()
    refs = reg.observe(form_page(), now=0.0, document_id=DOC)
    scrolled = form_page()
    for record in scrolled:
        record["box"] = [0, record["box"][1] - 300, 50, 10]
    assert reg.observe(scrolled, now=1.0, document_id=DOC) == refs
    bounds = reg.lookup(refs[1]).bounds
    assert bounds is not None and bounds.y == 10 - 300
    without_box = form_page()
    del without_box[1]["box"]
    reg.observe(without_box, now=2.0, document_id=DOC)
    assert reg.lookup(refs[1]).bounds == bounds  # the box it had


def test_a_changed_record_is_identified_again() -> None:
    reg = Registry()
    refs = reg.observe(form_page(), now=0.0, document_id=DOC)
    renamed = form_page()
    renamed[1]["name"] = "Send"
    assert reg.observe(renamed, now=1.0, document_id=DOC) == refs
    assert reg.lookup(refs[1]).identity.name == "Send"


def test_an_entry_another_source_redefined_is_not_kept() -> None:
    reg = Registry()
    page = [el(0, name="Go", selector="#go", backend=7), el(1, name="Stop", selector="#st")]
    refs = reg.observe(page, now=0.0, document_id=DOC)
    reg.observe([ax("Go now", backend=7)], now=1.0, document_id=DOC, source="ax")
    entry = reg.lookup(refs[0])
    assert entry.source == "dom"
    # The dom record is the one of the first observation; its entry was touched by the AX one.
    assert reg.observe(copy.deepcopy(page), now=2.0, document_id=DOC) == refs
    assert reg.lookup(refs[0]).identity == Identity.from_record(page[0])
    assert reg.lookup(refs[0]).identity is not entry.identity


def test_nothing_is_kept_across_a_new_document() -> None:
    reg = Registry()
    refs = reg.observe(form_page(), now=0.0, document_id=DOC)
    kept = reg.lookup(refs[0])
    again = reg.observe(form_page(), now=1.0, document_id="doc-2")
    assert again[:3] == refs[:3]  # strong-signal refs carried over and claimed
    assert reg.lookup(refs[0]).identity is not kept.identity
    assert reg.lookup(refs[0]).reidentified


def test_record_keys_of_odd_records() -> None:
    chains: dict[str, tuple[str, ...]] = {}
    assert record_key({"name": ["a"], "tag": "b"}, chains) is None  # unhashable where a string goes
    assert record_key({"shadow": [["x"]]}, chains) is None
    # Values equal across types are read alike by the identity builder...
    one, true = record_key({"name": 1}, chains), record_key({"name": True}, chains)
    assert one == true
    assert Identity.from_record({"name": 1}) == Identity.from_record({"name": True})
    # ...but the integers are kept only as ints, as the builder keeps them.
    assert record_key({"sibling_index": 1}, chains) != record_key({"sibling_index": True}, chains)
    assert unique_keys([("a",), ("b",), ("a",), None]) == {("b",): 1}


def _mutated(page: list[dict[str, Any]], rng: random.Random, step: int) -> list[dict[str, Any]]:
    page = copy.deepcopy(page)
    for record in page:
        record["box"] = [0, record["box"][1] - rng.randint(0, 40), 50, 10]
    what = rng.randrange(6)
    if what == 0 and page:
        page.pop(rng.randrange(len(page)))
    elif what == 1:
        page.insert(rng.randrange(len(page) + 1), el(0, name=f"New {step}", selector=None))
    elif what == 2 and page:
        page[rng.randrange(len(page))]["name"] = f"Renamed {step}"
    elif what == 3 and len(page) > 1:
        a, b = rng.sample(range(len(page)), 2)
        page[a], page[b] = page[b], page[a]
    elif what == 4:
        page.append(copy.deepcopy(page[0]) if page else el(0, name="Dup", selector=None))
    for i, record in enumerate(page):
        record["i"] = i
    return page


def test_step_zero_gives_what_the_full_matching_gives() -> None:
    rng = random.Random(15)
    for run in range(30):
        fast, full = Registry(), _full_only(Registry())
        page = form_page() + [el(6 + k, name="Delete", selector=None) for k in range(3)]
        document = DOC
        for step in range(12):
            if rng.random() < 0.1:
                document = f"doc-{run}-{step}"
            page = _mutated(page, rng, step)
            now = float(step)
            got = fast.observe(copy.deepcopy(page), now=now, document_id=document)
            want = full.observe(copy.deepcopy(page), now=now, document_id=document)
            assert got == want, (run, step)
            assert fast.to_json() == full.to_json(), (run, step)


def test_the_registry_says_whether_it_changed_beyond_times_and_boxes() -> None:
    reg = Registry()
    page = form_page()
    reg.observe(page, now=0.0, document_id=DOC)
    assert reg.take_changed() is True
    assert reg.take_changed() is False
    # The same page again, scrolled: new times and boxes only.
    moved = copy.deepcopy(page)
    for record in moved:
        record["box"] = [1.0, 2.0, 3.0, 4.0]
    reg.observe(moved, now=1.0, document_id=DOC)
    assert reg.take_changed() is False
    # One element renamed: a redefined entry.
    renamed = copy.deepcopy(page)
    renamed[0]["name"] = "Something else"
    reg.observe(renamed, now=2.0, document_id=DOC)
    assert reg.take_changed() is True
    # One element gone: another set of latest refs.
    reg.observe(renamed[1:], now=3.0, document_id=DOC)
    assert reg.take_changed() is True
    # A new document.
    reg.observe(renamed, now=4.0, document_id="another")
    assert reg.take_changed() is True


def test_an_ax_look_between_two_dom_looks_leaves_the_dom_entries_reusable() -> None:
    """Alternating sources: an AX record that only confirms what the DOM record said keeps the
    entry's identity object, so the next DOM observation still takes step 0."""
    reg = Registry()
    page = form_page()
    first = reg.observe(page, now=0.0, document_id=DOC)
    identities = {ref: reg.lookup(ref).identity for ref in first}
    reg.observe(
        [ax(r["name"], role=r["role"], tag=r["tag"], backend=100 + i) for i, r in enumerate(page)],
        now=1.0,
        document_id=DOC,
        source="ax",
    )
    again = reg.observe(form_page(), now=2.0, document_id=DOC)
    assert again == first
    for ref in first:
        assert reg.lookup(ref).identity is identities[ref]
