"""Per-profile settings, kept in ``REINS_HOME/config/<profile>.json``.

Standard library only: the CLI writes these files and the host reads them at the moment a setting
matters (``evaluate`` at each ``eval``, the masking rules at each traced step), so a change
applies without restarting anything.

Masking rules (``reins mask``) are kept by site, the origin of the top document
(``https://app.example.com``; ``*`` for every site): a CSS selector whose elements are filled on
a trace's pictures, or a text pattern whose matches are filled there and replaced in the trace's
text. A text pattern runs on page text a page chooses, in the host and in the page: it must be
simple enough that no text makes it slow (``check_text_rule``).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reins._errors import UsageError
from reins._paths import ensure_private_dir, reins_home

__all__ = [
    "MASK_KINDS",
    "SETTINGS",
    "change_mask_rule",
    "change_upload_dirs",
    "check_selector_rule",
    "check_text_rule",
    "config_path",
    "downloads_allowed",
    "evaluate_enabled",
    "mask_rules",
    "read_config",
    "site_origin",
    "upload_dirs",
    "write_setting",
]

# Every on/off setting a profile may hold, with its default.
SETTINGS: dict[str, bool] = {"evaluate": True, "downloads": True}
# Directories `reins upload` may read files from, besides the one the CLI runs in (absolute).
UPLOAD_DIRS = "upload_dirs"
# The masking rules, by site: {origin: [{"selector": CSS} | {"text": PATTERN}, ...]}.
MASKS = "masks"
MASK_KINDS = ("selector", "text")


def config_path(profile: str, home: Path | None = None) -> Path:
    return (home or reins_home()) / "config" / f"{profile}.json"


def read_config(profile: str, home: Path | None = None) -> dict[str, Any]:
    """The profile's on/off settings over the defaults; an unreadable file counts as the
    defaults."""
    merged: dict[str, Any] = dict(SETTINGS)
    raw = _read_raw(profile, home)
    merged.update({k: v for k, v in raw.items() if k in SETTINGS and isinstance(v, bool)})
    return merged


def _read_raw(profile: str, home: Path | None) -> dict[str, Any]:
    try:
        raw = json.loads(config_path(profile, home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def write_setting(profile: str, key: str, value: bool, home: Path | None = None) -> dict[str, Any]:
    """Set one setting and return the profile's settings; the file is replaced atomically."""
    if key not in SETTINGS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
    current = read_config(profile, home)
    current[key] = value
    _write(profile, {key: value}, home)
    return current


def change_upload_dirs(
    profile: str,
    op: str,
    directory: str,
    home: Path | None = None,
) -> list[str]:
    """Add or remove a directory `reins upload` may read from (kept absolute and resolved)."""
    if op not in ("add", "remove"):
        raise UsageError("upload-dirs takes add DIR or remove DIR")
    resolved = os.path.realpath(os.path.abspath(directory))
    dirs = [d for d in upload_dirs(profile, home) if d != resolved]
    if op == "add":
        if not os.path.isdir(resolved):
            raise UsageError(f"{resolved} is not a directory")
        dirs.append(resolved)
    _write(profile, {UPLOAD_DIRS: dirs or None}, home)
    return dirs


def upload_dirs(profile: str, home: Path | None = None) -> list[str]:
    """The directories the user added for `reins upload` (absolute, resolved when added)."""
    dirs = _read_raw(profile, home).get(UPLOAD_DIRS)
    if not isinstance(dirs, list):
        return []
    return [d for d in dirs if isinstance(d, str) and os.path.isabs(d)]


def _write(profile: str, changes: dict[str, Any], home: Path | None) -> None:
    """Replace the file atomically with ``changes`` over what it holds (None: the key goes)."""
    current = {**read_config(profile, home), **_read_raw(profile, home)}
    for key, value in changes.items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = value
    path = config_path(profile, home)
    ensure_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=".cfg-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(current, out, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def evaluate_enabled(profile: str, home: Path | None = None) -> bool:
    return bool(read_config(profile, home)["evaluate"])


def downloads_allowed(profile: str, home: Path | None = None) -> bool:
    """May a page in a tab reins drives download files (`reins config downloads off`: no)?"""
    return bool(read_config(profile, home)["downloads"])


# ---- masking rules ------------------------------------------------------------------------------

SELECTOR_MAX = 300
PATTERN_MAX = 200
RULES_MAX = 100
TEXT_WINDOW = 4000
# How much backtracking a text pattern may cost, as the product of what each repetition can take
# (an unbounded one counts as TEXT_WINDOW, a `?` as 2, `{m,n}` as n-m+1). Measured on CPython on
# 4,000 hostile characters: `\w+\w{1,4}x` (16,000) takes 0.19 s, `\w+x` (4,000) 0.02 s; two open
# repetitions (`\w+\w+x`) take 3 s on 2,000, cubic in the length.
PATTERN_COST_MAX = 8_000
# Escapes both Python and JavaScript read alike.
_ESCAPES = frozenset("dDwWsSbBntrfv0\\.^$|?*+()[]{}/-")
_QUANTIFIER = re.compile(r"\*|\+|\?|\{(\d+)(,(\d*))?\}")


def site_origin(url: str) -> str:
    """The site a rule is kept under: ``scheme://host[:port]`` of ``url`` (``*``: every site)."""
    if url.strip() == "*":
        return "*"
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        raise UsageError(f"{url!r} is not a URL") from None
    scheme = parts.scheme.lower()
    if scheme == "file":
        return "file://"
    if scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"{url!r} is not a site",
            hint="name it as https://host[:port] (or * for every site)",
        )
    try:
        port = parts.port
    except ValueError:
        raise UsageError(f"{url!r} has a bad port") from None
    default = {"http": 80, "https": 443}[scheme]
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def check_selector_rule(selector: str) -> str:
    """A selector as a rule keeps it: bounded, printable, brackets and quotes closed (the page
    parses it; a selector the page refuses keeps the site's pictures from being written)."""
    text = selector.strip()
    if not text or len(text) > SELECTOR_MAX or any(ord(c) < 32 for c in text):
        raise UsageError(
            f"a selector rule is 1 to {SELECTOR_MAX} printable characters",
            code="invalid_selector",
        )
    depth: list[str] = []
    quote = ""
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth.append(")" if ch == "(" else "]")
        elif ch in ")]":
            if not depth or depth.pop() != ch:
                break
        elif ch in "{};":
            break
    else:
        if not depth and not quote and not escaped:
            return text
    raise UsageError(f"{selector!r} is not a CSS selector", code="invalid_selector")


def check_text_rule(pattern: str) -> str:
    """A text pattern as a rule keeps it, or the usage error that says why not.

    Simple patterns only, read alike by Python and JavaScript: characters, classes, `.`, the
    escapes both know, groups `(...)`/`(?:...)` and `|`; a repetition (`*`, `+`, `?`, `{m,n}`) on
    one character or class, never on a group; no back-references, look-arounds or flags; and
    what the repetitions can take together bounded (``PATTERN_COST_MAX``)."""
    if not pattern or len(pattern) > PATTERN_MAX:
        raise UsageError(f"a text rule is 1 to {PATTERN_MAX} characters")
    cost = 1
    i = 0
    in_class = False
    after_group = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt not in _ESCAPES:
                raise _simple(pattern, f"\\{nxt} is not an escape Python and JavaScript read alike")
            i += 2
            after_group = False
            continue
        if in_class:
            in_class = ch != "]"
            i += 1
            continue
        if ch == "[":
            in_class = True
        elif ch == "(":
            if pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
                raise _simple(pattern, "it has a look-around, a named group or a flag")
        elif ch == ")":
            after_group = True
            i += 1
            continue
        elif (found := _QUANTIFIER.match(pattern, i)) is not None:
            if after_group:
                raise _simple(pattern, "it repeats a group (repeat a character or a class)")
            low, comma, high = found.group(1), found.group(2), found.group(3)
            if found.group(0) in ("*", "+") or (comma and not high):
                cost *= TEXT_WINDOW
            elif found.group(0) == "?":
                cost *= 2
            else:
                cost *= max(1, int(high or low) - int(low) + 1)
            i = found.end()
            if pattern[i : i + 1] in ("?", "+"):  # lazy or possessive: not both languages'
                raise _simple(pattern, "it has a lazy repetition")
            continue
        after_group = False
        i += 1
    if cost > PATTERN_COST_MAX:
        raise _simple(
            pattern,
            "it has more than one open repetition (`+`, `*`); bound the others, as `\\d{1,12}`",
        )
    try:
        re.compile(pattern)
    except re.error as exc:
        raise UsageError(f"{pattern!r} is not a pattern: {exc}") from None
    return pattern


def _simple(pattern: str, what: str) -> UsageError:
    return UsageError(
        f"{pattern!r} is not a simple pattern: {what}",
        hint="a text rule runs on every text of a page; see `reins mask --help`",
    )


def mask_rules(profile: str, home: Path | None = None) -> dict[str, list[dict[str, str]]]:
    """The profile's masking rules by site; a rule the file holds that is not valid any more is
    left out."""
    raw = _read_raw(profile, home).get(MASKS)
    out: dict[str, list[dict[str, str]]] = {}
    if not isinstance(raw, dict):
        return out
    for site, rules in raw.items():
        if not isinstance(site, str) or not isinstance(rules, list):
            continue
        kept = []
        for rule in rules:
            if isinstance(rule, dict) and len(rule) == 1:
                ((kind, value),) = rule.items()
                try:
                    if kind == "selector" and isinstance(value, str):
                        kept.append({kind: check_selector_rule(value)})
                    elif kind == "text" and isinstance(value, str):
                        kept.append({kind: check_text_rule(value)})
                except UsageError:
                    continue
        if kept:
            out[site] = kept
    return out


def change_mask_rule(
    profile: str, op: str, site: str, kind: str, value: str, home: Path | None = None
) -> dict[str, list[dict[str, str]]]:
    """Add or remove one rule of a site; answers every site's rules."""
    if op not in ("add", "remove") or kind not in MASK_KINDS:
        raise UsageError("a rule is added or removed, as --selector CSS or --text PATTERN")
    origin = site_origin(site)
    value = check_selector_rule(value) if kind == "selector" else check_text_rule(value)
    rules = mask_rules(profile, home)
    kept = [r for r in rules.get(origin, []) if r != {kind: value}]
    if op == "add":
        if sum(len(r) for r in rules.values()) >= RULES_MAX:
            raise UsageError(f"a profile holds at most {RULES_MAX} masking rules")
        kept.append({kind: value})
    elif kept == rules.get(origin, []):
        raise UsageError(f"{origin} has no such rule", hint="`reins mask list` shows the rules")
    if kept:
        rules[origin] = kept
    else:
        rules.pop(origin, None)
    _write(profile, {MASKS: rules or None}, home)
    return rules
