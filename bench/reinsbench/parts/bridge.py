"""Trivial commands as whole processes (`--only bridge`): what a reins call costs before it does
anything, next to the interpreter's own start and agent-browser's cheapest command."""

from __future__ import annotations

from ..context import Context
from ..harness import Cell, fmt_ms, table, timed


def run(ctx: Context) -> None:
    ctx.progress("trivial commands")
    ctx.reins.open(ctx.url(f"static/big.html?n={ctx.small_n}"))
    py = ctx.reins.python
    cells: dict[str, Cell] = {
        k: Cell()
        for k in (
            "reins status",
            "reins tabs",
            "reins cdp Runtime.evaluate 1",
            "python -c pass (interpreter start)",
            "python -c 'import reins.cli' (start + CLI imports)",
        )
    }
    ab_cell = Cell() if ctx.ab else None
    if ctx.ab:
        ctx.ab.open(ctx.url(f"static/big.html?n={ctx.small_n}"))
    for _ in range(ctx.reps):
        cells["reins status"].add(ctx.reins.cli("status"))
        cells["reins tabs"].add(ctx.reins.cli("tabs"))
        cells["reins cdp Runtime.evaluate 1"].add(
            ctx.reins.cli("cdp", "Runtime.evaluate", '{"expression":"1"}')
        )
        cells["python -c pass (interpreter start)"].add(timed([py, "-c", "pass"], ctx.reins.env))
        cells["python -c 'import reins.cli' (start + CLI imports)"].add(
            timed([py, "-c", "import reins.cli"], ctx.reins.env)
        )
        if ctx.ab and ab_cell is not None:
            ab_cell.add(ctx.ab.cli("get", "title"))
    rows = [[k, fmt_ms(c.median_ms), c.spread(), c.failures()] for k, c in cells.items()]
    if ab_cell is not None:
        rows.append(
            [
                "agent-browser get title (for comparison)",
                fmt_ms(ab_cell.median_ms),
                ab_cell.spread(),
                ab_cell.failures(),
            ]
        )
    ctx.say("## Trivial commands, whole process (issue 2: ≤ 50 ms)\n")
    ctx.say(table(["command", "median ms", "min–max ms", "failures"], rows))
    ctx.say()
    ctx.data["bridge"] = {k: c.median_ms for k, c in cells.items()}
    if ab_cell is not None:
        ctx.data["bridge"]["agent-browser get title"] = ab_cell.median_ms
