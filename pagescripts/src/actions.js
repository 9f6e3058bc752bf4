// What an action asks of its element: is it ready for input and where (probe), is it a field
// to type into, a select's options, a checkbox's state; and the DOM click fallback.

import { FRAME_OWNER_TAGS } from "./rules.js";
import { FOCUS_ELSEWHERE, MOVING, STEADY } from "./symbols.js";
import { elementText, isVisible } from "./textmatch.js";
import {
  contentBoxOrigin, frameOffset, insideClips, pressReaches, sameBox, throughFrame, visibleCenter,
} from "./geometry.js";

// A short label for whatever covers an element: tag#id.class "text".
export function nodeLabel(n) {
  if (!n) return "nothing";
  let s = n.localName || "?";
  if (n.id) s += "#" + n.id;
  if (typeof n.className === "string" && n.className.trim()) {
    s += "." + n.className.trim().split(/\s+/).slice(0, 2).join(".");
  }
  if (FRAME_OWNER_TAGS.has(n.localName)) return s + frameOf(n); // its text is not what shows
  const t = (n.innerText || n.textContent || "").trim().replace(/\s+/g, " ").slice(0, 30);
  return t ? s + ' "' + t + '"' : s;
}

// The origin a frame owner's document comes from, as its URL says (act/hittest.py name_node
// says the same of the node Chrome's hit test found).
function frameOf(n) {
  try {
    const url = new URL(n.getAttribute("src") || n.getAttribute("data") || "", n.baseURI);
    if (url.protocol === "http:" || url.protocol === "https:") return ` (a frame of ${url.origin})`;
  } catch (_) {
    // no URL: a srcdoc or about:blank frame
  }
  return " (a frame)";
}

function box(el) {
  const r = el.getBoundingClientRect();
  return [r.x, r.y, r.width, r.height];
}

function nextFrame() {
  // Bounded: a hidden tab runs no animation frames at all (docs/hidden-tabs.md).
  return new Promise((resolve) => {
    requestAnimationFrame(() => resolve());
    setTimeout(resolve, 100);
  });
}

function inView(n) {
  const r = n.getBoundingClientRect();
  const w = n.ownerDocument.defaultView;
  return r.top >= 0 && r.left >= 0 && r.bottom <= w.innerHeight && r.right <= w.innerWidth
    && insideClips(n);
}

// The alignments a retry after `obscured` scrolls the element to, in turn (as Playwright does):
// a header or footer fixed over the page covers one end of the viewport, not all of them.
// Index 0 is "into view if needed" (centred), which moves nothing that is in view already.
export const ALIGNMENTS = [null, "end", "center", "start"];

// Into view (centred) unless it already is, as CDP's DOM.scrollIntoViewIfNeeded would: every
// scrolling ancestor, not only the window (a row below the fold of a short list inside the
// window is in the window's view yet hidden); the same-origin frames holding it first,
// outermost first, each in its own window. With an alignment, the element itself is scrolled
// to it even when in view.
function scrollIntoView(el, align) {
  const chain = [];
  for (let w = el.ownerDocument.defaultView; w.frameElement; w = w.parent) chain.unshift(w.frameElement);
  for (const n of [...chain, el]) {
    if (n === el && align) {
      n.scrollIntoView({ block: align, inline: align });
      continue;
    }
    if (inView(n)) continue;
    if (n.scrollIntoViewIfNeeded) n.scrollIntoViewIfNeeded(true);
    else n.scrollIntoView({ block: "center", inline: "center" });
  }
}

// The document itself answered a hit test: nothing there covers the element, the point is not
// on it (pointer-events: none, clipped away). Never reported as a cover.
function isRoot(n) {
  return !n || n === n.ownerDocument.documentElement || n === n.ownerDocument.body;
}

function hitAt(doc, x, y) {
  let hit = doc.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

// What receives a click at (x, y) of el's window: null when the element itself (or something
// inside it) does, else {label, root} of what does. Same-origin frames: each outer document
// must also let the point, carried through the frame's offset and scale, through to the frame.
// A press inside a <label> goes to the label's control, as the browser forwards it (Playwright
// retargets the hit the same way), and one on a part drawn with the control in its widget (a
// placeholder laid over the input) is a press on it: geometry.js, pressReaches.
export function coverAt(el, win, x, y) {
  const hit = hitAt(el.ownerDocument, x, y);
  if (!pressReaches(hit, el)) return { label: nodeLabel(hit), root: isRoot(hit) };
  let p = { x, y };
  for (let w = win; w.frameElement; w = w.parent) {
    const f = w.frameElement;
    p = throughFrame(contentBoxOrigin(f, w.parent.getComputedStyle(f)), p.x, p.y);
    const outer = hitAt(w.parent.document, p.x, p.y);
    if (outer !== f) return { label: nodeLabel(outer), root: isRoot(outer) };
  }
  return null;
}

// The boxes a person could press: the element's own per-line boxes (its content quads: a link
// wrapped over two lines has two, and its bounding box's middle may be on neither), else its
// bounding box.
function pressBoxes(el, bounding) {
  const rects = Array.from(el.getClientRects(), (r) => [r.x, r.y, r.width, r.height]);
  const boxes = rects.filter((b) => b[2] > 0 && b[3] > 0);
  return boxes.length ? boxes : [bounding];
}

// The point to press: the visible middle of the first box whose hit test lands on the element
// ({x, y} in el's window), else {cover} (the first real cover), {root: true} (only the document
// answered) or {offscreen: true} (no box shows a pixel in the viewport).
function pressPoint(el, win, bounding) {
  let seen = false;
  let cover = null;
  for (const b of pressBoxes(el, bounding)) {
    const c = visibleCenter(b, win.innerWidth, win.innerHeight);
    if (c === null) continue;
    seen = true;
    const blocker = coverAt(el, win, c.x, c.y);
    if (blocker === null) return c;
    if (!blocker.root && cover === null) cover = blocker.label;
  }
  if (!seen) return { offscreen: true };
  return cover === null ? { root: true } : { cover };
}

// Read-only: a field's readonly attribute, or aria-readonly.
function isReadOnly(el) {
  return el.readOnly === true || el.getAttribute("aria-readonly") === "true";
}

// Actionability in one call: attached, visible with a box, stable (the same box in two
// consecutive animation frames), enabled (and whether editable), and receiving events at the
// point. The point is in the viewport of the top window of this frame tree. opts: {scroll,
// align} (an index into ALIGNMENTS).
const GEOMETRY = /^(transform|translate|scale|rotate|left|top|right|bottom|inset|margin|width|height|all$)/;

function animatesGeometry(a) {
  if (a.playState !== "running") return false;
  if (typeof a.transitionProperty === "string") return GEOMETRY.test(a.transitionProperty);
  const frames = a.effect && a.effect.getKeyframes ? a.effect.getKeyframes() : [];
  return frames.some((f) => Object.keys(f).some((k) => GEOMETRY.test(k)));
}

// Is a finite animation moving the element (or an ancestor) right now? An infinite one (a pulse,
// a marquee) would never let it be pressed; the two boxes judge those.
function movingNow(el) {
  for (let n = el; n && n.getAnimations; n = n.parentElement) {
    for (const a of n.getAnimations()) {
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : {};
      if (timing.endTime !== Infinity && animatesGeometry(a)) return true;
    }
  }
  return false;
}

// The second look of a deferred probe, taken by the press's batch once its mouse move is in
// (armReceipt, effects.js): a frame after the first, which the move's own frame usually is
// already; throws MOVING when the box changed or an animation moves it, so the press is not given.
export async function steadySincePressProbe(el) {
  const steady = el.ownerDocument.defaultView[STEADY];
  const first = steady && steady.get(el);
  if (!first) throw new Error(MOVING); // no first look here: the host probes again
  steady.delete(el);
  if (!first.framed) await nextFrame();
  if (!el.isConnected || !sameBox(first.box, box(el)) || movingNow(el)) throw new Error(MOVING);
}

function deferSecondLook(el, b1) {
  const win = el.ownerDocument.defaultView;
  if (!win[STEADY]) win[STEADY] = new WeakMap();
  const first = { box: b1, framed: false };
  win[STEADY].set(el, first);
  requestAnimationFrame(() => {
    first.framed = true;
  });
}

export async function probe(el, opts) {
  if (!el.isConnected) return { state: "detached" };
  // Stable: the same box at two moments at least a frame apart. The first may be the host's
  // latest observation of this very element (`seen`, main-viewport coordinates) when it is in
  // view where that observation saw it and nothing needs scrolling (a scroll, maybe a smooth
  // one, moves it); otherwise the probe waits a frame for the second, or, with opts.defer (a
  // press whose batch checks it: steadySincePressProbe), leaves the second look to the press.
  const seenThere = Array.isArray(opts.seen) && !opts.align && el.ownerDocument === document
    && inView(el) && sameBox(opts.seen, box(el));
  if (opts.scroll && !seenThere) scrollIntoView(el, ALIGNMENTS[opts.align || 0]);
  const b1 = box(el);
  // opts.stable false: the action presses no point (fill, type, select), stability is not asked.
  const asked = opts.stable !== false;
  const deferred = asked && !seenThere && opts.defer === true;
  if (deferred) deferSecondLook(el, b1);
  else if (asked && !seenThere) await nextFrame();
  if (!el.isConnected) return { state: "detached" };
  const b2 = seenThere || deferred || !asked ? b1 : box(el);
  // A transition that has just started shows the same box for its first frame: a running
  // animation of where the element or an ancestor is (not its colour, not a spinner's opacity)
  // is movement too.
  const stable = asked ? sameBox(b1, b2) && !movingNow(el) : null;
  const win = el.ownerDocument.defaultView;
  const style = win.getComputedStyle(el);
  const visible = b2[2] > 0 && b2[3] > 0 && style.visibility !== "hidden" && style.display !== "none";
  const disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true"
    || !!(el.closest && el.closest("fieldset[disabled]")
      && ["BUTTON", "INPUT", "SELECT", "TEXTAREA"].includes(el.tagName));
  const seen = { state: "ok", visible, disabled, readonly: isReadOnly(el), stable, deferred };
  // Rendered but boxless (display: contents, a 0x0 wrapper) may fall back to el.click(); inside a
  // display:none ancestor (a closed menu's option) it is simply not visible.
  const rendered = style.display === "contents" || !el.checkVisibility || el.checkVisibility();
  const zeroBox = (b2[2] === 0 || b2[3] === 0) && rendered && style.display !== "none"
    && style.visibility !== "hidden";
  if (!visible) return { ...seen, zeroBox };
  const spot = pressPoint(el, win, b2);
  if (spot.offscreen) return { ...seen, offscreen: true };
  if (spot.root) return { ...seen, noHit: true };
  if (spot.cover) return { ...seen, cover: spot.cover };
  const offset = frameOffset(win);
  return { ...seen, x: offset.x + offset.sx * spot.x, y: offset.y + offset.sy * spot.y, cover: null };
}

const NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset", "file", "image", "range", "color", "hidden"];

// Does a tag (and input type) hold text that typing replaces?
export function isTextual(tag, type) {
  return tag === "textarea" || (tag === "input" && !NOT_TEXT.includes(type));
}

// Focuses a field and selects its whole text ("all") or puts the caret at its end.
export function prepareField(el, mode) {
  const tag = el.localName;
  const textual = isTextual(tag, el.type);
  if (!textual && !el.isContentEditable) {
    return { ok: false, why: "not a text field (" + tag + (el.type ? "[type=" + el.type + "]" : "") + ")" };
  }
  if (el.readOnly) return { ok: false, why: "read-only" };
  if (el.disabled) return { ok: false, why: "disabled" };
  el.focus();
  if (textual) {
    if (mode === "all") {
      try {
        el.select();
      } catch (e) {
        el.setSelectionRange(0, el.value.length);
      }
    } else {
      try {
        const n = el.value.length;
        el.setSelectionRange(n, n);
      } catch (e) {
        // a type without a selection (email, number): the caret stays where focus put it
      }
    }
  } else {
    const sel = el.ownerDocument.getSelection();
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    if (mode !== "all") range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }
  return { ok: true, textual };
}

// A date or time field drawn as segments (MUI X's pickers, React Aria's DateField): parts with
// role=spinbutton in one role=group, the field moving focus from one part to the next as digits
// are typed. {group, parts} for a part of one or the group itself, else null.
export function segmentsOf(el) {
  const group = el.getAttribute("role") === "group" ? el : el.parentElement?.closest('[role="group"]');
  if (!group) return null;
  const parts = Array.from(group.querySelectorAll('[role="spinbutton"]'));
  if (parts.length < 2 || (el !== group && !parts.includes(el))) return null;
  return { group, parts };
}

// Bidirectional isolates and marks a segmented field wraps its parts in.
const BIDI = /[\u200e\u200f\u2066-\u2069]/g;

// The text a field keeps (a contenteditable's without the trailing newline it renders); a
// segmented field's (or one of its parts'): the text from its first part to its last, "03/15/2026"
// (not the group's whole text, which may hold its label).
export function fieldValue(el) {
  const segmented = segmentsOf(el);
  if (segmented !== null) {
    const { parts } = segmented;
    const range = parts[0].ownerDocument.createRange();
    range.setStartBefore(parts[0]);
    range.setEndAfter(parts[parts.length - 1]);
    return range.toString().replace(BIDI, "").replace(/\s+/g, " ").trim();
  }
  return el.isContentEditable && !("value" in el) ? el.innerText.replace(/\n$/, "") : el.value;
}

// The options (each {value, label}) that `wanted` names, by value, then trimmed label, then
// trimmed label ignoring case: {picked} or {error, message}; a value no option names also gives
// {missing, options: the labels there are} (an option the page adds later may name it).
export function pickOptions(options, wanted, multiple) {
  const picked = [];
  for (const w of wanted) {
    const o = options.find((o) => o.value === w)
      || options.find((o) => o.label.trim() === w.trim())
      || options.find((o) => o.label.trim().toLowerCase() === w.trim().toLowerCase());
    if (!o) {
      const labels = options.map((o) => o.label);
      return {
        error: "select_mismatch",
        message: "no option " + JSON.stringify(w) + "; options: " + labels.join(", "),
        missing: w,
        options: labels,
      };
    }
    picked.push(o);
  }
  if (!multiple && picked.length > 1) return { error: "select_mismatch", message: "this select takes one value" };
  return { picked };
}

// Chooses a native <select>'s options and tells the page, as a person's choice would.
export function selectOptions(el, wanted) {
  if (el.localName !== "select") {
    return { error: "not_editable", message: "not a <select> (use click for custom dropdowns)" };
  }
  if (el.disabled) return { error: "disabled", message: "the select is disabled" };
  const options = Array.from(el.options);
  const choice = pickOptions(options, wanted, el.multiple);
  if (choice.error) return choice;
  for (const o of options) o.selected = choice.picked.includes(o);
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  const now = Array.from(el.selectedOptions);
  const selected = now.map((o) => ({ value: o.value, label: o.label }));
  // What the select holds after the page's own handlers ran, read in reins's world: a page that
  // put another option back did not take the choice.
  if (now.length !== choice.picked.length || !now.every((o) => choice.picked.includes(o))) {
    const shows = selected.map((o) => JSON.stringify(o.label)).join(", ") || "nothing";
    return {
      error: "select_mismatch", selected,
      message: `the select shows ${shows} after the change: the page's own handlers put it back`,
    };
  }
  return { selected };
}

const CHECKABLE_ROLES = ["checkbox", "switch", "radio", "menuitemcheckbox"];

// {kind, checked} of a checkbox, radio or checkable ARIA widget; {kind: null} for anything else.
export function checkedState(el) {
  if (el.type === "checkbox" || el.type === "radio") return { kind: el.type, checked: el.checked };
  const role = el.getAttribute("role");
  if (CHECKABLE_ROLES.includes(role)) return { kind: role, checked: el.getAttribute("aria-checked") === "true" };
  return { kind: null };
}

// What `reins expect` reads of an element, the way fill and check verify what they did: the value
// a field keeps (fieldValue), the checked state (checkedState), its text by the text rules, and
// whether it is visible. Read in reins's own world, as those are.
export function elementReading(el) {
  const field = "value" in el || el.isContentEditable;
  return {
    value: field ? fieldValue(el) : null, checked: checkedState(el), text: elementText(el), visible: isVisible(el),
  };
}

// Where keyboard input goes now, asked right before each key (in the batch with the keys, which
// stops here when this throws): the focused element, followed through open shadow roots and
// same-origin frames from the topmost document reins's world can read. Throws unless it is the
// element or inside it (a frame of another origin that took focus shows as its <iframe>).
export function keysGoTo(el) {
  let win = el.ownerDocument.defaultView;
  for (;;) {
    let parent = null;
    try {
      parent = win.parent;
      if (parent === win || !parent.document) break;
    } catch (_) {
      break; // another origin above: the keys' frame is judged from here down
    }
    win = parent;
  }
  let at = win.document.activeElement;
  while (at !== null) {
    if (at.shadowRoot && at.shadowRoot.activeElement) {
      at = at.shadowRoot.activeElement;
      continue;
    }
    let inner = null;
    if (FRAME_OWNER_TAGS.has(at.localName) || at.localName === "object") {
      try {
        inner = at.contentDocument;
      } catch (_) {
        inner = null;
      }
    }
    if (inner === null || inner.activeElement === null) break;
    at = inner.activeElement;
  }
  for (let n = at; n; n = n.parentNode || n.host) if (n === el) return true;
  // A segmented field moves focus to its next part by itself as digits are typed: a part of the
  // same field (the target's group) takes the keys too, nothing else.
  if (segmentsOf(el)?.parts.includes(at)) return true;
  throw new Error(FOCUS_ELSEWHERE + nodeLabel(at));
}

// The DOM click, for elements without a point to press (and the REINS_CLICK=js switch).
export function jsClick(el, times) {
  for (let i = 0; i < times; i++) el.click();
}
