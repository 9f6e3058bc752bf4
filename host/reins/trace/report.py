"""`reins report DIR`: one self-contained HTML file a person reads instead of the terminal.

The run's summary (pass, fail or incomplete — with what the trace is missing —, steps, duration,
per site, per page the compare-sources figures), every failure with the commands that led to it, its typed error and next step and the
console and network evidence of that step, then the timeline of steps with the pictures before
and after. Pictures are embedded as data: URIs and the page carries a Content-Security-Policy
that allows nothing else (no script, no network), so the file opens anywhere, offline, and a
hostile string that slipped past escaping still could not run. Every string from the trace is
escaped by construction (``html.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reins._paths import write_private
from reins.trace.compare import Comparison, compare_runs, render_comparison
from reins.trace.html import Markup, el, join, picture, raw
from reins.trace.look import CSS
from reins.trace.recording import make_recording, recording_section
from reins.trace.run import Failure, RunView, Step, as_dict, read_run
from reins.trace.tracefile import read_trace_text

__all__ = ["read_trace_run", "render_html", "write_report"]

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _offset(run: RunView, step: Step) -> str:
    return f"+{max(0.0, step.t - run.t0):.1f} s"


def _duration(seconds: float) -> str:
    return (
        f"{seconds:.1f} s" if seconds < 120 else f"{int(seconds // 60)} min {int(seconds % 60)} s"
    )


def _badge(passed: bool) -> Markup:
    return el(
        "span", {"class": "badge " + ("pass" if passed else "fail")}, "PASS" if passed else "FAIL"
    )


def _verdict(run: RunView) -> Markup:
    return join(*(el("span", {"class": "badge " + word.lower()}, word) for word in run.verdict))


def _missing(run: RunView) -> Markup | None:
    if run.complete:
        return None
    return el(
        "div",
        {"class": "missing"},
        el(
            "b",
            None,
            "This trace is incomplete: what it recorded is shown, but steps, their results or "
            "their pictures may be missing, so the run cannot be called a pass.",
        ),
        el("ul", None, [el("li", None, text) for text in run.missing]),
    )


def _summary(run: RunView) -> Markup:
    failed = sum(1 for s in run.steps if not s.ok)
    facts = [
        ("started", run.started or "?"),
        ("duration", _duration(run.duration_s)),
        ("steps", str(len(run.steps))),
        ("failed", str(failed)),
        ("profile", run.profile or "?"),
        ("pictures", "yes" if run.screenshots else "no"),
    ]
    if not run.stopped:
        facts.append(("state", "still running or cut short (no stop line)"))
    return join(
        el("h1", None, run.name, " ", _verdict(run)),
        el("p", {"class": "facts"}, [el("span", None, el("b", None, k), " ", v) for k, v in facts]),
        _missing(run),
        [
            el(
                "div",
                {"class": "notice"},
                el("b", None, n.get("type", "note"), ": "),
                str(n.get("text") or ""),
            )
            for n in run.notices
        ],
    )


def _sites(run: RunView) -> Markup:
    rows = [
        el(
            "tr",
            {"class": None if s.passed else "bad"},
            el("td", None, s.origin),
            el("td", None, _badge(s.passed)),
            el("td", None, s.steps),
            el("td", None, s.failed),
        )
        for s in run.sites
    ]
    return join(
        el("h2", None, "Sites"),
        el(
            "table",
            None,
            el("tr", None, [el("th", None, h) for h in ("site", "result", "steps", "failed")]),
            rows,
        ),
    )


def _figure_cells(source: Any) -> list[Markup]:
    if not isinstance(source, dict):
        return [el("td", {"colspan": "5"}, "—")]
    error = source.get("error")
    cells = [
        source.get("refs"),
        source.get("frame_sections"),
        source.get("approx_tokens"),
        source.get("elapsed_ms"),
    ]
    shown = [el("td", None, "—" if v is None else v) for v in cells]
    shown.append(
        el(
            "td",
            {"class": "err" if error else None},
            f"{error.get('code')}: {error.get('message')}" if isinstance(error, dict) else "",
        )
    )
    return shown


def _pages(run: RunView) -> Markup:
    if not run.pages:
        return join(el("h2", None, "Pages"), el("p", {"class": "muted"}, "No page was measured."))
    head = el(
        "tr",
        None,
        el("th", {"rowspan": "2"}, "step"),
        el("th", {"rowspan": "2"}, "page"),
        el("th", {"colspan": "5"}, "dom source"),
        el("th", {"colspan": "5"}, "ax source"),
    )
    sub = el(
        "tr",
        None,
        [el("th", None, h) for h in ("refs", "frame sections", "≈ tokens", "ms", "error") * 2],
    )
    rows = []
    for page in run.pages:
        sources = as_dict(page.get("sources"))
        rows.append(
            el(
                "tr",
                None,
                el("td", None, page.get("step", "")),
                el(
                    "td",
                    None,
                    el("div", None, page.get("title") or ""),
                    el("code", None, page.get("url") or ""),
                ),
                _figure_cells(sources.get("dom")),
                _figure_cells(sources.get("ax")),
            )
        )
    return join(
        el("h2", None, "Pages (observation sources compared)"), el("table", None, head, sub, rows)
    )


def _error(step: Step) -> Markup | None:
    error = step.error
    if error is None:
        return None
    details = {k: v for k, v in error.items() if k not in ("code", "message", "transient")}
    return join(
        el(
            "p",
            None,
            el("span", {"class": "err"}, error.get("code", "error")),
            " — ",
            str(error.get("message") or ""),
            el("span", {"class": "muted"}, " (transient: retrying may help)")
            if error.get("transient")
            else None,
        ),
        el("pre", None, json.dumps(details, indent=1, ensure_ascii=False)) if details else None,
    )


def _console_table(entries: list[dict[str, Any]], step: Step) -> Markup | None:
    if not entries:
        return None
    rows = [
        el(
            "tr",
            {"class": "bad" if c.get("level") == "error" else None},
            el("td", None, c.get("level", "")),
            el("td", None, c.get("kind", "")),
            el("td", None, el("code", None, c.get("text", ""))),
            el(
                "td",
                None,
                f"{c.get('source') or ''}{':' + str(c['line']) if c.get('line') else ''}",
            ),
            el("td", None, "before the step" if c.get("time", 0) < step.t * 1000 else "during"),
        )
        for c in entries
    ]
    return join(
        el("h3", None, f"Console ({len(entries)})"),
        el(
            "table",
            None,
            el(
                "tr",
                None,
                [el("th", None, h) for h in ("level", "kind", "message", "where", "when")],
            ),
            rows,
        ),
    )


def _network_table(entries: list[dict[str, Any]]) -> Markup | None:
    if not entries:
        return None
    failed = [n for n in entries if n.get("failed")]
    shown = failed + [n for n in entries if not n.get("failed")][: max(0, 15 - len(failed))]
    rows = [
        el(
            "tr",
            {"class": "bad" if n.get("failed") else None},
            el("td", None, "—" if n.get("status") is None else n.get("status")),
            el("td", None, n.get("type", "")),
            el(
                "td",
                None,
                el("code", None, n.get("url", "")),
                el("div", {"class": "muted"}, n["error"]) if n.get("error") else None,
            ),
            el("td", None, "—" if n.get("duration_ms") is None else f"{n['duration_ms']} ms"),
        )
        for n in shown
    ]
    title = f"Network ({len(failed)} failed of {len(entries)} requests)"
    more = len(entries) - len(shown)
    return join(
        el("h3", None, title),
        el(
            "table",
            None,
            el(
                "tr",
                None,
                [
                    el("th", None, h)
                    for h in ("status", "type", "URL (query values hidden)", "time")
                ],
            ),
            rows,
        ),
        el("p", {"class": "muted"}, f"… {more} more that succeeded") if more else None,
    )


def _evidence(step: Step) -> Markup:
    return join(_console_table(step.console, step), _network_table(step.network))


def _effect(step: Step) -> Markup | None:
    parts = []
    for key, change in (step.effect or {}).items():
        if isinstance(change, dict) and "from" in change:
            parts.append(
                f"{key}: {json.dumps(change.get('from'), ensure_ascii=False)} → "
                f"{json.dumps(change.get('to'), ensure_ascii=False)}"
            )
        else:
            parts.append(f"{key}: {json.dumps(change, ensure_ascii=False)}")
    if not parts and not step.warnings:
        return None
    return el(
        "p",
        None,
        el("b", None, "effect: "),
        "; ".join(parts) or "none",
        [el("span", {"class": "err"}, f"  ⚠ {w}") for w in step.warnings],
    )


def _pictures(directory: Path, step: Step) -> Markup | None:
    shots = [
        picture(directory, step.before, f"step {step.number}, before"),
        picture(directory, step.after, f"step {step.number}, after"),
    ]
    return el("div", {"class": "pictures"}, shots) if any(shots) else None


def _sequence(failure: Failure) -> Markup:
    items = [
        el(
            "li",
            {"class": None if s.ok else "failed", "value": str(s.number)},
            el("code", None, s.cli),
            " ",
            el("span", {"class": "okmark"}, "✓")
            if s.ok
            else el("span", {"class": "badmark"}, "✗ ", (s.error or {}).get("code", "")),
            el("span", {"class": "muted"}, f"  {s.duration_ms} ms"),
        )
        for s in failure.sequence
    ]
    return el("ol", {"class": "sequence"}, items)


def _failures(run: RunView, directory: Path) -> Markup:
    failures = run.failures
    if not failures:
        return join(el("h2", None, "Failures"), el("p", None, "No step failed."))
    blocks = []
    for failure in failures:
        step = failure.step
        blocks.append(
            el(
                "div",
                {"class": "failure", "id": f"failure-{step.number}"},
                el("h3", None, f"Step {step.number}: ", el("code", None, step.cli)),
                el(
                    "p",
                    {"class": "muted"},
                    "on ",
                    el("code", None, step.url or step.url_before or "?"),
                ),
                _error(step),
                el("p", None, el("b", None, "How it got there:")),
                _sequence(failure),
                _evidence(step),
                _pictures(directory, step),
            )
        )
    return join(el("h2", None, f"Failures ({len(failures)})"), blocks)


def _step(run: RunView, step: Step, directory: Path) -> Markup:
    pages = run.pages_of(step)
    answer = step.answer
    return el(
        "div",
        {"class": "step " + ("passed" if step.ok else "failed"), "id": f"step-{step.number}"},
        el(
            "div",
            {"class": "head"},
            el("span", {"class": "num"}, f"#{step.number}"),
            el("code", {"class": "cli"}, step.cli),
            el("span", {"class": "okmark"}, "ok")
            if step.ok
            else el("span", {"class": "badmark"}, "failed: ", (step.error or {}).get("code", "")),
            el("span", {"class": "muted"}, f"{step.duration_ms} ms · {_offset(run, step)}"),
        ),
        el(
            "div",
            {"class": "muted"},
            el("code", None, step.url or step.url_before or ""),
            f" — {step.title}" if step.title else None,
        )
        if step.url or step.url_before
        else None,
        _error(step),
        _effect(step),
        [el("p", {"class": "muted"}, f"new page measured: {p.get('url')}") for p in pages],
        [el("p", {"class": "muted"}, "note: ", n) for n in step.notes],
        _evidence(step),
        _pictures(directory, step),
        el(
            "details",
            None,
            el("summary", None, "answer"),
            el("pre", None, json.dumps(answer, indent=1, ensure_ascii=False)[:20_000]),
        )
        if answer
        else None,
    )


def _timeline(run: RunView, directory: Path) -> Markup:
    items = []
    for kind, item in run.timeline:
        if kind == "step":
            items.append(_step(run, item, directory))
        else:
            items.append(
                el(
                    "div",
                    {"class": "notice"},
                    el("b", None, item.get("type", "note"), ": "),
                    str(item.get("text") or ""),
                )
            )
    return join(el("h2", None, f"Timeline ({len(run.steps)} steps)"), items)


def render_html(
    run: RunView,
    directory: Path,
    compared: Markup | None = None,
    film: tuple[bytes, str] | None = None,
) -> str:
    """The report as one HTML document (pictures read from ``directory``); ``compared``: the
    section that sets the run beside its baseline (``compare.render_comparison``); ``film``: the
    recording (``recording.make_recording``) and the name of its file."""
    body = join(
        _summary(run),
        compared,
        recording_section(*film) if film else None,
        _sites(run),
        _pages(run),
        _failures(run, directory),
        _timeline(run, directory),
        el(
            "p",
            {"class": "muted"},
            "Made by `reins report` from ",
            el("code", None, str(directory)),
            ".",
        ),
    )
    page = el(
        "html",
        {"lang": "en"},
        el(
            "head",
            None,
            el("meta", {"charset": "utf-8"}),
            el("meta", {"http-equiv": "Content-Security-Policy", "content": _CSP}),
            el("meta", {"name": "viewport", "content": "width=device-width"}),
            el("title", None, f"{run.name} — {', '.join(run.verdict)}"),
            el("style", None, raw(CSS)),
        ),
        el("body", None, body),
    )
    return "<!doctype html>\n" + page + "\n"


def read_trace_run(directory: Path) -> RunView:
    """The run the trace in ``directory`` tells."""
    trace = read_trace_text(directory)
    return read_run(trace.lines, damaged=len(trace.damaged), cut_short=trace.cut_short)


def write_report(
    directory: Path,
    output: Path | None = None,
    *,
    fmt: str = "html",
    baseline: Path | None = None,
) -> tuple[Path, RunView, Comparison | None]:
    """Read the trace in ``directory`` and write its report (default ``DIR/report.html``), with
    the run set beside the trace in ``baseline`` when one is given; the file written, the run it
    tells and the comparison."""
    from reins.trace.markdown import render_markdown

    run = read_trace_run(directory)
    cmp = compare_runs(read_trace_run(baseline), run) if baseline is not None else None
    output = (output or directory / f"report.{'html' if fmt == 'html' else 'md'}").absolute()
    if fmt == "html":
        compared = render_comparison(cmp, baseline, directory) if cmp and baseline else None
        film = make_recording(run, directory)
        if film is not None:  # beside the report, to watch or share on its own
            film_path = output.with_name(f"{output.stem}-recording.webp")
            write_private(film_path, film)
        text = render_html(run, directory, compared, (film, film_path.name) if film else None)
    else:
        text = render_markdown(run, directory, cmp)
    # The report holds what the trace holds (page content, pictures): private like it.
    write_private(output, text.encode("utf-8"))
    return output, run, cmp
