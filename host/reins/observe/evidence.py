"""What a page logged and which of its requests failed: per-tab ring buffers, fed from Chrome.

The page's console errors and warnings, uncaught exceptions and unhandled rejections come from
Chrome's Runtime domain, which the extension turns on in the tab when the host subscribes to its
two console events (``CONSOLE_EVENTS``) and forwards as text, from the page's own worlds only
(extension/console.js); switching it on replays what the page logged before. Nothing of reins
runs in the page's world for them. The resource timings come from ``captureTick``
(pagescripts/src/capture.js), in reins's own world (``buffered: true``, so requests made before
it was installed are still seen); ``tick`` installs it and, when asked, drains it, with what
Chrome's own log (``Log.entryAdded``) and the console events brought, into ``PageEvidence``.

Nothing else crosses: no headers, bodies or cookies (neither side reads them), and every
URL is cut down at this boundary (``redact_url``: no credentials, no fragment, no query values,
no path segment or query key that looks like a credential). Capture is switched on for the host
by a running trace or the first `reins console` / `reins network`; until then no page is touched.

What is missed (said in docs/tracing.md): the consoles of out-of-process frames, request methods
(resource timing has none), and the status of cross-origin resources a page loads without CORS.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlsplit

from reins._errors import BrowserError, UsageError
from reins.bridge.context import CommandContext, HostPart, TabPart
from reins.bridge.protocol import CdpEvent
from reins.page.call import evaluate, page_call

__all__ = [
    "CONSOLE_EVENTS",
    "LOG_EVENT",
    "CaptureSwitch",
    "EvidenceEntry",
    "PageEvidence",
    "Tick",
    "failed_request",
    "log_entry",
    "merged",
    "redact_url",
    "select",
    "since_ms",
    "tick",
]

# One console line or request as the evidence keeps it (`reins console`, `reins network`: their
# fields in docs/commands.md), read field by field where it is used.
EvidenceEntry = dict[str, Any]

# Host-side ring buffers per tab (the page keeps 200 console lines and 300 timings per document).
CONSOLE_LIMIT = 500
NETWORK_LIMIT = 500
URL_MAX = 300
TEXT_MAX = 2000
REDACTED = "…"
# Requests whose status 0 means "failed" even across origins: a CORS request never answers an
# opaque status, so 0 is a network error or a blocked response.
_CORS_TYPES = frozenset({"fetch", "xmlhttprequest", "beacon", "navigation"})


# RFC 3986 appendix B: splits any string into scheme, authority, path, query and fragment (it
# cannot fail, so a URL urlsplit refuses is cut down the same way).
_URL_PARTS = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$", re.S)
# Where a known credential format begins (Stripe-like `sk_live_…`, GitHub, GitLab, Slack, AWS,
# Google keys and OAuth tokens, JWTs and other base64 JSON: `eyJ` is `{"`), at a run boundary.
_KEY_PREFIX = re.compile(
    r"(?<![A-Za-z0-9])(?:(?:tok|sk|pk|rk|whsec|ghp|gho|ghu|ghs|ghr|github_pat)_|glpat-"
    r"|xox[abposr]-|AKIA|ASIA|AIza|ya29\.|eyJ|[a-z]{2,8}_(?:live|test)_)"
)
_RUNS = re.compile(r"[A-Za-z0-9]+")
_PLAIN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.\-\[\]]{0,23}")


def _opaque_run(run: str) -> bool:
    letters = sum(c.isalpha() for c in run)
    digits = len(run) - letters
    if letters and digits:
        return len(run) >= 8
    if digits:
        return len(run) >= 13
    return len(run) >= 24 and not (run[1:].islower() or run.isupper())


def _opaque_segment(segment: str) -> bool:
    """Whether a path segment (or a query key) looks like a credential rather than a name: it
    holds a key prefix (``tok_``, ``sk_``, ``eyJ`` …) or ``;``/``=`` parameters, does not decode
    as UTF-8, or one of its runs of ASCII letters and digits is a code (8+ characters mixing
    letters and digits), a long number (13+ digits) or a long mixed-case string (24+ letters)."""
    if ";" in segment or "=" in segment:
        return True
    text = unquote(segment, errors="replace")
    if "\ufffd" in text or _KEY_PREFIX.search(text):
        return True
    return any(_opaque_run(run) for run in _RUNS.findall(text))


def _query_component(component: str) -> str:
    key, has_value, _ = component.partition("=")
    if has_value and _PLAIN_KEY.fullmatch(key) and not _opaque_segment(key):
        return key + "=" + REDACTED
    return REDACTED


def redact_url(url: Any, *, limit: int = URL_MAX) -> str:
    """A URL fit to keep in a trace or show in a report: no user:password, no fragment; in the
    query every value becomes ``…``, and a key stays only when it is a short plain word (up to
    24 letters, digits, ``_ - . [ ]``, not opaque), else the whole component becomes ``…`` (a
    component without ``=`` too); a path segment that looks like a credential (``_opaque_segment``)
    becomes ``…``; data: URLs are kept by their type only, javascript: URLs by their scheme; the
    whole is cut to ``limit`` characters. Ordinary words, slugs (``2024-01-report``) and numbers
    of up to 12 digits stay; words with a digit in a run of 8 or more (``oauth2callback``) go
    too: evidence may lose a word, never keep a key."""
    text = str(url or "")
    # Chrome ignores leading blanks and controls before a scheme; so does this test.
    scheme = text.lstrip("\x00\t\n\r ").split(":", 1)[0].lower() if ":" in text else ""
    if scheme == "data":
        return "data:" + text.split(":", 1)[1].split(",", 1)[0].split(";", 1)[0] + ",…"
    if scheme == "javascript":
        return "javascript:" + REDACTED
    match = _URL_PARTS.match(text)
    if match is None:  # not reached: the pattern matches every string
        return ""
    scheme_part, authority, path, query = match.groups()
    out = f"{scheme_part}:" if scheme_part is not None else ""
    if authority is not None:
        out += "//" + authority.rsplit("@", 1)[-1]
    out += "/".join(REDACTED if _opaque_segment(seg) else seg for seg in path.split("/"))
    if query:
        components = [_query_component(c) for c in query.split("&") if c]
        if components:
            out += "?" + "&".join(components)
    return out if len(out) <= limit else out[:limit] + "…"


def _origin(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def failed_request(entry: dict[str, Any]) -> bool | None:
    """True for a request that failed (>= 400, or a network error), False for one that did not,
    None when the page cannot know (a cross-origin resource loaded without CORS shows status 0
    whether it failed or not)."""
    status = entry.get("status")
    if not isinstance(status, int):
        return None
    if status >= 400:
        return True
    if status > 0:
        return False
    same_origin = _origin(str(entry.get("url"))) == _origin(str(entry.get("document")))
    return True if same_origin or entry.get("type") in _CORS_TYPES else None


def _clean_console(item: dict[str, Any], document: str) -> dict[str, Any]:
    text = str(item.get("text") or "")
    return {
        "time": _int(item.get("time")),
        "level": str(item.get("level") or "error"),
        "kind": str(item.get("kind") or "console"),
        "text": text if len(text) <= TEXT_MAX else text[:TEXT_MAX] + "…",
        "source": redact_url(item["source"]) if item.get("source") else None,
        "line": _int(item.get("line")) if item.get("line") is not None else None,
        "document": document,
    }


def _clean_request(item: dict[str, Any], document: str) -> dict[str, Any]:
    status = item.get("status")
    entry = {
        "time": _int(item.get("time")),
        "method": None,
        "url": redact_url(item.get("url")),
        "type": str(item.get("type") or "other"),
        "status": status if isinstance(status, int) and not isinstance(status, bool) else None,
        "duration_ms": _int(item.get("duration_ms")),
        "transfer_size": _int(item["transfer_size"])
        if item.get("transfer_size") is not None
        else None,
        "document": document,
    }
    entry["failed"] = failed_request(entry)
    return entry


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


LOG_EVENT = "Log.entryAdded"
_STATUS = re.compile(r"status of (\d{3})")
# How close in time two reports of one event are taken to be the same (ms).
_SAME_MS = 3000


def log_entry(params: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A Chrome log entry (``Log.entryAdded``) as ("console" | "network", entry), or None for
    what is not worth keeping (verbose and info lines). Chrome logs failed loads (with the status,
    or the net:: error), CORS and CSP refusals, uncaught errors; never console.* calls (the page
    capture has those)."""
    entry = params.get("entry")
    if not isinstance(entry, dict) or entry.get("level") not in ("error", "warning"):
        return None
    text = str(entry.get("text") or "")
    when = _int(entry.get("timestamp"))
    level = "error" if entry.get("level") == "error" else "warn"
    if entry.get("source") == "network" and entry.get("url"):
        status = _STATUS.search(text)
        return "network", {
            "time": when,
            "method": None,
            "url": redact_url(entry["url"]),
            "type": "browser log",
            "status": int(status[1]) if status else 0,
            "duration_ms": None,
            "transfer_size": None,
            "document": None,
            "failed": True,
            "error": text[:300],
            "via": "chrome",
        }
    return "console", {
        "time": when,
        "level": level,
        "kind": f"chrome:{entry.get('source') or 'other'}",
        "text": text if len(text) <= TEXT_MAX else text[:TEXT_MAX] + "…",
        "source": redact_url(entry["url"]) if entry.get("url") else None,
        "line": _int(entry.get("lineNumber")) + 1 if entry.get("lineNumber") is not None else None,
        "document": None,
        "via": "chrome",
    }


# What the extension forwards of the page's console (extension/console.js): its errors and
# warnings and its uncaught exceptions and rejections, as text, from the page's own worlds.
CONSOLE_EVENTS = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown")
_KINDS = frozenset({"console", "exception", "rejection"})


def console_entry(params: dict[str, Any]) -> dict[str, Any]:
    """A console event the extension forwarded, as the evidence keeps it (each field checked
    again: the extension cut it down, the host does not take its word for the shape)."""
    text = str(params.get("text") or "")
    kind = params.get("kind")
    line = params.get("line")
    return {
        "time": _int(params.get("time")),
        "level": "warn" if params.get("level") == "warn" else "error",
        "kind": kind if kind in _KINDS else "console",
        "text": text if len(text) <= TEXT_MAX else text[:TEXT_MAX] + "…",
        "source": redact_url(params["source"]) if params.get("source") else None,
        "line": _int(line) if isinstance(line, int) and not isinstance(line, bool) else None,
        "document": None,
    }


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One event seen twice: by the page capture and in Chrome's log (or replayed by the log)."""
    if abs(a.get("time", 0) - b.get("time", 0)) > _SAME_MS:
        return False
    if "url" in a and "url" in b and "status" in a:
        return bool(
            a["url"] == b["url"]
            and (a.get("status") == b.get("status") or 0 in (a.get("status"), b.get("status")))
        )
    ta, tb = str(a.get("text") or ""), str(b.get("text") or "")
    return bool(ta) and bool(tb) and (ta in tb or tb in ta)


def merged(page: list[dict[str, Any]], chrome: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page capture's entries with Chrome's log entries that say something new, by time
    (pure): a 404 the page's timings have, or an error the page's listener caught, is kept once,
    with the page's (fuller) account."""
    extra = [c for c in chrome if not any(_same(c, p) for p in page)]
    return sorted(page + extra, key=lambda e: e.get("time", 0))


@dataclass
class Tick:
    """One look at the tab's page: which document it shows, and what the capture drained."""

    document: str
    url: str
    title: str
    installed: bool
    console: list[dict[str, Any]] = field(default_factory=list)
    network: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0


@dataclass
class PageEvidence(TabPart):
    """The tab's console and network evidence, drained from its documents, newest last."""

    console: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=CONSOLE_LIMIT))
    network: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=NETWORK_LIMIT))
    # Dropped because a ring (the page's or this one) was full.
    dropped: int = 0
    # When the capture was installed in the current document (epoch ms), and which document.
    capturing_since: int | None = None
    document: str | None = None
    # The document's URL as the latest look saw it (cut down by ``redact_url``).
    url: str | None = None
    # When the latest and the one before it of the commands that ran on this tab started.
    command_starts: deque[float] = field(default_factory=lambda: deque(maxlen=2))
    # Chrome's log entries that arrived since the last drain, and recent ones (a re-enabled log
    # replays what it has).
    pending: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"console": [], "network": []}
    )
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=200))

    def handle(self, event: CdpEvent) -> None:
        if event.sessionId is not None:
            return
        if event.method in CONSOLE_EVENTS:
            found: tuple[str, dict[str, Any]] | None = ("console", console_entry(event.params))
            self.dropped += _int(event.params.get("dropped"))
        elif event.method == LOG_EVENT:
            found = log_entry(event.params)
        else:
            return
        if found is None:
            return
        kind, entry = found
        # Chrome's log replays what it has when switched on again, and may tell an uncaught error
        # the console events told: seen once. Two console messages alike are two messages.
        chrome_only = event.method in CONSOLE_EVENTS
        if any(_same(entry, seen) for seen in self.recent if not chrome_only or seen.get("via")):
            return
        self.recent.append(entry)
        if entry["time"] == 0:
            entry["time"] = int(time.time() * 1000)
        pending = self.pending[kind]
        pending.append(entry)
        del pending[:-CONSOLE_LIMIT]

    def take_pending(self) -> dict[str, list[dict[str, Any]]]:
        taken, self.pending = self.pending, {"console": [], "network": []}
        return taken

    def add(self, got: Tick) -> None:
        for kind, ring in (("console", self.console), ("network", self.network)):
            items: list[dict[str, Any]] = getattr(got, kind)
            self.dropped += max(0, len(ring) + len(items) - (ring.maxlen or 0))
            ring.extend(items)
        self.dropped += got.dropped


@dataclass
class CaptureSwitch(HostPart):
    """Whether this host captures page evidence: on while a trace runs, and for good once
    `reins console` or `reins network` has been asked for."""

    asked: bool = False


async def _watch_log(ctx: CommandContext) -> None:
    """The page's console (the extension turns Runtime on for these events) and Chrome's own log
    for the tab, once per attachment. Both replay what the page logged so far when switched on;
    those events travel apart from the answers: given a moment to arrive before the drain."""
    if LOG_EVENT not in ctx.tab_state.events:
        await ctx.subscribe(LOG_EVENT, *CONSOLE_EVENTS)
        await ctx.cdp("Log.enable")
        await asyncio.sleep(0.05)


async def tick(ctx: CommandContext, *, drain: bool) -> Tick:
    """Install the capture in the tab's document if needed; drain it (and what Chrome logged
    meanwhile) into the tab's ``PageEvidence`` when ``drain``. One page call (two more the first
    time on a tab: the log's subscription)."""
    await _watch_log(ctx)
    # The timings' buffer lives in reins's world; nothing of reins runs in the page's.
    raw = await evaluate(ctx, page_call("captureTick", drain), what="capture")
    if not isinstance(raw, dict):
        raise BrowserError(
            "the page answered the capture in a form reins cannot read",
            code="page_answer_invalid",
            transient=True,
        )
    document_url = redact_url(raw.get("url"))
    got = Tick(
        document=repr(raw.get("document")),
        url=str(raw.get("url") or ""),
        title=str(raw.get("title") or ""),
        installed=bool(raw.get("installed")),
    )
    evidence = ctx.part(PageEvidence)
    evidence.url = document_url
    if evidence.document != got.document:
        evidence.document = got.document
        evidence.capturing_since = _int(raw.get("since"))
    if drain:
        chrome = evidence.take_pending()
        for kind, clean in (("console", _clean_console), ("network", _clean_request)):
            drained = raw.get(kind) or {}
            items = drained.get("items") if isinstance(drained, dict) else None
            page = [clean(item, document_url) for item in items or [] if isinstance(item, dict)]
            for entry in chrome[kind]:
                entry["document"] = document_url
            setattr(got, kind, merged(page, chrome[kind]))
            got.dropped += _int(drained.get("dropped")) if isinstance(drained, dict) else 0
        evidence.add(got)
    return got


def select(
    entries: Iterable[dict[str, Any]], *, since: int | None = None, only: str | None = None
) -> list[dict[str, Any]]:
    """Entries at or after ``since`` (epoch ms); ``only="errors"``: console errors, exceptions
    and rejections; ``only="failed"``: failed requests (pure)."""
    out = []
    for entry in entries:
        if since is not None and entry.get("time", 0) < since:
            continue
        if only == "errors" and entry.get("level") != "error":
            continue
        if only == "failed" and not entry.get("failed"):
            continue
        out.append(entry)
    return out


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def since_ms(
    value: str,
    *,
    now: float | None = None,
    steps: dict[int, float] | None = None,
    last: float | None = None,
) -> int:
    """``--since``: a trace step number (its start), ``last`` (the start of the command before
    this one on the tab), a duration ago (``90s``, ``5m``), or a time (``14:02``, ``14:02:30``,
    an ISO date-time). Epoch milliseconds (pure)."""
    now = time.time() if now is None else now
    text = value.strip()
    if text.isdigit():
        step = int(text)
        started = (steps or {}).get(step)
        if started is None:
            raise UsageError(
                f"--since {step}: no such step in the running trace",
                hint="give a step number `reins trace` recorded, `last`, a duration "
                "(90s, 5m) or a time (14:02)",
            )
        return int(started * 1000)
    if text == "last":
        if last is None:
            raise UsageError(
                "--since last: no earlier command ran on this tab",
                hint="run the command you want evidence of first",
            )
        return int(last * 1000)
    match = _DURATION.match(text)
    if match:
        return int((now - float(match[1]) * _UNITS[match[2]]) * 1000)
    try:
        if re.fullmatch(r"\d{1,2}:\d{2}(:\d{2})?", text):
            today = datetime.fromtimestamp(now).strftime("%Y-%m-%d")
            moment = datetime.fromisoformat(f"{today}T{text}")
        else:
            moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"--since {value!r}: not a step, `last`, a duration or a time",
            hint="e.g. --since 3, --since last, --since 90s, --since 14:02",
        ) from None
    return int(moment.timestamp() * 1000)
