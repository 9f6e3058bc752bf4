"""Masking a trace's text, and finding what could still be sensitive in it (pure functions, and
``check_directory``, which reads a trace and its reports).

``SiteRules`` are the rules of the sites a step touched (``reins mask``, kept per profile in
``setup/config.py``); ``mask_text`` replaces what their text patterns match, and the literal
values the step did not record (a password typed), in every string of a line. ``scan_lines`` and
``scan_text`` are `reins report --check`: emails, long digit runs (card-like, IBAN-like), tokens
(JWTs, ``Bearer …``, long random-looking strings), each with where it was found and shown only in
part.

Patterns run on text a page chose: each is checked simple when it is kept (``check_text_rule``)
and run on pieces of at most ``TEXT_WINDOW`` characters that overlap, so no text makes it slow.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reins._errors import UsageError
from reins.setup.config import TEXT_WINDOW, site_origin
from reins.trace.tracefile import read_trace

__all__ = [
    "MASKED",
    "REPORT_FILES",
    "Finding",
    "SiteRules",
    "check_directory",
    "mask_text",
    "page_rules",
    "partly",
    "scan_lines",
    "scan_text",
    "site_rules",
]

MASKED = "[masked]"
# Windows overlap by this much: a match longer than it, across a window's edge, may be missed.
_OVERLAP = 1000
# A literal secret shorter than this is not searched for (it would mask every "1" of a line).
_SECRET_MIN = 4


@dataclass(frozen=True)
class SiteRules:
    """The rules that apply to one step: selectors (for pictures) and text patterns."""

    selectors: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()


def site_rules(rules: dict[str, list[dict[str, str]]], urls: Iterable[Any]) -> SiteRules:
    """The rules of every site in ``urls`` (and of ``*``), each once."""
    sites = ["*"]
    for url in urls:
        if isinstance(url, str) and url:
            try:
                sites.append(site_origin(url))
            except UsageError:  # about:blank, a data: URL: no site, only the rules for every site
                continue
    selectors: list[str] = []
    patterns: list[str] = []
    for site in dict.fromkeys(sites):
        for rule in rules.get(site, []):
            if "selector" in rule and rule["selector"] not in selectors:
                selectors.append(rule["selector"])
            if "text" in rule and rule["text"] not in patterns:
                patterns.append(rule["text"])
    return SiteRules(tuple(selectors), tuple(patterns))


def _windows(text: str) -> Iterator[tuple[int, str]]:
    if len(text) <= TEXT_WINDOW:
        yield 0, text
        return
    start = 0
    while start < len(text):
        yield start, text[start : start + TEXT_WINDOW]
        if start + TEXT_WINDOW >= len(text):
            return
        start += TEXT_WINDOW - _OVERLAP


def _spans(patterns: list[re.Pattern[str]], text: str) -> list[tuple[int, int]]:
    spans = []
    for pattern in patterns:
        for offset, piece in _windows(text):
            spans += [(offset + m.start(), offset + m.end()) for m in pattern.finditer(piece)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _mask_string(text: str, patterns: list[re.Pattern[str]], secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, MASKED)
    spans = _spans(patterns, text)
    if not spans:
        return text
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], MASKED]
        last = end
    out.append(text[last:])
    return "".join(out)


def mask_text(value: Any, patterns: Iterable[str], secrets: Iterable[str] = ()) -> Any:
    """``value`` (a line, or any JSON value) with every match of ``patterns`` and every
    occurrence of ``secrets`` in its strings (and keys) replaced by ``[masked]``."""
    compiled = [re.compile(p) for p in patterns]
    hidden = sorted({s for s in secrets if len(s) >= _SECRET_MIN}, key=len, reverse=True)
    if not compiled and not hidden:
        return value
    return _masked(value, compiled, hidden)


def _masked(value: Any, patterns: list[re.Pattern[str]], secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _mask_string(value, patterns, secrets)
    if isinstance(value, dict):
        return {
            _mask_string(str(k), patterns, secrets): _masked(v, patterns, secrets)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked(v, patterns, secrets) for v in value]
    return value


# ---- what could still be sensitive ---------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One thing `report --check` found: what kind, where (a step and field, or a file's line),
    and the value shown in part."""

    kind: str
    where: str
    shown: str

    def to_wire(self) -> dict[str, str]:
        return {"kind": self.kind, "where": self.where, "shown": self.shown}


_EMAIL = re.compile(r"[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,6}")
_DIGITS = re.compile(r"(?<![\w.])\d(?:[ -]?\d){11,33}(?![\w.])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
_JWT = re.compile(r"\beyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*")
_BEARER = re.compile(r"\b[Bb]earer\s+[\w.~+/-]{8,}=*")
_TOKEN = re.compile(r"(?<![\w+/-])[A-Za-z0-9_+/-]{24,512}={0,2}(?![\w+/-])")
# Fields a trace writes that are its own bookkeeping, never page text.
_OWN_FIELDS = frozenset({"shots", "time", "t", "document", "type"})


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _looks_random(word: str) -> bool:
    """A long word that is not prose, a path or a plain number: letters and digits mixed, and
    about as varied as random text is."""
    classes = sum(
        1 for test in (str.islower, str.isupper, str.isdigit) if any(test(c) for c in word)
    )
    return classes >= 2 and any(c.isdigit() for c in word) and _entropy(word) >= 3.5


def partly(value: str) -> str:
    """Enough of a value to recognise it, not enough to use it: its ends and its length."""
    if len(value) <= 6:
        return f"{value[:1]}… ({len(value)} characters)"
    return f"{value[:2]}…{value[-2:]} ({len(value)} characters)"


def _found_in(text: str) -> Iterator[tuple[str, str]]:
    taken: set[tuple[int, int]] = set()
    for offset, piece in _windows(text):
        spans: list[tuple[int, int]] = []

        def fresh(match: re.Match[str], offset: int = offset, spans: list[Any] = spans) -> bool:
            """Not found already (by an earlier kind, or in the window before, overlapping)."""
            span = (offset + match.start(), offset + match.end())
            if span in taken or any(span[0] < e and s < span[1] for s, e in spans):
                return False
            taken.add(span)
            spans.append(span)
            return True

        for kind, pattern in (("JWT", _JWT), ("bearer token", _BEARER), ("email", _EMAIL)):
            yield from ((kind, m.group(0)) for m in pattern.finditer(piece) if fresh(m))
        for m in _IBAN.finditer(piece):
            if any(c.isdigit() for c in m.group(0)[4:]) and fresh(m):
                yield "IBAN-like", m.group(0)
        for m in _DIGITS.finditer(piece):
            if fresh(m):
                digits = re.sub(r"[ -]", "", m.group(0))
                card = 13 <= len(digits) <= 19 and _luhn(digits)
                yield ("card-like number" if card else "long digit run"), m.group(0)
        for m in _TOKEN.finditer(piece):
            if _looks_random(m.group(0)) and fresh(m):
                yield "token", m.group(0)


def scan_text(text: str, where: str) -> list[Finding]:
    """What could be sensitive in ``text`` (found at ``where``)."""
    return [Finding(kind, where, partly(value)) for kind, value in _found_in(text)]


def _walk(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if str(key) not in _OWN_FIELDS:
                yield from _walk(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def _line_name(line: dict[str, Any]) -> str:
    kind = str(line.get("type") or "line")
    if kind == "step":
        return f"step {line.get('step')}"
    return f"{kind} line" + (f" (step {line['step']})" if "step" in line else "")


def scan_lines(lines: list[dict[str, Any]]) -> list[Finding]:
    """What could be sensitive in a trace's lines, each with its step and field."""
    found: list[Finding] = []
    for line in lines:
        name = _line_name(line)
        for path, text in _walk(line, ""):
            found += scan_text(text, f"{name}, {path}")
    return found


def page_rules(rules: dict[str, list[dict[str, str]]]) -> dict[str, dict[str, list[str]]]:
    """Every site's rules as the page's ``maskBoxes`` takes them: it picks those of ``*`` and of
    the top document's own origin there, as the page's world cannot make it say another."""
    out: dict[str, dict[str, list[str]]] = {}
    for site, kept in rules.items():
        out[site] = {
            "selectors": [r["selector"] for r in kept if "selector" in r],
            "patterns": [r["text"] for r in kept if "text" in r],
        }
    return out


_DATA_URI = re.compile(r"data:[\w/+.-]{1,100}(?:;[\w=-]{1,40})*,[^\s\"')<>]*")
REPORT_FILES = ("report.html", "report.md")


def check_directory(directory: Path, extra: Iterable[Path] = ()) -> list[Finding]:
    """`reins report --check DIR`: what could be sensitive in the trace's lines (by step and
    field), then in its reports (by file and line; embedded pictures left out, and what the trace
    already showed not said twice)."""
    found = scan_lines(read_trace(directory))
    seen = {(f.kind, f.shown) for f in found}
    for path in dict.fromkeys([*(directory / name for name in REPORT_FILES), *extra]):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for number, row in enumerate(text.splitlines(), start=1):
            for finding in scan_text(_DATA_URI.sub("data:…", row), f"{path.name} line {number}"):
                if (finding.kind, finding.shown) not in seen:
                    seen.add((finding.kind, finding.shown))
                    found.append(finding)
    return found
