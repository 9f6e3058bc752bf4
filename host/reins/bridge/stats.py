"""Per-command counters for `reins stats`: counts, failures by code, duration percentiles."""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Stats"]

_KEEP = 1000  # durations kept per command for the percentiles


def _percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    k = min(len(sorted_ms) - 1, max(0, round(q * (len(sorted_ms) - 1))))
    return round(sorted_ms[k], 1)


@dataclass
class _CommandStats:
    count: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    durations_ms: deque[float] = field(default_factory=lambda: deque(maxlen=_KEEP))


@dataclass
class Stats:
    commands: dict[str, _CommandStats] = field(default_factory=dict)
    events: Counter[str] = field(default_factory=Counter)

    def record(self, name: str, seconds: float, error_code: str | None) -> None:
        entry = self.commands.setdefault(name, _CommandStats())
        entry.count += 1
        entry.durations_ms.append(seconds * 1000.0)
        if error_code:
            entry.failures[error_code] += 1

    def note(self, event: str) -> None:
        """Count a notable event: eval_timeout, js_click_fallback, ref_recovered, …"""
        self.events[event] += 1

    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, entry in sorted(self.commands.items()):
            ordered = sorted(entry.durations_ms)
            out[name] = {
                "count": entry.count,
                "failures": dict(entry.failures),
                "p50_ms": _percentile(ordered, 0.5),
                "p90_ms": _percentile(ordered, 0.9),
                "p99_ms": _percentile(ordered, 0.99),
                "max_ms": round(ordered[-1], 1) if ordered else 0.0,
            }
        return {"commands": out, "events": dict(self.events)}
