"""Small helpers shared by the act browser tests (test_act_*.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .conftest import Browser


def eventually(
    read: Callable[[], Any], want: Callable[[Any], bool], *, timeout: float = 3.0
) -> Any:
    """Poll the page until `want(read())` holds; returns the last value read either way."""
    deadline = time.monotonic() + timeout
    value = read()
    while not want(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = read()
    return value


def refs_by_name(state: dict[str, Any]) -> dict[str, str]:
    """name -> ref for the refs a `state --json` answer lists (first ref wins for a name)."""
    out: dict[str, str] = {}
    for item in state["refs"]:
        out.setdefault(item["name"], item["ref"])
    return out


def page_log(browser: Browser, name: str = "__log") -> list[str]:
    return list(browser.js(f"return window.{name}.slice()"))
