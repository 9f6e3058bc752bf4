"""Console and network evidence, the pure parts: URL redaction, what counts as failed, Chrome's
log entries, merging two accounts of one event, --since."""

from __future__ import annotations

from datetime import datetime

import pytest
from reins._errors import ReinsError
from reins.bridge.protocol import CdpEvent
from reins.observe.evidence import (
    PageEvidence,
    failed_request,
    log_entry,
    merged,
    redact_url,
    select,
    since_ms,
)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://x.test/a/b?token=s3cret&id=7#frag", "https://x.test/a/b?token=…&id=…"),
        ("https://user:pw@x.test/", "https://x.test/"),
        ("https://x.test/?flag", "https://x.test/?…"),
        ("https://x.test/path", "https://x.test/path"),
        ("data:image/png;base64,AAAA", "data:image/png,…"),
        ("", ""),
        (None, ""),
    ],
)
def test_urls_lose_what_may_be_secret(url: str | None, kept: str) -> None:
    assert redact_url(url) == kept


def test_a_long_url_is_cut() -> None:
    assert len(redact_url("https://x.test/" + "a" * 1000)) == 301


def test_what_counts_as_a_failed_request() -> None:
    doc = "https://app.test/page"
    assert failed_request({"status": 404, "url": "https://app.test/x", "document": doc})
    assert failed_request({"status": 500, "url": "https://cdn.test/x", "document": doc})
    assert failed_request({"status": 200, "url": "https://app.test/x", "document": doc}) is False
    # status 0: a network error on the page's own origin, or for a CORS request anywhere
    assert failed_request({"status": 0, "url": "https://app.test/x", "document": doc})
    assert failed_request(
        {"status": 0, "url": "https://api.test/x", "type": "fetch", "document": doc}
    )
    # an image from elsewhere loaded without CORS: status 0 whether it failed or not
    assert (
        failed_request(
            {"status": 0, "url": "https://cdn.test/a.png", "type": "img", "document": doc}
        )
        is None
    )
    assert failed_request({"status": None, "url": "x"}) is None


def test_chromes_log_entries_become_evidence() -> None:
    kind, entry = log_entry(
        {
            "entry": {
                "source": "network",
                "level": "error",
                "timestamp": 1000.5,
                "text": "Failed to load resource: the server responded with a status of 404 (Not Found)",
                "url": "https://x.test/api?key=1",
            }
        }
    ) or ("", {})
    assert kind == "network"
    assert entry["status"] == 404 and entry["failed"] and entry["url"] == "https://x.test/api?key=…"
    kind, entry = log_entry(
        {
            "entry": {
                "source": "network",
                "level": "error",
                "text": "Failed to load resource: net::ERR_CONNECTION_REFUSED",
                "url": "https://x.test/",
                "timestamp": 1,
            }
        }
    ) or ("", {})
    assert entry["status"] == 0 and "ERR_CONNECTION_REFUSED" in entry["error"]
    kind, entry = log_entry(
        {
            "entry": {
                "source": "security",
                "level": "error",
                "text": "Refused to load the script",
                "timestamp": 2,
                "lineNumber": 4,
            }
        }
    ) or ("", {})
    assert kind == "console" and entry["kind"] == "chrome:security" and entry["line"] == 5
    assert log_entry({"entry": {"source": "violation", "level": "verbose", "text": "x"}}) is None
    assert log_entry({}) is None


def test_one_event_seen_twice_is_kept_once_with_the_pages_account() -> None:
    page = [
        {
            "time": 1000,
            "url": "https://x.test/a?q=…",
            "status": 404,
            "type": "fetch",
            "duration_ms": 3,
        }
    ]
    chrome = [
        {"time": 1002, "url": "https://x.test/a?q=…", "status": 404, "via": "chrome"},
        {"time": 1500, "url": "https://x.test/b", "status": 404, "via": "chrome"},
    ]
    out = merged(page, chrome)
    assert [e["url"] for e in out] == ["https://x.test/a?q=…", "https://x.test/b"]
    assert out[0]["type"] == "fetch"
    errors = merged(
        [{"time": 10, "text": "Error: thrown"}], [{"time": 12, "text": "Uncaught Error: thrown"}]
    )
    assert len(errors) == 1


def test_a_replayed_log_entry_is_not_taken_twice() -> None:
    evidence = PageEvidence()
    event = CdpEvent(
        type="event",
        tabId=1,
        method="Log.entryAdded",
        params={
            "entry": {
                "source": "network",
                "level": "error",
                "timestamp": 5000.0,
                "url": "https://x.test/a",
                "text": "Failed to load resource: the server responded with a status of 500 ()",
            }
        },
    )
    evidence.handle(event)
    evidence.handle(event)
    taken = evidence.take_pending()
    assert len(taken["network"]) == 1 and taken["network"][0]["status"] == 500
    assert evidence.take_pending() == {"console": [], "network": []}


def _console(method: str, session: str | None = None, **params: object) -> CdpEvent:
    return CdpEvent(type="event", tabId=1, sessionId=session, method=method, params=params)


def test_the_page_s_console_from_the_extension_becomes_evidence_each_message_once() -> None:
    """The extension forwards the page's console errors and uncaught exceptions as text
    (extension/console.js); the host checks each field again and keeps every message, two alike
    as two, while Chrome's log telling the same error again is not taken twice."""
    evidence = PageEvidence()
    error = {"time": 5000, "level": "error", "kind": "console", "text": "declined", "line": 3}
    evidence.handle(
        _console("Runtime.consoleAPICalled", **error, source="https://x.test/a.js?k=s3cret")
    )
    evidence.handle(_console("Runtime.consoleAPICalled", **error))
    evidence.handle(_console("Runtime.consoleAPICalled", "child-session", **error))
    boom = {"time": 5001, "level": "error", "kind": "exception", "text": "Error: boom"}
    evidence.handle(_console("Runtime.exceptionThrown", **boom, dropped=4))
    log = {
        "source": "javascript",
        "level": "error",
        "timestamp": 5002.0,
        "text": "Uncaught Error: boom",
    }
    evidence.handle(_console("Log.entryAdded", entry=log))
    odd = {"time": "x", "level": "fatal", "kind": "<b>", "text": "y" * 5000, "line": True}
    evidence.handle(_console("Runtime.consoleAPICalled", **odd))
    console = evidence.take_pending()["console"]
    assert [(c["kind"], c["text"][:11]) for c in console] == [
        ("console", "declined"),
        ("console", "declined"),
        ("exception", "Error: boom"),
        ("console", "yyyyyyyyyyy"),
    ]
    assert console[0]["source"] == "https://x.test/a.js?k=…" and console[0]["line"] == 3
    assert console[3]["level"] == "error" and console[3]["line"] is None
    assert len(console[3]["text"]) == 2001 and console[3]["time"] > 0
    assert evidence.dropped == 4


def test_select_filters_by_time_and_kind() -> None:
    entries = [
        {"time": 1, "level": "warn"},
        {"time": 5, "level": "error"},
        {"time": 9, "failed": True},
    ]
    assert select(entries, since=5) == entries[1:]
    assert select(entries, only="errors") == [entries[1]]
    assert select(entries, only="failed") == [entries[2]]


def test_since_reads_steps_last_durations_and_times() -> None:
    now = 1_800_000_000.0
    assert since_ms("3", now=now, steps={3: 1000.5}) == 1_000_500
    assert since_ms("last", now=now, last=1200.0) == 1_200_000
    assert since_ms("90s", now=now) == int((now - 90) * 1000)
    assert since_ms("5m", now=now) == int((now - 300) * 1000)
    moment = datetime(2026, 12, 1, 14, 2, 30)
    assert since_ms("2026-12-01T14:02:30", now=now) == int(moment.timestamp() * 1000)
    clock = since_ms("14:02", now=now)
    assert datetime.fromtimestamp(clock / 1000).strftime("%H:%M") == "14:02"
    for bad in ("7", "last", "yesterday", "5 minutes"):
        with pytest.raises(ReinsError) as refused:
            since_ms(bad, now=now, steps={})
        assert refused.value.code == "bad_request"
