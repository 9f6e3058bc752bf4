"""reins side by side with agent-browser and Playwright, in one run, on the same Chromium and pages.

Run through `scripts/bench` (it picks the project's .venv and puts this package on the path). Prints
markdown tables: medians over repetitions, failures counted (never dropped), and ratios reins/peer.
Not a test: no timed asserts. The test suite runs `scripts/ctx --quick` only so this script cannot
rot. How each figure is taken: reinsbench.harness; the parts, in the order they run: PARTS.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .context import Context
from .harness import fixture_server, versions
from .parts import actions, bridge, diff, flow, memory, percall, phases, snapshots, widgets
from .peers import AgentBrowser, PlaywrightPeer, Reins

# The parts `--only` names, in the order they run; all but phases run by default.
PARTS: dict[str, Callable[[Context], None]] = {
    "bridge": bridge.run,
    "percall": percall.run,
    "actions": actions.run,
    "flow": flow.run,
    "widgets": widgets.run,
    "phases": phases.run,
    "snapshots": snapshots.run,
    "memory": memory.run,
    "diff": diff.run,
}
DEFAULT_PARTS = set(PARTS) - {"phases"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke mode: tiny page, 2 repetitions, seconds (run by the tests)",
    )
    parser.add_argument(
        "--reps", type=int, default=None, help="repetitions (default 10; --quick 2)"
    )
    parser.add_argument(
        "--sizes", default=None, help="element counts (default 100,1000,5000,20000)"
    )
    parser.add_argument(
        "--only",
        default=None,
        help="comma list of parts: bridge,percall,actions,flow,widgets,snapshots,diff,memory,"
        "phases (default all but phases)",
    )
    parser.add_argument("--no-peers", action="store_true", help="reins only")
    parser.add_argument(
        "--json", dest="json_out", default=None, help="also write raw figures to FILE"
    )
    parser.add_argument("--markdown", default=None, help="also write the tables to FILE")
    args = parser.parse_args(argv)

    reps = args.reps or (2 if args.quick else 10)
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else [50]
        if args.quick
        else [100, 1000, 5000, 20000]
    )
    parts = set(args.only.split(",")) if args.only else DEFAULT_PARTS

    # SIGTERM (e.g. a test's timeout) must still run the clean-up below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    home = Path(tempfile.mkdtemp(prefix="reins-bench-"))
    reins = Reins(home)
    ab: AgentBrowser | None = None
    pw: PlaywrightPeer | None = None
    notes: list[str] = []
    started = time.monotonic()
    load_start = os.getloadavg()
    try:
        with fixture_server() as base:
            if not args.no_peers:
                exe = AgentBrowser.find()
                if exe:
                    ab = AgentBrowser(exe, home / "ab")
                    (home / "ab").mkdir()
                else:
                    notes.append(
                        "agent-browser not installed: skipped (npm install --prefix "
                        "bench/agent-browser agent-browser)"
                    )
                if PlaywrightPeer.available():
                    pw = PlaywrightPeer()
                else:
                    notes.append(
                        "playwright not installed: skipped (.venv/bin/pip install -e '.[bench]')"
                    )
            bytecode = reins.compile()
            reins.launch()
            ctx = Context(
                reps=reps,
                sizes=sizes,
                small_n=50,
                batch_len=5 if args.quick else 20,
                flow_reps=1 if args.quick else reps,
                base=base,
                reins=reins,
                ab=ab,
                pw=pw,
            )
            info = versions(f"{ab.version()} ({ab.exe})" if ab else None, pw is not None)
            info["reins bytecode"] = bytecode
            ctx.say(f"# reins benchmark{' (--quick)' if args.quick else ''}\n")
            for key, value in info.items():
                ctx.say(f"- {key}: {value}")
            ctx.say(
                f"- repetitions: {reps}; sizes: {', '.join(f'{n:,}' for n in sizes)}; "
                f"load average at start: {load_start[0]:.2f}"
            )
            for note in notes:
                ctx.say(f"- note: {note}")
            ctx.say()
            ctx.reins.open(ctx.url(f"static/big.html?n={ctx.small_n}"))
            ctx.sample_memory("idle, after launch and one small page")
            for name, part in PARTS.items():
                if name in parts:
                    part(ctx)
            memory.report(ctx)
            load_end = os.getloadavg()
            ctx.say(
                f"Run took {time.monotonic() - started:,.0f} s; load average at the end "
                f"{load_end[0]:.2f} (1 min), {load_end[1]:.2f} (5 min)."
            )
            ctx.data["info"] = info
            if args.json_out:
                Path(args.json_out).write_text(json.dumps(ctx.data, indent=1))
            if args.markdown:
                Path(args.markdown).write_text("\n".join(ctx.out) + "\n")
    finally:
        if pw:
            pw.close()
        if ab:
            ab.close()
        reins.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    return 0
