"""`reins report DIR --format md`: the run as Markdown, to paste into an issue.

The same content as the HTML report, shorter: summary, sites, pages, each failure with its
command sequence, typed error and evidence, and the steps as a table. Pictures are named by
their path in the trace directory (attach the ones that matter). Page strings are escaped for
Markdown and for the HTML that issue trackers render inside it: in tables and text, the
characters that would start markup (``< > & | * _ ` [ ] \\``) are escaped; code blocks are fenced
with more backticks than the text holds; controls, bidi and zero-width characters are visible
escapes everywhere (``reins._pagetext``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reins._pagetext import visible, visible_lines
from reins.trace.compare import Comparison
from reins.trace.run import RunView, Step, as_dict

__all__ = ["md_text", "render_markdown"]

_SPECIAL = re.compile(r"([\\`*_\[\]|<>#!~])")


def md_text(value: Any, *, limit: int = 300) -> str:
    """One line of page text, safe in Markdown text and table cells."""
    text = " ".join(str(value if value is not None else "").split())
    if len(text) > limit:
        text = text[:limit] + "…"
    return _SPECIAL.sub(r"\\\1", visible(text).replace("&", "&amp;"))


def _code(value: Any) -> str:
    """Inline code, shown as it is (no escapes work inside a code span): fenced with more
    backticks than the text holds."""
    text = visible(" ".join(str(value if value is not None else "").split())[:300])
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(text: str, lang: str = "") -> str:
    text = visible_lines(text)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _row(*cells: Any) -> str:
    return "| " + " | ".join(md_text(c) for c in cells) + " |"


def _evidence(step: Step) -> list[str]:
    out = []
    for c in step.console:
        out.append(
            f"- console {md_text(c.get('level'))} ({md_text(c.get('kind'))}): "
            f"{md_text(c.get('text'))}"
        )
    failed = step.failed_requests
    for n in failed:
        out.append(
            f"- request failed: {md_text(n.get('status'))} {md_text(n.get('type'))} "
            f"{md_text(n.get('url'))}"
        )
    if step.network and not failed:
        out.append(f"- {len(step.network)} requests, none failed")
    return out


def _compared(cmp: Comparison) -> list[str]:
    first = cmp.first
    lines = [
        "### Compared with the baseline",
        "",
        f"{len(cmp.pairs)} steps compared with {md_text(cmp.baseline.name)} of "
        f"{md_text(cmp.baseline.started)} ({', '.join(cmp.baseline.verdict)}), "
        f"{cmp.differing} differ.",
        "",
    ]
    if first is None:
        return [*lines, "No step differs from the baseline.", ""]
    lines += [f"**First divergence**: {_code(first.command)}", ""]
    lines += [f"- {md_text(d, limit=600)}" for d in first.differences]
    lines += ["", "| then | now | command | changed |", "|---|---|---|---|"]
    for pair in cmp.pairs:
        if pair.differs:
            then = f"#{pair.then.number}" if pair.then else "—"
            now = f"#{pair.now.number}" if pair.now else "—"
            lines.append(_row(then, now, pair.command, "; ".join(pair.differences)))
    return [*lines, ""]


def render_markdown(run: RunView, directory: Path, cmp: Comparison | None = None) -> str:
    failed = [s for s in run.steps if not s.ok]
    lines = [
        f"## {md_text(run.name)}: {', '.join(run.verdict)}",
        "",
        f"{len(run.steps)} steps, {len(failed)} failed, {run.duration_s:.1f} s, started "
        f"{md_text(run.started)}, profile {md_text(run.profile)}"
        + ("" if run.stopped else " (the trace was not stopped)"),
        "",
    ]
    if not run.complete:
        lines += [
            "**This trace is incomplete**: what it recorded is below, but steps, their results "
            "or their pictures may be missing, so the run cannot be called a pass.",
            "",
            *(f"- {md_text(text, limit=600)}" for text in run.missing),
            "",
        ]
    for notice in run.notices:
        lines += [
            f"> **{md_text(notice.get('type'))}**: {md_text(notice.get('text'), limit=600)}",
            "",
        ]
    if cmp is not None:
        lines += _compared(cmp)
    lines += ["### Sites", "", "| site | result | steps | failed |", "|---|---|---|---|"]
    lines += [_row(s.origin, "pass" if s.passed else "FAIL", s.steps, s.failed) for s in run.sites]
    if run.pages:
        lines += [
            "",
            "### Pages (observation sources compared)",
            "",
            "| step | page | dom refs | dom frames | dom ≈tokens | dom ms | ax refs | "
            "ax frames | ax ≈tokens | ax ms | errors |",
            "|---" * 11 + "|",
        ]
        for page in run.pages:
            sources = as_dict(page.get("sources"))
            cells: list[Any] = [page.get("step"), page.get("url")]
            errors = []
            for name in ("dom", "ax"):
                src = as_dict(sources.get(name))
                cells += [
                    src.get("refs"),
                    src.get("frame_sections"),
                    src.get("approx_tokens"),
                    src.get("elapsed_ms"),
                ]
                if src.get("error"):
                    errors.append(f"{name}: {as_dict(src['error']).get('code')}")
            lines.append(_row(*cells, ", ".join(errors)))
    for failure in run.failures:
        step = failure.step
        error = step.error or {}
        lines += [
            "",
            f"### Failure at step {step.number}: {_code(error.get('code'))}",
            "",
            md_text(error.get("message"), limit=1000),
            "",
            f"on {md_text(step.url or step.url_before or '?')}",
            "",
            "Command sequence:",
            "",
            _fence(
                "\n".join(
                    f"{s.number:>3} {'ok  ' if s.ok else 'FAIL'} {s.cli}" for s in failure.sequence
                ),
                "sh",
            ),
        ]
        details = {k: v for k, v in error.items() if k not in ("code", "message", "transient")}
        if details:
            lines += ["", _fence(json.dumps(details, indent=1, ensure_ascii=False), "json")]
        evidence = _evidence(step)
        if evidence:
            lines += ["", "Evidence of that step:", "", *evidence]
        shots = [p for p in (step.before, step.after) if p]
        if shots:
            lines += ["", "Pictures: " + ", ".join(_code(p) for p in shots)]
    lines += [
        "",
        "### Steps",
        "",
        "| # | command | result | ms | page | console errors | failed requests |",
        "|---|---|---|---|---|---|---|",
    ]
    for step in run.steps:
        lines.append(
            _row(
                step.number,
                step.cli,
                "ok" if step.ok else f"FAIL {(step.error or {}).get('code', '')}",
                step.duration_ms,
                step.url or step.url_before or "",
                len(step.console_errors),
                len(step.failed_requests),
            )
        )
    lines += ["", f"Trace: {_code(directory)}, made by `reins report`.", ""]
    return "\n".join(lines)
