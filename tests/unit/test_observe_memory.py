"""What a tab keeps when it leaves a document: the old document's data is dropped or compacted."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import subprocess
import sys
import weakref
from dataclasses import dataclass, fields
from pathlib import Path

import pytest
from reins._errors import ReinsError
from reins.bridge.context import CommandContext
from reins.bridge.deadline import Deadline
from reins.bridge.memory import give_memory_back, tune_allocator
from reins.bridge.protocol import Request
from reins.observe import store
from reins.observe.collect import PageSnapshot
from reins.observe.diff import lines_of
from reins.observe.entries import Bounds, Locator, RegistryEntry, Tombstone
from reins.observe.identity import Identity
from reins.observe.page import _register
from reins.observe.pickling import by_fields
from reins.observe.registry import Registry
from reins.observe.render import RefView
from reins.observe.store import (
    MapCache,
    ObserveState,
    left_big_document,
    let_big_document_go,
)
from reins.setup.install import mimalloc_library

from tests.unit.fakes import FakeChrome, make_host


def _records(n: int, prefix: str = "btn") -> list[dict[str, object]]:
    return [
        {
            "i": i,
            "frame": "f0",
            "tag": "button",
            "role": "button",
            "name": f"Button {i}",
            "id": f"{prefix}-{i}",
            "sibling_index": i,
            "box": [0, i, 10, 10],
        }
        for i in range(n)
    ]


def test_a_new_document_drops_the_map_and_the_diff_lines() -> None:
    state = ObserveState()
    state.map = MapCache({"elements": {str(i): {} for i in range(3000)}}, 0.0, "doc-a", "u")
    state.lines = lines_of([RefView(f"b{i}", "button", str(i)) for i in range(3000)], "doc-a")
    assert state.forget_document("doc-a") is False  # the same document: kept
    assert state.map is not None and state.lines is not None
    assert state.forget_document("doc-b") is True
    assert state.map is None and state.lines is None
    assert state.forget_document("doc-b") is False


def test_leaving_a_big_document_keeps_fresh_copies_of_what_is_carried_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = Registry()
    registry.observe(_records(5000), now=0.0, document_id="big")
    refs = registry.observe(_records(10, "small"), now=1.0, document_id="small")
    # The big document's elements are pruned to the registry's bounds.
    assert len(registry) <= registry.max_entries
    state = ObserveState(registry=registry)
    saved = registry.to_json()
    gone = weakref.ref(registry)
    del registry
    loads = pickle.loads
    freed_first: list[bool] = []

    def copies(data: bytes) -> object:
        freed_first.append(gone() is None)
        return loads(data)

    monkeypatch.setattr(store.pickle, "loads", copies)
    left_big_document(state)
    copy = state.registry
    assert copy is not None and copy.to_json() == saved
    assert [copy.lookup(r).ref for r in refs] == refs
    # The old registry (entries, identities, strings) was let go before its copies were made, so
    # the memory pages only it kept could go first.
    assert freed_first == [True]


def test_only_a_registry_that_let_most_of_a_big_document_go_is_compacted() -> None:
    registry = Registry()
    registry.observe(_records(5000), now=0.0, document_id="big")
    before = len(registry)
    registry.observe(_records(5000), now=1.0, document_id="big-reloaded")
    # A reload: every element claims its ref again, nothing of the big document was let go.
    assert len(registry) == before
    assert not let_big_document_go(before, len(registry))
    registry.observe(_records(10, "small"), now=2.0, document_id="small")
    assert let_big_document_go(before, len(registry))
    assert not let_big_document_go(1000, 10)  # not a big document: nothing worth the copy


def _every_field_set() -> list[object]:
    identity = Identity("t", "i", "label", "button", "Save", "button", "form", 3, "save")
    locator = Locator("#i", "byId", ("host-a",), ("iframe#f",))
    bounds = Bounds(1.5, 2.0, 30.25, 40.0)
    entry = RegistryEntry(
        "save", identity, "ax", "f1", locator, 42, bounds, 1.0, 2.0, "doc", True, True, "id"
    )
    return [identity, locator, bounds, entry, Tombstone("gone", "evicted", "doc", 1.0, 2.0)]


@pytest.mark.parametrize("value", _every_field_set(), ids=lambda v: type(v).__name__)
def test_the_registry_classes_pickle_as_their_field_values(value: object) -> None:
    names = [f.name for f in fields(value)]  # type: ignore[arg-type]
    # One tuple of the values, not dataclasses' field-by-field state.
    assert value.__reduce__() == (type(value), tuple(getattr(value, n) for n in names))
    copy = pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(copy) is type(value) and copy == value and copy is not value


def test_a_compacted_registry_still_knows_its_elements_unchanged() -> None:
    registry = Registry()
    records = _records(50)
    refs = registry.observe(records, now=0.0, document_id="doc")
    copy = pickle.loads(pickle.dumps(registry, protocol=pickle.HIGHEST_PROTOCOL))
    assert copy.to_json() == registry.to_json()
    entries = {ref: copy.lookup(ref) for ref in refs}
    # Step 0 (``unchanged``) checks the entry's identity and locator by `is` against what it kept
    # of the latest observation: the pickle keeps them the same objects, so every entry is seen
    # again in place rather than identified anew.
    assert copy.observe(records, now=1.0, document_id="doc") == refs
    assert all(copy.lookup(ref) is entries[ref] for ref in refs)
    assert all(copy.lookup(ref).last_seen == 1.0 for ref in refs)


def test_by_fields_refuses_a_class_it_would_pickle_wrongly() -> None:
    class Plain:
        pass

    @dataclass
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(ReinsError, match="not a dataclass"):
        by_fields(Plain)
    with pytest.raises(ReinsError, match="does more than set its fields"):
        by_fields(Checked)


def test_the_allocator_calls_are_harmless() -> None:
    tune_allocator()
    give_memory_back()


def _allocator_with(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from reins.bridge.memory import allocator; print(allocator())"],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.strip()


def test_the_host_names_the_allocator_it_runs_on() -> None:
    assert _allocator_with({}) == "pymalloc"
    assert _allocator_with({"PYTHONMALLOC": "malloc"}) == "malloc"
    library = mimalloc_library()
    if library is not None:  # the bootstrap installs it
        env = {"PYTHONMALLOC": "malloc", "LD_PRELOAD": str(library)}
        assert _allocator_with(env) == "mimalloc"


def test_the_host_starts_without_what_few_commands_need() -> None:
    """Pillow (and the FreeType it loads) comes in with the first picture drawn, argparse with
    the command table's generator, not at start: ~4.5 MiB of resident memory that a host which
    draws nothing never needs."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, reins._host; print(json.dumps(list(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    modules = set(json.loads(done.stdout))
    assert {m.partition(".")[0] for m in modules} & {"PIL", "argparse"} == set()
    assert "reins.observe.annotate" in modules  # still imported: only Pillow waits


def test_leaving_a_big_document_compacts_once_that_commands_answer_is_out(
    tmp_path: Path,
) -> None:
    """The compaction waits for the answer of the look that left the big document (not another
    request's, not a timer), then runs on the host's loop."""
    host = make_host(FakeChrome(hello=False), tmp_path, profile="p")
    look = CommandContext(host, Deadline.after_ms(5000), 3, Request(id=1, cmd="state"))
    state = look.part(ObserveState)
    big = Registry()
    big.observe(_records(5000), now=0.0, document_id="big")
    state.registry, state.registry_url = big, "https://app.example/"

    def snapshot(n: int, document: str) -> tuple[PageSnapshot, list[dict[str, object]]]:
        records = _records(n, document)
        snap = PageSnapshot(
            url="https://app.example/",
            title="",
            viewport={},
            frames=[],
            elements=records,
            truncated=False,
            document_id=document,
            timestamp=0.0,
            homes=[(None, i) for i in range(n)],
        )
        return snap, records

    async def scenario() -> tuple[bool, bool, bool]:
        _register(look, *snapshot(10, "small"), "dom")
        await asyncio.sleep(0.3)  # longer than the timer this used to be
        kept_while_unanswered = state.registry is big
        host.answered(Request(id=2, cmd="tabs"))  # another client's answer
        await asyncio.sleep(0)
        kept_after_another = state.registry is big
        host.answered(look.request)
        await asyncio.sleep(0)
        return kept_while_unanswered, kept_after_another, state.registry is not big

    assert asyncio.run(scenario()) == (True, True, True)
    assert state.registry is not None and state.registry.document_id == "small"
