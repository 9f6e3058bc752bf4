"""TARGET strings: what an agent writes to name an element (pure; raises ``invalid_selector``).

TARGET is ``@ref`` · CSS (default, or ``css=…``) · XPath (``//…``, ``(//…)[n]`` or ``xpath=…``) ·
``role=button[name="Save"]`` · ``text=…`` (``text="…"`` exact); ``--frame CSS`` scopes a CSS or
XPath target into an iframe (same-origin or out-of-process).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from reins._errors import UsageError

__all__ = ["Kind", "Target", "normalized_text", "parse_target", "text_matches", "text_query"]

Kind = Literal["ref", "css", "xpath", "role", "text"]


_ROLE_RE = re.compile(
    r"""^(?P<role>[a-zA-Z][\w-]*)\s*(?:\[\s*name\s*=\s*(?P<q>["'])(?P<name>.*?)(?P=q)\s*(?P<flag>[is])?\s*\])?$"""
)


@dataclass(frozen=True)
class Target:
    kind: Kind
    value: str
    name: str | None = None
    exact: bool = False
    frame: str | None = None


def parse_target(raw: str, *, frame: str | None = None) -> Target:
    """Parse a TARGET string (pure; raises ``invalid_selector``)."""
    text = raw.strip()
    if not text:
        raise UsageError("empty target", code="invalid_selector")
    if text.startswith("@"):
        if len(text) < 2 or not re.fullmatch(r"@[A-Za-z0-9_-]+", text):
            raise UsageError(
                f"{raw!r} is not a ref (refs look like @save or @e7f3a2)", code="invalid_selector"
            )
        if frame:
            raise UsageError(
                "--frame scopes CSS or XPath targets; a ref knows its frame",
                code="invalid_selector",
            )
        return Target("ref", text)
    if text.startswith("xpath="):
        return Target("xpath", text[6:], frame=frame)
    if text.startswith(("//", "(/", "./", "..")):
        return Target("xpath", text, frame=frame)
    if text.startswith("css="):
        return Target("css", text[4:], frame=frame)
    if text.startswith("role="):
        m = _ROLE_RE.match(text[5:].strip())
        if not m:
            raise UsageError(
                f'{raw!r}: use role=ROLE or role=ROLE[name="Name"]', code="invalid_selector"
            )
        return Target(
            "role",
            m.group("role").lower(),
            name=m.group("name"),
            exact=m.group("flag") == "s",
            frame=frame,
        )
    if text.startswith("text="):
        body, exact = text_query(text[5:])
        if not exact and not body.strip():
            raise UsageError("text= needs some text", code="invalid_selector")
        return Target("text", body, exact=exact, frame=frame)
    return Target("css", text, frame=frame)


# ---- the one text rule ---------------------------------------------------------------------------
# As Playwright's text engine (and pagescripts/src/textmatch.js page-side): whitespace-normalized,
# a case-insensitive substring, or the whole text, case included, when the query is quoted.


def normalized_text(text: str | None, *, exact: bool = False) -> str:
    """``text`` with its whitespace collapsed, folded for comparison unless ``exact`` (pure)."""
    shown = " ".join((text or "").split())
    return shown if exact else shown.casefold()


def text_query(raw: str) -> tuple[str, bool]:
    """A text as an agent writes it: ``"Saved"`` (quoted: exact) or ``Saved`` (a substring, any
    case). Answers the text and whether it is exact (pure)."""
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1], True
    return raw, False


def text_matches(seen: str | None, raw: str) -> bool:
    """Does ``seen`` match the query ``raw`` by the text rule (``text_query``)? (pure)"""
    wanted, exact = text_query(raw)
    shown, query = normalized_text(seen, exact=exact), normalized_text(wanted, exact=exact)
    return shown == query if exact else query in shown
