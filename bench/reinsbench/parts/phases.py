"""Where the time goes (`--only phases`, not in the default run): an action split at the page's
first event, a snapshot split into the page script, the host and the whole process."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ..context import Context
from ..harness import ROOT, Cell, fmt_ms, median, median_ms, table, timed
from ..peers import ab_refs


def run(ctx: Context) -> None:
    """Split whole-process times with clocks both sides share, without touching the host.

    Action: the page stamps Date.now() at pointerdown / input, the bench stamps time.time()
    around the process. Snapshot: the page script timed inside the page (performance.now()),
    the host's own elapsed_ms (state --json), and the whole process.
    """
    ctx.progress("phases")
    py = ctx.reins.python
    imports = Cell()
    for _ in range(ctx.reps):
        imports.add(timed([py, "-c", "import reins.cli"], ctx.reins.env))
    url = ctx.url(f"static/big.html?n={ctx.small_n}")
    stamp = (
        "window.__t = []; for (const e of ['pointerdown', 'input']) document.addEventListener("
        "e, () => window.__t.push(Date.now()), true); 0"
    )
    rows = []
    tools: list[tuple[str, Any, list[str]]] = [("reins", ctx.reins, [])]
    ctx.reins.open(url)
    ctx.reins.cli("state")
    if ctx.ab:
        ctx.ab.open(url)
        ab_ref = ab_refs(ctx.ab.cli("snapshot", "-i").out)
        tools.append(
            (
                "agent-browser",
                ctx.ab,
                [
                    "@" + ab_ref.get(("button", "Button 0"), "e2"),
                    "@" + ab_ref.get(("textbox", "Field 2"), "e4"),
                ],
            )
        )
    for name, tool, refs in tools:
        tool.eval(stamp)
        for action in ("click", "fill"):
            before, after = [], []
            for rep in range(ctx.reps):
                target = (
                    (refs[0] if refs else "@btn0")
                    if action == "click"
                    else (refs[1] if refs else "@input2")
                )
                argv = ["click", target] if action == "click" else ["fill", target, f"x{rep}"]
                t0 = time.time()
                run = tool.cli(*argv)
                t1 = time.time()
                stamps = tool.eval("window.__t.splice(0)")
                if run.ok and stamps:
                    first, last = min(stamps) / 1000, max(stamps) / 1000
                    before.append(first - t0)
                    after.append(t1 - last)
            rows.append(
                [
                    f"{name} {action}",
                    fmt_ms(median_ms(before)),
                    fmt_ms(median_ms(after)),
                    str(len(before)),
                ]
            )
    ctx.say("## Where an action's time goes (whole process, split at the page's first event)\n")
    ctx.say(
        f"CLI start-up alone (`python -c 'import reins.cli'`): median {fmt_ms(imports.median_ms)} ms.\n"
    )
    ctx.say(
        table(
            [
                "command",
                "start → first page event ms",
                "last page event → process exit ms",
                "reps",
            ],
            rows,
        )
    )
    ctx.say()

    sys.path.insert(0, str(ROOT / "host"))
    from reins.observe.collect import MAX_ELEMENTS, collect_expression

    # What `state` asks for: the compact record, answered as one JSON string.
    body = collect_expression(
        {
            "viewportOnly": False,
            "maxElements": MAX_ELEMENTS,
            "withSelectors": True,
            "compact": True,
        }
    )
    timing = (
        "(() => { const t0 = performance.now(); const s = "
        + body
        + "; const t1 = performance.now(); "
        "return [t1 - t0, 0, s.length, JSON.parse(s).elements.length]; })()"
    )
    rows = []
    for n in ctx.sizes:
        ctx.reins.open(ctx.url(f"static/big.html?n={n}"))
        for source in ("dom", "ax"):
            whole, host, page, size = Cell(), [], [], 0
            for _ in range(ctx.reps):
                run = whole.add(ctx.reins.cli("--json", "state", "--source", source))
                if run.ok:
                    host.append(float(json.loads(run.out)["elapsed_ms"]))
                if source == "dom":
                    measured = ctx.reins.eval(timing)
                    if isinstance(measured, list):
                        page.append(float(measured[0]))
                        size = int(measured[2])
            rows.append(
                [
                    f"{n:,}",
                    source,
                    fmt_ms(whole.median_ms),
                    fmt_ms(median(host)),
                    fmt_ms(median(page)) if page else "",
                    f"{size / 1e6:.2f} MB" if page else "",
                    whole.failures(),
                ]
            )
    ctx.say("## Where a snapshot's time goes\n")
    ctx.say(
        "whole = `reins state --json` process; host = the host's elapsed_ms for the command; "
        "page script = the collection script alone, timed inside the page with performance.now() "
        "(run through `reins eval`), and the size of its JSON result, which crosses the "
        "extension and native messaging.\n"
    )
    ctx.say(
        table(
            [
                "N",
                "source",
                "whole ms",
                "host ms",
                "page script ms",
                "page → host JSON",
                "failures",
            ],
            rows,
        )
    )
    ctx.say()
