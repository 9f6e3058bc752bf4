"""The trace writer, the recorder through the dispatcher (a host restart in the middle of a trace
included), and what a step keeps of a command. No browser: the extension is played by a fake."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from reins._errors import ReinsError
from reins._host import Dispatcher
from reins.bridge.context import Host
from reins.bridge.link import ExtensionLink
from reins.bridge.protocol import Request
from reins.commands.table import all_commands
from reins.trace.recorder import Tracer
from reins.trace.steps import cli_line, recorded_args, trimmed_answer
from reins.trace.tracefile import (
    ActiveTrace,
    TraceWriter,
    active_path,
    load_active,
    read_trace,
    save_active,
)

TABLE = all_commands()


# ---- the writer ------------------------------------------------------------------------------------


def test_a_new_trace_is_private_and_starts_with_its_header(tmp_path: Path) -> None:
    writer = TraceWriter.create(tmp_path / "t", name="run", screenshots=True, profile="p")
    writer.line({"type": "step", "step": 1})
    assert writer.picture("0001-after.jpg", b"jpeg") == "shots/0001-after.jpg"
    folder = tmp_path / "t"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "trace.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "shots" / "0001-after.jpg").stat().st_mode) == 0o600
    lines = read_trace(folder)
    assert lines[0]["type"] == "start" and lines[0]["name"] == "run" and lines[0]["screenshots"]
    assert lines[1] == {"type": "step", "step": 1}


def test_a_trace_goes_only_into_a_new_or_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("x")
    with pytest.raises(ReinsError) as refused:
        TraceWriter.create(tmp_path / "full", name="x", screenshots=False, profile="p")
    assert refused.value.code == "bad_request"
    (tmp_path / "empty").mkdir()
    TraceWriter.create(tmp_path / "empty", name="x", screenshots=False, profile="p")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(ReinsError):
        TraceWriter.create(tmp_path / "link", name="x", screenshots=False, profile="p")


def test_the_size_cap_stops_pictures_and_says_so_once(tmp_path: Path) -> None:
    writer = TraceWriter.create(
        tmp_path / "t", name="x", screenshots=True, profile="p", max_bytes=2000
    )
    assert writer.picture("0001-before.jpg", b"x" * 500) is not None
    assert writer.picture("0001-after.jpg", b"x" * 5000) is None
    assert writer.picture("0002-after.jpg", b"x" * 5000) is None
    notes = [line for line in read_trace(tmp_path / "t") if line["type"] == "note"]
    assert len(notes) == 1 and "size cap" in notes[0]["text"]
    assert writer.trace.capped


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    writer = TraceWriter.create(tmp_path / "t", name="x", screenshots=False, profile="p")
    writer.line({"type": "step", "step": 1})
    with open(tmp_path / "t" / "trace.jsonl", "a") as fh:
        fh.write('{"type": "step", "st')
    assert [line["type"] for line in read_trace(tmp_path / "t")] == ["start", "step"]


def test_the_active_trace_round_trips(tmp_path: Path) -> None:
    home = tmp_path / "home"
    trace = ActiveTrace(str(tmp_path / "t"), "run", True, 1.5, step=7, pid=42)
    save_active(home, "p", trace)
    assert load_active(home, "p") == trace
    assert stat.S_IMODE(active_path(home, "p").stat().st_mode) == 0o600
    assert load_active(home, "other") is None


# ---- the recorder, through the dispatcher ----------------------------------------------------------


def _host(home: Path) -> Host:
    link = ExtensionLink(lambda message: None)  # the commands below never reach the extension
    return Host(profile="p", home=home, link=link)


async def _call(
    dispatcher: Dispatcher,
    cmd: str,
    args: dict[str, Any] | None = None,
) -> dict[str, Any] | ReinsError:
    try:
        return await dispatcher.dispatch(Request(id=1, cmd=cmd, args=args or {}))
    except ReinsError as exc:
        return exc


def test_every_command_is_a_step_and_a_restarted_host_notes_the_gap(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "trace"
    home.mkdir(mode=0o700)

    async def first_host() -> None:
        host = _host(home)
        dispatcher = Dispatcher(host, TABLE)
        started = await _call(dispatcher, "trace_start", {"dir": str(folder), "name": "n"})
        assert isinstance(started, dict) and started["dir"] == str(folder)
        assert isinstance(await _call(dispatcher, "stats"), dict)
        failed = await _call(dispatcher, "no_such_command")
        assert isinstance(failed, ReinsError)
        await host.background_done()
        # then the host is killed: no stop line, the running trace left under REINS_HOME

    async def second_host() -> None:
        host = _host(home)
        dispatcher = Dispatcher(host, TABLE)
        assert isinstance(await _call(dispatcher, "stats"), dict)
        stopped = await _call(dispatcher, "trace_stop")
        assert isinstance(stopped, dict) and stopped["steps"] == 3

    asyncio.run(first_host())
    saved = load_active(home, "p")
    assert saved is not None and saved.step == 2 and saved.pid == os.getpid()
    asyncio.run(second_host())
    lines = read_trace(folder)
    assert [line["type"] for line in lines] == ["start", "step", "step", "gap", "step", "stop"]
    steps = [line for line in lines if line["type"] == "step"]
    assert [s["step"] for s in steps] == [1, 2, 3]
    assert [s["ok"] for s in steps] == [True, False, True]
    assert steps[1]["error"]["code"] == "unknown_command"
    assert steps[0]["cli"] == "reins stats"
    gap = lines[3]
    assert gap["after_step"] == 2 and "were not recorded" in gap["text"]
    assert load_active(home, "p") is None  # stopped: nothing left to continue


def test_no_trace_no_recording(tmp_path: Path) -> None:
    async def scenario() -> None:
        host = _host(tmp_path)
        dispatcher = Dispatcher(host, TABLE)
        assert isinstance(await _call(dispatcher, "stats"), dict)
        stopped = await _call(dispatcher, "trace_stop")
        assert isinstance(stopped, ReinsError) and stopped.code == "bad_request"
        assert host.part(Tracer).writer is None

    asyncio.run(scenario())


def test_a_second_trace_start_is_refused_while_one_runs(tmp_path: Path) -> None:
    async def scenario() -> None:
        host = _host(tmp_path / "home")
        dispatcher = Dispatcher(host, TABLE)
        assert isinstance(
            await _call(dispatcher, "trace_start", {"dir": str(tmp_path / "a")}), dict
        )
        again = await _call(dispatcher, "trace_start", {"dir": str(tmp_path / "b")})
        assert isinstance(again, ReinsError) and "already running" in again.message
        relative = await _call(dispatcher, "trace_stop")
        assert isinstance(relative, dict)
        refused = await _call(dispatcher, "trace_start", {"dir": "relative/dir"})
        assert isinstance(refused, ReinsError) and refused.code == "bad_request"

    (tmp_path / "home").mkdir(mode=0o700)
    asyncio.run(scenario())


# ---- what a step keeps -------------------------------------------------------------------------------


def test_the_command_line_is_the_one_a_person_types() -> None:
    assert (
        cli_line(TABLE["click"], "click", {"target": "#save", "button": "left"})
        == "reins click '#save'"
    )
    assert (
        cli_line(TABLE["fill"], "fill", {"target": "@e3", "value": "Blue Bottle"})
        == "reins fill @e3 'Blue Bottle'"
    )
    assert (
        cli_line(TABLE["tab_new"], "tab_new", {"url": "http://x.test/"})
        == "reins tab new http://x.test/"
    )
    assert (
        cli_line(TABLE["state"], "state", {"compare_sources": True, "text_only": True})
        == "reins state --compare-sources"
    )
    assert (
        cli_line(TABLE["select"], "select", {"target": "#c", "values": ["a", "b c"]})
        == "reins select '#c' a 'b c'"
    )
    assert cli_line(None, "bogus", {"x": 1}) == "reins bogus --x 1"


def test_secrets_typed_into_fields_are_not_written_down() -> None:
    password = recorded_args("fill", {"target": "#password", "value": "hunter2"}, None)
    assert password["value"] == "[7 characters, not recorded]"
    masked_by_page = recorded_args(
        "fill",
        {"target": "@e4", "value": "hunter2"},
        {"effect": {"value": {"from": "", "to": "*******"}}},
    )
    assert "hunter2" not in json.dumps(masked_by_page)
    plain = recorded_args("fill", {"target": "#merchant", "value": "Blue Bottle"}, None)
    assert plain["value"] == "Blue Bottle"
    url = recorded_args("navigate", {"url": "https://x.test/login?token=abc#frag"}, None)
    assert url["url"] == "https://x.test/login?token=…"


def test_an_answer_is_kept_small() -> None:
    answer = {
        "ok": True,
        "png_base64": "A" * 100_000,
        "bytes": 75_000,
        "map": {"elements": {"a": {}, "b": {}}},
        "refs": [{}] * 300,
        "text": "x" * 10_000,
        "url": "https://x.test/?q=secret",
        "effect": {"url": {"from": "https://x.test/a?s=1", "to": "https://x.test/b?s=2"}},
        "list": list(range(100)),
    }
    kept = trimmed_answer(answer)
    assert "png_base64" not in kept and kept["png_omitted"]
    assert kept["map"] == {"elements": 2, "omitted": True}
    assert kept["refs_listed"] == 300
    assert len(kept["text"]) < 4100
    assert kept["url"] == "https://x.test/?q=…"
    assert kept["effect"]["url"] == {"from": "https://x.test/a?s=…", "to": "https://x.test/b?s=…"}
    assert kept["list"][-1] == "… 60 more"
    assert len(json.dumps(kept)) < 10_000
