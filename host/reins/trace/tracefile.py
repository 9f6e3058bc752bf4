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
* ``stop``: the trace ended.

The directory is the user's own, 0700, its files 0600 and written without following symlinks (a
trace holds page content and pictures of a logged-in browser). Size is bounded: pictures are
scaled JPEGs, and once ``max_bytes`` is reached no more pictures are kept and each step is recorded
in short form, with one note saying so.

The host keeps which trace is running under ``REINS_HOME/traces/PROFILE.json`` (``ActiveTrace``),
so a host started after a crash continues it and writes the ``gap``.

Readers (``read_trace``) skip a line cut short by a crash.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reins._errors import UsageError
from reins._paths import ensure_private_dir, open_private_append, write_private

__all__ = [
    "FORMAT",
    "SHOTS",
    "TRACE_FILE",
    "ActiveTrace",
    "TraceWriter",
    "active_path",
    "clear_active",
    "iso",
    "load_active",
    "read_trace",
    "save_active",
]

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


class TraceWriter:
    """Appends to one trace directory. Not thread-safe: the host calls it from its one I/O
    worker only, in the order things happened."""

    def __init__(self, trace: ActiveTrace) -> None:
        self.trace = trace
        self.dir = Path(trace.dir)
        self._noted_cap = trace.capped

    @classmethod
    def create(
        cls,
        directory: Path,
        *,
        name: str,
        screenshots: bool,
        profile: str,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> TraceWriter:
        """A new trace in ``directory``, which must not exist yet or be empty."""
        directory = directory.absolute()
        if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
            raise UsageError(f"{directory} is not a directory", hint="give a new directory")
        if directory.is_dir() and any(directory.iterdir()):
            raise UsageError(
                f"{directory} is not empty", hint="give a new (or empty) directory for the trace"
            )
        ensure_private_dir(directory)
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
            )
        )
        writer.line(
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
        return writer

    @property
    def over_cap(self) -> bool:
        return self.trace.bytes >= self.trace.max_bytes

    def line(self, record: dict[str, Any]) -> None:
        data = (
            json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        ).encode("utf-8")
        fd = open_private_append(self.dir / TRACE_FILE)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.trace.bytes += len(data)
        self.trace.last_seen = time.time()

    def picture(self, name: str, data: bytes) -> str | None:
        """Keep a picture under shots/; None (and one note) once the size cap is reached."""
        if self.trace.bytes + len(data) > self.trace.max_bytes:
            self.cap_reached()
            return None
        folder = ensure_private_dir(self.dir / SHOTS, root=self.dir)
        write_private(folder / name, data)
        self.trace.bytes += len(data)
        return f"{SHOTS}/{name}"

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


def read_trace(directory: Path) -> list[dict[str, Any]]:
    """Every whole line of ``DIR/trace.jsonl`` (a line cut short by a crash is skipped)."""
    path = Path(directory) / TRACE_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(
            f"no trace in {directory} ({TRACE_FILE} is missing)",
            hint="give the directory `reins trace start` wrote to",
        ) from None
    out: list[dict[str, Any]] = []
    for text in raw.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out
