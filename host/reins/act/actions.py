"""Actions that prove their effect: pointer, keyboard, forms, waiting.

A click is real input: CDP `Input.dispatchMouseEvent` (moved → pressed → released) at a point
that passed the actionability checks — attached, visible with a non-empty box, stable for two
animation frames, enabled, and receiving events (a hit test at the point lands on the target or
inside it, else `obscured` naming what covers it). DOM `el.click()` is used only when no usable
point exists, and the answer says so; `REINS_CLICK=js` forces it as an emergency switch.

Every action answers with what it observed change (value, checked, expanded, focus, URL, DOM in or
under the target, DOM elsewhere); when nothing changed it adds the warning `no_effect`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reins._errors import ActionError, ReinsError, ResolutionError, UsageError
from reins.page.frames import call_function, evaluate_value
from reins.act.locate import Resolved, resolve_target

if TYPE_CHECKING:
    from reins._host import CommandContext

__all__ = ["KeyChord", "act_on", "parse_keys", "press_keys"]


_PROBE = """async function(opts) {
  const el = this;
  if (!el.isConnected) return {state: "detached"};
  const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
  const box = () => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  if (opts.scroll) {
    // Into view (centred) unless it already is, as CDP's DOM.scrollIntoViewIfNeeded would; the
    // same-origin frames holding it first, outermost first, each in its own window.
    const inView = (n) => { const r = n.getBoundingClientRect(), w = n.ownerDocument.defaultView;
      return r.top >= 0 && r.left >= 0 && r.bottom <= w.innerHeight && r.right <= w.innerWidth; };
    const chain = [];
    for (let w = el.ownerDocument.defaultView; w.frameElement; w = w.parent) chain.unshift(w.frameElement);
    for (const n of [...chain, el]) {
      if (inView(n)) continue;
      if (n.scrollIntoViewIfNeeded) n.scrollIntoViewIfNeeded(true);
      else n.scrollIntoView({block: "center", inline: "center"});
    }
  }
  // Stable: the same box in two consecutive animation frames.
  const b1 = box(); await raf(); const b2 = box();
  const stable = b1.every((v, i) => Math.abs(v - b2[i]) < 0.5);
  const win = el.ownerDocument.defaultView;
  const style = win.getComputedStyle(el);
  const visible = b2[2] > 0 && b2[3] > 0 && style.visibility !== "hidden" && style.display !== "none";
  const disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true"
    || !!(el.closest && el.closest("fieldset[disabled]") && ["BUTTON","INPUT","SELECT","TEXTAREA"].includes(el.tagName));
  // The element's own frame chain up to this context's top window.
  let ox = 0, oy = 0;
  for (let w = win; w.frameElement; w = w.parent) {
    const f = w.frameElement, fr = f.getBoundingClientRect(), fs = w.parent.getComputedStyle(f);
    ox += fr.x + f.clientLeft + parseFloat(fs.paddingLeft); oy += fr.y + f.clientTop + parseFloat(fs.paddingTop);
  }
  // A point inside the box and inside the viewport.
  const vw = win.innerWidth, vh = win.innerHeight;
  const x0 = Math.max(b2[0], 0), y0 = Math.max(b2[1], 0);
  const x1 = Math.min(b2[0] + b2[2], vw), y1 = Math.min(b2[1] + b2[3], vh);
  // Rendered but boxless (display: contents, a 0x0 wrapper) may fall back to el.click(); inside a
  // display:none ancestor (a closed menu's option) it is simply not visible.
  const rendered = style.display === "contents" || !el.checkVisibility || el.checkVisibility();
  const zeroBox = (b2[2] === 0 || b2[3] === 0) && rendered && style.display !== "none" && style.visibility !== "hidden";
  if (!visible) return {state: "ok", visible, disabled, stable, zeroBox};
  if (x1 - x0 < 1 || y1 - y0 < 1) return {state: "ok", visible, disabled, stable, offscreen: true};
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const describe = (n) => {
    if (!n) return "nothing";
    let s = n.localName || "?"; if (n.id) s += "#" + n.id;
    if (typeof n.className === "string" && n.className.trim()) s += "." + n.className.trim().split(/\\s+/).slice(0, 2).join(".");
    const t = (n.innerText || n.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 30);
    return t ? s + ' "' + t + '"' : s;
  };
  let hit = el.ownerDocument.elementFromPoint(cx, cy);
  while (hit && hit.shadowRoot) { const inner = hit.shadowRoot.elementFromPoint(cx, cy); if (!inner || inner === hit) break; hit = inner; }
  const within = (n) => { for (let c = n; c; c = c.parentNode || c.host) { if (c === el) return true; } return false; };
  // Same-origin frames: the outer documents must also let the point through to this frame.
  let cover = null;
  if (!within(hit)) cover = describe(hit);
  else {
    let px = cx, py = cy;
    for (let w = win; w.frameElement && !cover; w = w.parent) {
      const f = w.frameElement, fr = f.getBoundingClientRect(), fs = w.parent.getComputedStyle(f);
      px += fr.x + f.clientLeft + parseFloat(fs.paddingLeft); py += fr.y + f.clientTop + parseFloat(fs.paddingTop);
      const outer = w.parent.document.elementFromPoint(px, py);
      if (outer !== f) cover = describe(outer);
    }
  }
  return {state: "ok", visible, disabled, stable, x: ox + cx, y: oy + cy, cover};
}"""

# What an action may change, read before and after it. "before" also arms a MutationObserver that
# counts changes in or under the target versus elsewhere in its document; "after" first lets the
# page finish the frame the action started (one animation frame and a task), then reads again
# and disarms the observer. One call each, so an action costs two round trips for its report.
_OBSERVE = """async function(phase) {
  const el = this, doc = el.ownerDocument, key = Symbol.for("reins.effect");
  let rec = window[key];
  if (phase === "before") {
    if (rec) rec.observer.disconnect();
    const counts = {inside: 0, elsewhere: 0};
    const tally = (list) => { for (const m of list) { if (el === m.target || el.contains(m.target)) counts.inside++; else counts.elsewhere++; } };
    const observer = new MutationObserver(tally);
    observer.observe(doc, {subtree: true, childList: true, attributes: true, characterData: true});
    rec = window[key] = {observer, counts, tally};
    setTimeout(() => observer.disconnect(), 5000); // never outlive the action by long
  } else {
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  }
  const focus = (n) => { if (!n || n === doc.body) return null; let s = n.localName; if (n.id) s += "#" + n.id;
    const l = n.getAttribute && (n.getAttribute("aria-label") || n.getAttribute("name")); return l ? s + "[" + l + "]" : s; };
  let value = null;
  if ("value" in el && typeof el.value === "string" && !["button","submit","reset"].includes(el.type)) value = el.type === "password" ? "*".repeat(el.value.length) : el.value;
  else if (el.isContentEditable) value = el.innerText;
  let checked = null;
  if (el.type === "checkbox" || el.type === "radio") checked = el.indeterminate ? "mixed" : el.checked;
  else if (el.hasAttribute("aria-checked")) checked = el.getAttribute("aria-checked");
  if (checked === "true") checked = true; else if (checked === "false") checked = false;
  let selected = null;
  if (el.localName === "select") selected = Array.from(el.selectedOptions).map((o) => o.label);
  const ex = el.getAttribute("aria-expanded");
  let counts = null;
  if (phase !== "before" && rec) {
    rec.tally(rec.observer.takeRecords());
    counts = rec.counts;
  }
  return {connected: el.isConnected, value, checked, selected,
          expanded: ex === null ? null : ex === "true", focus: focus(doc.activeElement),
          url: location.href, document: performance.timeOrigin, counts};
}"""


async def _observe(ctx: CommandContext, el: Resolved, phase: str) -> dict[str, Any] | None:
    try:
        value = await call_function(ctx, el.object_id, _OBSERVE, phase, session_id=el.session_id,
                                    await_promise=True, what="read state")
        return value if isinstance(value, dict) else None
    except ReinsError:
        return None  # the context went away: a navigation


def effect_of(before: dict[str, Any] | None, after: dict[str, Any] | None,
              url_after: str | None) -> tuple[dict[str, Any], list[str]]:
    """What changed between two state reads (pure)."""
    effect: dict[str, Any] = {}
    if before is None:
        return {"unknown": True}, []
    if after is None:
        effect["navigated"] = True
        if url_after is not None:
            effect["url"] = {"from": before.get("url"), "to": url_after}
        return effect, []
    for key in ("value", "checked", "selected", "expanded", "focus", "url"):
        if before.get(key) != after.get(key):
            effect[key] = {"from": before.get(key), "to": after.get(key)}
    if not after.get("connected", True):
        effect["target_detached"] = True
    counts = after.get("counts") or {}
    if counts.get("inside"):
        effect["dom_changed_in_target"] = int(counts["inside"])
    if counts.get("elsewhere"):
        effect["dom_changed_elsewhere"] = int(counts["elsewhere"])
    warnings = [] if effect else ["no_effect"]
    return effect, warnings


@dataclass
class Point:
    x: float
    y: float


async def _frame_owner(ctx: CommandContext, el: Resolved) -> int:
    """The backend node id of the iframe holding an element of an out-of-process frame (looked
    up once per resolved element)."""
    if el.frame_owner is None:
        from reins.page.frames import frame_sessions

        fs = await frame_sessions(ctx)
        frame_id = next((f for f, s in fs.sessions.items() if s == el.session_id), None)
        if frame_id is None:
            raise ReinsError("the element's frame is gone", code="frame_unreachable")
        owner = await ctx.cdp("DOM.getFrameOwner", {"frameId": frame_id})
        el.frame_owner = int(owner["backendNodeId"])
    return el.frame_owner


async def _frame_offset(ctx: CommandContext, el: Resolved) -> tuple[float, float]:
    """For an element in an out-of-process frame: that frame's origin in the main viewport."""
    if el.session_id is None:
        return 0.0, 0.0
    model = await ctx.cdp("DOM.getBoxModel", {"backendNodeId": await _frame_owner(ctx, el)})
    content = (model.get("model") or {}).get("content") or [0, 0]
    return float(content[0]), float(content[1])


async def actionable_point(ctx: CommandContext, el: Resolved, *, need_enabled: bool = True,
                           ) -> Point | None:
    """Scroll into view and run the checks until they pass or the budget ends.

    Returns None when the element has no usable point (no box); raises the last transient failure
    (obscured, not_visible, not_stable) when the budget runs out, and `disabled` at once.
    """
    last: ReinsError | None = None
    while True:
        if el.session_id is not None:  # an out-of-process frame: bring the frame into view first
            try:
                await _scroll_frame_owner(ctx, el)
            except ReinsError:
                pass
        try:
            probe = await call_function(ctx, el.object_id, _PROBE, {"scroll": True},
                                        session_id=el.session_id, await_promise=True,
                                        what="actionability")
        except ReinsError as exc:
            if exc.code == "timeout" and last is not None:
                raise last from exc  # the budget ran out mid-probe: answer why we were waiting
            raise
        if not isinstance(probe, dict) or probe.get("state") == "detached":
            raise ResolutionError("the element left the page", code="ref_stale", transient=True)
        if need_enabled and probe.get("disabled"):
            raise ResolutionError("the element is disabled", code="disabled")
        if not probe.get("visible"):
            last = ResolutionError("the element is not visible (no box, hidden or display:none)",
                                   code="not_visible", transient=True)
            if probe.get("zeroBox"):
                # Displayed but without a box: no point to press. The caller may use el.click().
                return None
        elif not probe.get("stable"):
            last = ResolutionError("the element is moving", code="not_stable", transient=True)
        elif probe.get("offscreen"):
            last = ResolutionError("the element could not be scrolled into view",
                                   code="not_visible", transient=True)
        elif probe.get("cover"):
            last = ResolutionError(f"the element is covered by {probe['cover']}", code="obscured",
                                   transient=True, details={"covered_by": probe["cover"]})
        else:
            ox, oy = await _frame_offset(ctx, el)
            return Point(float(probe["x"]) + ox, float(probe["y"]) + oy)
        if ctx.deadline.remaining() < 0.15:
            raise last
        await asyncio.sleep(0.1)


async def _scroll_frame_owner(ctx: CommandContext, el: Resolved) -> None:
    await ctx.cdp("DOM.scrollIntoViewIfNeeded", {"backendNodeId": await _frame_owner(ctx, el)})


def _first_failure(answers: list[dict[str, Any] | ReinsError]) -> ReinsError:
    return next(a for a in answers if isinstance(a, ReinsError))


async def _mouse(ctx: CommandContext, point: Point, *, clicks: int, button: str = "left",
                 modifiers: int = 0) -> None:
    """moved → (pressed → released) × clicks, as one ordered batch: one round trip."""
    base = {"x": point.x, "y": point.y, "modifiers": modifiers}
    events: list[tuple[str, dict[str, Any]]] = [
        ("Input.dispatchMouseEvent", {"type": "mouseMoved", **base, "button": "none", "buttons": 0})]
    mask = {"left": 1, "right": 2, "middle": 4}[button]
    for count in range(1, clicks + 1):
        events.append(("Input.dispatchMouseEvent", {"type": "mousePressed", **base,
                                                    "button": button, "buttons": mask,
                                                    "clickCount": count}))
        events.append(("Input.dispatchMouseEvent", {"type": "mouseReleased", **base,
                                                    "button": button, "buttons": 0,
                                                    "clickCount": count}))
    answers = await ctx.host.link.cdp_batch(ctx.tab, events, deadline=ctx.deadline,
                                            sequential=True)
    if any(isinstance(answer, ReinsError) for answer in answers):
        raise _first_failure(answers)
    if len(answers) < len(events):
        raise ReinsError("the mouse events were cut short", code="cdp_error", transient=True)


async def act_on(ctx: CommandContext, el: Resolved, action: Any) -> dict[str, Any]:
    """Run ``action(el)`` between two state reads and report the effect.

    If the action opens a JavaScript dialog, the page waits for it: the answer is then the dialog
    itself as the effect (answer it with `reins dialog accept|dismiss`)."""
    before = await _observe(ctx, el, "before")
    try:
        return await _until_dialog(ctx, _act_and_read(ctx, el, action, before))
    except _DialogOpened as opened:
        out: dict[str, Any] = {"effect": {"dialog": opened.dialog}, "warnings": ["dialog_open"]}
        if el.recovered:
            out["recovered"] = el.recovered
        if el.ref:
            out["ref"] = el.ref
        return out


class _DialogOpened(ReinsError):
    """Control flow: the action opened a dialog (reported as its effect, not as a failure)."""

    def __init__(self, dialog: dict[str, Any]) -> None:
        super().__init__("a dialog opened", code="dialog_open")
        self.dialog = dialog


async def _until_dialog(ctx: CommandContext, work: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    from reins.page.dialogs import DialogWatch

    task: asyncio.Future[dict[str, Any]] = asyncio.ensure_future(work)
    watch = ctx.host.tab(ctx.tab).extra.get("dialogs")
    if not isinstance(watch, DialogWatch):
        return await task
    opened: asyncio.Future[Any] = asyncio.ensure_future(watch.is_open.wait())
    try:
        await asyncio.wait([task, opened], return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        raise _DialogOpened(dict(watch.current or {}))
    finally:
        opened.cancel()
        if not task.done():
            task.cancel()


async def _act_and_read(ctx: CommandContext, el: Resolved, action: Any,
                        before: dict[str, Any] | None) -> dict[str, Any]:
    extra = await action(el) or {}
    after = await _observe(ctx, el, "after")
    if after is not None and before is not None and not effect_of(before, after, None)[0]:
        # Nothing yet: a navigation or a slower update may still be on its way; look once more.
        await asyncio.sleep(min(0.15, max(0.0, ctx.deadline.remaining() - 0.3)))
        after = await _observe(ctx, el, "after")
        if after is not None:
            try:  # in the element's own frame: its document may have moved on meanwhile
                now = await call_function(
                    ctx, el.object_id,
                    "function() { return this.ownerDocument.defaultView.performance.timeOrigin; }",
                    session_id=el.session_id, what="document")
                if now != before.get("document"):
                    after = None
            except ReinsError:
                after = None
    url_after = None
    if after is None:
        try:
            url_after = str(await evaluate_value(ctx, "location.href", what="url"))
        except ReinsError:
            url_after = None
    effect, warnings = effect_of(before, after, url_after)
    out: dict[str, Any] = {"effect": effect, "warnings": warnings + extra.pop("warnings", [])}
    out.update(extra)
    if el.recovered:
        out["recovered"] = el.recovered
    if el.ref:
        out["ref"] = el.ref
    return out


async def click_element(ctx: CommandContext, el: Resolved, *, clicks: int = 1, button: str = "left",
                        force_js: bool = False, hover_only: bool = False) -> dict[str, Any]:
    async def do(target: Resolved) -> dict[str, Any]:
        if force_js:
            await _js_click(ctx, target, clicks)
            ctx.host.stats.note("js_click_forced")
            return {"method": "js", "warnings": ["js_click_forced"]}
        point = await actionable_point(ctx, target, need_enabled=not hover_only)
        if point is None:
            if hover_only:
                raise ResolutionError("the element has no box to hover", code="not_visible")
            await _js_click(ctx, target, clicks)
            ctx.host.stats.note("js_click_fallback")
            return {"method": "js_fallback", "warnings": ["js_click_fallback"]}
        if hover_only:
            await ctx.cdp("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": point.x,
                                                       "y": point.y, "button": "none"})
        else:
            await _mouse(ctx, point, clicks=clicks, button=button)
        return {"method": "cdp", "point": [round(point.x, 1), round(point.y, 1)]}

    return await act_on(ctx, el, do)


async def _js_click(ctx: CommandContext, el: Resolved, clicks: int) -> None:
    await call_function(ctx, el.object_id,
                        "function(n) { for (let i = 0; i < n; i++) this.click(); }", clicks,
                        session_id=el.session_id, what="js click")


# ---- keyboard ---------------------------------------------------------------------------------

_MODIFIER_BITS = {"alt": 1, "control": 2, "ctrl": 2, "meta": 4, "cmd": 4, "command": 4, "shift": 8}
_MODIFIER_KEYS = {1: ("Alt", "AltLeft", 18), 2: ("Control", "ControlLeft", 17),
                  4: ("Meta", "MetaLeft", 91), 8: ("Shift", "ShiftLeft", 16)}
# key -> (code, windowsVirtualKeyCode, text)
_NAMED_KEYS: dict[str, tuple[str, int, str]] = {
    "Enter": ("Enter", 13, "\r"), "Tab": ("Tab", 9, ""), "Escape": ("Escape", 27, ""),
    "Backspace": ("Backspace", 8, ""), "Delete": ("Delete", 46, ""), "Space": ("Space", 32, " "),
    "ArrowUp": ("ArrowUp", 38, ""), "ArrowDown": ("ArrowDown", 40, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""), "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""), "End": ("End", 35, ""), "PageUp": ("PageUp", 33, ""),
    "PageDown": ("PageDown", 34, ""), "Insert": ("Insert", 45, ""),
    **{f"F{n}": (f"F{n}", 111 + n, "") for n in range(1, 13)},
}
_ALIASES = {"esc": "Escape", "return": "Enter", "del": "Delete", "up": "ArrowUp",
            "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", " ": "Space",
            "space": "Space", "pgup": "PageUp", "pgdn": "PageDown"}


@dataclass(frozen=True)
class KeyChord:
    key: str
    code: str
    key_code: int
    text: str
    modifiers: int


def parse_keys(spec: str) -> KeyChord:
    """`Control+A`, `Shift+Tab`, `Enter`, `a` -> one chord (pure)."""
    parts = [p for p in spec.split("+")] if spec != "+" else ["+"]
    if any(p == "" for p in parts):
        raise UsageError(f"{spec!r}: keys look like Enter, Control+A, Shift+Tab", code="bad_request")
    modifiers = 0
    for part in parts[:-1]:
        bit = _MODIFIER_BITS.get(part.lower())
        if bit is None:
            raise UsageError(f"{part!r} is not a modifier (Control, Shift, Alt, Meta)",
                             code="bad_request")
        modifiers |= bit
    name = parts[-1]
    name = _ALIASES.get(name.lower(), name)
    canonical = next((k for k in _NAMED_KEYS if k.lower() == name.lower()), None)
    if canonical is not None:
        code, vk, text = _NAMED_KEYS[canonical]
        key = " " if canonical == "Space" else canonical
        return KeyChord(key, code, vk, text if modifiers & ~8 == 0 else "", modifiers)
    if len(name) != 1:
        raise UsageError(f"unknown key {name!r}", code="bad_request")
    ch = name
    if ch.isalpha():
        upper = ch.upper()
        key = upper if modifiers & 8 else ch.lower() if len(ch) == 1 else ch
        code, vk = f"Key{upper}", ord(upper)
    elif ch.isdigit():
        key, code, vk = ch, f"Digit{ch}", ord(ch)
    else:
        key, code, vk = ch, "", 0
    # With Control/Alt/Meta held a key types nothing (it is a shortcut).
    text = key if modifiers & ~8 == 0 else ""
    return KeyChord(key, code, vk, text, modifiers)


async def press_keys(ctx: CommandContext, chord: KeyChord, *, session_id: str | None = None) -> None:
    held = 0
    for bit, (key, code, vk) in _MODIFIER_KEYS.items():
        if chord.modifiers & bit:
            held |= bit
            await ctx.cdp("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": key, "code": code,
                                                     "windowsVirtualKeyCode": vk, "modifiers": held})
    down: dict[str, Any] = {"type": "keyDown" if chord.text else "rawKeyDown", "key": chord.key,
                            "code": chord.code, "windowsVirtualKeyCode": chord.key_code,
                            "modifiers": chord.modifiers}
    if chord.text:
        down["text"] = chord.text
        down["unmodifiedText"] = chord.text
    if chord.modifiers & 2 and len(chord.key) == 1 and chord.key.lower() in "acvxyz":
        # Editing shortcuts run as editor commands, as they do in a real browser window.
        down["commands"] = [{"a": "selectAll", "c": "copy", "v": "paste", "x": "cut",
                             "y": "redo", "z": "undo"}[chord.key.lower()]]
    await ctx.cdp("Input.dispatchKeyEvent", down)
    await ctx.cdp("Input.dispatchKeyEvent", {"type": "keyUp", "key": chord.key, "code": chord.code,
                                             "windowsVirtualKeyCode": chord.key_code,
                                             "modifiers": chord.modifiers})
    for bit, (key, code, vk) in reversed(list(_MODIFIER_KEYS.items())):
        if chord.modifiers & bit:
            held &= ~bit
            await ctx.cdp("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                                     "windowsVirtualKeyCode": vk, "modifiers": held})


# ---- forms ------------------------------------------------------------------------------------

_EDITABLE = """function(mode) {
  const el = this;
  const tag = el.localName;
  const textual = tag === "textarea" || (tag === "input" && !["checkbox","radio","button","submit","reset","file","image","range","color","hidden"].includes(el.type));
  if (!textual && !el.isContentEditable) return {ok: false, why: "not a text field (" + tag + (el.type ? "[type=" + el.type + "]" : "") + ")"};
  if (el.readOnly) return {ok: false, why: "read-only"};
  if (el.disabled) return {ok: false, why: "disabled"};
  el.focus();
  if (textual) {
    if (mode === "all") { try { el.select(); } catch (e) { el.setSelectionRange(0, el.value.length); } }
    else { try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) {} }
  } else {
    const sel = el.ownerDocument.getSelection(); const range = el.ownerDocument.createRange();
    range.selectNodeContents(el); if (mode !== "all") range.collapse(false);
    sel.removeAllRanges(); sel.addRange(range);
  }
  return {ok: true, textual};
}"""

_VALUE = """function() { return this.isContentEditable && !("value" in this) ? this.innerText.replace(/\\n$/, "") : this.value; }"""


async def fill_element(ctx: CommandContext, el: Resolved, text: str, *, append: bool = False,
                       ) -> dict[str, Any]:
    async def do(target: Resolved) -> dict[str, Any]:
        await actionable_point(ctx, target)
        try:
            await ctx.cdp("DOM.focus", {"objectId": target.object_id}, session_id=target.session_id)
        except ReinsError:
            pass  # focus() in the page script below covers elements CDP will not focus
        ready = await call_function(ctx, target.object_id, _EDITABLE, "end" if append else "all",
                                    session_id=target.session_id, what="prepare field")
        if not isinstance(ready, dict) or not ready.get("ok"):
            why = ready.get("why") if isinstance(ready, dict) else "unknown"
            raise ResolutionError(f"cannot type into this element: {why}", code="not_editable")
        original = await call_function(ctx, target.object_id, _VALUE, session_id=target.session_id)
        if not append and original:
            await press_keys(ctx, parse_keys("Delete"))
        if text:
            await ctx.cdp("Input.insertText", {"text": text})
        kept = await call_function(ctx, target.object_id, _VALUE, session_id=target.session_id)
        expected = (str(original or "") + text) if append else text
        if kept != expected:
            raise ActionError(
                f"the field kept {kept!r}, not {expected!r} (the page reformatted or refused it)",
                code="fill_mismatch", details={"kept": kept, "expected": expected})
        return {"value": kept}

    return await act_on(ctx, el, do)


_SELECT = """function(wanted) {
  const el = this;
  if (el.localName !== "select") return {error: "not_editable", message: "not a <select> (use click for custom dropdowns)"};
  if (el.disabled) return {error: "disabled", message: "the select is disabled"};
  const options = Array.from(el.options);
  const picked = [];
  for (const w of wanted) {
    const o = options.find((o) => o.value === w) || options.find((o) => o.label.trim() === w.trim())
      || options.find((o) => o.label.trim().toLowerCase() === w.trim().toLowerCase());
    if (!o) return {error: "select_mismatch", message: "no option " + JSON.stringify(w) + "; options: " + options.map((o) => o.label).join(", ")};
    picked.push(o);
  }
  if (!el.multiple && picked.length > 1) return {error: "select_mismatch", message: "this select takes one value"};
  for (const o of options) o.selected = picked.includes(o);
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return {selected: Array.from(el.selectedOptions).map((o) => ({value: o.value, label: o.label}))};
}"""


async def select_options(ctx: CommandContext, el: Resolved, values: list[str]) -> dict[str, Any]:
    async def do(target: Resolved) -> dict[str, Any]:
        await actionable_point(ctx, target)
        answer = await call_function(ctx, target.object_id, _SELECT, values,
                                     session_id=target.session_id, what="select")
        if not isinstance(answer, dict):
            raise ActionError("the select did not answer", code="select_mismatch")
        if "error" in answer:
            code = str(answer["error"])
            cls = ActionError if code == "select_mismatch" else ResolutionError
            raise cls(str(answer.get("message")), code=code)
        return {"selected": answer["selected"]}

    return await act_on(ctx, el, do)


_CHECKED = """function() {
  if (this.type === "checkbox" || this.type === "radio") return {kind: this.type, checked: this.checked};
  const role = this.getAttribute("role");
  if (role === "checkbox" || role === "switch" || role === "radio" || role === "menuitemcheckbox")
    return {kind: role, checked: this.getAttribute("aria-checked") === "true"};
  return {kind: null};
}"""


async def set_checked(ctx: CommandContext, el: Resolved, wanted: bool) -> dict[str, Any]:
    state = await call_function(ctx, el.object_id, _CHECKED, session_id=el.session_id)
    if not isinstance(state, dict) or state.get("kind") is None:
        raise ResolutionError("not a checkbox, radio or switch", code="not_editable")
    if state.get("checked") == wanted:
        return {"effect": {}, "warnings": ["already_" + ("checked" if wanted else "unchecked")],
                "checked": wanted}
    if not wanted and state.get("kind") == "radio":
        raise UsageError("a radio button cannot be unchecked; check another one", code="bad_request")
    result = await click_element(ctx, el)
    after = await call_function(ctx, el.object_id, _CHECKED, session_id=el.session_id)
    if not isinstance(after, dict) or after.get("checked") != wanted:
        raise ActionError(f"the control is still {'un' if wanted else ''}checked after the click",
                          code="check_failed")
    result["checked"] = wanted
    return result


async def resolve_for_action(ctx: CommandContext, target: str | None, frame: str | None,
                             smart: dict[str, Any] | None) -> Resolved:
    """An action's element, from TARGET or from smart-mode options (--text/--index/--type)."""
    if smart:
        from reins.commands.observe import FindArgs, find_elements
        from reins.act.locate import handle_for_record

        matches, _stage = await find_elements(ctx, FindArgs(**smart))
        if len(matches) > 1 and smart.get("index") is None:
            raise ResolutionError(
                f"{len(matches)} elements match {json.dumps(smart, ensure_ascii=False)}",
                code="ambiguous", hint="add --index N (1-based) or --type",
                details={"candidates": [m.get("ref") for m in matches[:8]]})
        chosen = matches[0]
        from reins.observe.collect import SeenAt

        seen = ctx.host.tab(ctx.tab).extra.get("seen")
        # The map may be a cached one from an earlier observation than the latest (a `state` since
        # then renumbers elements): go by the chosen element's ref, not by its index.
        ref = chosen.get("ref")
        if not isinstance(seen, SeenAt) or ref not in seen.homes:
            raise ResolutionError(f"{ref} left the page since the map was built", code="ref_stale",
                                  transient=True, hint="run `reins map --force` or `reins state`")
        return await handle_for_record(ctx, seen.homes[ref], via="smart", ref=ref)
    if not target:
        raise UsageError("give a TARGET (@ref, CSS, XPath, role=…, text=…) or --text",
                         code="bad_request")
    return await resolve_target(ctx, target, frame=frame)
