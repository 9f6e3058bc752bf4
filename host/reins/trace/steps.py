"""What a trace keeps of one command: the command line a person would type, the arguments with
secrets masked, the answer cut to a readable size (pure functions over plain data)."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from reins.bridge.command import Command, field_hints
from reins.observe.evidence import redact_url
from reins.observe.identity import Identity

__all__ = ["cli_line", "recorded_args", "stable_target", "trimmed_answer"]

STRING_MAX = 4000
LIST_MAX = 40
DEPTH_MAX = 6
# Targets that name a secret: their fill/type value is never written down.
_SECRET = re.compile(
    r"pass|pwd|secret|token|otp|one.?time|\bpin\b|cvv|cvc|csc|card.?(num|no)|cc.?(num|exp|csc)"
    r"|exp(iry|iration)?.?date|iban|ssn|2fa|mfa",
    re.I,
)
_VALUE_COMMANDS = frozenset({"fill", "type"})


def _left_out(cmd: Command[Any], name: str, value: Any) -> bool:
    """Not on a person's command line: a field the CLI never offers, or the field's default."""
    info = cmd.args.model_fields.get(name)
    if info is None:
        return False
    if field_hints(info).get("hidden"):
        return True
    return not info.is_required() and info.get_default(call_default_factory=True) == value


def cli_line(cmd: Command[Any] | None, wire_name: str, args: dict[str, Any]) -> str:
    """``reins WORDS POSITIONALS --options`` as a person would type it (best effort: the CLI's
    own quirks, such as `fill --text LABEL VALUE`, are not rebuilt)."""
    words = list(cmd.cli) if cmd is not None and cmd.cli else [wire_name]
    parts = ["reins", *words]
    positional = cmd.cli_args if cmd is not None else ()
    for name in positional:
        value = args.get(name)
        if value is None:
            continue
        parts += [str(v) for v in value] if isinstance(value, list) else [_plain(value)]
    for name, value in args.items():
        if (
            name in positional
            or value is None
            or value is False
            or value == []
            or (cmd is not None and _left_out(cmd, name, value))
        ):
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            parts.append(flag)
        elif isinstance(value, list):
            for item in value:
                parts += [flag, _plain(item)]
        else:
            parts += [flag, _plain(value)]
    return " ".join(shlex.quote(p) if i > len(words) else p for i, p in enumerate(parts))


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def _masked_value(answer: dict[str, Any] | None) -> bool:
    """The page showed the field's value as stars: a password field."""
    change = ((answer or {}).get("effect") or {}).get("value")
    after = change.get("to") if isinstance(change, dict) else None
    return isinstance(after, str) and bool(after) and set(after) == {"*"}


def recorded_args(
    wire_name: str,
    args: dict[str, Any],
    answer: dict[str, Any] | None,
) -> dict[str, Any]:
    """The request's arguments as the trace keeps them: a fill/type value into a field that
    looks secret (by its target, or the page masking it) becomes its length; a URL loses its
    query values; long strings are cut."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key == "url" and isinstance(value, str):
            value = redact_url(value)
        out[key] = _trim(value, 0)
    if wire_name in _VALUE_COMMANDS and isinstance(args.get("value"), str):
        aim = f"{args.get('target') or ''} {args.get('text') or ''}"
        if _SECRET.search(aim) or _masked_value(answer):
            out["value"] = f"[{len(args['value'])} characters, not recorded]"
    return out


def trimmed_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer without what is large and said elsewhere (pictures, the interaction map, the
    per-ref list), strings and lists cut, URLs without their query values."""
    out: dict[str, Any] = {}
    for key, value in answer.items():
        if key in ("ok", "request_id"):
            continue
        if key == "png_base64":
            out["png_omitted"] = True
        elif key == "map" and isinstance(value, dict):
            out["map"] = {"elements": len(value.get("elements") or {}), "omitted": True}
        elif key == "refs" and isinstance(value, list):
            out["refs_listed"] = len(value)
        else:
            out[key] = _trim(value, 0, key)
    return out


def _trim(value: Any, depth: int, key: str = "") -> Any:
    if isinstance(value, str):
        if key in ("url", "href", "document"):
            return redact_url(value)
        return value if len(value) <= STRING_MAX else value[:STRING_MAX] + "…"
    if depth >= DEPTH_MAX:
        return "…" if isinstance(value, dict | list) else value
    if isinstance(value, dict):
        if key == "url" and set(value) <= {"from", "to"}:
            return {k: redact_url(v) if isinstance(v, str) else v for k, v in value.items()}
        return {str(k): _trim(v, depth + 1, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        kept = [_trim(v, depth + 1) for v in value[:LIST_MAX]]
        if len(value) > LIST_MAX:
            kept.append(f"… {len(value) - LIST_MAX} more")
        return kept
    return value


# What of an element's identity a recorded step keeps, and how much of each.
_STABLE = ("role", "name", "testid", "id", "tag")
_STABLE_MAX = 200


def stable_target(identity: Identity) -> dict[str, str]:
    """The signals that name an element across sessions (pure): role and accessible name, test
    id, id, tag — the ones present, each cut to 200 characters."""
    out: dict[str, str] = {}
    for key in _STABLE:
        value = getattr(identity, key)
        if isinstance(value, str) and value:
            out[key] = value[:_STABLE_MAX]
    return out
