"""Actionability: is the element ready for a person's input, and where to give it.

One page call scrolls the element into view (the same-origin frames holding it first) and checks
that it is attached, visible with a non-empty box, stable (the same box in two consecutive animation
frames), enabled, and receiving events (a hit test at the point lands on it or inside it, else
`obscured` naming what covers it). Transient failures are retried until the budget ends.
Out-of-process frames: the point is moved by the frame owner's content box.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from reins._errors import ReinsError, ResolutionError
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext
from reins.page.frames import call_function, frame_sessions
from reins.page.visibility import require_rendering

__all__ = ["Point", "actionable_point"]


_PROBE = """async function(opts) {
  const el = this;
  if (!el.isConnected) return {state: "detached"};
  const raf = () => new Promise((r) => { requestAnimationFrame(() => r()); setTimeout(r, 100); }); // bounded: a hidden tab runs no rAF
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


@dataclass
class Point:
    x: float
    y: float


async def _frame_owner(ctx: CommandContext, el: Resolved) -> int:
    """The backend node id of the iframe holding an element of an out-of-process frame (looked
    up once per resolved element)."""
    if el.frame_owner is None:
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
    require_rendering(ctx)
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
