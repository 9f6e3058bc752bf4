// What an action asks of its element: is it ready for input and where (probe), is it a field
// to type into, a select's options, a checkbox's state; and the DOM click fallback.

import { frameOffset, insideClips, sameBox, visibleCenter } from "./geometry.js";

// A short label for whatever covers an element: tag#id.class "text".
export function nodeLabel(n) {
  if (!n) return "nothing";
  let s = n.localName || "?";
  if (n.id) s += "#" + n.id;
  if (typeof n.className === "string" && n.className.trim()) {
    s += "." + n.className.trim().split(/\s+/).slice(0, 2).join(".");
  }
  const t = (n.innerText || n.textContent || "").trim().replace(/\s+/g, " ").slice(0, 30);
  return t ? s + ' "' + t + '"' : s;
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

// Into view (centred) unless it already is, as CDP's DOM.scrollIntoViewIfNeeded would: every
// scrolling ancestor, not only the window (a row below the fold of a short list inside the
// window is in the window's view yet hidden); the same-origin frames holding it first,
// outermost first, each in its own window.
function scrollIntoView(el) {
  const chain = [];
  for (let w = el.ownerDocument.defaultView; w.frameElement; w = w.parent) chain.unshift(w.frameElement);
  for (const n of [...chain, el]) {
    if (inView(n)) continue;
    if (n.scrollIntoViewIfNeeded) n.scrollIntoViewIfNeeded(true);
    else n.scrollIntoView({ block: "center", inline: "center" });
  }
}

function isWithin(n, el) {
  for (let c = n; c; c = c.parentNode || c.host) {
    if (c === el) return true;
  }
  return false;
}

// What receives a click at (x, y) of el's window: the element itself (or inside it) gives null,
// anything else its label. Same-origin frames: the outer documents must also let the point
// through to the frame.
function coverAt(el, win, x, y) {
  let hit = el.ownerDocument.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!isWithin(hit, el)) return nodeLabel(hit);
  let px = x;
  let py = y;
  for (let w = win; w.frameElement; w = w.parent) {
    const f = w.frameElement;
    const fr = f.getBoundingClientRect();
    const fs = w.parent.getComputedStyle(f);
    px += fr.x + f.clientLeft + parseFloat(fs.paddingLeft);
    py += fr.y + f.clientTop + parseFloat(fs.paddingTop);
    const outer = w.parent.document.elementFromPoint(px, py);
    if (outer !== f) return nodeLabel(outer);
  }
  return null;
}

// Actionability in one call: attached, visible with a box, stable (the same box in two
// consecutive animation frames), enabled, and receiving events at the point. The point is in the
// viewport of the top window of this frame tree.
export async function probe(el, opts) {
  if (!el.isConnected) return { state: "detached" };
  if (opts.scroll) scrollIntoView(el);
  const b1 = box(el);
  await nextFrame();
  const b2 = box(el);
  const stable = sameBox(b1, b2);
  const win = el.ownerDocument.defaultView;
  const style = win.getComputedStyle(el);
  const visible = b2[2] > 0 && b2[3] > 0 && style.visibility !== "hidden" && style.display !== "none";
  const disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true"
    || !!(el.closest && el.closest("fieldset[disabled]")
      && ["BUTTON", "INPUT", "SELECT", "TEXTAREA"].includes(el.tagName));
  const offset = frameOffset(win);
  // Rendered but boxless (display: contents, a 0x0 wrapper) may fall back to el.click(); inside a
  // display:none ancestor (a closed menu's option) it is simply not visible.
  const rendered = style.display === "contents" || !el.checkVisibility || el.checkVisibility();
  const zeroBox = (b2[2] === 0 || b2[3] === 0) && rendered && style.display !== "none"
    && style.visibility !== "hidden";
  if (!visible) return { state: "ok", visible, disabled, stable, zeroBox };
  const center = visibleCenter(b2, win.innerWidth, win.innerHeight);
  if (center === null) return { state: "ok", visible, disabled, stable, offscreen: true };
  const cover = coverAt(el, win, center.x, center.y);
  return { state: "ok", visible, disabled, stable, x: offset.x + center.x, y: offset.y + center.y, cover };
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

// The text a field keeps (a contenteditable's without the trailing newline it renders).
export function fieldValue(el) {
  return el.isContentEditable && !("value" in el) ? el.innerText.replace(/\n$/, "") : el.value;
}

// The options (each {value, label}) that `wanted` names, by value, then trimmed label, then
// trimmed label ignoring case: {picked} or {error, message}.
export function pickOptions(options, wanted, multiple) {
  const picked = [];
  for (const w of wanted) {
    const o = options.find((o) => o.value === w)
      || options.find((o) => o.label.trim() === w.trim())
      || options.find((o) => o.label.trim().toLowerCase() === w.trim().toLowerCase());
    if (!o) {
      return {
        error: "select_mismatch",
        message: "no option " + JSON.stringify(w) + "; options: " + options.map((o) => o.label).join(", "),
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
  return { selected: Array.from(el.selectedOptions).map((o) => ({ value: o.value, label: o.label })) };
}

const CHECKABLE_ROLES = ["checkbox", "switch", "radio", "menuitemcheckbox"];

// {kind, checked} of a checkbox, radio or checkable ARIA widget; {kind: null} for anything else.
export function checkedState(el) {
  if (el.type === "checkbox" || el.type === "radio") return { kind: el.type, checked: el.checked };
  const role = el.getAttribute("role");
  if (CHECKABLE_ROLES.includes(role)) return { kind: role, checked: el.getAttribute("aria-checked") === "true" };
  return { kind: null };
}

// The DOM click, for elements without a point to press (and the REINS_CLICK=js switch).
export function jsClick(el, times) {
  for (let i = 0; i < times; i++) el.click();
}
