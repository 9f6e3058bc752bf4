"""A trace on disk: ``DIR/trace.jsonl`` (one JSON object a line) and ``DIR/shots/`` (pictures).

Lines, in the order they happened (``type``):

* ``start``: format, name, profile, host pid, whether pictures are taken, the size cap;
* ``step``: one command — step number, time, tab, URL, the request (``cmd``, ``args``, ``cli``),
  ``ok`` with the answer (trimmed) or the typed ``error``, effect and warnings, duration, the
  pictures before and after (``shots``), the console and network evidence drained after it;
* ``page``: the compare-sources figures of a document the trace had not seen yet;
* ``gap``: the host stopped while the trace ran and a new one took it over (what happened in
  between was not recorded);
* ``note``: something the reader should know (the size cap was reached);
* ``stop``: the trace ended: how many steps it numbered, which were still running, and what the
  writer could not write (``lost``).

Steps are numbered 1, 2, 3… in the order they started, so a reader finds a step whose line is
not in the file. Nothing is lost silently: a line or picture the disk refuses (full, gone,
replaced) is counted in the ``ActiveTrace`` (which steps, how many other lines and pictures, the
first error), the step's own line says which of its pictures were not written, and the stop line
and ``trace stop``'s answer carry the counts. A write that fails half-way is undone where the file
system allows; otherwise the next line starts on a line of its own, and the fragment reads as a
damaged line.

The directory is the user's own, 0700, its files 0600 and written without following symlinks (a
trace holds page content and pictures of a logged-in browser). Size is bounded: pictures are
scaled JPEGs, and once ``max_bytes`` is reached no more pictures are kept and each step is recorded
in short form, with one note saying so.

The host keeps which trace is running under ``REINS_HOME/traces/PROFILE.json`` (``ActiveTrace``),
so a host started after a crash continues it and writes the ``gap``.

Readers (``read_trace_text``) skip a line cut short by a crash or a full disk, and say so: which
lines are damaged, and whether the file ends in the middle of one.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reins._errors import ReinsError, UsageError
from reins._paths import ensure_private_dir, open_private_append, write_private

__all__ = [
    "FORMAT",
    "SHOTS",
    "TRACE_FILE",
    "ActiveTrace",
    "TraceDisk",
    "TraceText",
    "TraceWriter",
    "active_path",
    "clear_active",
    "iso",
    "load_active",
    "parse_trace",
    "read_trace",
    "read_trace_text",
    "save_active",
]

log = logging.getLogger("reins.host")

FORMAT = 1
TRACE_FILE = "trace.jsonl"
SHOTS = "shots"
DEFAULT_MAX_BYTES = 100 * 1024 * 1024


@dataclass
class ActiveTrace:
    """What the host persists about the running trace (plain data, JSON on disk)."""

    dir: str
    name: str
    screenshots: bool
    started: float
    max_bytes: int = DEFAULT_MAX_BYTES
    step: int = 0
    bytes: int = 0
    capped: bool = False
    pid: int = 0
    last_seen: float = 0.0
    # What the disk refused: step lines (their numbers, as [first, last] ranges), other lines
    # (page figures, notes, a gap, the stop line), pictures, and the first error.
    lost_steps: list[list[int]] = field(default_factory=list)
    # Step lines on disk: with ``step``, what tells a step lost to a host restart too.
    written_steps: int = 0
    lost_lines: int = 0
    lost_pictures: int = 0
    write_error: str = ""

    @property
    def lost_step_count(self) -> int:
        return sum(last - first + 1 for first, last in self.lost_steps)

    @property
    def complete(self) -> bool:
        """Everything the recorder meant to write is on disk."""
        return not (self.lost_steps or self.lost_lines or self.lost_pictures)

    def lose_step(self, number: int) -> None:
        if self.lost_steps and self.lost_steps[-1][1] == number - 1:
            self.lost_steps[-1][1] = number
        else:
            self.lost_steps.append([number, number])

    def losses(self) -> dict[str, Any]:
        """What was not written, as the stop line and `trace stop` give it."""
        return {
            "steps": self.lost_step_count,
            "step_numbers": [list(r) for r in self.lost_steps],
            "other_lines": self.lost_lines,
            "pictures": self.lost_pictures,
            "error": self.write_error or None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ActiveTrace:
        fields = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in fields})


def active_path(home: Path, profile: str) -> Path:
    return home / "traces" / f"{profile}.json"


def save_active(home: Path, profile: str, trace: ActiveTrace) -> None:
    folder = ensure_private_dir(home / "traces", root=home)
    write_private(folder / f"{profile}.json", json.dumps(asdict(trace)).encode())


def load_active(home: Path, profile: str) -> ActiveTrace | None:
    try:
        data = json.loads(active_path(home, profile).read_text(encoding="utf-8"))
        return ActiveTrace.from_json(data) if isinstance(data, dict) else None
    except (OSError, ValueError, TypeError):
        return None


def clear_active(home: Path, profile: str) -> None:
    try:
        os.unlink(active_path(home, profile))
    except FileNotFoundError:
        pass


def iso(moment: float) -> str:
    """A local time stamp with milliseconds, as the trace writes them."""
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(moment))
        + f".{int(moment % 1 * 1000):03d}"
    )


class TraceDisk:
    """How a trace's bytes reach the disk: a line appended whole, a picture written whole, or an
    ``OSError``. Tests hand the writer one that fails (a full disk) after some writes."""

    def append(self, path: Path, data: bytes) -> None:
        """All of ``data`` at the end of ``path``, or ``OSError`` with the part written taken back
        (if the file system lets it be: a caller must not count on it)."""
        fd = open_private_append(path)
        try:
            size = os.fstat(fd).st_size
            view = memoryview(data)
            try:
                while view:  # a regular file takes at least one byte a write, or raises
                    view = view[os.write(fd, view) :]
            except OSError:
                try:
                    os.ftruncate(fd, size)
                except OSError:
                    pass
                raise
        finally:
            os.close(fd)

    def ends_a_line(self, path: Path) -> bool:
        """Whether ``path`` is empty or ends with a line break (no fragment of a line left)."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                return True
            os.lseek(fd, size - 1, os.SEEK_SET)  # its own descriptor: no pread needed (Windows)
            return os.read(fd, 1) == b"\n"
        except OSError:
            return False
        finally:
            os.close(fd)

    def put(self, path: Path, data: bytes) -> None:
        """A picture under ``DIR/shots/``, created private, replaced atomically."""
        ensure_private_dir(path.parent, root=path.parent.parent)
        write_private(path, data)


def _why(exc: OSError | ReinsError) -> str:
    if isinstance(exc, ReinsError):
        return exc.message
    name = errno.errorcode.get(exc.errno or 0)
    text = exc.strerror or str(exc)
    return f"{text} ({name})" if name else text


class TraceWriter:
    """Appends to one trace directory. Not thread-safe: the host calls it from its one I/O
    worker only, in the order things happened.

    A write the disk refuses never raises out of here unnoticed: ``line`` counts it and answers
    False, ``picture`` counts it and raises it for the step to note."""

    def __init__(self, trace: ActiveTrace, disk: TraceDisk | None = None) -> None:
        self.trace = trace
        self.dir = Path(trace.dir)
        self.disk = disk or TraceDisk()
        self._noted_cap = trace.capped
        # A failed append may have left part of a line behind: the next one then checks the
        # file's end, and starts a new line if it has to.
        self._torn = False

    @classmethod
    def create(
        cls,
        directory: Path,
        *,
        name: str,
        screenshots: bool,
        profile: str,
        max_bytes: int = DEFAULT_MAX_BYTES,
        disk: TraceDisk | None = None,
    ) -> TraceWriter:
        """A new trace in ``directory``, which must not exist yet or be empty; refused (typed) when
        even its first line cannot be written."""
        directory = directory.absolute()
        if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
            raise UsageError(f"{directory} is not a directory", hint="give a new directory")
        if directory.is_dir() and any(directory.iterdir()):
            raise UsageError(
                f"{directory} is not empty", hint="give a new (or empty) directory for the trace"
            )
        try:
            ensure_private_dir(directory)
        except OSError as exc:
            raise UsageError(
                f"cannot make the trace directory {directory}: {_why(exc)}",
                hint="free some space, or give a directory on another disk",
            ) from exc
        now = time.time()
        writer = cls(
            ActiveTrace(
                str(directory),
                name,
                screenshots,
                now,
                max_bytes=max_bytes,
                pid=os.getpid(),
                last_seen=now,
            ),
            disk,
        )
        written = writer.line(
            {
                "type": "start",
                "format": FORMAT,
                "name": name,
                "profile": profile,
                "host_pid": os.getpid(),
                "screenshots": screenshots,
                "max_bytes": max_bytes,
                "time": iso(now),
                "t": now,
            }
        )
        if not written:
            raise UsageError(
                f"cannot write the trace in {directory}: {writer.trace.write_error}",
                hint="free some space, or give a directory on another disk",
            )
        return writer

    @property
    def over_cap(self) -> bool:
        return self.trace.bytes >= self.trace.max_bytes

    def line(self, record: dict[str, Any]) -> bool:
        """Append one line; False when the disk refused it (counted: a step by its number)."""
        data = (
            json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        ).encode("utf-8")
        path = self.dir / TRACE_FILE
        if self._torn and not self.disk.ends_a_line(path):
            data = b"\n" + data
        try:
            self.disk.append(path, data)
        except OSError as exc:
            self._torn = True
            if record.get("type") == "step":
                self.trace.lose_step(int(record.get("step") or 0))
            else:
                self.trace.lost_lines += 1
            self._failed(exc, f"{record.get('type')} line")
            return False
        self._torn = False
        if record.get("type") == "step":
            self.trace.written_steps += 1
        self.trace.bytes += len(data)
        self.trace.last_seen = time.time()
        return True

    def picture(self, name: str, data: bytes) -> str | None:
        """Keep a picture under shots/; None (and one note) once the size cap is reached. A
        picture the disk refuses (or a ``shots`` that is no longer the trace's own directory) is
        counted and its error raised, for the step to note."""
        if self.trace.bytes + len(data) > self.trace.max_bytes:
            self.cap_reached()
            return None
        try:
            self.disk.put(self.dir / SHOTS / name, data)
        except (OSError, ReinsError) as exc:
            self.trace.lost_pictures += 1
            self._failed(exc, f"picture {name}")
            raise
        self.trace.bytes += len(data)
        return f"{SHOTS}/{name}"

    def _failed(self, exc: OSError | ReinsError, what: str) -> None:
        if not self.trace.write_error:
            self.trace.write_error = _why(exc)
            log.warning("trace %s: %s not written: %s", self.dir, what, _why(exc))

    def cap_reached(self) -> None:
        self.trace.capped = True
        if not self._noted_cap:
            self._noted_cap = True
            cap_mb = self.trace.max_bytes / 1_048_576
            self.line(
                {
                    "type": "note",
                    "time": iso(time.time()),
                    "t": time.time(),
                    "after_step": self.trace.step,
                    "text": f"the trace reached its size cap ({cap_mb:.0f} MB): no more "
                    "pictures, and later steps are recorded in short form",
                }
            )


@dataclass
class TraceText:
    """A trace file read back: its whole lines, and the damage a reader must report."""

    lines: list[dict[str, Any]]
    # Line numbers (from 1) of lines that are not a JSON object: a write cut short before them.
    damaged: list[int] = field(default_factory=list)
    # The file ends in the middle of a line (the last write was cut short).
    cut_short: bool = False


def parse_trace(raw: bytes) -> TraceText:
    """The lines of a trace file's bytes (pure)."""
    text = TraceText([])
    rows = raw.decode("utf-8", errors="replace").split("\n")
    # A file ending in a newline splits into a last empty row: it is no line.
    unterminated = rows[-1] if rows else ""
    for number, row in enumerate(rows[:-1], start=1):
        if not row.strip():
            continue  # the line break a writer adds after a failed write
        record = _object(row)
        if record is None:
            text.damaged.append(number)
        else:
            text.lines.append(record)
    if unterminated.strip():
        record = _object(unterminated)
        if record is None:
            text.cut_short = True
        else:
            text.lines.append(record)
    return text


def _object(row: str) -> dict[str, Any] | None:
    try:
        record = json.loads(row)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def read_trace_text(directory: Path) -> TraceText:
    """``DIR/trace.jsonl`` read back, damage included."""
    path = Path(directory) / TRACE_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(
            f"no trace in {directory} ({TRACE_FILE} is missing)",
            hint="give the directory `reins trace start` wrote to",
        ) from None
    return parse_trace(raw)


def read_trace(directory: Path) -> list[dict[str, Any]]:
    """Every whole line of ``DIR/trace.jsonl`` (a line cut short is skipped)."""
    return read_trace_text(directory).lines
