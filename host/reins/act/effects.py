"""Effects: what an action changed, read before and after it, so every answer proves itself.

Every action answers with what it observed change (value, checked, expanded, focus, URL, DOM in or
under the target, DOM elsewhere); when nothing changed it adds the warning `no_effect`. An action
that opens a JavaScript dialog answers ok with the dialog as its effect.
"""

from __future__ import annotations

import asyncio
from typing import Any

from reins._errors import ReinsError
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext
from reins.page.dialogs import DialogOpened, DialogWatch, until_dialog
from reins.page.frames import call_function, evaluate_value

__all__ = ["act_on", "effect_of"]


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
    await new Promise((r) => { requestAnimationFrame(() => setTimeout(r, 0)); setTimeout(r, 100); }); // bounded: a hidden tab runs no rAF
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


async def act_on(ctx: CommandContext, el: Resolved, action: Any) -> dict[str, Any]:
    """Run ``action(el)`` between two state reads and report the effect.

    If the action opens a JavaScript dialog, the page waits for it: the answer is then the dialog
    itself as the effect (answer it with `reins dialog accept|dismiss`)."""
    before = await _observe(ctx, el, "before")
    try:
        return await until_dialog(_act_and_read(ctx, el, action, before), ctx.part(DialogWatch))
    except DialogOpened as opened:
        out: dict[str, Any] = {"effect": {"dialog": opened.dialog}, "warnings": ["dialog_open"]}
        if el.recovered:
            out["recovered"] = el.recovered
        if el.ref:
            out["ref"] = el.ref
        return out


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
