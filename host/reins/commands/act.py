"""Act commands: click, dblclick, hover, fill, type, press, select, choose, upload, drag, check,
uncheck, scroll, wait, mouse move|down|up|wheel."""

from __future__ import annotations

import fnmatch
from typing import Any, cast

from pydantic import ConfigDict, Field

from reins._errors import DeadlineExceeded, ReinsError, UsageError
from reins.act.actionability import CLICK_PROBE, FIELD_PROBE, HOVER_PROBE, actionable_point
from reins.act.answers import MouseAt
from reins.act.choose import choose_option
from reins.act.confirm import text_shown
from reins.act.drag import drag_element
from reins.act.effects import act_on
from reins.act.forms import fill_element, select_options, set_checked
from reins.act.keyboard import KeysFields, KeysFor, parse_keys, press_keys
from reins.act.locate import Resolved, resolve_for_action, resolve_target
from reins.act.mouse import MousePosition, mouse_event
from reins.act.pointer import click_element, pointer_press
from reins.act.scroll import scroll_by, scroll_until
from reins.act.targets import text_query
from reins.act.upload import upload_files
from reins.bridge.command import Args, Command, cli_hints, command
from reins.bridge.context import CommandContext
from reins.commands import answers
from reins.observe.page import MapQuery
from reins.page.call import evaluate, page_call
from reins.page.navigation import settle
from reins.page.poll import NotYet, poll_until

__all__ = ["COMMANDS"]


def _frame_field() -> Any:
    return Field(default=None, description="CSS of an iframe to scope a CSS/XPath target.")


class SmartArgs(Args):
    target: str | None = Field(
        default=None, description="What to act on: @ref, CSS, //xpath, role=…, text=…."
    )
    frame: str | None = _frame_field()
    text: str | None = Field(default=None, description="Find by visible text (fuzzy fallback).")
    index: int | None = Field(default=None, ge=1, description="1-based among matches.")
    type: str | None = Field(
        default=None, description="Interaction-map type: button, input, input-text, a …"
    )
    viewport_only: bool = Field(default=False, description="Only elements in the viewport.")

    def smart(self) -> MapQuery | None:
        if self.text is None:
            if self.index is not None or self.type is not None:
                raise UsageError("--index and --type go with --text", code="bad_request")
            return None
        if self.target:
            raise UsageError("give a TARGET or --text, not both", code="bad_request")
        query: MapQuery = {"text": self.text}
        if self.index is not None:
            query["index"] = self.index
        if self.type is not None:
            query["type"] = self.type
        if self.viewport_only:
            query["viewport_only"] = True
        return query


class ClickArgs(SmartArgs):
    mode: str | None = Field(
        default=None,
        description="js: DOM el.click() instead of mouse events (REINS_CLICK=js).",
        json_schema_extra=cli_hints(hidden=True),
    )
    button: str = Field(
        default="left",
        description="Which mouse button.",
        json_schema_extra=cli_hints(choices=("left", "right", "middle")),
    )


async def _click(ctx: CommandContext, args: ClickArgs, clicks: int) -> answers.Click:
    if args.button not in ("left", "right", "middle"):
        raise UsageError("--button is left, right or middle", code="bad_request")
    js = args.mode == "js"
    press = None if js else pointer_press(ctx, clicks=clicks, button=args.button)
    el = await resolve_for_action(
        ctx,
        args.target,
        args.frame,
        args.smart(),
        press=press,
        control=True,
        first_probe=None if js else CLICK_PROBE,
    )
    clicked = await click_element(ctx, el, clicks=clicks, button=args.button, force_js=js)
    return {**clicked.acted(), **(clicked.fields or {}), **clicked.about()}


@command("click", ClickArgs, answers.Click, cli_args=("target",))
async def click(ctx: CommandContext, args: ClickArgs) -> answers.Click:
    """Click TARGET with real mouse events (or --text T [--index N] [--type X])."""
    return await _click(ctx, args, 1)


@command("dblclick", ClickArgs, answers.Click, cli_args=("target",))
async def dblclick(ctx: CommandContext, args: ClickArgs) -> answers.Click:
    """Double-click TARGET with real mouse events."""
    return await _click(ctx, args, 2)


@command("hover", SmartArgs, answers.Click, idempotent=True, cli_args=("target",))
async def hover(ctx: CommandContext, args: SmartArgs) -> answers.Click:
    """Move the mouse over TARGET."""
    press = pointer_press(ctx, hover_only=True)
    el = await resolve_for_action(
        ctx, args.target, args.frame, args.smart(), press=press, first_probe=HOVER_PROBE
    )
    done = await click_element(ctx, el, hover_only=True)
    return {**done.acted(), **(done.fields or {}), **done.about()}


class FillArgs(SmartArgs):
    value: str = Field(description="The text.")


async def _field(ctx: CommandContext, args: FillArgs) -> Resolved:
    return await resolve_for_action(
        ctx, args.target, args.frame, args.smart(), control=True, first_probe=FIELD_PROBE
    )


@command("fill", FillArgs, answers.Fill, idempotent=True, cli_args=("target", "value"))
async def fill(ctx: CommandContext, args: FillArgs) -> answers.Fill:
    """Replace the text of TARGET with VALUE and verify what the page kept.

    Date, time, datetime-local, month, week, color and range inputs take VALUE in their own
    format (2020-03-02, 13:45, 2020-03-02T13:45, 2020-03, 2020-W10, #ff8800, a number), set as
    their picker sets it."""
    el = await _field(ctx, args)
    done = await fill_element(ctx, el, args.value)
    return {**done.acted(), **(done.fields or {}), **done.about()}


@command("type", FillArgs, answers.Fill, cli_args=("target", "value"))
async def type_(ctx: CommandContext, args: FillArgs) -> answers.Fill:
    """Type VALUE at the end of TARGET's text, as key presses on a US keyboard.

    Characters no key types (é, emoji, CJK) are inserted as text; a key the page cancels
    inserts nothing (fill_mismatch with what the field kept)."""
    el = await _field(ctx, args)
    done = await fill_element(ctx, el, args.value, append=True)
    return {**done.acted(), **(done.fields or {}), **done.about()}


class PressArgs(Args):
    keys: str = Field(min_length=1, description="Enter, Control+A, Shift+Tab …")
    target: str | None = Field(
        default=None, description="What to act on: @ref, CSS, //xpath, role=…, text=…."
    )
    frame: str | None = _frame_field()


@command("press", PressArgs, answers.Press, cli_args=("keys", "target"))
async def press(ctx: CommandContext, args: PressArgs) -> answers.Press:
    """Press KEYS (Enter, Control+A, Shift+Tab, +, Numpad1…) on TARGET, or on what has focus.

    A character that needs Shift on a US keyboard is pressed with Shift (+ is Shift+Equal)."""
    chord = parse_keys(args.keys)
    if args.target:
        el = await resolve_target(ctx, args.target, frame=args.frame, control=True)

        async def do(target: Resolved) -> KeysFields:
            await actionable_point(ctx, target, need_enabled=True)
            await ctx.cdp("DOM.focus", {"objectId": target.object_id}, session_id=target.session_id)
            await press_keys(ctx, chord, KeysFor(target.object_id, target.session_id))
            return {"keys": args.keys}

        done = await act_on(ctx, el, do)
        return {**done.acted(), **(done.fields or {}), **done.about()}
    await press_keys(ctx, chord)
    return {"keys": args.keys, "effect": {}, "warnings": []}


class SelectArgs(Args):
    target: str = Field(description="The <select>: @ref, CSS, //xpath, role=…, text=….")
    values: list[str] = Field(min_length=1, description="Option values or labels.")
    frame: str | None = _frame_field()


@command("select", SelectArgs, answers.Select, idempotent=True, cli_args=("target", "values"))
async def select(ctx: CommandContext, args: SelectArgs) -> answers.Select:
    """Choose option(s) of a native <select> by value or label."""
    el = await resolve_target(ctx, args.target, frame=args.frame, control=True)
    done = await select_options(ctx, el, args.values)
    return {**done.acted(), **(done.fields or {}), **done.about()}


class ChooseArgs(Args):
    target: str = Field(
        description="The dropdown's trigger or the combobox: @ref, CSS, //xpath, role=…, text=…."
    )
    option: str = Field(min_length=1, description="The option's text.")
    frame: str | None = _frame_field()


@command("choose", ChooseArgs, answers.Choose, cli_args=("target", "option"))
async def choose(ctx: CommandContext, args: ChooseArgs) -> answers.Choose:
    """Pick OPTION in a custom dropdown or combobox (open, filter, click) and verify it shows."""
    el = await resolve_target(ctx, args.target, frame=args.frame, control=True)
    done = await choose_option(ctx, el, args.option)
    return {**done.acted(), **(done.fields or {}), **done.about()}


def _no_caller_dir(schema: dict[str, Any]) -> None:
    """Upload's JSON schema (what MCP clients see) has no ``cwd``: the front end supplies it,
    never the caller (`reins mcp` refuses an argument its tool schema does not list)."""
    properties = schema.get("properties")
    if isinstance(properties, dict):
        properties.pop("cwd", None)


class UploadArgs(Args):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_no_caller_dir)

    target: str = Field(
        description="The file input, or the drop zone / button / label behind "
        "which it hides: @ref, CSS, //xpath, role=…, text=…."
    )
    files: list[str] = Field(
        min_length=1,
        description="The files: absolute, or relative to the directory reins runs in "
        "(the CLI's, or the MCP server's).",
    )
    cwd: str | None = Field(
        default=None,
        description="The directory the CLI or MCP server runs in: files may come from it and below.",
        json_schema_extra=cli_hints(hidden=True),
    )
    frame: str | None = _frame_field()


# `cwd` is the front end's own directory: the CLI sends os.getcwd() (cli/quirks.py), `reins mcp`
# its own (mcp/answers.py prepare_args), never one the agent names (docs/security.md).
@command("upload", UploadArgs, answers.Upload, cli_args=("target", "files"))
async def upload(ctx: CommandContext, args: UploadArgs) -> answers.Upload:
    """Attach FILE(s) to a file input (or the one behind a drop zone / Attach button).

    Files come only from the directory reins (the CLI, or `reins mcp`) runs in and below (no
    hidden files or folders), or from directories added with `reins config upload-dirs add DIR`.
    Answers the names and sizes the page received."""
    el = await resolve_target(ctx, args.target, frame=args.frame, control=True)
    done = await upload_files(ctx, el, args.files, args.cwd)
    return {**done.acted(), **(done.fields or {}), **done.about()}


class DragArgs(Args):
    source: str = Field(description="What to drag: @ref, CSS, //xpath, role=…, text=….")
    dest: str = Field(description="Where to drop it: @ref, CSS, //xpath, role=…, text=….")
    position: str | None = Field(
        default=None,
        description="X,Y: the drop point inside DEST from "
        "its top-left corner (default: its middle).",
    )
    frame: str | None = Field(
        default=None, description="CSS of an iframe to scope CSS/XPath targets."
    )


def _position(raw: str | None) -> tuple[float, float] | None:
    if raw is None:
        return None
    try:
        x, y = (float(part) for part in raw.split(","))
    except ValueError:
        raise UsageError(f"--position is X,Y in pixels (got {raw!r})", code="bad_request") from None
    return x, y


@command("drag", DragArgs, answers.Drag, cli_args=("source", "dest"))
async def drag(ctx: CommandContext, args: DragArgs) -> answers.Drag:
    """Drag SOURCE onto DEST with a real pointer drag (press, moves with the button held, release).

    Answers the points and the source's box before and after."""
    position = _position(args.position)
    source = await resolve_target(ctx, args.source, frame=args.frame, control=True)
    dest = await resolve_target(ctx, args.dest, frame=args.frame, control=True)
    done = await drag_element(ctx, source, dest, position)
    return {**done.acted(), **(done.fields or {}), **done.about()}


class MouseMoveArgs(Args):
    x: int = Field(description="Viewport x in CSS pixels.")
    y: int = Field(description="Viewport y in CSS pixels.")
    steps: int = Field(default=1, ge=1, le=100, description="Moves on the way there.")


@command("mouse_move", MouseMoveArgs, answers.Mouse, cli_args=("x", "y"))
async def mouse_move(ctx: CommandContext, args: MouseMoveArgs) -> answers.Mouse:
    """Move the mouse to X,Y (viewport CSS pixels) in STEPS moves, holding what is held."""
    at = ctx.part(MousePosition)
    x0, y0 = at.x, at.y
    held = next(
        (b for b, m in (("left", 1), ("right", 2), ("middle", 4)) if at.buttons & m), "none"
    )
    for step in range(1, args.steps + 1):
        t = step / args.steps
        await mouse_event(
            ctx, "mouseMoved", x0 + (args.x - x0) * t, y0 + (args.y - y0) * t, button=held
        )
    return MouseAt(args.x, args.y, buttons=at.buttons).to_wire()


class MouseButtonArgs(Args):
    button: str = Field(
        default="left",
        description="Which mouse button.",
        json_schema_extra=cli_hints(choices=("left", "right", "middle")),
    )


async def _mouse_button(ctx: CommandContext, args: MouseButtonArgs, kind: str) -> answers.Mouse:
    if args.button not in ("left", "right", "middle"):
        raise UsageError("--button is left, right or middle", code="bad_request")
    at = ctx.part(MousePosition)
    await mouse_event(ctx, kind, at.x, at.y, button=args.button, clickCount=1)
    return MouseAt(at.x, at.y, buttons=at.buttons).to_wire()


@command("mouse_down", MouseButtonArgs, answers.Mouse)
async def mouse_down(ctx: CommandContext, args: MouseButtonArgs) -> answers.Mouse:
    """Press a mouse button where the mouse is (`reins mouse move X Y` first)."""
    return await _mouse_button(ctx, args, "mousePressed")


@command("mouse_up", MouseButtonArgs, answers.Mouse)
async def mouse_up(ctx: CommandContext, args: MouseButtonArgs) -> answers.Mouse:
    """Release a mouse button where the mouse is."""
    return await _mouse_button(ctx, args, "mouseReleased")


class MouseWheelArgs(Args):
    dx: int = Field(description="Pixels to the right (negative: left; after `--`).")
    dy: int = Field(description="Pixels down (negative: up; after `--`).")


@command("mouse_wheel", MouseWheelArgs, answers.Mouse, cli_args=("dx", "dy"))
async def mouse_wheel(ctx: CommandContext, args: MouseWheelArgs) -> answers.Mouse:
    """Turn the mouse wheel by DX DY where the mouse is (what is under it scrolls)."""
    at = ctx.part(MousePosition)
    await mouse_event(ctx, "mouseWheel", at.x, at.y, deltaX=args.dx, deltaY=args.dy)
    return MouseAt(at.x, at.y, wheel=(args.dx, args.dy)).to_wire()


class CheckArgs(Args):
    target: str = Field(description="What to act on: @ref, CSS, //xpath, role=…, text=….")
    frame: str | None = _frame_field()


@command("check", CheckArgs, answers.Check, idempotent=True, cli_args=("target",))
async def check(ctx: CommandContext, args: CheckArgs) -> answers.Check:
    """Check a checkbox, radio or switch (verified by its checked state)."""
    el = await resolve_target(ctx, args.target, frame=args.frame, control=True)
    done = await set_checked(ctx, el, True)
    return {**done.acted(), **(done.fields or {}), **done.about()}


@command("uncheck", CheckArgs, answers.Check, idempotent=True, cli_args=("target",))
async def uncheck(ctx: CommandContext, args: CheckArgs) -> answers.Check:
    """Uncheck a checkbox or switch (verified by its checked state)."""
    el = await resolve_target(ctx, args.target, frame=args.frame, control=True)
    done = await set_checked(ctx, el, False)
    return {**done.acted(), **(done.fields or {}), **done.about()}


class ScrollArgs(Args):
    target: str | None = Field(
        default=None,
        description="What to scroll (the element when it scrolls, else the scrolling element "
        "filling it, as a grid's root holds its scroller, else its nearest scrolling ancestor; "
        "none: the page). With --until: the scroller to wheel over.",
    )
    by: int | None = Field(default=None, description="Pixels to scroll down (negative: up).")
    to: str | None = Field(
        default=None,
        description="top or bottom.",
        json_schema_extra=cli_hints(choices=("top", "bottom")),
    )
    until: str | None = Field(
        default=None,
        description="Wheel until this TARGET exists and is in view "
        "(virtualized lists, infinite feeds); a text= TARGET in a list in no searchable order "
        "is looked for over the whole list, and answered not_found once all of it was seen; "
        "with TARGET named, a text= match counts only inside its scroller.",
    )
    frame: str | None = _frame_field()


@command("scroll", ScrollArgs, answers.Scroll, cli_args=("target",))
async def scroll(ctx: CommandContext, args: ScrollArgs) -> answers.Scroll:
    """Scroll TARGET's scroller (or the page) --by PIXELS or --to top|bottom; or --until TARGET.

    Answers the scroller, scrollTop before and after, and whether the end was reached."""
    given = [k for k in ("by", "to", "until") if getattr(args, k) is not None]
    if len(given) != 1:
        raise UsageError(
            "scroll takes one of --by PIXELS, --to top|bottom, --until TARGET", code="bad_request"
        )
    if args.to is not None and args.to not in ("top", "bottom"):
        raise UsageError("--to is top or bottom", code="bad_request")
    if args.until is not None:
        return (await scroll_until(ctx, args.until, args.target, args.frame)).to_wire()
    el = await resolve_target(ctx, args.target, frame=args.frame) if args.target else None
    return (await scroll_by(ctx, el, by=args.by, to=args.to)).to_wire()


class WaitArgs(Args):
    text: str | None = Field(default=None, description="Until this text is on the page.")
    target: str | None = Field(default=None, description="Until TARGET is there and visible.")
    gone: str | None = Field(default=None, description="Until TARGET is gone.")
    url: str | None = Field(default=None, description="Until the URL matches GLOB.")
    idle: bool = Field(default=False, description="Until the DOM has been quiet for a moment.")


@command("wait", WaitArgs, answers.Wait, timeout_ms=10_000, read_only=True)
async def wait(ctx: CommandContext, args: WaitArgs) -> answers.Wait:
    """Wait for one condition, within --timeout-ms (default 10 s)."""
    chosen = [k for k in ("text", "target", "gone", "url", "idle") if getattr(args, k)]
    if len(chosen) != 1:
        raise UsageError(
            "wait for one thing: --text, --target, --gone, --url or --idle", code="bad_request"
        )
    if args.idle:
        # The page's settle read, as it answers it: Wait's idle fields (pagescripts settle).
        return cast(answers.Wait, {"waited_for": "idle", **(await settle(ctx))})

    disagreed: list[float] = []

    async def holds() -> answers.Wait:
        if args.text is not None:
            await text_shown(ctx, *text_query(args.text), disagreed)
            return {"waited_for": "text", "text": args.text}
        if args.url is not None:
            href = str(await evaluate(ctx, page_call("documentUrl")))
            if fnmatch.fnmatchcase(href, args.url) or href == args.url:
                return {"waited_for": "url", "url": href}
            raise NotYet(f"url is {href}")
        if args.target is not None:
            el = await resolve_target(ctx, args.target, settle=False)
            await actionable_point(ctx, el, need_enabled=False)
            return {"waited_for": "target", "ref": el.ref}
        assert args.gone is not None
        try:
            await resolve_target(ctx, args.gone, settle=False)
        except ReinsError as exc:
            if exc.code in ("not_found", "ref_stale"):
                return {"waited_for": "gone"}
            raise
        await evaluate(ctx, "1", main_world=True)  # keep the tab answering
        raise NotYet(f"{args.gone} is still there")

    def gave_up(last: ReinsError) -> ReinsError:
        return DeadlineExceeded(
            f"wait: gave up at the end of the budget; last seen: {last.message}",
            details={"last_seen": last.message},
        )

    return await poll_until(
        ctx.deadline,
        holds,
        interval=0.1,
        reserve_s=0.15,
        gave_up=gave_up,
        retry=lambda exc: exc.transient or exc.code in ("not_found", "not_visible", "obscured"),
    )


COMMANDS: tuple[Command[Any], ...] = (
    click,
    dblclick,
    hover,
    fill,
    type_,
    press,
    select,
    choose,
    upload,
    drag,
    check,
    uncheck,
    scroll,
    wait,
    mouse_move,
    mouse_down,
    mouse_up,
    mouse_wheel,
)
