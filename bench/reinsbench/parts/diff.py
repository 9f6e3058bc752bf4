"""`state --diff` after a small change, next to `state` (`--only diff`)."""

from __future__ import annotations

from ..context import Context
from ..harness import Cell, fmt_ms, table


def run(ctx: Context) -> None:
    """`state --diff` after a small change (one button renamed, one added) next to `state`."""
    rows = []
    for n in ctx.sizes:
        url = ctx.url(f"static/big.html?n={n}")
        ctx.progress(f"state --diff, n={n}")
        ctx.reins.open(url)
        full, diff = Cell(), Cell()
        full_size = diff_size = 0
        for rep in range(ctx.reps):
            ctx.reins.eval(
                f"(() => {{ const b = document.querySelector('button');"
                f" b.textContent = 'Renamed {rep}'; const c = document.createElement('button');"
                f" c.textContent = 'Added {rep}'; document.body.prepend(c); return 1; }})()"
            )
            run = full.add(ctx.reins.cli("state"))
            full_size = len(run.out) if run.ok else full_size
            ctx.reins.eval(f"document.querySelector('button').textContent = 'Again {rep}'")
            run = diff.add(ctx.reins.cli("state", "--diff"))
            diff_size = len(run.out) if run.ok else diff_size
        rows.append(
            [
                f"{n:,}",
                fmt_ms(full.median_ms),
                f"{full_size:,}",
                f"{-(-full_size // 4):,}",
                fmt_ms(diff.median_ms),
                f"{diff_size:,}",
                f"{-(-diff_size // 4):,}",
                f"{diff_size / full_size:.1%}" if full_size else "—",
                f"{full.failures()} / {diff.failures()}",
            ]
        )
        ctx.data.setdefault("diff", {})[n] = {
            "state_ms": full.median_ms,
            "state_chars": full_size,
            "diff_ms": diff.median_ms,
            "diff_chars": diff_size,
        }
    ctx.say("## state --diff after a small change, next to state (big.html?n=N)\n")
    ctx.say(
        "Each repetition renames the first button and adds one, takes `reins state`, renames "
        "the first button again and takes `reins state --diff` (whole processes; text output; "
        "tokens ≈ chars/4).\n"
    )
    ctx.say(
        table(
            [
                "N",
                "state median ms",
                "state chars",
                "≈ tokens",
                "--diff median ms",
                "--diff chars",
                "≈ tokens",
                "size diff/state",
                "failures state / diff",
            ],
            rows,
        )
    )
    ctx.say()
