"""One budget per command: a deadline that travels from the CLI to every CDP call as remaining time."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from reins._errors import DeadlineExceeded

__all__ = ["HEADROOM_MS", "Deadline"]

# Kept back from inner calls so the answer can still be serialized and sent before the deadline.
HEADROOM_MS = 50


@dataclass(frozen=True)
class Deadline:
    """An absolute point on the monotonic clock by which a command must have answered."""

    at: float
    budget_ms: int
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def after_ms(cls, timeout_ms: int, *, now: float | None = None) -> Deadline:
        start = time.monotonic() if now is None else now
        return cls(at=start + max(0, timeout_ms) / 1000.0, budget_ms=timeout_ms, started=start)

    def remaining(self, *, now: float | None = None) -> float:
        """Seconds left, never negative."""
        current = time.monotonic() if now is None else now
        return max(0.0, self.at - current)

    def remaining_ms(self, *, headroom_ms: int = 0, now: float | None = None) -> int:
        """Whole milliseconds left after keeping ``headroom_ms`` back, never negative."""
        return max(0, int(self.remaining(now=now) * 1000) - headroom_ms)

    def expired(self, *, now: float | None = None) -> bool:
        return self.remaining(now=now) <= 0.0

    def elapsed_ms(self, *, now: float | None = None) -> int:
        current = time.monotonic() if now is None else now
        return int((current - self.started) * 1000)

    def check(self, what: str) -> None:
        """Raise ``timeout`` if the budget is spent before ``what`` could start."""
        if self.expired():
            raise DeadlineExceeded(f"{what}: the {self.budget_ms} ms budget ran out")

    def child(self, timeout_ms: int) -> Deadline:
        """A shorter deadline inside this one (never later than the parent)."""
        now = time.monotonic()
        return Deadline(
            at=min(self.at, now + timeout_ms / 1000.0), budget_ms=timeout_ms, started=now
        )
