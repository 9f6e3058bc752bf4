"""What a tab keeps when it leaves a document: the old document's data is dropped or compacted."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import weakref

import pytest
from reins.bridge.memory import give_memory_back, tune_allocator
from reins.observe import store
from reins.observe.diff import lines_of
from reins.observe.registry import Registry
from reins.observe.render import RefView
from reins.observe.store import MapCache, ObserveState, left_big_document
from reins.setup.install import mimalloc_library


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
