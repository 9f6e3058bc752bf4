"""Memory the host gives back to the system after a big page (glibc; elsewhere nothing is done).

A 20,000-element observation takes the host to ~200 MiB for a moment; what it leaves behind must
not stay. Two things keep freed memory in the process: glibc's malloc, which raises its mmap
threshold after each large free so the next multi-megabyte native message lands on the heap (and
a freed heap is kept), and CPython's allocator, which returns a 1 MiB arena only when all of it
is free. ``tune_allocator`` fixes the threshold (large buffers always mmap'd, unmapped on free)
and keeps one malloc arena for the host's few threads; ``give_memory_back`` collects and trims.
Measured in docs/benchmarks.md ("Memory").

Where the system has mimalloc the launcher runs the host on it instead (``PYTHONMALLOC=malloc``
with mimalloc preloaded, freed pages returned at once: ``setup.install.mimalloc_library``), which
is what takes the host back down after a big page: CPython's allocator keeps an arena that one
survivor holds. glibc's tuning and trim then act on a heap nothing uses, at no cost; the
collection still frees the cycles.

``gc_paused`` holds CPython's cycle collector while an observation builds its tens of thousands
of records, entries and views: each collection it would trigger there walks every young object
and, as the heap grows, the whole heap, and finds no garbage (the records are acyclic). A
20,000-element observation spent about a third of its Python time in those collections. The
collector runs again when the observation is done (``give_memory_back`` after a big one).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import os
from collections.abc import Iterator
from typing import Final

__all__ = ["allocator", "gc_paused", "give_memory_back", "tune_allocator"]

_M_MMAP_THRESHOLD: Final = -3  # glibc malloc.h
_M_ARENA_MAX: Final = -8
MMAP_THRESHOLD_BYTES: Final = 128 * 1024  # glibc's default, kept fixed


@functools.cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    # Not glibc (musl, macOS): neither call exists, and nothing is tuned.
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


@functools.cache
def allocator() -> str:
    """Which allocator this process's Python objects live in: "mimalloc" (preloaded by the
    launcher), "malloc" (``PYTHONMALLOC=malloc`` without it) or "pymalloc" (CPython's own)."""
    if os.environ.get("PYTHONMALLOC") != "malloc":
        return "pymalloc"
    try:
        own = ctypes.CDLL(None)
    except OSError:
        return "malloc"
    return "mimalloc" if hasattr(own, "mi_version") else "malloc"


def tune_allocator() -> None:
    """At start-up, before the host's threads: see the module docstring."""
    libc = _libc()
    if libc is not None and hasattr(libc, "mallopt"):
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        libc.mallopt(_M_ARENA_MAX, 1)


def give_memory_back() -> None:
    """Collect cycles, then return free heap pages to the system (``malloc_trim``)."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


class _Pauses:
    count = 0
    was_enabled = True


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No automatic cycle collection inside (nested and concurrent uses count: the collector
    comes back when the last one ends, if it was on before the first)."""
    if _Pauses.count == 0:
        _Pauses.was_enabled = gc.isenabled()
        gc.disable()
    _Pauses.count += 1
    try:
        yield
    finally:
        _Pauses.count -= 1
        if _Pauses.count == 0 and _Pauses.was_enabled:
            gc.enable()
