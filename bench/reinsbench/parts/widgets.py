"""The widget commands next to Playwright doing the same on the same page: scroll a virtualized
list until a row shows, drag a dnd-kit card to another column, drag an HTML5 `draggable` item,
attach a file, pick an option in a Radix select, an Element Plus (Vue) select, a Shoelace (web
component) select, an Ant Design select (no name, options with no role), a UI5 select (options in
a shadow-root popover), a Headless UI combobox whose input opens nothing and a MUI multi-select
(`--only widgets`).

Each repetition opens the page afresh for both tools (untimed), then times the one action: reins as
a whole CLI process, Playwright in-process (the floor). The page is the oracle after every timed
action, for both tools: a run counts as ok only if the page shows the result (the row in the list's
view, the card in the Done column, the item in the Archive, the file in the input, the trigger
showing the option).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context import Context
from ..harness import Cell, Run, fmt_ms, in_process, ratio, table


@dataclass(frozen=True)
class Widget:
    """One action on one page, by both tools, and what the page shows when it worked."""

    name: str
    path: str
    ready: str  # JS: true once the page can be acted on
    reins_args: tuple[str, ...]
    # How a Playwright script does it (label, page -> anything); more than one where Playwright's
    # own call does not work on the page.
    playwright: tuple[tuple[str, Callable[[Any], Any]], ...]
    oracle: str  # JS: true when the page shows the result


ROW = '#vlist [data-index="150"]'
ROW_IN_VIEW = f"""(() => {{
  const row = document.querySelector('{ROW}');
  if (!row) return false;
  const r = row.getBoundingClientRect(), l = row.parentElement.getBoundingClientRect();
  return r.top >= l.top - 1 && r.bottom <= l.bottom + 1;
}})()"""


def _pw_scroll_until(page: Any) -> None:
    """What a Playwright script does for a virtualized list: the mouse over the list, the wheel
    turned until the row is in the list's view (Playwright's own scrollIntoViewIfNeeded cannot
    reach a row that does not exist yet)."""
    box = page.locator("#vlist").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(400):
        if page.evaluate(ROW_IN_VIEW):
            return
        page.mouse.wheel(0, 100)
    raise RuntimeError("the row never showed")


def _pw_mouse_drag(page: Any, source: str, dest: str) -> None:
    """What a Playwright script does for a pointer-sensor library (whose drag starts after a few
    pixels and follows the moves): the mouse by hand, in steps."""
    a = page.locator(source).bounding_box()
    b = page.locator(dest).bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=12)
    page.mouse.up()


def widgets(files_dir: Path) -> list[Widget]:
    upload = files_dir / "receipt.pdf"
    return [
        Widget(
            "scroll --until (virtualized list, row 150)",
            "static/scroll.html",
            "!!document.querySelector('#vlist .row')",
            ("scroll", "#vlist", "--until", ROW),
            (("mouse.wheel(0, 100) until the row is in view", _pw_scroll_until),),
            ROW_IN_VIEW,
        ),
        Widget(
            "drag (dnd-kit card to another column)",
            "app/dnd.html",
            "!!window.__board",
            ("drag", "[data-testid=card-1]", "[data-testid=col-done]"),
            (
                (
                    "locator.drag_to",
                    lambda page: page.locator("[data-testid=card-1]").drag_to(
                        page.locator("[data-testid=col-done]")
                    ),
                ),
                (
                    "page.mouse: move, down, move(steps=12), up",
                    lambda page: _pw_mouse_drag(
                        page, "[data-testid=card-1]", "[data-testid=col-done]"
                    ),
                ),
            ),
            "window.__board.done.includes('card-1')",
        ),
        Widget(
            "drag (native HTML5 draggable)",
            "static/native-drag.html",
            "!!window.__drops",
            ("drag", "#item-1", "#archive"),
            (
                (
                    "locator.drag_to",
                    lambda page: page.locator("#item-1").drag_to(page.locator("#archive")),
                ),
            ),
            "document.querySelector('#item-1').parentElement.id === 'archive'",
        ),
        Widget(
            "upload (one file to a file input)",
            "static/upload.html",
            "!!document.querySelector('#docs')",
            ("upload", "#docs", str(upload)),
            (("page.set_input_files", lambda page: page.set_input_files("#docs", str(upload))),),
            "Array.from(document.querySelector('#docs').files).map(f => f.name).join() === "
            "'receipt.pdf'",
        ),
        Widget(
            "choose (Radix select: open, pick Meals, verify)",
            "app/radix.html",
            "!!document.querySelector('#radix-select')",
            ("choose", "#radix-select", "Meals"),
            (
                (
                    "click trigger, click option, wait for the trigger's text",
                    lambda page: (
                        page.click("#radix-select"),
                        page.get_by_role("option", name="Meals").click(),
                        page.locator("#radix-select").filter(has_text="Meals").wait_for(),
                    ),
                ),
            ),
            "document.querySelector('#radix-value').textContent === 'Meals'",
        ),
        Widget(
            "choose (Element Plus select, Vue 3: placeholder over a read-only input)",
            "app/element-select.html",
            "!!document.querySelector('#category-select')",
            ("choose", "#category-select", "Software"),
            (
                (
                    "click the select's wrapper, click option, wait for the value",
                    lambda page: (
                        page.locator(".el-select__wrapper").first.click(),
                        page.get_by_role("option", name="Software").first.click(),
                        page.wait_for_function(
                            "document.getElementById('committed').textContent === 'Software|'",
                            timeout=10_000,
                        ),
                    ),
                ),
            ),
            "document.getElementById('committed').textContent === 'Software|'",
        ),
        Widget(
            "choose (Shoelace sl-select, web component in a shadow root)",
            "app/shoelace-select.html",
            "!!customElements.get('sl-select') && !!customElements.get('sl-option')",
            ("choose", "#category", "Software"),
            (
                (
                    "click the combobox, click option, wait for the value",
                    lambda page: (
                        page.get_by_role("combobox", name="Category").click(),
                        page.get_by_role("option", name="Software").click(),
                        page.wait_for_function(
                            "document.getElementById('committed').textContent === 'software'"
                        ),
                    ),
                ),
            ),
            "document.getElementById('committed').textContent === 'software'",
        ),
        Widget(
            "choose (Angular Material mat-select, options in an overlay)",
            "app/angular-select.html",
            "!!document.querySelector('mat-select#category')",
            ("choose", "#category", "Software"),
            (
                (
                    "click the select, click option, wait for the value",
                    lambda page: (
                        page.get_by_role("combobox", name="Category", exact=True).click(),
                        page.get_by_role("option", name="Software").click(),
                        page.wait_for_function(
                            "document.getElementById('committed').textContent === 'Software||'"
                        ),
                    ),
                ),
            ),
            "document.getElementById('committed').textContent === 'Software||'",
        ),
        Widget(
            "choose (Ant Design select: no name, options with no role)",
            "app/antd-select.html",
            "!!document.querySelector('.ant-select input#category')",
            ("choose", "#category", "Software"),
            (
                (
                    "click the select, click the option's text, wait for the value",
                    lambda page: (
                        # The placeholder itself: Playwright waits it out (the input covers it).
                        page.locator(".ant-select").click(),
                        page.locator(".ant-select-item-option", has_text="Software").click(),
                        page.wait_for_function(
                            "document.getElementById('committed').textContent === 'Software'"
                        ),
                    ),
                ),
            ),
            "document.getElementById('committed').textContent === 'Software'",
        ),
        Widget(
            "choose (UI5 ui5-select: options in a shadow-root popover)",
            "app/ui5-select.html",
            "!!customElements.get('ui5-select') && !!document.getElementById('category').shadowRoot",
            ("choose", "#category", "Software"),
            (
                (
                    "click the combobox, click option, wait for the value",
                    lambda page: (
                        page.get_by_role("combobox", name="Category").click(),
                        page.get_by_role("option", name="Software").click(),
                        page.wait_for_function(
                            "document.getElementById('committed').textContent === 'Software'"
                        ),
                    ),
                ),
            ),
            "document.getElementById('committed').textContent === 'Software'",
        ),
        Widget(
            "choose (Headless UI Combobox: its input opens nothing, its button does)",
            "app/headless.html",
            "!!document.getElementById('vendor')",
            ("choose", "#vendor", "Office"),
            (
                (
                    "click the button, click option, wait for the value",
                    lambda page: (
                        page.click("#vendor-button"),
                        page.get_by_role("option", name="Office").click(),
                        page.wait_for_function(
                            "document.getElementById('committed').textContent === '|Office'"
                        ),
                    ),
                ),
            ),
            "document.getElementById('committed').textContent === '|Office'",
        ),
        Widget(
            "choose (MUI Autocomplete multiple: add a chip)",
            "app/mui-multi.html",
            "!!document.querySelector('#mui-multi')",
            ("choose", "#mui-multi", "Software"),
            (
                (
                    "click the field, click option, wait for the chip",
                    lambda page: (
                        page.click("#mui-multi"),
                        page.get_by_role("option", name="Software").click(),
                        page.locator(".MuiChip-label", has_text="Software").wait_for(),
                    ),
                ),
            ),
            "document.getElementById('mui-multi-value').textContent === 'Travel,Software'",
        ),
    ]


def run(ctx: Context) -> None:
    """Time each widget action, reins and Playwright taking turns in every repetition."""
    ctx.progress("widgets: scroll, drag, upload, choose")
    with tempfile.TemporaryDirectory(prefix="reins-bench-files-") as tmp:
        files = Path(tmp)
        (files / "receipt.pdf").write_bytes(b"%PDF-1.4 bench" * 100)
        # The CLI runs in another directory: the user allows this one, as a person would.
        ctx.reins.cli("config", "upload-dirs", "add", str(files))
        rows: list[list[str]] = []
        medians: dict[str, dict[str, float | None]] = {}
        for widget in widgets(files):
            reins_cell = Cell()
            pw_cells = {label: Cell() for label, _ in widget.playwright}
            for _ in range(ctx.reps):
                _reins_open(ctx, widget)
                reins_cell.add(_checked(ctx.reins.cli(*widget.reins_args), ctx, widget))
                if ctx.pw:
                    for label, act in widget.playwright:
                        pw_cells[label].add(_playwright_run(ctx, widget, act))
            medians[widget.name] = {
                "reins": reins_cell.median_ms,
                **{f"playwright {label}": c.median_ms for label, c in pw_cells.items()},
            }
            for n, (label, pw_cell) in enumerate(pw_cells.items()):
                rows.append(
                    [
                        widget.name if n == 0 else "〃",
                        fmt_ms(reins_cell.median_ms) if n == 0 else "〃",
                        reins_cell.failures() if n == 0 else "〃",
                        label,
                        fmt_ms(pw_cell.median_ms) if ctx.pw else "—",
                        pw_cell.failures() if ctx.pw else "—",
                        ratio(reins_cell.median_ms, pw_cell.median_ms) if ctx.pw else "—",
                    ]
                )
        ctx.reins.cli("config", "upload-dirs", "remove", str(files))
    ctx.say("## Widgets: scroll, drag, upload, choose next to Playwright\n")
    ctx.say(
        table(
            [
                "action (same page, fresh for each run)",
                "reins median ms (whole CLI process)",
                "reins failures",
                "playwright does it with",
                "playwright median ms (in-process)",
                "playwright failures",
                "reins/playwright",
            ],
            rows,
        )
    )
    ctx.say()
    ctx.say(
        "A run is a failure unless the page then shows the result (the row in the list's view, "
        "the card in Done, the item in the Archive, the file in the input, the trigger showing "
        "Meals, the page's committed value for the other selects); failures keep their error."
    )
    ctx.say()
    ctx.data["widgets"] = medians


def _reins_open(ctx: Context, widget: Widget) -> None:
    ctx.reins.open(ctx.url(widget.path))
    for _ in range(50):
        if ctx.reins.eval(widget.ready):
            return


def _playwright_run(ctx: Context, widget: Widget, act: Callable[[Any], Any]) -> Run:
    assert ctx.pw is not None
    page = ctx.pw.page
    page.goto(ctx.url(widget.path))
    page.wait_for_function(widget.ready)
    run = in_process(lambda: str(act(page)))
    if run.ok and not page.evaluate(widget.oracle):
        return Run(run.seconds, False, error="the page does not show it")
    return run


def _checked(run: Run, ctx: Context, widget: Widget) -> Run:
    if run.ok and not ctx.reins.eval(widget.oracle):
        return Run(run.seconds, False, run.out, "the page does not show it")
    return run
