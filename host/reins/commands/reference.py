"""The command reference (docs/commands.md), rendered from the table's description and what its
answer types say (``describe_answers``) (pure).

Written with the CLI's description by ``scripts/generate`` and checked with it, so the docs list
exactly the commands, arguments, budgets and answers the host serves.
"""

from __future__ import annotations

from typing import Any

__all__ = ["render_reference"]

_HEADER = """# reins commands

Generated from the command table (`scripts/generate`); do not edit.
Every command also takes the global options `--json`, `--tab ID`, `--timeout-ms N` and
`--profile NAME`. The budget is what a command gets without `--timeout-ms`. Read-only commands
change nothing in the page or the browser. `reins mcp` offers the commands marked "MCP tool" as
tools of that name, with the same arguments (snake_case: `--viewport-only` is `viewport_only`).
What a command answers (`--json`, and MCP) is listed with it: every answer also holds `"ok": true`
(an error: `{"ok": false, "error": {code, message, …}}`: agent-guide.md, "Errors"); a field marked
"always" is in every answer, the others when they apply. The parts answers are made of follow the
commands.
"""


def _usage(cmd: dict[str, Any]) -> str:
    words = ["reins", *cmd["words"]]
    for arg in cmd["arguments"]:
        name = str(arg.get("metavar") or arg["name"]).upper()
        name += "…" if arg["type"] == "list" else ""
        words.append(name if arg["required"] else f"[{name}]")
    if cmd["options"]:
        words.append("[OPTIONS]")
    return " ".join(words)


def _kind(param: dict[str, Any]) -> str:
    if param["type"] == "choice":
        return "|".join(param["choices"])
    if param["type"] == "bool":
        return "flag"
    return str(param["type"])


def _answer_table(fields: list[dict[str, Any]]) -> list[str]:
    rows = ["| field | kind | |", "|---|---|---|"]
    for f in fields:
        always = " (always)" if f["always"] else ""
        rows.append(f"| `{f['name']}` | {f['kind']}{always} | {f['meaning']} |")
    return [*rows, ""]


def render_reference(description: dict[str, Any], answers: dict[str, Any]) -> str:
    out = [_HEADER]
    for cmd in description["commands"]:
        if not cmd["words"]:
            continue  # served to other clients, not on the CLI
        budget = f"{cmd['timeout_ms'] / 1000:g} s"
        out.append(f"## `reins {' '.join(cmd['words'])}`\n")
        out.append(
            f"`{_usage(cmd)}` — budget {budget}"
            + (", read-only" if cmd["read_only"] else "")
            + (f", MCP tool `{cmd['name']}`" if cmd.get("mcp") else "")
            + "\n"
        )
        out.append(f"{cmd['help']}\n")
        params = [*cmd["arguments"], *cmd["options"]]
        if params:
            out.append("| argument | kind | |\n|---|---|---|")
            for p in params:
                label = p.get("flag") or str(p.get("metavar") or p["name"]).upper()
                required = " (required)" if p["required"] and "flag" in p else ""
                out.append(f"| `{label}` | {_kind(p)}{required} | {p.get('help', '')} |")
            out.append("")
        out.append("Answers:\n")
        out += _answer_table(answers["commands"][cmd["name"]])
    out.append("## Parts of answers\n")
    for name, part in answers["parts"].items():
        out.append(f"### {name}\n")
        if part["doc"]:
            out.append(f"{part['doc']}\n")
        out += _answer_table(part["fields"])
    return "\n".join(out).rstrip() + "\n"
