"""The text form of the host's answers (without --json), keyed by the command's wire name.

A command with no renderer here prints its answer as `key: value` lines (``run.plain``). Every
string that came from a page (titles, URLs, names, selectors, messages, effects) is printed by
``reins._pagetext``'s rule: quoted, with controls, bidi and zero-width characters as visible
escapes, so a page can neither forge a line nor write to the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reins._pagetext import json_text, quote, visible, word
from reins._pagetext import ref as ref_field

if TYPE_CHECKING:  # the answer types, for mypy only: the CLI starts without reins.commands
    from reins.commands import answers

__all__ = ["TEXT"]


def status(a: answers.Status) -> str:
    ext = a.get("extension") or {}
    tab = a.get("tab") or {}
    lines = [
        f"host      {a['host']['version']} pid {a['host']['pid']} profile {a['host']['profile']}"
        + (f" allocator {a['host']['allocator']}" if a["host"].get("allocator") else ""),
        f"extension {'connected ' + str(ext.get('version')) if a.get('connected') else 'not connected'}"
        + (" (paused)" if a.get("paused") else ""),
    ]
    if tab:
        lines.append(
            f"tab       {tab['id']} {quote(str(tab.get('title') or ''))} "
            f"{quote(str(tab.get('url') or ''))}"
        )
    return "\n".join(lines)


def tabs(a: answers.Tabs) -> str:
    def whose(t: answers.Tab) -> str:
        return "stopped" if t.get("stopped") else "reins" if t.get("reins") else "user"

    return (
        "\n".join(
            f"{'*' if t['id'] == a.get('current') else ' '} {t['id']:>6}  {whose(t):<7}  "
            f"{quote(str(t.get('title') or ''), 40):<42}  {quote(str(t.get('url') or ''))}"
            for t in a["tabs"]
        )
        or "no tabs"
    )


def page(a: answers.Page) -> str:
    return f"{quote(str(a.get('title') or ''))}\n{quote(str(a.get('url') or ''))}"


def state(a: answers.State) -> str:
    if "sources" in a:  # --compare-sources
        return json_text(a["sources"], indent=1)
    return str(a["text"])


def found(a: answers.Found) -> str:
    return "\n".join(
        f"{ref_field(str(m['ref'])) if m.get('ref') else '-'} {word(str(m.get('type') or '?'))} "
        f"{quote(str(m.get('text') or ''), 80)} {quote(str(m.get('selector') or ''))}"
        for m in a["matches"]
    )


def expected(a: answers.Expectation) -> str:
    claim = a.get("expected")
    shown = "" if isinstance(claim, bool) else " " + _value(claim)
    return f"pass: {word(str(a.get('expectation')))}{shown} (seen {_value(a.get('seen'))})"


def _value(value: Any) -> str:
    """A value an answer reports (often the page's): a string quoted, anything else as JSON."""
    return quote(value, 200) if isinstance(value, str) else json_text(value)


def effect(a: answers.Action) -> str:
    parts = []
    for key, change in (a.get("effect") or {}).items():
        if isinstance(change, dict) and "from" in change:
            parts.append(f"{word(key)}: {_value(change['from'])} -> {_value(change['to'])}")
        else:
            parts.append(f"{word(key)}: {_value(change)}")
    line = "; ".join(parts) or "no observable change"
    if a.get("recovered"):
        r = a["recovered"]
        line += (
            f"\nrecovered stale ref via {word(str(r.get('via')))} "
            f"(confidence {_value(r.get('confidence'))})"
        )
    frame = a.get("frame")
    if isinstance(frame, dict):
        where = frame.get("origin") or frame.get("url")
        line += f"\nin frame {_value(where)} (the browser's name for it)"
    for warning in a.get("warnings") or []:
        line += f"\nwarning: {visible(str(warning))}"
    return line


def evaluated(a: answers.Evaluated) -> str:
    if "value" in a:
        value = a["value"]
        # The page's data: a string as it is, but with its controls visible (a newline as \n).
        text = visible(value) if isinstance(value, str) else json_text(value, indent=1)
        if a.get("truncated"):
            text += f"\n[truncated: {a.get('size')} bytes in all]"
        return text
    kind = word(str(a.get("type", "?"))) + (
        f"/{word(str(a['subtype']))}" if a.get("subtype") else ""
    )
    reason = f" ({visible(str(a['reason']))})" if a.get("reason") else ""
    return f"[{kind}] {quote(str(a.get('description') or ''), 200)}{reason}"


def _clock(entry: answers.ConsoleEntry | answers.RequestEntry) -> str:
    at = str(entry.get("at") or "")
    when = at.split("T", 1)[-1] if at else "?"
    return when + (f" [step {entry['step']}]" if entry.get("step") is not None else "")


def _capture_note(a: answers.Capture, empty: str) -> str:
    if a.get("started_now"):
        # What the page logged and requested before is read back from Chrome's console and the
        # page's timing buffer (docs/tracing.md says what either keeps).
        return f"{empty} (capture started just now on this page)"
    return f"{empty} (capturing since {a.get('capturing_since') or '?'})"


def console(a: answers.Console) -> str:
    lines = []
    for e in a.get("entries") or []:
        where = f"  ({quote(str(e['source']))}:{_value(e.get('line'))})" if e.get("source") else ""
        lines.append(
            f"{_clock(e)} {word(str(e.get('level')))} {word(str(e.get('kind')))}: "
            f"{quote(str(e.get('text') or ''), collapse=False)}{where}"
        )
    return "\n".join(lines) or _capture_note(a, "nothing logged")


def network(a: answers.Network) -> str:
    lines = []
    for r in a.get("requests") or []:
        status = "?" if r.get("status") is None else _value(r["status"])
        mark = " FAILED" if r.get("failed") else ""
        lines.append(
            f"{_clock(r)} {status}{mark} {word(str(r.get('type')))} "
            f"{_value(r.get('duration_ms'))} ms {quote(str(r.get('url') or ''))}"
        )
    return "\n".join(lines) or _capture_note(a, "no requests")


def trace_stopped(a: answers.TraceStopped) -> str:
    capped = " (size cap reached)" if a.get("capped") else ""
    lines = [f"trace stopped: {a['steps']} steps in {a['dir']}{capped}"]
    lost = a.get("lost")
    if lost:
        parts = []
        if a["recorded"] < a["steps"]:
            numbers = [
                f"{first}" if first == last else f"{first}-{last}"
                for first, last in lost.get("step_numbers") or []
            ] + [f"{n} (still running)" for n in lost.get("unfinished") or []]
            if lost.get("host_restart"):
                numbers.append(f"{lost['host_restart']} lost in a host restart")
            parts.append(
                f"{a['steps'] - a['recorded']} of {a['steps']} steps not written: "
                + ", ".join(numbers)
            )
        if lost.get("pictures"):
            parts.append(f"{lost['pictures']} pictures not written")
        if lost.get("other_lines"):
            parts.append(f"{lost['other_lines']} other lines not written")
        why = f" ({lost['error']})" if lost.get("error") else ""
        lines.append(f"warning: trace_incomplete: {'; '.join(parts)}{why}")
        lines.append("the report will say INCOMPLETE")
    lines.append(f"report: {a['report']}")
    return "\n".join(lines)


def tab_new(a: answers.TabOpened) -> str:
    return f"tab {a['id']} {quote(str(a.get('url') or ''))}"


def tab_select(a: answers.TabChosen) -> str:
    return f"tab {a['tab']['id']} selected"


def tab_close(a: answers.TabClosed) -> str:
    return f"tab {a['closed']} closed" + (
        f"; the browser's last: blank tab {a['replaced_by']} in its place"
        if "replaced_by" in a
        else ""
    )


def cdp(a: answers.CdpResult) -> str:
    return json_text(a["result"], indent=1)


def stats(a: answers.Stats) -> str:
    return json_text(a["stats"], indent=1)


def interaction_map(a: answers.Map) -> str:
    return json_text(a["map"], indent=1)


def waited(a: answers.Wait) -> str:
    return f"ok: {visible(str(a.get('waited_for')))}"


def trace_started(a: answers.TraceStarted) -> str:
    return f"tracing into {a['dir']}" + (" with pictures" if a.get("screenshots") else "")


# Each renderer reads its command's answer type (reins.commands.answers): the answer comes off the
# socket as JSON, and the table (bridge/command.py) holds the host to that type.
TEXT: dict[str, Callable[[Any], str]] = {
    "status": status,
    "tabs": tabs,
    "tab_new": tab_new,
    "tab_select": tab_select,
    "tab_close": tab_close,
    "navigate": page,
    "back": page,
    "forward": page,
    "reload": page,
    "cdp": cdp,
    "stats": stats,
    "state": state,
    "map": interaction_map,
    "find": found,
    **dict.fromkeys(
        ("click", "dblclick", "hover", "fill", "type", "press", "select", "check", "uncheck"),
        effect,
    ),
    "wait": waited,
    "eval": evaluated,
    **dict.fromkeys(
        (
            "expect_value",
            "expect_text",
            "expect_checked",
            "expect_unchecked",
            "expect_visible",
            "expect_hidden",
            "expect_count",
            "expect_url",
            "expect_title",
            "expect_no_errors",
            "expect_request",
        ),
        expected,
    ),
    "trace_start": trace_started,
    "trace_stop": trace_stopped,
    "console": console,
    "network": network,
}
