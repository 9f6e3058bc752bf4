"""One way to wait for the page: ``poll_until(deadline, probe, …)``.

A probe answers when what it waits for holds, and otherwise raises the reason it does not yet: a
``ReinsError`` that ``retry`` accepts (``NotYet`` when nothing failed: the condition just does not
hold). Anything else ends the wait at once. The last reason is the answer when time or tries run
out, through ``gave_up`` when the caller words it differently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from reins._errors import DeadlineExceeded, ReinsError
from reins.bridge.deadline import Deadline

__all__ = ["NotYet", "poll_until"]

T = TypeVar("T")


class NotYet(DeadlineExceeded):
    """A probe's "not yet": the condition does not hold (the message says what was seen).

    A ``timeout`` when it is the last word: the budget ended before the condition held."""

    def __init__(self, seen: str) -> None:
        super().__init__(seen, hint="")


def _transient(exc: ReinsError) -> bool:
    return exc.transient


def _as_is(last: ReinsError) -> ReinsError:
    return last


async def poll_until(
    deadline: Deadline,
    probe: Callable[[], Awaitable[T]],
    *,
    interval: float,
    retry: Callable[[ReinsError], bool] = _transient,
    reserve_s: float = 0.0,
    attempts: int | None = None,
    backoff: float = 0.0,
    gave_up: Callable[[ReinsError], ReinsError] = _as_is,
    explain_timeout: bool = False,
) -> T:
    """Run ``probe`` until it answers, sleeping ``interval`` (plus ``backoff`` more after each
    further try) between tries.

    It gives up with ``gave_up(last reason)`` once a failed try leaves no more than ``reserve_s``
    of the deadline, or after ``attempts`` tries. With ``explain_timeout``, a ``DeadlineExceeded``
    from inside a try that follows a "not yet" gives up the same way: the answer then says what was
    waited for rather than that the budget ran out in the middle of a try.
    """
    last: ReinsError | None = None
    tries = 0
    while True:
        tries += 1
        try:
            return await probe()
        except ReinsError as exc:
            if retry(exc):
                last = exc
            elif explain_timeout and last is not None and isinstance(exc, DeadlineExceeded):
                raise gave_up(last) from exc
            else:
                raise
        if deadline.remaining() <= reserve_s or (attempts is not None and tries >= attempts):
            raise gave_up(last)
        await asyncio.sleep(interval + backoff * (tries - 1))
