"""The CLI's contract, without click: exit codes, and the text form of an unrendered answer.

Exit codes: 0 ok · 1 the command failed (typed error) · 2 usage error · 3 no host reachable.
"""

from __future__ import annotations

from typing import Any

from reins._pagetext import json_text, visible

__all__ = ["EXIT_FAILED", "EXIT_NO_HOST", "EXIT_OK", "EXIT_USAGE", "exit_code", "plain"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_HOST = 0, 1, 2, 3
_NO_HOST_CODES = {"no_host", "not_connected", "host_unresponsive"}
_USAGE_CODES = {"ambiguous_profile", "bad_request", "unknown_command", "invalid_selector"}


def exit_code(code: str) -> int:
    if code in _NO_HOST_CODES:
        return EXIT_NO_HOST
    if code in _USAGE_CODES:
        return EXIT_USAGE
    return EXIT_FAILED


def plain(body: dict[str, Any]) -> str:
    """The text form of an answer no renderer knows: one `key: value` line each. A string value
    runs to the end of its line with its controls visible (a page's newline cannot start another
    line); anything else is JSON."""
    if not body:
        return "ok"
    return "\n".join(
        f"{visible(str(k))}: "
        + (
            visible(v)
            if isinstance(v, str)
            else str(v)
            if isinstance(v, int | float | bool) or v is None
            else json_text(v)
        )
        for k, v in body.items()
    )
