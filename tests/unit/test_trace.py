"""The trace writer, the recorder through the dispatcher (a host restart in the middle of a trace
included), and what a step keeps of a command. No browser: the extension is played by a fake."""

from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from reins._errors import ReinsError
from reins._host import Dispatcher
from reins.bridge.protocol import Request
from reins.commands.table import all_commands
from reins.trace.report import write_report
from reins.trace.run import read_run
from reins.trace.steps import cli_line, recorded_args, trimmed_answer
from reins.trace.tracefile import (
    ActiveTrace,
    TraceDisk,
    TraceWriter,
    active_path,
    load_active,
    read_trace,
    read_trace_text,
    save_active,
)
from reins.trace.tracer import Shot, Tracer, _write_step

from tests.unit.fakes import offline_host

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


# ---- a disk that fills up ------------------------------------------------------------------------


class FullDisk(TraceDisk):
    """The real disk for the first ``room`` writes (lines and pictures alike), then ENOSPC for
    the next ``full`` ones (all of them by default), then the real disk again (space freed).
    ``torn``: a refused line leaves its first half in the file, as a file system that cannot
    take a failed write back would."""

    def __init__(self, room: int, full: int = 10**9, *, torn: bool = False) -> None:
        self.room, self.full, self.torn = room, full, torn
        self.writes = 0

    def _refuse(self) -> bool:
        self.writes += 1
        return self.room < self.writes <= self.room + self.full

    def append(self, path: Path, data: bytes) -> None:
        if self._refuse():
            if self.torn:
                with open(path, "ab") as out:
                    out.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        super().append(path, data)

    def put(self, path: Path, data: bytes) -> None:
        if self._refuse():
            raise OSError(errno.ENOSPC, "No space left on device")
        super().put(path, data)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (80, 60), (30, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def test_every_write_the_disk_refuses_is_counted(tmp_path: Path) -> None:
    disk = FullDisk(room=3)  # the start line and two steps
    writer = TraceWriter.create(tmp_path / "t", name="x", screenshots=True, profile="p", disk=disk)
    assert writer.line({"type": "step", "step": 1})
    assert writer.line({"type": "step", "step": 2})
    assert not writer.line({"type": "step", "step": 3})
    assert not writer.line({"type": "step", "step": 4})
    assert not writer.line({"type": "page", "step": 4})
    with pytest.raises(OSError):
        writer.picture("0005-after.jpg", b"jpeg")
    trace = writer.trace
    assert trace.lost_steps == [[3, 4]] and trace.lost_step_count == 2
    assert trace.lost_lines == 1 and trace.lost_pictures == 1
    assert "ENOSPC" in trace.write_error and not trace.complete
    assert [line.get("step") for line in read_trace(tmp_path / "t")] == [None, 1, 2]
    # the counts survive a host restart with the running trace's state
    save_active(tmp_path / "home", "p", trace)
    again = load_active(tmp_path / "home", "p")
    assert again is not None and again.lost_steps == [[3, 4]] and again.lost_pictures == 1


def test_a_trace_that_cannot_write_its_first_line_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReinsError) as refused:
        TraceWriter.create(
            tmp_path / "t", name="x", screenshots=False, profile="p", disk=FullDisk(room=0)
        )
    assert refused.value.code == "bad_request" and "No space left" in refused.value.message


def test_a_write_cut_half_way_leaves_one_damaged_line_not_two(tmp_path: Path) -> None:
    disk = FullDisk(room=2, full=1, torn=True)
    writer = TraceWriter.create(tmp_path / "t", name="x", screenshots=False, profile="p", disk=disk)
    assert writer.line({"type": "step", "step": 1})
    assert not writer.line({"type": "step", "step": 2})  # half of it stays in the file
    assert writer.line({"type": "step", "step": 3})  # space again: on a line of its own
    text = read_trace_text(tmp_path / "t")
    assert [line.get("step") for line in text.lines] == [None, 1, 3]
    assert text.damaged == [3] and not text.cut_short
    assert writer.trace.lost_steps == [[2, 2]]


def test_a_step_whose_picture_the_disk_refuses_says_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    disk = FullDisk(room=2, full=1)  # the start line, the before picture; not the after one
    writer = TraceWriter.create(tmp_path / "t", name="x", screenshots=True, profile="p", disk=disk)
    line: dict[str, Any] = {"type": "step", "step": 1, "ok": True, "notes": []}
    _write_step(home, "p", writer, line, {"before": Shot(_png()), "after": Shot(_png())}, "")
    step = read_trace(tmp_path / "t")[1]
    assert step["shots"] == {"before": "shots/0001-before.jpg"}
    assert step["shots_lost"] == ["after"]
    assert any(n.startswith("after picture not written: No space left") for n in step["notes"])
    assert writer.trace.lost_pictures == 1
    run = read_run(read_trace(tmp_path / "t"))
    assert "INCOMPLETE" in run.verdict
    assert any("1 picture could not be written" in m for m in run.missing)


# ---- the recorder, through the dispatcher ----------------------------------------------------------


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

    async def firstoffline_host() -> None:
        host = offline_host(home)
        dispatcher = Dispatcher(host, TABLE)
        started = await _call(dispatcher, "trace_start", {"dir": str(folder), "name": "n"})
        assert isinstance(started, dict) and started["dir"] == str(folder)
        assert isinstance(await _call(dispatcher, "stats"), dict)
        failed = await _call(dispatcher, "no_such_command")
        assert isinstance(failed, ReinsError)
        await host.background_done()
        # then the host is killed: no stop line, the running trace left under REINS_HOME

    async def secondoffline_host() -> None:
        host = offline_host(home)
        dispatcher = Dispatcher(host, TABLE)
        assert isinstance(await _call(dispatcher, "stats"), dict)
        stopped = await _call(dispatcher, "trace_stop")
        assert isinstance(stopped, dict) and stopped["steps"] == 3

    asyncio.run(firstoffline_host())
    saved = load_active(home, "p")
    assert saved is not None and saved.step == 2 and saved.pid == os.getpid()
    asyncio.run(secondoffline_host())
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


def _full_disk_run(tmp_path: Path, disk: FullDisk) -> dict[str, Any]:
    """trace start, five commands, trace stop on ``disk``: the stop's answer."""
    home, folder = tmp_path / "home", tmp_path / "trace"
    home.mkdir(mode=0o700)

    async def scenario() -> dict[str, Any]:
        host = offline_host(home)
        host.part(Tracer).disk = disk
        dispatcher = Dispatcher(host, TABLE)
        assert isinstance(await _call(dispatcher, "trace_start", {"dir": str(folder)}), dict)
        for _ in range(5):
            assert isinstance(await _call(dispatcher, "stats"), dict)
        stopped = await _call(dispatcher, "trace_stop")
        assert isinstance(stopped, dict)
        return stopped

    return asyncio.run(scenario())


def test_trace_stop_on_a_full_disk_warns_of_every_step_not_written(tmp_path: Path) -> None:
    stopped = _full_disk_run(tmp_path, FullDisk(room=3))  # start, steps 1 and 2; then full
    assert stopped["steps"] == 5 and stopped["recorded"] == 2
    assert stopped["complete"] is False and stopped["warnings"] == ["trace_incomplete"]
    lost = stopped["lost"]
    assert lost["steps"] == 3 and lost["step_numbers"] == [[3, 5]]
    assert lost["other_lines"] == 1  # the stop line itself
    assert "No space left on device (ENOSPC)" == lost["error"]
    # the file has no stop line: the report cannot call it a pass
    written, run, _ = write_report(tmp_path / "trace", fmt="md")
    assert run.verdict == ["INCOMPLETE"]
    assert written.read_text().splitlines()[0].endswith(": INCOMPLETE")
    assert any(m.startswith("No stop line") for m in run.missing)


def test_when_space_comes_back_the_stop_line_names_the_steps_lost(tmp_path: Path) -> None:
    stopped = _full_disk_run(tmp_path, FullDisk(room=2, full=3))  # steps 2-4 refused
    assert stopped["lost"]["step_numbers"] == [[2, 4]] and stopped["recorded"] == 2
    lines = read_trace(tmp_path / "trace")
    assert b"\n\n" not in (tmp_path / "trace" / "trace.jsonl").read_bytes()  # nothing to mend
    stop = lines[-1]
    assert stop["type"] == "stop" and stop["steps"] == 5
    assert stop["lost"]["step_numbers"] == [[2, 4]]
    run = read_run(lines)
    assert run.verdict == ["INCOMPLETE"] and run.missing_steps == [2, 3, 4]
    assert run.missing == ["No record of 3 steps of 5: 2–4 (No space left on device (ENOSPC))."]


def test_a_complete_trace_stops_without_a_warning(tmp_path: Path) -> None:
    stopped = _full_disk_run(tmp_path, FullDisk(room=10**6))
    assert stopped["complete"] is True and stopped["warnings"] == []
    assert stopped["recorded"] == 5 and "lost" not in stopped
    assert read_run(read_trace(tmp_path / "trace")).verdict == ["PASS"]


def test_a_step_still_running_when_the_trace_stops_is_named(tmp_path: Path) -> None:
    async def scenario() -> dict[str, Any]:
        host = offline_host(tmp_path / "home")
        tracer = host.part(Tracer)
        tracer.start(host, tmp_path / "t", name="x", screenshots=False, max_bytes=10**6)
        tracer.next_step(host)  # a command that has not answered yet
        return (await tracer.stop(host)).to_wire()

    (tmp_path / "home").mkdir(mode=0o700)
    stopped = asyncio.run(scenario())
    assert stopped["warnings"] == ["trace_incomplete"] and stopped["lost"]["unfinished"] == [1]
    assert stopped["recorded"] == 0
    run = read_run(read_trace(tmp_path / "t"))
    assert run.missing == ["1 step still running when the trace stopped, not recorded: 1."]


def test_no_trace_no_recording(tmp_path: Path) -> None:
    async def scenario() -> None:
        host = offline_host(tmp_path)
        dispatcher = Dispatcher(host, TABLE)
        assert isinstance(await _call(dispatcher, "stats"), dict)
        stopped = await _call(dispatcher, "trace_stop")
        assert isinstance(stopped, ReinsError) and stopped.code == "bad_request"
        assert host.part(Tracer).writer is None

    asyncio.run(scenario())


def test_a_second_trace_start_is_refused_while_one_runs(tmp_path: Path) -> None:
    async def scenario() -> None:
        host = offline_host(tmp_path / "home")
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


def test_trace_stop_prints_the_warning_a_person_reads(tmp_path: Path) -> None:
    from reins.cli.render import TEXT

    stopped = _full_disk_run(tmp_path, FullDisk(room=2, full=3))
    text = TEXT["trace_stop"](stopped)
    assert text.splitlines() == [
        f"trace stopped: 5 steps in {tmp_path / 'trace'}",
        "warning: trace_incomplete: 3 of 5 steps not written: 2-4 "
        "(No space left on device (ENOSPC))",
        "the report will say INCOMPLETE",
        f"report: reins report {tmp_path / 'trace'}",
    ]


def test_a_step_keeps_the_signals_that_name_its_target_across_sessions() -> None:
    from reins.observe.identity import Identity
    from reins.trace.steps import stable_target

    identity = Identity(testid="save-btn", role="button", name="Save " + "x" * 300, tag="button")
    kept = stable_target(identity)
    assert kept["role"] == "button" and kept["testid"] == "save-btn" and kept["tag"] == "button"
    assert len(kept["name"]) == 200 and "id" not in kept
    assert stable_target(Identity()) == {}
