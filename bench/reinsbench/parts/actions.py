"""One action on a small page (`--only actions`): click and fill per process and per command in a
batch, a click that changes no DOM, and the page's own count of what it received."""

from __future__ import annotations

import json
import shlex
from functools import partial

from ..context import Context
from ..harness import Cell, Run, fmt_ms, in_process, ratio, table
from ..peers import ab_refs, reins_refs


def run(ctx: Context) -> None:
    url = ctx.url(f"static/big.html?n={ctx.small_n}")
    ctx.progress(f"actions on big.html?n={ctx.small_n}")
    reset = "window.__log = []; document.getElementById('input-2').value = ''; 0"
    clicks = "window.__log.filter(l => l === 'click:btn-0').length"
    value = "document.getElementById('input-2').value"
    cells: dict[str, Cell] = {}
    verify: dict[str, str] = {}

    ctx.reins.open(url)
    ctx.reins.cli("state")  # refs exist once the page has been observed
    ab_ref: dict[tuple[str, str], str] = {}
    if ctx.ab:
        ctx.ab.open(url)
        ab_ref = ab_refs(ctx.ab.cli("snapshot", "-i").out)
    if ctx.pw:
        ctx.pw.open(url)
    # warm-up, untimed, then reset the page's log so the oracle counts only timed actions
    ctx.reins.cli("click", "@btn0")
    ctx.reins.eval(reset)
    if ctx.ab:
        ctx.ab.cli("click", ab_ref.get(("button", "Button 0"), "@e2"))
        ctx.ab.eval(reset)
    if ctx.pw:
        ctx.pw.page.click("#btn-0")
        ctx.pw.page.evaluate(reset)

    names = ["reins click @ref", "reins fill @ref text"]
    if ctx.ab:
        names += ["agent-browser click @eN", "agent-browser fill @eN text"]
    if ctx.pw:
        names += ["playwright page.click (in-process)", "playwright page.fill (in-process)"]
    cells = {n: Cell() for n in names}
    ab_btn = "@" + ab_ref.get(("button", "Button 0"), "e2")
    ab_inp = "@" + ab_ref.get(("textbox", "Field 2"), "e4")
    page = ctx.pw.page if ctx.pw else None
    for rep in range(ctx.reps):
        text = f"hello {rep}"
        cells["reins click @ref"].add(ctx.reins.cli("click", "@btn0"))
        cells["reins fill @ref text"].add(ctx.reins.cli("fill", "@input2", text))
        if ctx.ab:
            cells["agent-browser click @eN"].add(ctx.ab.cli("click", ab_btn))
            cells["agent-browser fill @eN text"].add(ctx.ab.cli("fill", ab_inp, text))
        if page is not None:
            cells["playwright page.click (in-process)"].add(
                in_process(lambda: page.click("#btn-0"))
            )
            cells["playwright page.fill (in-process)"].add(
                in_process(partial(page.fill, "#input-2", text))
            )
    last = f"hello {ctx.reps - 1}"
    ok_clicks = sum(r.ok for r in cells["reins click @ref"].runs)
    verify["reins"] = (
        f"{ctx.reins.eval(clicks)}/{ok_clicks} clicks, value {ctx.reins.eval(value)!r}"
    )
    if ctx.ab:
        ok_clicks = sum(r.ok for r in cells["agent-browser click @eN"].runs)
        verify["agent-browser"] = (
            f"{ctx.ab.eval(clicks)}/{ok_clicks} clicks, value {ctx.ab.eval(value)!r}"
        )
    if ctx.pw:
        verify["playwright"] = (
            f"{ctx.pw.page.evaluate(clicks)}/{ctx.reps} clicks, "
            f"value {ctx.pw.page.evaluate(value)!r}"
        )

    # reins batch: batch_len commands over one connection, per command
    batch: dict[str, Cell] = {
        "reins batch, click per command": Cell(),
        "reins batch, fill per command": Cell(),
    }
    if ctx.ab:
        batch["agent-browser batch, click per command"] = Cell()
    click_lines = "\n".join(["click @btn0"] * ctx.batch_len) + "\n"
    fill_lines = (
        "\n".join(f"fill @input2 {shlex.quote(f'batch {i}')}" for i in range(ctx.batch_len)) + "\n"
    )
    for _ in range(ctx.reps):
        for key, lines in (
            ("reins batch, click per command", click_lines),
            ("reins batch, fill per command", fill_lines),
        ):
            run = ctx.reins.cli("batch", stdin=lines)
            answers = [json.loads(x) for x in run.out.splitlines() if x.startswith("{")]
            ok = run.ok and len(answers) == ctx.batch_len and all(a.get("ok") for a in answers)
            batch[key].add(
                Run(
                    run.seconds / ctx.batch_len,
                    ok,
                    run.out,
                    run.error or ("" if ok else "a line failed"),
                )
            )
        if ctx.ab:
            run = ctx.ab.cli("batch", *[f"click {ab_btn}"] * ctx.batch_len)
            batch["agent-browser batch, click per command"].add(
                Run(run.seconds / ctx.batch_len, run.ok, run.out, run.error)
            )

    quiet, quiet_verify = _quiet_clicks(ctx)
    if ctx.pw:
        # the same page, the same run: Playwright's page.click on big.html's button
        pw_click = cells["playwright page.click (in-process)"]
        quiet["playwright page.click, DOM-changing button (big.html)"] = pw_click

    ctx.say(f"## One action on a small page (big.html?n={ctx.small_n})\n")
    rows = [
        [k, fmt_ms(c.median_ms), c.spread(), c.failures()] for k, c in {**cells, **batch}.items()
    ]
    ctx.say(table(["command", "median ms", "min–max ms", "failures"], rows))
    ctx.say()
    ctx.say(
        "Page as oracle (clicks the page counted / clicks that answered ok, and the input's final "
        f"value; expected {last!r}): " + "; ".join(f"{k}: {v}" for k, v in verify.items())
    )
    ctx.say()
    _quiet_table(
        ctx, quiet, quiet_verify, med_click=batch["reins batch, click per command"].median_ms
    )
    med = {k: c.median_ms for k, c in {**cells, **batch}.items()}
    med.update({k: c.median_ms for k, c in quiet.items()})
    ctx.data["actions"] = med
    if ctx.ab:
        abc, abf = med["agent-browser click @eN"], med["agent-browser fill @eN text"]
        rows = [
            ["click, whole process", ratio(med["reins click @ref"], abc)],
            ["fill, whole process", ratio(med["reins fill @ref text"], abf)],
            [
                "reins batch click per command / agent-browser click process",
                ratio(med["reins batch, click per command"], abc),
            ],
            [
                "reins batch fill per command / agent-browser fill process",
                ratio(med["reins batch, fill per command"], abf),
            ],
            [
                "reins batch click / agent-browser batch click, per command",
                ratio(
                    med["reins batch, click per command"],
                    med["agent-browser batch, click per command"],
                ),
            ],
        ]
        ctx.say("### Ratios reins/agent-browser\n")
        ctx.say(table(["what", "reins/agent-browser"], rows))
        ctx.say()


def _quiet_clicks(ctx: Context) -> tuple[dict[str, Cell], list[str]]:
    """A click whose handler changes no DOM (effects.html #quiet), per command in a reins batch
    and as Playwright's page.click on the same page."""
    url = ctx.url("static/effects.html")
    ctx.progress("clicks that change no DOM (effects.html #quiet)")
    count = "window.__log.filter(l => l === 'quiet:click').length"
    cells = {"reins batch, click per command, no DOM change": Cell()}
    ctx.reins.open(url)
    ref = reins_refs(ctx.reins.cli("state").out).get(("button", "Changes nothing"), "#quiet")
    ctx.reins.cli("click", ref)  # warm-up (and the focus moves to it once)
    lines = "\n".join([f"click {ref}"] * ctx.batch_len) + "\n"
    ok_clicks = 1
    for _ in range(ctx.reps):
        run = ctx.reins.cli("batch", stdin=lines)
        answers = [json.loads(x) for x in run.out.splitlines() if x.startswith("{")]
        ok = run.ok and len(answers) == ctx.batch_len and all(a.get("ok") for a in answers)
        ok_clicks += sum(bool(a.get("ok")) for a in answers)
        cells["reins batch, click per command, no DOM change"].add(
            Run(
                run.seconds / ctx.batch_len,
                ok,
                run.out,
                run.error or ("" if ok else "a line failed"),
            )
        )
    verify = [f"reins: {ctx.reins.eval(count)}/{ok_clicks} clicks"]
    if ctx.pw:
        page = ctx.pw.page
        ctx.pw.open(url)
        page.click("#quiet")
        key = "playwright page.click, no DOM change (in-process)"
        cells[key] = Cell()
        for _ in range(ctx.reps):
            cells[key].add(in_process(lambda: page.click("#quiet")))
        verify.append(f"playwright: {page.evaluate(count)}/{ctx.reps + 1} clicks")
    return cells, verify


def _quiet_table(
    ctx: Context, quiet: dict[str, Cell], verify: list[str], *, med_click: float | None
) -> None:
    ctx.say("### Click in a reins batch vs Playwright's page.click (same run)\n")
    rows = [[k, fmt_ms(c.median_ms), c.spread(), c.failures()] for k, c in quiet.items()]
    ctx.say(table(["command", "median ms", "min–max ms", "failures"], rows))
    ctx.say()
    ctx.say("Page as oracle (clicks the page counted / clicks sent): " + "; ".join(verify))
    ctx.say()
    pw_dom = quiet.get("playwright page.click, DOM-changing button (big.html)")
    pw_quiet = quiet.get("playwright page.click, no DOM change (in-process)")
    if pw_dom and pw_quiet:
        rows = [
            ["DOM-changing button (big.html)", ratio(med_click, pw_dom.median_ms)],
            [
                "no DOM change (effects.html #quiet)",
                ratio(
                    quiet["reins batch, click per command, no DOM change"].median_ms,
                    pw_quiet.median_ms,
                ),
            ],
        ]
        ctx.say(table(["click", "reins batch / playwright page.click (goal ≤ 0.7)"], rows))
        ctx.say()
