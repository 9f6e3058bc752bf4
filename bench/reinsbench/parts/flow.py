"""The expense-form dropdown flow end to end (`--only flow`): observe, fill, open a Radix select,
pick an option by the observation's ref, save; the page says whether it worked."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..context import Context
from ..harness import Cell, Run, fmt_ms, in_process, median_ms, ratio, table
from ..peers import ab_refs, reins_refs

FLOW_OPTION = "Meals"


def run(ctx: Context) -> None:
    url = ctx.url("app/expense.html")
    ctx.progress("expense-form flow")
    Steps = list[tuple[str, Run]]
    saved_js = "document.querySelector('#saved').textContent"
    missing = Run(0, False, error="no ref for it in the observation")

    def reins_flow() -> tuple[Steps, str]:
        r = ctx.reins
        steps = [("observe", r.cli("state"))]
        refs = reins_refs(steps[0][1].out)
        steps.append(
            (
                "fill merchant",
                r.cli("fill", refs.get(("textbox", "Merchant"), "@merchant"), "Blue Bottle Coffee"),
            )
        )
        steps.append(
            ("fill amount", r.cli("fill", refs.get(("textbox", "Amount"), "@amount"), "12.50"))
        )
        steps.append(
            (
                "click trigger",
                r.cli("click", refs.get(("combobox", "Category"), "@categorytrig")),
            )
        )
        steps.append(("observe menu", r.cli("state")))
        option = reins_refs(steps[-1][1].out).get(("option", FLOW_OPTION))
        steps.append(("click option", r.cli("click", option) if option else missing))
        # reins refs are identities: @save from the first observation still names the button
        steps.append(("click save", r.cli("click", refs.get(("button", "Save"), "@save"))))
        return steps, str(_poll(lambda: r.eval(saved_js)))

    def ab_flow() -> tuple[Steps, str]:
        assert ctx.ab is not None
        a = ctx.ab

        def click(refs: dict[tuple[str, str], str], role: str, name: str) -> Run:
            return a.cli("click", "@" + refs[(role, name)]) if (role, name) in refs else missing

        steps = [("observe", a.cli("snapshot", "-i"))]
        refs = ab_refs(steps[0][1].out)
        for label, name, text in (
            ("fill merchant", "Merchant", "Blue Bottle Coffee"),
            ("fill amount", "Amount", "12.50"),
        ):
            steps.append(
                (
                    label,
                    a.cli("fill", "@" + refs[("textbox", name)], text)
                    if ("textbox", name) in refs
                    else missing,
                )
            )
        steps.append(("click trigger", click(refs, "combobox", "Category")))
        steps.append(("observe menu", a.cli("snapshot", "-i")))
        steps.append(("click option", click(ab_refs(steps[-1][1].out), "option", FLOW_OPTION)))
        # each snapshot renumbers its refs, and the open menu hid Save from the last one: an
        # agent has to observe once more to get a ref for Save
        steps.append(("observe again", a.cli("snapshot", "-i")))
        steps.append(("click save", click(ab_refs(steps[-1][1].out), "button", "Save")))
        return steps, str(_poll(lambda: a.eval(saved_js)))

    def pw_flow() -> tuple[Steps, str]:
        assert ctx.pw is not None
        p = ctx.pw.page
        steps = [
            ("observe", in_process(lambda: p.aria_snapshot(mode="ai"))),
            (
                "fill merchant",
                in_process(lambda: p.get_by_label("Merchant").fill("Blue Bottle Coffee")),
            ),
            ("fill amount", in_process(lambda: p.get_by_label("Amount").fill("12.50"))),
            (
                "click trigger",
                in_process(lambda: p.get_by_role("combobox", name="Category").click()),
            ),
            ("observe menu", in_process(lambda: p.aria_snapshot(mode="ai"))),
            (
                "click option",
                in_process(lambda: p.get_by_role("option", name=FLOW_OPTION).click()),
            ),
            (
                "click save",
                in_process(lambda: p.get_by_role("button", name="Save").click()),
            ),
        ]
        return steps, str(_poll(lambda: p.evaluate(saved_js)))

    flows: list[tuple[str, Any, Callable[[], tuple[Steps, str]]]] = [
        ("reins (CLI per step)", ctx.reins, reins_flow)
    ]
    if ctx.ab:
        flows.append(("agent-browser (CLI per step)", ctx.ab, ab_flow))
    if ctx.pw:
        flows.append(("playwright (in-process, locators)", ctx.pw, pw_flow))
    per_step: dict[str, dict[str, list[float]]] = {name: {} for name, _, _ in flows}
    totals = {name: Cell() for name, _, _ in flows}
    order: list[str] = []
    for _ in range(ctx.flow_reps):
        for name, tool, fn in flows:
            tool.open(url)
            steps, saved = fn()
            ok = all(r.ok for _, r in steps) and FLOW_OPTION in saved
            error = next(
                (f"{label}: {r.error}" for label, r in steps if not r.ok),
                "" if ok else f"page saved {saved!r}",
            )
            totals[name].add(Run(sum(r.seconds for _, r in steps), ok, saved, error))
            for label, r in steps:
                if label not in order:
                    order.insert(
                        len(order) if label != "observe again" else order.index("click save"),
                        label,
                    )
                if r.ok:
                    per_step[name].setdefault(label, []).append(r.seconds)
    ctx.say("## Expense-form dropdown flow, end to end (app/expense.html, Radix select)\n")
    ctx.say(
        "Steps: observe (reins state / agent-browser snapshot -i / Playwright aria_snapshot(mode=ai)), "
        "fill merchant, fill amount, click the category trigger, observe the open menu, click "
        f"the option {FLOW_OPTION!r} by the ref the observation gave, click Save. A run counts "
        f"as ok only if every step answered ok and the page then shows 'Saved: … {FLOW_OPTION}'. "
        "Page loads are not timed.\n"
    )
    rows = []
    for name in per_step:
        rows.append(
            [
                name,
                fmt_ms(totals[name].median_ms),
                str(len(per_step[name])),
                totals[name].failures(),
            ]
            + [
                fmt_ms(median_ms(per_step[name][s])) if per_step[name].get(s) else "—"
                for s in order
            ]
        )
    ctx.say(
        table(
            ["tool", "total median ms", "commands", "failures"] + [f"{s} ms" for s in order],
            rows,
        )
    )
    ctx.say()
    ctx.data["flow"] = {n: totals[n].median_ms for n in totals}
    if ctx.ab:
        ctx.say(
            "Ratio reins/agent-browser, whole flow: "
            + ratio(
                totals["reins (CLI per step)"].median_ms,
                totals["agent-browser (CLI per step)"].median_ms,
            )
            + "\n"
        )


def _poll(read: Callable[[], Any], seconds: float = 3.0) -> Any:
    deadline = time.monotonic() + seconds
    value = read()
    while FLOW_OPTION not in str(value) and time.monotonic() < deadline:
        time.sleep(0.1)
        value = read()
    return value
