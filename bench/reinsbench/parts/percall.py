"""One command as an agent runs it, whole process (`--only percall`): `reins` (the compiled
client and the warm CLI), `reins-py` (the console script) and agent-browser on the same small page,
turn about; then the steps of an agent — observe, fill, click, check — by the CLI per call and
through one `reins mcp` session. The page counts the clicks and keeps the field's value: each
tool's figures count only if its page shows them."""

from __future__ import annotations

import asyncio
import functools
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..context import Context
from ..harness import Cell, Run, fmt_ms, ratio, table
from ..peers import PROFILE

PAGE = "static/percall.html"
STEPS = ("observe", "fill", "click", "check")
FIELD_JS = "[window.__clicks, document.querySelector('#name').value]"


# Each command: its label, reins's arguments, agent-browser's for the same thing.
COMMANDS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("status (agent-browser: get title)", ("status",), ("get", "title")),
    ("eval 1+1", ("eval", "1+1"), ("eval", "1+1")),
    ("click #b", ("click", "#b"), ("click", "#b")),
    ("fill #name", ("fill", "#name", "Ada Lovelace"), ("fill", "#name", "Ada Lovelace")),
    ("state, small page (agent-browser: snapshot -i)", ("state",), ("snapshot", "-i")),
)


def _calls(ctx: Context) -> dict[str, dict[str, Callable[[], Run]]]:
    """Per command: the callable of each tool."""
    r, a = ctx.reins, ctx.ab
    out: dict[str, dict[str, Callable[[], Run]]] = {}
    for label, mine, theirs in COMMANDS:
        tools: dict[str, Callable[[], Run]] = {
            "reins": functools.partial(r.cli, *mine),
            "reins-py": functools.partial(r.cli_console, *mine),
        }
        if a is not None:
            tools["agent-browser"] = functools.partial(a.cli, *theirs)
        out[label] = tools
    return out


def _clicks_seen(ctx: Context) -> dict[str, Any]:
    """Each tool's page: its click count and field value (the oracle)."""
    seen: dict[str, Any] = {"reins": ctx.reins.eval(FIELD_JS)}
    if ctx.ab is not None:
        run = ctx.ab.cli("eval", f"JSON.stringify({FIELD_JS})")
        seen["agent-browser"] = run.out.strip() if run.ok else run.error
    return seen


def _agent_steps_cli(ctx: Context, tool: str) -> dict[str, Run]:
    r, a = ctx.reins, ctx.ab
    if tool == "agent-browser":
        assert a is not None
        return {
            "observe": a.cli("snapshot", "-i"),
            "fill": a.cli("fill", "#name", "Grace Hopper"),
            "click": a.cli("click", "#b"),
            "check": a.cli("get", "text", "#out"),
        }
    cli = r.cli if tool == "reins" else r.cli_console
    return {
        "observe": cli("state"),
        "fill": cli("fill", "#name", "Grace Hopper"),
        "click": cli("click", "#b"),
        "check": cli("eval", "document.querySelector('#out').textContent"),
    }


async def _agent_steps_mcp(ctx: Context, reps: int) -> tuple[dict[str, Cell], str]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "reins.cli", "--profile", PROFILE, "mcp"],
        env={k: v for k, v in ctx.reins.env.items() if k in ("REINS_HOME", "PYTHONPATH", "PATH")},
    )
    cells = {step: Cell() for step in STEPS}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("navigate", {"url": ctx.url(PAGE)})
        calls: dict[str, tuple[str, dict[str, Any]]] = {
            "observe": ("state", {}),
            "fill": ("fill", {"target": "#name", "value": "Grace Hopper"}),
            "click": ("click", {"target": "#b"}),
            "check": ("eval", {"expression": "document.querySelector('#out').textContent"}),
        }
        for _ in range(reps):
            for step, (tool, args) in calls.items():
                start = time.perf_counter()
                result = await session.call_tool(tool, args)
                seconds = time.perf_counter() - start
                cells[step].add(Run(seconds, not result.is_error))
        final = await session.call_tool("eval", {"expression": "window.__clicks"})
        seen = " ".join(getattr(c, "text", "") for c in final.content)
    return cells, seen


def run(ctx: Context) -> None:
    ctx.progress("per call, whole process")
    url = ctx.url(PAGE)
    ctx.reins.open(url)
    if ctx.ab is not None:
        ctx.ab.open(url)
    calls = _calls(ctx)
    tools = ["reins", "reins-py"] + (["agent-browser"] if ctx.ab is not None else [])
    cells = {cmd: {tool: Cell() for tool in by_tool} for cmd, by_tool in calls.items()}
    for cmd, by_tool in calls.items():
        for tool in by_tool:
            by_tool[tool]()  # one untimed call each: the warm CLI started, pages settled
        for _ in range(ctx.reps):
            for tool, call in by_tool.items():
                cells[cmd][tool].add(call())
    # The oracle: each page's own count against the clicks its tools answered ok (one untimed
    # click each included); reins and reins-py share one page.
    answered = {t: 1 + len(cells["click #b"][t].ok_seconds) for t in tools}
    expected = {"reins": answered["reins"] + answered["reins-py"]}
    if "agent-browser" in answered:
        expected["agent-browser"] = answered["agent-browser"]
    seen = _clicks_seen(ctx)
    rows = []
    for cmd, timed_cells in cells.items():
        ab = timed_cells.get("agent-browser")
        rows.append(
            [
                cmd,
                *[
                    f"{fmt_ms(timed_cells[t].median_ms)} ({timed_cells[t].failures()})"
                    for t in tools
                ],
                ratio(timed_cells["reins"].median_ms, ab.median_ms if ab else None),
            ]
        )
    ctx.say("## Per call, whole process (issue 35: ≤ 2× agent-browser)\n")
    ctx.say(
        "`reins` is the compiled client handing each command to the warm CLI; `reins-py` the "
        "console script. Median ms (failures). Each page's own record after the run, "
        f"[clicks, field]: {seen}; clicks answered ok: {expected}.\n"
    )
    ctx.say(table(["command", *tools, "reins / agent-browser"], rows))
    ctx.say()
    ctx.data["percall"] = {
        cmd: {t: c.median_ms for t, c in by_tool.items()} for cmd, by_tool in cells.items()
    }
    _agent_steps(ctx, tools)


def _agent_steps(ctx: Context, tools: list[str]) -> None:
    ctx.progress("the steps of an agent")
    steps = {tool: {s: Cell() for s in STEPS} for tool in tools}
    for _ in range(ctx.reps):
        for tool in tools:
            for step, run in _agent_steps_cli(ctx, tool).items():
                steps[tool][step].add(run)
    # In a thread of its own: Playwright's sync API keeps an event loop on this one.
    with ThreadPoolExecutor(1) as pool:
        mcp_cells, mcp_seen = pool.submit(asyncio.run, _agent_steps_mcp(ctx, ctx.reps)).result()
    steps["reins mcp"] = mcp_cells
    rows = []
    per_step: dict[str, float | None] = {}
    for tool, by_step in steps.items():
        medians = [by_step[s].median_ms for s in STEPS]
        mean = sum(m for m in medians if m is not None) / len(STEPS) if all(medians) else None
        per_step[tool] = mean
        rows.append(
            [tool, *[fmt_ms(m) for m in medians], fmt_ms(mean)]
            + [", ".join(by_step[s].failures() for s in STEPS)]
        )
    ab = per_step.get("agent-browser")
    for row, tool in zip(rows, steps, strict=True):
        row.append(ratio(per_step[tool], ab))
    ctx.say(
        "## The steps of an agent: observe, fill, click, check (issue 35: per step ≤ agent-browser)\n"
    )
    ctx.say(
        "Each step's median ms; the CLI tools one process a step, `reins mcp` one session (the "
        f"page's click count at its end: {mcp_seen}).\n"
    )
    ctx.say(table(["tool", *STEPS, "per step", "failures", "per step / agent-browser"], rows))
    ctx.say()
    ctx.data["agent_steps"] = per_step
