"""The running trace: the host's ``Tracer`` (start, stop, the step numbers, a trace continued
after a host restart) and what its I/O worker does with a step (pictures scaled and marked, then
the line, then the saved state).

A step is numbered as it starts and its number saved at once, so a host that dies during it
leaves the number taken and the report finds the hole. What the disk refuses is counted by the
writer (``tracefile``); a step notes the pictures it lost, and ``trace stop`` answers the losses
with the ``trace_incomplete`` warning, naming the steps still running when it stopped too (their
lines are never written).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from reins._errors import ReinsError, UsageError
from reins.bridge.context import Host, HostPart
from reins.trace.pictures import trace_picture
from reins.trace.tracefile import (
    ActiveTrace,
    TraceDisk,
    TraceWriter,
    clear_active,
    iso,
    load_active,
    save_active,
)

__all__ = ["SHORT_EVIDENCE", "Shot", "StoppedWire", "TraceStopped", "Tracer"]

log = logging.getLogger("reins.host")

# In short form (past the size cap) a step keeps this much evidence.
SHORT_EVIDENCE = 5


@dataclass
class Shot:
    """A picture as taken: the target's box to mark and the boxes to fill (CSS pixels; ``scale``
    is the device pixel ratio)."""

    png: bytes
    box: list[float] | None = None
    scale: float = 1.0
    masks: list[list[float]] = field(default_factory=list)


class StoppedWire(TypedDict, total=False):
    """``TraceStopped`` on the wire (commands/answers.py ``TraceStopped`` says what each means)."""

    dir: str
    name: str
    steps: int
    recorded: int
    bytes: int
    capped: bool
    complete: bool
    report: str
    warnings: list[str]
    lost: dict[str, Any]


@dataclass(frozen=True)
class TraceStopped:
    """`trace stop`'s answer: the trace, and whether everything it recorded is on disk."""

    trace: ActiveTrace
    # Steps that were still running when the trace stopped: their lines are never written.
    unfinished: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        return self.trace.complete and self.trace.written_steps == self.trace.step

    def to_wire(self) -> StoppedWire:
        trace = self.trace
        # Numbered, not written, not refused by the disk, not running: the step a host that died
        # was running (the trace's gap line says so).
        restart = trace.step - trace.written_steps - trace.lost_step_count - len(self.unfinished)
        out: StoppedWire = {
            "dir": trace.dir,
            "name": trace.name,
            "steps": trace.step,
            "recorded": trace.written_steps,
            "bytes": trace.bytes,
            "capped": trace.capped,
            "complete": self.complete,
            "report": f"reins report {trace.dir}",
            "warnings": [] if self.complete else ["trace_incomplete"],
        }
        if not self.complete:
            out["lost"] = {
                **trace.losses(),
                "unfinished": list(self.unfinished),
                "host_restart": max(0, restart),
            }
        return out


@dataclass
class Tracer(HostPart):
    """The host's running trace, if any."""

    writer: TraceWriter | None = None
    # Where its bytes go (a test gives a disk that fills up).
    disk: TraceDisk = field(default_factory=TraceDisk)
    # Steps started and not yet handed to the writer.
    in_flight: set[int] = field(default_factory=set)
    # When each step started (epoch s), for `--since STEP`.
    step_starts: dict[int, float] = field(default_factory=dict)
    # Per tab, the document whose figures the trace has.
    measured: dict[int, str] = field(default_factory=dict)
    _resumed: bool = False

    @property
    def running(self) -> bool:
        return self.writer is not None

    def resume(self, host: Host) -> None:
        """Once per host process: continue a trace a host before this one was running."""
        if self._resumed:
            return
        self._resumed = True
        active = load_active(host.home, host.profile)
        if active is None or not Path(active.dir).is_dir():
            return
        self.writer = TraceWriter(active, self.disk)
        now = time.time()
        gap = {
            "type": "gap",
            "time": iso(now),
            "t": now,
            "after_step": active.step,
            "last_seen": iso(active.last_seen) if active.last_seen else None,
            "previous_pid": active.pid,
            "host_pid": os.getpid(),
            "text": f"the host stopped (pid {active.pid}) and a new one (pid {os.getpid()}) "
            "took the trace over: commands in between, and any step that was running "
            "when it stopped, were not recorded",
        }
        active.pid = os.getpid()
        self.write(host, gap)
        log.info("continuing the trace in %s after a host restart", active.dir)

    def start(
        self, host: Host, directory: Path, *, name: str, screenshots: bool, max_bytes: int
    ) -> ActiveTrace:
        if self.writer is not None:
            raise UsageError(
                f"a trace is already running into {self.writer.trace.dir}",
                hint="`reins trace stop` it first",
            )
        writer = TraceWriter.create(
            directory,
            name=name,
            screenshots=screenshots,
            profile=host.profile,
            max_bytes=max_bytes,
            disk=self.disk,
        )
        save_active(host.home, host.profile, writer.trace)
        self.writer = writer
        self.step_starts.clear()
        self.measured.clear()
        self.in_flight.clear()
        return writer.trace

    async def stop(self, host: Host) -> TraceStopped:
        writer = self.writer
        if writer is None:
            raise UsageError("no trace is running", hint="start one with `reins trace start DIR`")
        self.writer = None
        unfinished = tuple(sorted(self.in_flight))
        self.in_flight.clear()
        now = time.time()
        line = {"type": "stop", "time": iso(now), "t": now, "steps": writer.trace.step}
        if unfinished:
            line["unfinished"] = list(unfinished)
        host.in_background(_stop_line, writer, line)
        host.in_background(clear_active, host.home, host.profile)
        await host.background_done()
        return TraceStopped(writer.trace, unfinished)

    def next_step(self, host: Host) -> tuple[int, float]:
        assert self.writer is not None
        self.writer.trace.step += 1
        number, now = self.writer.trace.step, time.time()
        self.in_flight.add(number)
        # Saved as it starts: a host that dies during the step leaves its number taken, so the
        # next host numbers on past it and the report sees the hole.
        host.in_background(_save_state, host.home, host.profile, self.writer.trace)
        self.step_starts[number] = now
        if len(self.step_starts) > 5000:
            self.step_starts.pop(min(self.step_starts))
        return number, now

    def write(
        self,
        host: Host,
        line: dict[str, Any],
        shots: dict[str, Shot] | None = None,
        label: str = "",
        *,
        into: TraceWriter | None = None,
    ) -> None:
        """Hand a line to the I/O worker; ``into`` a step's own trace only while it still runs
        (a step that outlived its trace is one of the stop line's ``unfinished``)."""
        writer = self.writer
        if writer is not None and (into is None or into is writer):
            host.in_background(
                _write_step, host.home, host.profile, writer, line, shots or {}, label
            )


def _stop_line(writer: TraceWriter, line: dict[str, Any]) -> None:
    """On the I/O worker, after every step handed to it: the stop line with what was lost."""
    losses = writer.trace.losses()
    if not writer.trace.complete:
        line["lost"] = losses
    writer.line(line)


def _save_state(home: Path, profile: str, trace: ActiveTrace) -> None:
    """The running trace's state for the next host; a disk that refuses it costs only that."""
    try:
        save_active(home, profile, trace)
    except OSError as exc:
        log.debug("the running trace's state not saved: %s", exc)


def _write_step(
    home: Path,
    profile: str,
    writer: TraceWriter,
    line: dict[str, Any],
    shots: dict[str, Shot],
    label: str,
) -> None:
    """On the I/O worker: the pictures (scaled, marked), then the line, then the saved state."""
    written: dict[str, str] = {}
    for phase, shot in shots.items():
        if writer.over_cap:
            writer.cap_reached()
            break
        try:
            data = trace_picture(
                shot.png, box=shot.box, label=label, scale=shot.scale, masks=shot.masks
            )
        except (OSError, ValueError, ReinsError) as exc:
            line.setdefault("notes", []).append(f"{phase} picture unreadable: {exc}")
            continue
        try:
            kept = writer.picture(f"{int(line.get('step', 0)):04d}-{phase}.jpg", data)
        except (OSError, ReinsError) as exc:
            line.setdefault("notes", []).append(f"{phase} picture not written: {_why(exc)}")
            line.setdefault("shots_lost", []).append(phase)
            continue
        if kept:
            written[phase] = kept
    if written:
        line["shots"] = written
    if writer.over_cap and line.get("type") == "step":
        writer.cap_reached()
        line.pop("answer", None)
        for kind in ("console", "network"):
            if len(line.get(kind) or []) > SHORT_EVIDENCE:
                line[kind] = line[kind][-SHORT_EVIDENCE:]
    writer.line(line)
    _save_state(home, profile, writer.trace)


def _why(exc: OSError | ReinsError) -> str:
    if isinstance(exc, ReinsError):
        return f"{exc.code}: {exc.args[0] if exc.args else exc.code}"
    return exc.strerror or str(exc)
