"""The reins host's memory (`--only memory`): samples around a big page, and the table of every
sample the run took (the launcher prints it last, whichever parts ran)."""

from __future__ import annotations

import time

from ..context import Context
from ..harness import table


def report(ctx: Context) -> None:
    rows = [
        [m["when"], str(m["pid"]), f"{m.get('VmRSS', 0):.1f}", f"{m.get('VmHWM', 0):.1f}"]
        for m in ctx.data.get("memory", [])
    ]
    ctx.say("## reins host memory (RSS of the host process, /proc/PID/status)\n")
    ctx.say(table(["when", "host pid", "VmRSS MiB", "VmHWM (peak) MiB"], rows))
    ctx.say()


def run(ctx: Context) -> None:
    n = max(ctx.sizes)
    ctx.progress(f"memory, n={n}")
    ctx.reins.open(ctx.url(f"static/big.html?n={ctx.small_n}"))
    ctx.reins.cli("state")
    ctx.sample_memory("small page, after state")
    ctx.reins.open(ctx.url(f"static/big.html?n={n}"))
    for _ in range(2):
        ctx.reins.cli("state")
    ctx.sample_memory(f"after 2 states of n={n} (dom)")
    ctx.reins.cli("find", "--text", "Button 5")
    ctx.sample_memory(f"after find on n={n} (its interaction map)")
    ctx.reins.open(ctx.url(f"static/big.html?n={ctx.small_n}"))
    ctx.sample_memory("navigated to the small page, before observing it")
    ctx.reins.cli("state")
    time.sleep(1.0)  # the host gives memory back just after the answer
    ctx.sample_memory("small page, 1 s after its state")
