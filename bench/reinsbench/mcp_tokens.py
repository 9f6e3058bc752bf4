"""Tokens per step through `reins mcp`, next to an MCP server that answers every action with the
whole page snapshot (Playwright MCP's published behaviour: `--snapshot-mode full` is its default).

Run through `scripts/bench-mcp` (it picks the project's .venv and puts this package on the path).
Prints markdown tables; not a test.

reins is measured: the expense flow (state -> click the category trigger -> state -> click "Meals"
-> click Save) runs through the MCP SDK's stdio client against `reins mcp`, and every tool answer
is counted as the cap counts it (text chars/4; an image by its base64). The page is the oracle: the
flow counts only if the page then shows "Saved: … Meals".

The full-snapshot-per-action server is estimated two ways, both counted the same way:
- "reins state per action": a full, unbudgeted `reins state` of the page after each step (reins's
  own compact format: a lower bound, since Playwright's snapshot of the same page is ~3x larger);
- "Playwright snapshot per action", when Playwright for Python is importable: Playwright's own
  `aria_snapshot(mode="ai")` (the snapshot Playwright MCP sends) of the same page after the same
  step, in the frame Playwright MCP's response puts around it (the code it ran, the page's URL and
  title). An MCP agent on such a server needs no separate observation after an action, so its flow
  has one call fewer.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

from .harness import CHROMIUM, CHROMIUM_FLAGS, ROOT, fixture_server, table, versions
from .peers import PROFILE, PlaywrightPeer, Reins

HOST_CAP = 25_000  # Claude Code's default MAX_MCP_OUTPUT_TOKENS: a bigger tool answer fails


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def answer_tokens(result: CallToolResult) -> int:
    return sum(
        tokens(b.text) if isinstance(b, TextContent) else tokens(getattr(b, "data", ""))
        for b in result.content
    )


def text_of(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


def playwright_answer(code: str, url: str, title: str, snapshot: str) -> str:
    """What a full-snapshot MCP server sends for one step (Playwright MCP's response layout)."""
    ran = f"### Ran Playwright code\n```js\n{code}\n```\n\n" if code else ""
    return (
        f"{ran}### Page state\n- Page URL: {url}\n- Page Title: {title}\n"
        f"- Page Snapshot:\n```yaml\n{snapshot}\n```"
    )


@dataclass
class Step:
    label: str
    reins_call: str
    reins_tokens: int | None = None
    full_state_tokens: int | None = None  # estimate 1 (None: no answer on such a server)
    playwright_call: str = ""
    playwright_tokens: int | None = None  # estimate 2


@dataclass
class McpBench:
    """One run of scripts/bench-mcp: the fixture server, the tools, and the printed lines."""

    base: str
    reins: Reins
    pw: PlaywrightPeer | None
    out: list[str] = field(default_factory=list)

    def say(self, text: str = "") -> None:
        print(text, flush=True)
        self.out.append(text)

    def full_state(self) -> int:
        run = self.reins.cli("state", "--max-tokens", "0")
        if not run.ok:
            raise SystemExit(f"bench-mcp: reins state failed: {run.error}")
        return tokens(run.out.rstrip("\n"))

    async def session(self, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "reins.cli", "--profile", PROFILE, "mcp"],
            env={k: v for k, v in self.reins.env.items() if k in ("REINS_HOME", "PYTHONPATH")},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)

    # the expense flow ------------------------------------------------------------------------

    async def flow(self, session: ClientSession) -> tuple[list[Step], str]:
        url = f"{self.base}/app/expense.html"
        opened = await session.call_tool("navigate", {"url": url})
        assert not opened.is_error, text_of(opened)
        steps: list[Step] = []

        async def call(step: Step, tool: str, **args: Any) -> str:
            result = await session.call_tool(tool, args)
            if result.is_error:
                raise SystemExit(f"bench-mcp: {step.label}: {text_of(result)}")
            step.reins_tokens = answer_tokens(result)
            steps.append(step)
            return text_of(result)

        first = await call(Step("observe", "state", playwright_call="browser_snapshot"), "state")
        steps[-1].full_state_tokens = self.full_state()
        await call(
            Step("click the category trigger", "click", playwright_call="browser_click"),
            "click",
            target=_ref(first, "combobox", "Category"),
        )
        steps[-1].full_state_tokens = self.full_state()
        menu = await call(
            Step("observe the open menu", "state", playwright_call="— (the click's answer had it)"),
            "state",
        )
        await call(
            Step("click Meals", "click", playwright_call="browser_click"),
            "click",
            target=_ref(menu, "option", "Meals"),
        )
        steps[-1].full_state_tokens = self.full_state()
        await call(
            Step("click Save", "click", playwright_call="browser_click"),
            "click",
            target=_ref(first, "button", "Save"),
        )
        steps[-1].full_state_tokens = self.full_state()
        saved = await session.call_tool("wait", {"text": "Saved:"})
        check = await session.call_tool(
            "eval", {"expression": "document.querySelector('#saved').textContent"}
        )
        assert not saved.is_error, text_of(saved)
        return steps, str(json.loads(text_of(check)).get("value"))

    def playwright_flow(self, steps: list[Step]) -> str:
        assert self.pw is not None
        p = self.pw.page
        p.goto(f"{self.base}/app/expense.html")
        actions: dict[str, tuple[str, Callable[[], Any]]] = {
            "observe": ("", lambda: None),
            "click the category trigger": (
                "await page.getByRole('combobox', { name: 'Category' }).click();",
                lambda: p.get_by_role("combobox", name="Category").click(),
            ),
            "click Meals": (
                "await page.getByRole('option', { name: 'Meals' }).click();",
                lambda: p.get_by_role("option", name="Meals").click(),
            ),
            "click Save": (
                "await page.getByRole('button', { name: 'Save' }).click();",
                lambda: p.get_by_role("button", name="Save").click(),
            ),
        }
        for step in steps:
            if step.label not in actions:
                continue
            code, act = actions[step.label]
            act()
            p.wait_for_timeout(200)
            step.playwright_tokens = tokens(
                playwright_answer(code, p.url, p.title(), p.aria_snapshot(mode="ai"))
            )
        return str(p.evaluate("document.querySelector('#saved').textContent"))

    def flow_table(self, steps: list[Step], saved: str, pw_saved: str | None) -> None:
        self.say("## Tokens per step through MCP: the expense flow (app/expense.html)\n")
        headers = [
            "step",
            "reins mcp call",
            "reins answer tokens",
            "full-snapshot server: call",
            "estimate 1: full reins state per action",
        ]
        if self.pw:
            headers.append("estimate 2: Playwright snapshot per action (measured)")
        rows = []
        for s in steps:
            row = [
                s.label,
                s.reins_call,
                f"{s.reins_tokens:,}",
                s.playwright_call,
                f"{s.full_state_tokens:,}" if s.full_state_tokens is not None else "0",
            ]
            if self.pw:
                row.append(f"{s.playwright_tokens:,}" if s.playwright_tokens is not None else "0")
            rows.append(row)
        total = [
            "**whole flow**",
            f"{len(steps)} calls",
            f"**{sum(s.reins_tokens or 0 for s in steps):,}**",
            f"{sum(1 for s in steps if s.full_state_tokens is not None)} calls",
            f"**{sum(s.full_state_tokens or 0 for s in steps):,}**",
        ]
        if self.pw:
            total.append(f"**{sum(s.playwright_tokens or 0 for s in steps):,}**")
        self.say(table(headers, [*rows, total]))
        self.say()
        self.say(
            f"Page as oracle: reins flow saved {saved!r}"
            + (f"; Playwright flow saved {pw_saved!r}" if pw_saved is not None else "")
            + "\n"
        )

    # one click on a big page -----------------------------------------------------------------

    async def big(self, session: ClientSession, sizes: list[int]) -> list[list[str]]:
        rows = []
        for n in sizes:
            url = f"{self.base}/static/big.html?n={n}"
            opened = await session.call_tool("navigate", {"url": url})
            assert not opened.is_error, text_of(opened)
            state = await session.call_tool("state", {})
            click = await session.call_tool("click", {"target": "@btn0"})
            assert not click.is_error, text_of(click)
            full = self.full_state()
            rows.append(
                [f"{n:,}", f"{answer_tokens(click):,}", f"{answer_tokens(state):,}", f"{full:,}"]
            )
        return rows

    def playwright_big(self, rows: list[list[str]]) -> None:
        assert self.pw is not None
        p = self.pw.page
        for row in rows:
            p.goto(f"{self.base}/static/big.html?n={row[0].replace(',', '')}")
            p.get_by_role("button", name="Button 0", exact=True).click()
            snap = tokens(
                playwright_answer(
                    "await page.getByRole('button', { name: 'Button 0', exact: true }).click();",
                    p.url,
                    p.title(),
                    p.aria_snapshot(mode="ai"),
                )
            )
            row.append(
                f"{snap:,}" + (" (over the host's cap: the call fails)" if snap > HOST_CAP else "")
            )

    def big_table(self, rows: list[list[str]]) -> None:
        self.say("## One click on big.html?n=N: what the answer costs\n")
        headers = [
            "N",
            "reins mcp click answer",
            "reins mcp state (default budget)",
            "full reins state",
        ]
        if self.pw:
            headers.append("Playwright snapshot per action (measured)")
        self.say(table(headers, rows))
        self.say()


def _ref(state_text: str, role: str, name: str) -> str:
    for line in state_text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] == role and parts[2].startswith(json.dumps(name)):
            return parts[0]
    raise SystemExit(f"bench-mcp: no {role} {name!r} in the state:\n{state_text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench-mcp", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke mode: one small big.html, no Playwright (run by the tests)",
    )
    parser.add_argument(
        "--sizes",
        default=None,
        help="big.html sizes for one click (default 100,1000,5000; --quick 100)",
    )
    parser.add_argument("--no-peers", action="store_true", help="no Playwright, even if installed")
    parser.add_argument("--markdown", default=None, help="also write the tables to FILE")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in (args.sizes or ("100" if args.quick else "100,1000,5000")).split(",")]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    home = Path(tempfile.mkdtemp(prefix="reins-bench-mcp-"))
    reins = Reins(home)
    if os.environ.get("PYTHONPATH"):
        reins.env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    peers = not (args.no_peers or args.quick)
    pw = PlaywrightPeer() if peers and PlaywrightPeer.available() else None
    try:
        with fixture_server() as base:
            reins.launch()
            run = McpBench(base, reins, pw)
            from importlib.metadata import version

            run.say("# Tokens per step: reins mcp and a full-snapshot-per-action server\n")
            for key, value in versions(None, pw is not None).items():
                run.say(f"- {key}: {value}")
            run.say(
                f"- MCP SDK: {version('mcp')}; browsers: {CHROMIUM} ({' '.join(CHROMIUM_FLAGS)})"
            )
            run.say(
                f"- tokens: chars/4 (images by their base64), as `reins mcp` counts its cap; "
                f"checkout {ROOT.name}\n"
            )

            async def everything(session: ClientSession) -> tuple[Any, ...]:
                tools = (await session.list_tools()).tools
                listed = tokens(
                    json.dumps(
                        [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
                    )
                )
                steps, saved = await run.flow(session)
                big = await run.big(session, sizes)
                return len(tools), listed, steps, saved, big

            # Playwright's sync API holds this thread's event loop: the MCP client gets its own.
            done: list[tuple[Any, ...]] = []
            worker = threading.Thread(
                target=lambda: done.append(anyio.run(run.session, everything))
            )
            worker.start()
            worker.join()
            if not done:
                raise SystemExit("bench-mcp: the MCP session failed (see above)")
            n_tools, listed, steps, saved, big = done[0]
            pw_saved = run.playwright_flow(steps) if pw else None
            if pw:
                run.playwright_big(big)
            if "Meals" not in saved:
                raise SystemExit(f"bench-mcp: the page saved {saved!r}, not Meals")
            run.flow_table(steps, saved, pw_saved)
            run.big_table(big)
            run.say(
                f"The tool list itself (`tools/list`, sent once per session): {n_tools} tools, "
                f"{listed:,} tokens.\n"
            )
            if args.markdown:
                Path(args.markdown).write_text("\n".join(run.out) + "\n")
    finally:
        if pw:
            pw.close()
        reins.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    return 0
