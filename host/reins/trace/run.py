"""A trace read back as a run a person can follow: its steps, pages, sites, failures and gaps,
and what the trace is missing.

Pure: the lines of ``trace.jsonl`` in, plain data out; both report formats (``report.py``,
``markdown.py``) render from this. Nothing here trusts the trace: every field is read with a
default, and picture paths must be the recorder's own names under ``shots/``.

A run is **incomplete** (its verdict INCOMPLETE, never PASS) when the trace has no start or no
stop line, a step number between 1 and the highest the trace knows of (the stop line's count, a
gap's, a note's) has no line, the stop line says lines or pictures were not written or steps
were still running, a step says a picture of it was not written, a line is damaged, or the file
ends in the middle of a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "Failure",
    "RunView",
    "Site",
    "Step",
    "as_dict",
    "number_ranges",
    "picture_path",
    "read_run",
]

# How many steps before a failure its command sequence shows.
SEQUENCE_MAX = 12
_PICTURE = re.compile(r"^shots/\d{4,9}-(before|after)\.jpg$")


def picture_path(value: Any) -> str | None:
    """A picture the recorder wrote (``shots/0007-after.jpg``), or None for anything else."""
    return value if isinstance(value, str) and _PICTURE.match(value) else None


def _site(url: Any) -> str:
    try:
        parts = urlsplit(str(url or ""))
    except ValueError:
        return "?"
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:" if parts.scheme else "(no page)"


def _num(value: Any, default: float = 0.0) -> float:
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
    )


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


@dataclass
class Step:
    number: int
    t: float
    time: str
    cmd: str
    cli: str
    ok: bool
    duration_ms: int
    url: str | None
    url_before: str | None
    title: str
    error: dict[str, Any] | None
    effect: dict[str, Any] | None
    warnings: list[str]
    answer: dict[str, Any] | None
    console: list[dict[str, Any]]
    network: list[dict[str, Any]]
    notes: list[str]
    before: str | None
    after: str | None
    # Pictures of this step the disk refused ("before", "after").
    shots_lost: list[str] = field(default_factory=list)

    @property
    def site(self) -> str:
        return _site(self.url or self.url_before)

    @property
    def console_errors(self) -> list[dict[str, Any]]:
        return [c for c in self.console if c.get("level") == "error"]

    @property
    def failed_requests(self) -> list[dict[str, Any]]:
        return [n for n in self.network if n.get("failed")]

    @classmethod
    def of(cls, line: dict[str, Any]) -> Step:
        shots = as_dict(line.get("shots"))
        error = line.get("error") if isinstance(line.get("error"), dict) else None
        return cls(
            number=int(_num(line.get("step"))),
            t=_num(line.get("t")),
            time=str(line.get("time") or ""),
            cmd=str(line.get("cmd") or "?"),
            cli=str(line.get("cli") or line.get("cmd") or "?"),
            ok=bool(line.get("ok")) and error is None,
            duration_ms=int(_num(line.get("duration_ms"))),
            url=str(line["url"]) if line.get("url") else None,
            url_before=str(line["url_before"]) if line.get("url_before") else None,
            title=str(line.get("title") or ""),
            error=error,
            effect=line.get("effect") if isinstance(line.get("effect"), dict) else None,
            warnings=[str(w) for w in line.get("warnings") or [] if isinstance(w, str)],
            answer=line.get("answer") if isinstance(line.get("answer"), dict) else None,
            console=_list(line.get("console")),
            network=_list(line.get("network")),
            notes=[str(n) for n in line.get("notes") or [] if isinstance(n, str)],
            before=picture_path(shots.get("before")),
            after=picture_path(shots.get("after")),
            shots_lost=[str(p) for p in line.get("shots_lost") or [] if isinstance(p, str)],
        )


@dataclass
class Failure:
    step: Step
    # The steps that led to it: since the previous failure (or the start), at most SEQUENCE_MAX.
    sequence: list[Step]


@dataclass
class Site:
    origin: str
    steps: int = 0
    failed: int = 0

    @property
    def passed(self) -> bool:
        return self.failed == 0


@dataclass
class RunView:
    name: str
    profile: str
    started: str
    t0: float
    t_end: float
    stopped: bool
    screenshots: bool
    steps: list[Step] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    # Gaps and notes, each with the step it came after.
    notices: list[dict[str, Any]] = field(default_factory=list)
    # Everything in file order, for the timeline: ("step", Step) / ("notice", dict) / ("page", dict)
    timeline: list[tuple[str, Any]] = field(default_factory=list)
    # What the trace should hold and does not, one sentence each; empty for a complete trace.
    missing: list[str] = field(default_factory=list)
    # Step numbers with no line (holes, and those still running at the stop).
    missing_steps: list[int] = field(default_factory=list)

    @property
    def failures(self) -> list[Failure]:
        out = []
        since = 0
        for i, step in enumerate(self.steps):
            if not step.ok:
                out.append(Failure(step, self.steps[max(since, i - SEQUENCE_MAX) : i + 1]))
                since = i + 1
        return out

    @property
    def passed(self) -> bool:
        """Every recorded step ok (whether the trace is complete is ``complete``)."""
        return bool(self.steps) and all(step.ok for step in self.steps)

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def verdict(self) -> list[str]:
        """The headline: PASS, FAIL, or INCOMPLETE (after FAIL when a recorded step failed)."""
        if self.complete:
            return ["PASS" if self.passed else "FAIL"]
        return (["FAIL"] if self.failures else []) + ["INCOMPLETE"]

    @property
    def duration_s(self) -> float:
        return max(0.0, self.t_end - self.t0)

    @property
    def sites(self) -> list[Site]:
        found: dict[str, Site] = {}
        for step in self.steps:
            site = found.setdefault(step.site, Site(step.site))
            site.steps += 1
            site.failed += 0 if step.ok else 1
        return list(found.values())

    def pages_of(self, step: Step) -> list[dict[str, Any]]:
        return [p for p in self.pages if int(_num(p.get("step"))) == step.number]


def number_ranges(numbers: list[int], *, limit: int = 20) -> str:
    """``[3, 4, 5, 9]`` as ``3–5, 9`` (at most ``limit`` ranges, then how many more numbers)."""
    ranges: list[list[int]] = []
    for n in sorted(set(numbers)):
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])
    shown = [str(a) if a == b else f"{a}–{b}" for a, b in ranges[:limit]]
    rest = sum(b - a + 1 for a, b in ranges[limit:])
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _missing(
    lines: list[dict[str, Any]], run: RunView, damaged: int, cut_short: bool
) -> tuple[list[str], list[int]]:
    """What the trace is missing, as sentences, and the step numbers with no line."""
    out: list[str] = []
    kinds = [line.get("type") for line in lines]
    stop = next((line for line in reversed(lines) if line.get("type") == "stop"), None)
    lost = as_dict(stop.get("lost")) if stop else {}
    why = f" ({lost['error']})" if isinstance(lost.get("error"), str) else ""
    if "start" not in kinds:
        out.append("The start line is missing.")
    if cut_short:
        out.append("The file ends in the middle of a line: the last write was cut short.")
    if damaged:
        out.append(f"{_plural(damaged, 'damaged line')} could not be read.")
    seen = {step.number for step in run.steps}
    known = [*seen]
    for line in lines:
        if line.get("type") == "stop":
            known.append(int(_num(line.get("steps"))))
        elif line.get("type") in ("gap", "note"):
            known.append(int(_num(line.get("after_step"))))
    unfinished = {
        int(n)
        for n in (stop.get("unfinished") if stop else None) or []
        if isinstance(n, int) and not isinstance(n, bool) and n not in seen
    }
    holes = [n for n in range(1, max(known, default=0) + 1) if n not in seen]
    unexplained = [n for n in holes if n not in unfinished]
    total = max(known, default=0)
    if unexplained:
        out.append(
            f"No record of {_plural(len(unexplained), 'step')} of {total}: "
            f"{number_ranges(unexplained)}{why}."
        )
    if unfinished:
        out.append(
            f"{_plural(len(unfinished), 'step')} still running when the trace stopped, not "
            f"recorded: {number_ranges(sorted(unfinished))}."
        )
    pictures = max(int(_num(lost.get("pictures"))), sum(len(s.shots_lost) for s in run.steps))
    if pictures:
        out.append(f"{_plural(pictures, 'picture')} could not be written{why}.")
    other = int(_num(lost.get("other_lines")))
    if other:
        out.append(
            f"{_plural(other, 'other line')} (page figures, notes) could not be written{why}."
        )
    if stop is None:
        last = max(seen, default=0)
        out.append(
            "No stop line: the trace is still running, or it was cut short (the host killed, "
            f"the disk full); anything after step {last} may be missing."
        )
    return out, holes


def read_run(lines: list[dict[str, Any]], *, damaged: int = 0, cut_short: bool = False) -> RunView:
    """The run a trace's lines describe (a trace still running, or cut short, reads too, as
    incomplete). ``damaged`` lines and a ``cut_short`` end are what the file reader found."""
    start = next((line for line in lines if line.get("type") == "start"), {})
    t0 = _num(start.get("t"), _num(lines[0].get("t")) if lines else 0.0)
    run = RunView(
        name=str(start.get("name") or "reins run"),
        profile=str(start.get("profile") or ""),
        started=str(start.get("time") or ""),
        t0=t0,
        t_end=t0,
        stopped=any(line.get("type") == "stop" for line in lines),
        screenshots=bool(start.get("screenshots")),
    )
    for line in lines:
        kind = line.get("type")
        if kind == "step":
            step = Step.of(line)
            run.steps.append(step)
            run.timeline.append(("step", step))
            run.t_end = max(run.t_end, step.t + step.duration_ms / 1000)
        elif kind == "page":
            run.pages.append(line)
        elif kind in ("gap", "note"):
            run.notices.append(line)
            run.timeline.append(("notice", line))
        if kind in ("stop", "gap", "note"):
            run.t_end = max(run.t_end, _num(line.get("t")))
    run.missing, run.missing_steps = _missing(lines, run, damaged, cut_short)
    return run
