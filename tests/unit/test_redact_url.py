"""URLs kept as evidence (`reins network`, console sources, trace steps, reports) lose every
query value, every query component whose key is not a short plain word, and every path segment
that looks like a credential; names a reader needs stay. Hand-built URLs, no browser."""

from __future__ import annotations

import pytest
from reins.observe.evidence import log_entry, redact_url
from reins.trace.steps import recorded_args, trimmed_answer

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        # a bare component (no `=`) is a value: it goes, whatever it holds
        ("https://x.test/cb?AbCdEf0123456789xyz", "https://x.test/cb?…"),
        ("https://x.test/cb?flag&page=2", "https://x.test/cb?…&page=…"),
        # a key that is not a short plain word goes with its value
        ("https://x.test/?sk_live_51HxYzAbC=1&id=7", "https://x.test/?…&id=…"),
        ("https://x.test/?" + "k" * 30 + "=1", "https://x.test/?…"),
        ("https://x.test/?%74oken=1", "https://x.test/?…"),
        (
            "https://x.test/?filter[name]=x&utm_source=y",
            "https://x.test/?filter[name]=…&utm_source=…",
        ),
        ("https://x.test/?a5f3c9e2b7=1", "https://x.test/?…"),
        # credentials in the path
        ("https://api.test/session/tok_live_9aZ/refresh", "https://api.test/session/…/refresh"),
        ("https://api.test/v1/keys/sk_live_51HxYzAbCdEf", "https://api.test/v1/keys/…"),
        ("https://api.test/hooks/whsec_abc/ping", "https://api.test/hooks/…/ping"),
        ("https://x.test/auth/" + JWT + "/done", "https://x.test/auth/…/done"),
        ("https://x.test/t/eyJhbGciOi", "https://x.test/t/…"),
        ("https://x.test/reset/ghp_16C7e42F292c6912E7710c838347Ae178B4a", "https://x.test/reset/…"),
        ("https://s3.test/b/AKIAIOSFODNN7EXAMPLE/x", "https://s3.test/b/…/x"),
        # hex and uuid-shaped segments, long numbers, base64-ish strings
        ("https://x.test/d/550e8400-e29b-41d4-a716-446655440000/edit", "https://x.test/d/…/edit"),
        ("https://x.test/f/d41d8cd98f00b204e9800998ecf8427e", "https://x.test/f/…"),
        ("https://x.test/s/k8d7h3j2l9m0n1p/file.pdf", "https://x.test/s/…/file.pdf"),
        ("https://x.test/card/4111111111111111", "https://x.test/card/…"),
        ("https://x.test/t/QWxhZGRpbjpvcGVuIHNlc2FtZQ", "https://x.test/t/…"),
        ("https://x.test/t/AbCdEfGhIjKlMnOpQrStUvWxYz", "https://x.test/t/…"),
        ("https://x.test/t/Ab-cD_eF1gH2iJ3kL", "https://x.test/t/…"),
        ("https://x.test/t/abc%2Bdef%2F0123456789ab%3D", "https://x.test/t/…"),
        # matrix parameters and bytes that are not text
        ("https://x.test/app;jsessionid=ABC/x", "https://x.test/…/x"),
        ("https://x.test/t/%8F%1A%C3%28", "https://x.test/t/…"),
        # blob: URLs carry a uuid
        (
            "blob:https://x.test/550e8400-e29b-41d4-a716-446655440000",
            "blob:https://x.test/…",
        ),
        ("javascript:fetch('/x?t=' + document.cookie)", "javascript:…"),
        (" JavaScript:alert(1)", "javascript:…"),
    ],
)
def test_credentials_are_cut(url: str, kept: str) -> None:
    assert redact_url(url) == kept


@pytest.mark.parametrize(
    "url",
    [
        "https://shop.test/invoices/2024-01-report",
        "https://x.test/users/12345/orders/987654321012",
        "https://x.test/api/v1/items/7",
        "https://x.test/static/jquery-3.6.0.min.js",
        "https://x.test/favicon-32x32.png",
        "https://x.test/wiki/GettingStarted",
        "https://x.test/blog/how-we-moved-to-postgres-16-in-a-weekend",
        "https://x.test/Supercalifragilisticexpialidocious",
        "https://x.test/x86_64/utf8mb4/html5",
        "https://x.test/",
        "https://x.test",
        "about:blank",
        "chrome://newtab/",
        "file:///home/user/report.html",
    ],
)
def test_ordinary_paths_are_kept(url: str) -> None:
    assert redact_url(url) == url


def test_odd_and_international_urls() -> None:
    # IDN host and non-ASCII path words stay, raw or percent-encoded
    assert redact_url("https://bücher.example/straße/%E4%B8%AD%E6%96%87?q=1") == (
        "https://bücher.example/straße/%E4%B8%AD%E6%96%87?q=…"
    )
    assert redact_url("https://xn--bcher-kva.example/a") == "https://xn--bcher-kva.example/a"
    # IPv6 host with a port; userinfo goes
    assert redact_url("https://u:p@[::1]:8080/x?ok=2&&=3") == "https://[::1]:8080/x?ok=…&…"
    # an empty query, a lone fragment
    assert redact_url("https://x.test/a?#tok_x") == "https://x.test/a"
    assert redact_url("HTTPS://X.TEST/A/tok_live_x") == "HTTPS://X.TEST/A/…"
    assert redact_url("DATA:text/html;base64,PHNjcmlwdD4=") == "data:text/html,…"


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        # urlsplit refuses these; they are cut down all the same
        ("http://user:pw@[::1/x/tok_abc?y#z", "http://[::1/x/…?…"),
        ("https://[v1.fe80::a+en1]/session/tok_live_x", "https://[v1.fe80::a+en1]/session/…"),
        ("not a url/tok_live_abc", "not a url/…"),
        ("//user:pw@x.test/a?b", "//x.test/a?…"),
    ],
)
def test_invalid_urls_are_cut_down_too(url: str, kept: str) -> None:
    assert redact_url(url) == kept


def test_network_evidence_and_trace_steps_use_it() -> None:
    kind, entry = log_entry(
        {
            "entry": {
                "source": "network",
                "level": "error",
                "text": "Failed to load resource: the server responded with a status of 401",
                "url": "https://api.test/session/tok_live_9aZ/refresh?AbCd0123456789",
                "timestamp": 1,
            }
        }
    ) or ("", {})
    assert kind == "network"
    assert entry["url"] == "https://api.test/session/…/refresh?…"
    args = recorded_args("navigate", {"url": "https://x.test/magic/" + JWT}, None)
    assert args["url"] == "https://x.test/magic/…"
    answer = trimmed_answer(
        {"ok": True, "url": {"from": "https://x.test/?tok", "to": "https://x.test/a"}}
    )
    assert answer["url"] == {"from": "https://x.test/?…", "to": "https://x.test/a"}
