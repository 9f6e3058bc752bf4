"""The text form of the host's answers (without --json), keyed by the command's wire name.

A command with no renderer here prints its answer as `key: value` lines (``run.plain``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["TEXT"]

Answer = dict[str, Any]


def status(a: Answer) -> str:
    ext = a.get("extension") or {}
    tab = a.get("tab") or {}
    lines = [
        f"host      {a['host']['version']} pid {a['host']['pid']} profile {a['host']['profile']}"
        + (f" allocator {a['host']['allocator']}" if a["host"].get("allocator") else ""),
        f"extension {'connected ' + str(ext.get('version')) if a.get('connected') else 'not connected'}"
        + (" (paused)" if a.get("paused") else ""),
    ]
    if tab:
        lines.append(f"tab       {tab['id']} {tab.get('title', '')!r} {tab.get('url', '')}")
    return "\n".join(lines)


def tabs(a: Answer) -> str:
    def whose(t: dict[str, Any]) -> str:
        return "stopped" if t.get("stopped") else "reins" if t.get("reins") else "user"

    return (
        "\n".join(
            f"{'*' if t['id'] == a.get('current') else ' '} {t['id']:>6}  {whose(t):<7}  "
            f"{t['title'][:40]:<40}  {t['url']}"
            for t in a["tabs"]
        )
        or "no tabs"
    )


def page(a: Answer) -> str:
    return f"{a.get('title') or ''}\n{a.get('url') or ''}".strip()


def state(a: Answer) -> str:
    if "sources" in a:  # --compare-sources
        return json.dumps(a["sources"], indent=1)
    return str(a["text"])


def found(a: Answer) -> str:
    return "\n".join(f"{m['ref']} {m['type']} {m['text']!r} {m['selector']}" for m in a["matches"])


def effect(a: Answer) -> str:
    parts = []
    for key, change in (a.get("effect") or {}).items():
        if isinstance(change, dict) and "from" in change:
            parts.append(f"{key}: {change['from']!r} -> {change['to']!r}")
        else:
            parts.append(f"{key}: {change}")
    line = "; ".join(parts) or "no observable change"
    if a.get("recovered"):
        r = a["recovered"]
        line += f"\nrecovered stale ref via {r.get('via')} (confidence {r.get('confidence')})"
    for warning in a.get("warnings") or []:
        line += f"\nwarning: {warning}"
    return line


def evaluated(a: Answer) -> str:
    if "value" in a:
        value = a["value"]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
        if a.get("truncated"):
            text += f"\n[truncated: {a.get('size')} bytes in all]"
        return str(text)
    kind = a.get("type", "?") + (f"/{a['subtype']}" if a.get("subtype") else "")
    reason = f" ({a['reason']})" if a.get("reason") else ""
    return f"[{kind}] {a.get('description', '')}{reason}"


def _clock(entry: dict[str, Any]) -> str:
    at = str(entry.get("at") or "")
    when = at.split("T", 1)[-1] if at else "?"
    return when + (f" [step {entry['step']}]" if entry.get("step") is not None else "")


def _capture_note(a: Answer, empty: str) -> str:
    if a.get("started_now"):
        return (
            f"{empty} (capture started just now on this page: what happened before it is not known)"
        )
    return f"{empty} (capturing since {a.get('capturing_since') or '?'})"


def console(a: Answer) -> str:
    lines = []
    for e in a.get("entries") or []:
        where = f"  ({e['source']}:{e.get('line')})" if e.get("source") else ""
        lines.append(f"{_clock(e)} {e.get('level')} {e.get('kind')}: {e.get('text')}{where}")
    return "\n".join(lines) or _capture_note(a, "nothing logged")


def network(a: Answer) -> str:
    lines = []
    for r in a.get("requests") or []:
        status = "?" if r.get("status") is None else r["status"]
        mark = " FAILED" if r.get("failed") else ""
        lines.append(
            f"{_clock(r)} {status}{mark} {r.get('type')} {r.get('duration_ms')} ms {r.get('url')}"
        )
    return "\n".join(lines) or _capture_note(a, "no requests")


def trace_stopped(a: Answer) -> str:
    capped = " (size cap reached)" if a.get("capped") else ""
    return f"trace stopped: {a['steps']} steps in {a['dir']}{capped}\nreport: {a['report']}"


TEXT: dict[str, Callable[[Answer], str]] = {
    "status": status,
    "tabs": tabs,
    "tab_new": lambda a: f"tab {a['id']} {a.get('url') or ''}",
    "tab_select": lambda a: f"tab {a['tab']['id']} selected",
    "tab_close": lambda a: f"tab {a['closed']} closed",
    "navigate": page,
    "back": page,
    "forward": page,
    "reload": page,
    "cdp": lambda a: json.dumps(a["result"], ensure_ascii=False, indent=1),
    "stats": lambda a: json.dumps(a["stats"], indent=1),
    "state": state,
    "map": lambda a: json.dumps(a["map"], ensure_ascii=False, indent=1),
    "find": found,
    **dict.fromkeys(
        ("click", "dblclick", "hover", "fill", "type", "press", "select", "check", "uncheck"),
        effect,
    ),
    "wait": lambda a: f"ok: {a.get('waited_for')}",
    "eval": evaluated,
    "trace_start": lambda a: (
        f"tracing into {a['dir']}" + (" with pictures" if a.get("screenshots") else "")
    ),
    "trace_stop": trace_stopped,
    "console": console,
    "network": network,
}
