"""A run beside its baseline (a trace of a good run): steps paired, what changed, the first
divergence.

Pure: two ``RunView`` in, plain data out (``report.py`` renders it). Steps are paired by their
command line, in order, the way a diff pairs lines (``difflib``: a step added or left out since
the baseline shifts nothing after it); commands that changed in place are paired by position. A
pair differs when the step passed then and failed now (or the other way, or failed another way),
its effect changed (a navigation then and none now, another value committed), the page logged a
console error or a request failed now that did not then, or the step is only in one run. Times
are shown, never a difference: a machine's speed is not a regression of the app.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reins.trace.html import Markup, el, join, picture
from reins.trace.run import RunView, Step

__all__ = ["Comparison", "Pair", "compare_runs", "effect_summary", "render_comparison"]

# The differing steps shown with their pictures side by side, at most.
_SHOWN_WITH_PICTURES = 10

# Differences listed per kind of evidence, at most (the rest counted).
_MAX_LISTED = 3


@dataclass(frozen=True)
class Pair:
    then: Step | None
    now: Step | None
    differences: tuple[str, ...] = ()

    @property
    def differs(self) -> bool:
        return bool(self.differences)

    @property
    def command(self) -> str:
        step = self.now or self.then
        assert step is not None
        return step.cli


@dataclass
class Comparison:
    baseline: RunView
    pairs: list[Pair] = field(default_factory=list)

    @property
    def first(self) -> Pair | None:
        """The first divergence: the earliest pair that differs."""
        return next((p for p in self.pairs if p.differs), None)

    @property
    def differing(self) -> int:
        return sum(1 for p in self.pairs if p.differs)

    def summary(self) -> dict[str, Any]:
        """What `reins run --baseline --json` says of it."""
        first = self.first
        return {
            "steps_compared": len(self.pairs),
            "differing": self.differing,
            "first_divergence": None
            if first is None
            else {
                "step_then": first.then.number if first.then else None,
                "step_now": first.now.number if first.now else None,
                "command": first.command,
                "differences": list(first.differences),
            },
        }


def _result(step: Step) -> str:
    return "passed" if step.ok else f"failed ({(step.error or {}).get('code', 'error')})"


def _path(url: Any) -> str:
    try:
        return urlsplit(str(url)).path or "/"
    except ValueError:
        return "?"


def effect_summary(step: Step) -> list[str]:
    """The effect of a step as short comparable sentences (``value: "12.50"``, ``url: /saved``).
    Only what a person would call the app's behaviour: the values committed, the page gone to
    (by path: a query or fragment often holds a session's ids), a tab closed, downloads; not the
    counts of DOM changes, focus or timing, which differ from run to run."""
    effect = step.effect or {}
    out = []
    for key in ("value", "checked", "selected", "expanded"):
        change = effect.get(key)
        if isinstance(change, dict) and "to" in change:
            out.append(f"{key}: {json.dumps(change.get('to'), ensure_ascii=False)}")
    url = effect.get("url")
    if isinstance(url, dict) and "to" in url:
        out.append(f"url: {_path(url.get('to'))}")
    elif effect.get("navigated"):
        out.append("navigated")
    for key in ("tab_closed", "unknown"):
        if effect.get(key):
            out.append(key.replace("_", " "))
    downloads = effect.get("downloads")
    if isinstance(downloads, list) and downloads:
        out.append(f"downloads: {len(downloads)}")
    return out


def _listed(label: str, items: list[str]) -> list[str]:
    shown = [f"{label}: {item}" for item in items[:_MAX_LISTED]]
    if len(items) > _MAX_LISTED:
        shown.append(f"{len(items) - _MAX_LISTED} more {label}s")
    return shown


def _request(entry: dict[str, Any]) -> str:
    url = str(entry.get("url") or "?")
    try:
        parts = urlsplit(url)
        url = f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.scheme else url
    except ValueError:
        pass
    status = entry.get("status")
    return f"{url} ({status if status is not None else entry.get('error') or 'failed'})"


def _text(entry: dict[str, Any]) -> str:
    return str(entry.get("text") or "")


def _differences(then: Step, now: Step) -> list[str]:
    out = []
    if then.ok != now.ok or (then.error or {}).get("code") != (now.error or {}).get("code"):
        out.append(f"{_result(then)} then, {_result(now)} now")
    before, after = effect_summary(then), effect_summary(now)
    if before != after:
        out.append(f"effect then: {'; '.join(before) or 'none'}; now: {'; '.join(after) or 'none'}")
    seen = {_text(c) for c in then.console_errors}
    out += _listed(
        "new console error", [_text(c) for c in now.console_errors if _text(c) not in seen]
    )
    failed = {_request(n) for n in then.failed_requests}
    out += _listed(
        "new failed request", [r for r in map(_request, now.failed_requests) if r not in failed]
    )
    return out


def compare_runs(then: RunView, now: RunView) -> Comparison:
    """Pair the steps of ``now`` with those of the baseline ``then``."""
    a, b = then.steps, now.steps
    matcher = SequenceMatcher(None, [s.cli for s in a], [s.cli for s in b], autojunk=False)
    pairs: list[Pair] = []
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            old = olds[k] if k < len(olds) else None
            new = news[k] if k < len(news) else None
            if old is not None and new is not None:
                changed = [] if old.cli == new.cli else ["the command changed"]
                pairs.append(Pair(old, new, tuple(changed + _differences(old, new))))
            elif old is not None:
                pairs.append(Pair(old, None, ("not run now (only in the baseline)",)))
            else:
                pairs.append(Pair(None, new, ("a step the baseline does not have",)))
    return Comparison(then, pairs)


def _number(step: Step | None) -> str:
    return "—" if step is None else f"#{step.number}"


def _cell(step: Step | None) -> Markup:
    if step is None:
        return el("td", {"class": "muted"}, "not run")
    mark = (
        el("span", {"class": "okmark"}, "ok")
        if step.ok
        else el("span", {"class": "badmark"}, (step.error or {}).get("code", "failed"))
    )
    return el("td", None, mark, el("span", {"class": "muted"}, f" {step.duration_ms} ms"))


def _side_by_side(pair: Pair, then_dir: Path, now_dir: Path) -> Markup:
    shots = []
    for label, step, directory in (("baseline", pair.then, then_dir), ("now", pair.now, now_dir)):
        if step is not None:
            shots.append(picture(directory, step.before, f"{label}, step {step.number}, before"))
            shots.append(picture(directory, step.after, f"{label}, step {step.number}, after"))
    return el("div", {"class": "pictures"}, shots) if any(shots) else join()


def render_comparison(cmp: Comparison, then_dir: Path, now_dir: Path) -> Markup:
    """The report's section for a run beside its baseline: the first divergence, every step
    then and now, and the differing steps' pictures side by side."""
    base, first = cmp.baseline, cmp.first
    head = el(
        "p",
        None,
        "Baseline ",
        el("code", None, str(then_dir)),
        f" — {base.name}, {base.started or '?'}, {', '.join(base.verdict)}. ",
        f"{len(cmp.pairs)} steps compared, {cmp.differing} differ.",
    )
    if first is None:
        lead = el("p", None, el("b", None, "No step differs from the baseline."))
    else:
        lead = el(
            "div",
            {"class": "failure", "id": "first-divergence"},
            el("b", None, "First divergence: "),
            el("code", None, first.command),
            f" (step {_number(first.then)} then, {_number(first.now)} now)",
            el("ul", None, [el("li", None, d) for d in first.differences]),
        )
    rows = [
        el(
            "tr",
            {"class": "bad" if pair.differs else None},
            el("td", None, _number(pair.then)),
            el("td", None, _number(pair.now)),
            el("td", None, el("code", None, pair.command)),
            _cell(pair.then),
            _cell(pair.now),
            el("td", None, [el("div", None, d) for d in pair.differences]),
        )
        for pair in cmp.pairs
    ]
    table = el(
        "table",
        None,
        el(
            "tr",
            None,
            [el("th", None, h) for h in ("then", "now", "command", "baseline", "now", "changed")],
        ),
        rows,
    )
    differing = [p for p in cmp.pairs if p.differs]
    shown = [
        el(
            "div",
            {"class": "step failed"},
            el("h3", None, el("code", None, pair.command)),
            el("ul", None, [el("li", None, d) for d in pair.differences]),
            _side_by_side(pair, then_dir, now_dir),
        )
        for pair in differing[:_SHOWN_WITH_PICTURES]
    ]
    more = len(differing) - len(shown)
    return join(
        el("h2", None, "Compared with the baseline"),
        head,
        lead,
        table,
        shown,
        el("p", {"class": "muted"}, f"… {more} more differing steps in the table")
        if more
        else None,
    )
