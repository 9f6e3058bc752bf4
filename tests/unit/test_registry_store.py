"""The registry on disk: written after the answer, restored only into the tab that saved it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from reins.bridge.context import CommandContext, Host
from reins.bridge.deadline import Deadline
from reins.bridge.protocol import Request
from reins.observe.registry import Registry
from reins.observe.store import ObserveState, registry_for, save_registry, saved_by

from tests.unit.fakes import offline_host

URL = "https://app.example/expenses"


def _ctx(host: Host, tab: int) -> CommandContext:
    return CommandContext(host, Deadline.after_ms(5000), tab, Request(id=1, cmd="state"))


def _records(n: int) -> list[dict[str, object]]:
    return [{"frame": "f0", "tag": "button", "role": "button", "name": f"B{i}"} for i in range(n)]


def _observe_and_save(home: Path, tab: int, browser_run: str | None = None) -> list[str]:
    """Observe and save in ``tab`` of a host, as `state` does; the refs it gave."""

    async def run() -> list[str]:
        host = offline_host(home, browser_run)
        ctx = _ctx(host, tab)
        registry = registry_for(ctx, URL)
        refs = registry.observe(_records(5), now=1.0, document_id="doc")
        save_registry(ctx, registry, URL)
        await asyncio.sleep(0)  # a turn of the loop, and the worker idle: still nothing written
        await host.background_done()
        files = list((home / "registries" / "p").glob("*.json"))
        assert files == []  # held until the answer is out
        host.answered(Request(id=1, cmd="state"))  # another request's answer: still held
        await host.background_done()
        assert list((home / "registries" / "p").glob("*.json")) == []
        host.answered(ctx.request)
        await host.background_done()
        return refs

    return asyncio.run(run())


def test_a_tab_gets_back_what_it_saved_and_another_tab_starts_its_own(tmp_path: Path) -> None:
    refs = _observe_and_save(tmp_path, 7)
    [saved] = (tmp_path / "registries" / "p").glob("*.json")
    assert saved.read_bytes().startswith(b'{"tab":7,')
    # A new host (a restart): tab 7 gets its refs back; tab 8, on the same URL, an empty one.
    host = offline_host(tmp_path)
    restored = registry_for(_ctx(host, 7), URL)
    assert [restored.lookup(ref).ref for ref in refs] == refs
    assert len(registry_for(_ctx(host, 8), URL)) == 0
    assert host.tab(8).part(ObserveState).registry is not None  # kept as that tab's own


def test_saved_by_reads_the_owner_from_the_first_bytes(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"tab": 12, **Registry().to_json()}, separators=(",", ":")))
    assert saved_by(path, 12) and not saved_by(path, 1) and not saved_by(path, None)
    path.write_text('{"tab":null,"version":1}')
    assert saved_by(path, None) and not saved_by(path, 12)
    # A file from before the owner was recorded belongs to whoever reads it, as all did then.
    path.write_text(json.dumps(Registry().to_json()))
    assert saved_by(path, 3)
    with pytest.raises(OSError):
        saved_by(tmp_path / "missing.json", 3)


def test_after_a_browser_restart_the_page_gets_its_registry_back_whatever_its_tab_id(
    tmp_path: Path,
) -> None:
    """Tab ids start again with each run of the browser: a registry saved in an earlier run goes
    to the tab that looks at its page; within one run only the tab that saved it reads it."""
    refs = _observe_and_save(tmp_path, 7, browser_run="run-1")
    [saved] = (tmp_path / "registries" / "p").glob("*.json")
    assert saved.read_bytes().startswith(b'{"tab":7,"session":"run-1",')
    same_run = offline_host(tmp_path, "run-1")
    assert len(registry_for(_ctx(same_run, 8), URL)) == 0  # another tab of the same run
    restored = registry_for(_ctx(same_run, 7), URL)  # a host restart, same browser run
    assert [restored.lookup(ref).ref for ref in refs] == refs
    next_run = offline_host(tmp_path, "run-2")  # the browser restarted: the tab is 3 now
    again = registry_for(_ctx(next_run, 3), URL)
    assert [again.lookup(ref).ref for ref in refs] == refs


def test_saved_by_reads_the_browser_run_from_the_first_bytes(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps(
            {"tab": 2147483647, "session": "a" * 64, **Registry().to_json()}, separators=(",", ":")
        )
    )
    assert saved_by(path, 2147483647, "a" * 64)
    assert not saved_by(path, 5, "a" * 64)
    assert saved_by(path, 5, "b" * 64)  # an earlier run of the browser
    assert not saved_by(path, 5, None)  # the run unknown: only the tab can tell
