"""Snapshots of big.html?n=N (`--only snapshots`): reins's two sources, agent-browser's
`snapshot -i` and Playwright's aria snapshots, with the ratios reins/peer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..context import Context
from ..harness import Cell, Run, fmt_ms, in_process, ratio, table
from ..peers import count_refs

SLOW_RUN_S = 20.0  # a cell whose first run takes longer than this gets SLOW_REPS repetitions
SLOW_REPS = 3


def run(ctx: Context) -> None:
    # Each reins source observes the page in a tab of its own, as an agent using one source
    # does: taking turns on one tab, each source's look would redefine what the other's
    # registry entries and carried-over records say, which no agent does.
    tabs: dict[str, str] = {}
    tools: list[tuple[str, Callable[[], Run]]] = [
        ("reins state (dom)", lambda: ctx.reins.cli("--tab", tabs["dom"], "state")),
        (
            "reins state --source ax",
            lambda: ctx.reins.cli("--tab", tabs["ax"], "state", "--source", "ax"),
        ),
    ]
    if ctx.ab:
        ab = ctx.ab
        tools.append(("agent-browser snapshot -i", lambda: ab.cli("snapshot", "-i")))
    if ctx.pw:
        page = ctx.pw.page
        tools.append(
            (
                "playwright aria_snapshot()",
                lambda: in_process(lambda: page.aria_snapshot(timeout=0)),
            )
        )
        tools.append(
            (
                "playwright aria_snapshot(mode=ai)",
                lambda: in_process(lambda: page.aria_snapshot(mode="ai", timeout=0)),
            )
        )
    results: dict[int, dict[str, Cell]] = {}
    for n in ctx.sizes:
        url = ctx.url(f"static/big.html?n={n}")
        ctx.progress(f"snapshots, n={n}")
        opens = {"reins": ctx.reins.open(url)}
        tabs["dom"] = str(_current_tab(ctx))
        tabs["ax"], opened = _new_tab(ctx, url)
        opens["reins (ax tab)"] = opened
        if ctx.ab:
            opens["agent-browser"] = ctx.ab.open(url)
        if ctx.pw:
            opens["playwright"] = ctx.pw.open(url)
        for tool, run in opens.items():
            if not run.ok:
                ctx.progress(f"{tool}: opening {url} failed: {run.error}")
        cells = {name: Cell() for name, _ in tools}
        wanted: dict[str, int] = {}
        for name, fn in tools:  # the first snapshot after opening: untimed, failures counted
            first = fn()
            cells[name].first = first
            if name.startswith("reins") and first.error in ("timeout", "tab_unresponsive"):
                _reopen(ctx, tabs, name, url)
            wanted[name] = SLOW_REPS if first.seconds > SLOW_RUN_S else ctx.reps
            if wanted[name] < ctx.reps:
                cells[
                    name
                ].note = (
                    f"{wanted[name]} reps (first run {first.seconds:.0f} s > {SLOW_RUN_S:.0f} s)"
                )
            ctx.progress(
                f"  {name}: first {first.seconds * 1000:,.0f} ms "
                f"{'ok' if first.ok else 'FAILED ' + first.error}"
            )
        for rep in range(max(wanted.values())):
            for name, fn in tools:
                if rep < wanted[name]:
                    run = cells[name].add(fn())
                    if name.startswith("reins") and run.error in (
                        "timeout",
                        "tab_unresponsive",
                    ):
                        ctx.progress(f"  {name}: {run.error}; reopening the page (untimed)")
                        _reopen(ctx, tabs, name, url)
        ctx.reins.cli("tab", "close", tabs["ax"])
        ctx.reins.cli("tab", "select", tabs["dom"])
        results[n] = cells
        if n == max(ctx.sizes):
            ctx.sample_memory(f"after the n={n} snapshots (both sources)")
    _tables(ctx, results)
    ctx.reins.open(ctx.url(f"static/big.html?n={ctx.small_n}"))
    ctx.sample_memory("idle again, back on the small page")


def _current_tab(ctx: Context) -> int | None:
    run = ctx.reins.cli("--json", "tabs")
    return json.loads(run.out).get("current") if run.ok else None


def _new_tab(ctx: Context, url: str) -> tuple[str, Run]:
    """A tab of reins's own on ``url`` (its id, and the run); the tab before stays current."""
    before = _current_tab(ctx)
    run = ctx.reins.cli("--json", "tab", "new", url)
    tab = str(json.loads(run.out).get("id")) if run.ok else str(before)
    if before is not None:
        ctx.reins.cli("tab", "select", str(before))
    return tab, run


def _reopen(ctx: Context, tabs: dict[str, str], name: str, url: str) -> None:
    """A wedged tab cannot be navigated: the source whose look failed gets a new one."""
    which = "ax" if "--source ax" in name else "dom"
    ctx.reins.cli("tab", "close", tabs[which])
    tabs[which], _ = _new_tab(ctx, url)


def _tables(ctx: Context, results: dict[int, dict[str, Cell]]) -> None:
    ctx.say("## Snapshot of big.html?n=N (N interactive elements)\n")
    ctx.say(
        "Medians of the timed repetitions; the first snapshot after opening the page is run "
        "once untimed (its time is the 'first look' column: no earlier observation of the "
        "page to carry anything over from) and its failure, if any, is counted. Each reins "
        "source looks at the page in a tab of its own. reins and agent-browser: whole "
        "process; Playwright: in-process call. Size: characters printed; tokens ≈ chars/4; "
        "refs: addressable references in the output.\n"
    )
    rows = []
    summary: dict[str, Any] = {}
    for n, cells in results.items():
        for name, cell in cells.items():
            last = cell.last_ok()
            chars = len(last.out) if last else None
            med = cell.median_ms
            rows.append(
                [
                    f"{n:,}",
                    name,
                    fmt_ms(med),
                    cell.spread(),
                    fmt_ms(cell.first.seconds * 1000) if cell.first else "—",
                    f"{chars:,}" if chars is not None else "—",
                    f"{chars // 4:,}" if chars is not None else "—",
                    f"{count_refs(name, last.out):,}" if last else "—",
                    f"{med / n * 1000:,.0f}" if med is not None else "—",
                    cell.failures(),
                    str(len(cell.runs)) + (f" ({cell.note})" if cell.note else ""),
                ]
            )
            summary.setdefault(str(n), {})[name] = {
                "median_ms": med,
                "chars": chars,
                "failures": cell.failures(),
                "reps": len(cell.runs),
            }
    ctx.say(
        table(
            [
                "N",
                "tool",
                "median ms",
                "min–max ms",
                "first look ms (untimed run)",
                "chars",
                "≈ tokens",
                "refs",
                "µs per element",
                "failures",
                "reps",
            ],
            rows,
        )
    )
    ctx.say()
    ctx.data["snapshots"] = summary
    if "agent-browser snapshot -i" in next(iter(results.values())) or ctx.pw:
        rows = []
        for n, cells in results.items():
            dom, ax = cells["reins state (dom)"], cells["reins state --source ax"]
            for peer in ("agent-browser snapshot -i", "playwright aria_snapshot(mode=ai)"):
                if peer not in cells:
                    continue
                p = cells[peer]
                pl, dl, al = p.last_ok(), dom.last_ok(), ax.last_ok()
                rows.append(
                    [
                        f"{n:,}",
                        peer,
                        ratio(dom.median_ms, p.median_ms),
                        ratio(ax.median_ms, p.median_ms),
                        ratio(len(dl.out) if dl else None, len(pl.out) if pl else None),
                        ratio(len(al.out) if al else None, len(pl.out) if pl else None),
                    ]
                )
        ctx.say("### Ratios reins/peer (time: medians; size: characters)\n")
        ctx.say(
            table(
                ["N", "peer", "time dom/peer", "time ax/peer", "size dom/peer", "size ax/peer"],
                rows,
            )
        )
        ctx.say()
