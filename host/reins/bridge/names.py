"""Profile names: which name a browser profile's host answers to, the same one every time.

Each browser profile's copy of the extension keeps a random id of its own (``instance``, in
``chrome.storage.local``) and says it in ``hello``; ``REINS_HOME/profiles.json`` binds names to
those ids. So a profile keeps its name whatever order browsers start in, and a name never moves to
another profile while its own is closed (a client that chose it gets ``no_host``, not the other
browser). The user-level manifest is shared by every profile of a browser, so its launcher alone
cannot tell them apart; the id can.

How a connecting profile is named (under a file lock: two profiles of one browser start together):

- the launcher's name (``reins install --profile NAME``, ``reins launch --profile NAME``) when no
  other profile holds it; a profile ``reins launch`` started takes its name back from an earlier
  id of a launched profile that is not running (its user data was reset: it is still that
  profile); otherwise ``NAME-2``…, bound to it from then on;
- else the name already bound to its id;
- else the first of ``default``, ``default-2``, … that no other profile holds.

The file also says whether ``reins launch`` started the profile, so the CLI can say how to bring a
closed one back. Standard library only: the CLI reads it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reins import _platform
from reins._errors import UsageError
from reins._paths import ensure_private_dir, valid_profile_name, write_private

__all__ = ["DEFAULT_NAME", "KnownProfile", "claim_name", "known_profiles", "registry_path"]

DEFAULT_NAME = "default"
_MAX_SUFFIX = 100
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True)
class KnownProfile:
    name: str
    instance: str
    launched: bool


def registry_path(home: Path) -> Path:
    return home / "profiles.json"


def known_profiles(home: Path) -> dict[str, KnownProfile]:
    """Every name given out here; an unreadable file counts as none."""
    return {
        name: KnownProfile(name, entry["instance"], bool(entry.get("launched")))
        for name, entry in _entries(home).items()
    }


def _entries(home: Path) -> dict[str, dict[str, Any]]:
    try:
        raw = json.loads(registry_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entries = raw.get("profiles") if isinstance(raw, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {
        str(name): entry
        for name, entry in entries.items()
        if isinstance(entry, dict)
        and isinstance(entry.get("instance"), str)
        and valid_profile_name(str(name))
    }


def claim_name(
    home: Path, *, instance: str, wanted: str | None, launched: bool, is_live: Callable[[str], bool]
) -> str:
    """The name the profile with this ``instance`` id answers to, bound to it in the registry.

    ``wanted`` is the launcher's name (or None); ``is_live(name)`` says whether a host answers on
    that name's socket now."""
    if wanted is not None and not valid_profile_name(wanted):
        raise UsageError(f"profile name {wanted!r}: use letters, digits, . _ - (at most 64)")
    with _locked(home):
        entries = _entries(home)

        def free(name: str) -> bool:
            held = entries.get(name)
            return held is None or held["instance"] == instance

        def reclaimable(name: str) -> bool:
            """A launched profile's name, held by an earlier id of it that is not running."""
            return launched and bool(entries[name].get("launched")) and not is_live(name)

        mine = sorted(n for n, e in entries.items() if e["instance"] == instance)
        if wanted is not None:
            name = wanted if free(wanted) or reclaimable(wanted) else _first_free(wanted, free)
        elif mine:
            name = mine[0]
        else:
            name = _first_free(DEFAULT_NAME, free)
        entries = {n: e for n, e in entries.items() if e["instance"] != instance and n != name}
        entries[name] = {"instance": instance, "launched": launched, "seen": int(time.time())}
        body = json.dumps({"profiles": dict(sorted(entries.items()))}, indent=1) + "\n"
        write_private(registry_path(home), body.encode())
        return name


def _first_free(base: str, free: Callable[[str], bool]) -> str:
    for n in range(1, _MAX_SUFFIX):
        name = base if n == 1 else f"{base}-{n}"
        if free(name) and valid_profile_name(name):
            return name
    raise UsageError(
        f"{_MAX_SUFFIX} browser profiles are named {base}…; remove stale ones from "
        "REINS_HOME/profiles.json"
    )


@contextmanager
def _locked(home: Path) -> Iterator[None]:
    ensure_private_dir(home)
    fd = os.open(home / "profiles.lock", os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    try:
        _platform.lock_exclusive(fd)
        yield
    finally:
        os.close(fd)
