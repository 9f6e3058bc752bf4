// What an action may change, read before and after it (the host compares the two reads).

import { fieldValue, nodeLabel, steadySincePressProbe } from "./actions.js";
import { pressReaches } from "./geometry.js";
import { EFFECT, RECEIPT } from "./symbols.js";
import { clipField } from "./text.js";

// A short label for the focused element: tag#id[aria-label or name]; null for none or the body.
export function focusLabel(n, body) {
  if (!n || n === body) return null;
  let s = n.localName;
  if (n.id) s += "#" + n.id;
  const l = n.getAttribute && (n.getAttribute("aria-label") || n.getAttribute("name"));
  return l ? s + "[" + l + "]" : s;
}

// A text field's value as the report shows it: a password only by its length.
export function shownValue(type, value) {
  return type === "password" ? "*".repeat(value.length) : value;
}

// true/false for the ARIA strings "true"/"false"; anything else (null, "mixed") as it is.
export function ariaBoolean(value) {
  if (value === "true") return true;
  if (value === "false") return false;
  return value;
}

// `shown`: a hover or focus menu is hidden until a style rule shows it, which no mutation reports.
// The candidates are the hidden elements near the target (under its third ancestor: a menu lives
// in, beside or around its trigger), at most SHOWN_SCAN looked at; at most SHOWN_LIST are named.
const SHOWN_SCAN = 1500;
const SHOWN_LIST = 5;
const NEVER_SHOWN = new Set(["script", "style", "template", "noscript", "option", "optgroup", "head", "meta", "link"]);

function rendered(n) {
  if (n.checkVisibility) return n.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  return n.getClientRects().length > 0;
}

export function hiddenNear(el) {
  let root = el;
  for (let i = 0; i < 3 && root.parentElement; i++) root = root.parentElement;
  const hidden = [];
  const all = root.getElementsByTagName("*");
  for (let i = 0; i < all.length && i < SHOWN_SCAN; i++) {
    const n = all[i];
    if (!NEVER_SHOWN.has(n.localName) && !rendered(n)) hidden.push(n);
  }
  return hidden;
}

// The outermost of the once-hidden elements that now render with a box, by label.
export function nowShown(hidden) {
  const shown = [];
  for (const n of hidden) {
    if (!n.isConnected || !rendered(n) || shown.some((s) => s.contains(n))) continue;
    const r = n.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) shown.push(n);
  }
  return shown.slice(0, SHOWN_LIST).map(nodeLabel);
}

// The frame the action started, and a task after it; bounded: a hidden tab runs no animation
// frames at all (docs/hidden-tabs.md).
function nextFrame() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// ---- a popup the action opened -------------------------------------------------------------
//
// A press that expands a control (its aria-expanded, or one of its parts', turns "true") often
// renders the popup a frame or more later, or fades it in from opacity 0 (antd's menu: ~100 ms
// at opacity 0 after the click), and `state` leaves out what is transparent. So the read after
// waits, bounded, until a part of the popup the action opened renders: a listbox, menu, tree,
// grid, dialog or their items, added or restyled during the action (in the document or in the
// open shadow roots around the element), or named by the expanded control's aria-controls/aria-owns.
const POPUP_PARTS = ["listbox", "menu", "tree", "grid", "dialog", "option", "menuitem", "treeitem"]
  .map((role) => `[role="${role}"]`).join(",");
const POPUP_NOTED = 64;
const RESTYLED = new Set(["class", "style", "hidden", "open"]);

function notePopupMutation(rec, m) {
  if (m.type === "attributes") {
    if (m.attributeName === "aria-expanded") {
      const n = m.target;
      if (n.getAttribute("aria-expanded") === "true" && rec.expanded.length < POPUP_NOTED) rec.expanded.push(n);
    } else if (RESTYLED.has(m.attributeName) && rec.noted.length < POPUP_NOTED) {
      rec.noted.push(m.target);
    }
  } else if (m.type === "childList") {
    for (const n of m.addedNodes) if (n.nodeType === 1 && rec.noted.length < POPUP_NOTED) rec.noted.push(n);
  }
}

// The open shadow roots a popup of the element may render in, which the document's observer does
// not see into: the element's own, the one it is in and those around that (web components:
// Shoelace's sl-select, UI5). An element of the document outside any shadow root, with none of
// its own, has none, and its press costs nothing more.
const SHADOW_ROOTS = 4;

function shadowRootsOf(el) {
  const roots = el.shadowRoot ? [el.shadowRoot] : [];
  for (let root = el.getRootNode(); root.host && roots.length < SHADOW_ROOTS; root = root.host.getRootNode()) {
    roots.push(root);
  }
  return roots;
}

// Notes, in those roots, what the popup wait needs (nothing else: the change counts are the
// document's); null when there are none.
function watchShadowRoots(rec, el) {
  const roots = shadowRootsOf(el);
  if (!roots.length) return null;
  const observer = new MutationObserver((list) => {
    for (const m of list) notePopupMutation(rec, m);
  });
  const filter = ["aria-expanded", ...RESTYLED];
  for (const root of roots) observer.observe(root, { subtree: true, childList: true, attributeFilter: filter });
  return observer;
}

function popupParts(rec, el) {
  if (rec.shadowObserver) for (const m of rec.shadowObserver.takeRecords()) notePopupMutation(rec, m);
  // Only a control expanded still: one the action opened and closed again (choose's pick) has
  // no popup left to wait for (UI5's stays in its shadow root, hidden).
  const expanded = rec.expanded.filter((n) => n.isConnected && n.getAttribute("aria-expanded") === "true");
  if (rec.before && rec.before.expanded !== true && el.getAttribute("aria-expanded") === "true") expanded.push(el);
  if (!expanded.length) return [];
  const parts = new Set();
  for (const control of expanded) {
    const root = control.getRootNode();
    for (const name of ["aria-controls", "aria-owns"]) {
      for (const id of (control.getAttribute(name) || "").split(/\s+/)) {
        const n = id && root.getElementById ? root.getElementById(id) : null;
        if (n) parts.add(n);
      }
    }
  }
  for (const n of rec.noted) {
    if (!n.isConnected) continue;
    let part = n.matches(POPUP_PARTS) ? n : n.querySelector(POPUP_PARTS);
    if (!part && n.shadowRoot) part = n.shadowRoot.querySelector(POPUP_PARTS);
    if (part) parts.add(part);
  }
  return Array.from(parts);
}

// Until one of the parts renders (opacity and visibility counted, as `state` counts them), or
// waitMs: polled on reins's own timers, which a hidden tab still runs.
async function popupRendered(parts, waitMs) {
  const end = performance.now() + waitMs;
  while (!parts.some((n) => n.isConnected && rendered(n)) && performance.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 16));
  }
}

// The state an action may change (compared by the host), without the change counts.
function stateOf(el) {
  const doc = el.ownerDocument;
  let value = null;
  if ("value" in el && typeof el.value === "string" && !["button", "submit", "reset"].includes(el.type)) {
    value = shownValue(el.type, el.value);
  } else if (el.isContentEditable) {
    value = el.innerText;
  }
  let checked = null;
  if (el.type === "checkbox" || el.type === "radio") checked = el.indeterminate ? "mixed" : el.checked;
  else if (el.hasAttribute("aria-checked")) checked = ariaBoolean(el.getAttribute("aria-checked"));
  let selected = null;
  if (el.localName === "select") selected = Array.from(el.selectedOptions).map((o) => o.label);
  const expanded = el.getAttribute("aria-expanded");
  return {
    connected: el.isConnected, value, checked, selected,
    expanded: expanded === null ? null : expanded === "true", focus: focusLabel(doc.activeElement, doc.body),
    url: location.href,
  };
}

// A cross-document navigation the action started (the Navigation API's `navigate` event fires
// synchronously for link clicks, form submissions and location changes), not cancelled, not a
// download and not taken over by the page's own router: its URL, else null.
function leaving(rec) {
  const e = rec.navigate;
  if (!e || e.defaultPrevented || e.destination.sameDocument) return null;
  if (e.downloadRequest != null) return null; // a download leaves the document where it is
  const nav = rec.win.navigation;
  if (nav && nav.transition) return null; // intercepted: a same-document navigation after all
  return e.destination.url;
}

// A download the action asked for (a link with `download`, an export the page builds and clicks):
// the file name it asked for ("" when the link names none), or null. The browser's own events say
// whether it began (page/downloads.py).
function downloading(rec) {
  const e = rec.navigate;
  if (!e || e.downloadRequest == null) return null;
  return clipField(String(e.downloadRequest));
}

// Keyboard focus on a frame the element does not contain (the page handed it there, perhaps to
// another site's frame): that frame's label and URL, else null.
const FRAME_TAGS = ["iframe", "frame", "object", "embed"];

function frameFocus(el) {
  let n = el.ownerDocument.activeElement;
  while (n && n.shadowRoot && n.shadowRoot.activeElement) n = n.shadowRoot.activeElement;
  if (!n || n === el || !FRAME_TAGS.includes(n.localName) || el.contains(n)) return null;
  return { frame: focusLabel(n, null), url: clipField(String(n.src || n.data || "")) };
}

// ---- what received a press -----------------------------------------------------------------
//
// Armed right before a press (in its batch), read right after it: a capture listener on the
// element's window, in reins's world, sees each trusted pointer and mouse event of the press.
// The press's first event decides, as Playwright's hit-target check does: on the element or
// inside it (or on the element's own label, which hands the press to it), the press was received
// and its later events go where the page's reaction sends them (a menu opened on pointerdown
// takes the release). On anything else, that event and every later one of the press are stopped
// there — default action prevented, no later listener run — and named. Nothing seen at all: the
// press went to another frame, or a listener of the page that came first stopped it.

const PRESS_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "auxclick", "contextmenu"];

function receivedBy(el, target) {
  return pressReaches(target, el);
}

// `steady`: the element's probe left its second look to this press (steadySincePressProbe);
// taken first, and the receipt is armed only when the element has not moved.
export function armReceipt(el, steady) {
  if (steady === true) return steadySincePressProbe(el).then(() => armReceipt(el, false));
  const win = el.ownerDocument.defaultView;
  if (win[RECEIPT]) win[RECEIPT].disarm();
  const receipt = { seen: 0, received: null, elsewhere: [] };
  const onPress = (e) => {
    if (!e.isTrusted) return;
    const target = e.composedPath()[0] || e.target;
    if (receipt.received === null) receipt.received = receivedBy(el, target);
    receipt.seen++;
    if (receipt.received) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (receipt.elsewhere.length < 8) receipt.elsewhere.push(`${e.type} on ${nodeLabel(target)}`);
  };
  for (const type of PRESS_EVENTS) win.addEventListener(type, onPress, true);
  const timer = setTimeout(() => receipt.disarm(), 2000); // never outlive the press by long
  receipt.disarm = () => {
    for (const type of PRESS_EVENTS) win.removeEventListener(type, onPress, true);
    clearTimeout(timer);
    if (win[RECEIPT] === receipt) win[RECEIPT] = undefined;
  };
  win[RECEIPT] = receipt;
  return true;
}

// What the press armed on the element's window saw ({seen, elsewhere}), the guard taken down;
// null when none was armed.
export function takeReceipt(el) {
  const receipt = el.ownerDocument.defaultView[RECEIPT];
  if (!receipt) return null;
  receipt.disarm();
  return { seen: receipt.seen, elsewhere: receipt.elsewhere.slice() };
}

function disarm(rec) {
  rec.observer.disconnect();
  if (rec.shadowObserver) rec.shadowObserver.disconnect();
  rec.win.removeEventListener("submit", rec.onSubmit, true);
  if (rec.win.navigation) rec.win.navigation.removeEventListener("navigate", rec.onNavigate);
}

// How long a submission the page let through is given to start its navigation.
const SUBMIT_NAVIGATE_MS = 250;

// A form submission that will navigate this document: not cancelled, not a dialog's, not aimed
// at another browsing context.
function submitting(rec) {
  const e = rec.submit;
  if (!e || e.defaultPrevented) return false;
  const form = e.target;
  const submitter = e.submitter;
  const method = (submitter && submitter.getAttribute("formmethod")) || form.getAttribute("method") || "";
  if (method.toLowerCase() === "dialog") return false;
  const target = (submitter && submitter.getAttribute("formtarget")) || form.getAttribute("target") || "";
  return target === "" || target === "_self";
}

// Signs that the page is still at work on the action's behalf, with nothing to show yet: a form
// submission it handled itself, or a request the action started that already came back (the
// render follows its answer).
function pending(rec) {
  if (rec.submit && rec.submit.defaultPrevented) return true;
  return performance.getEntriesByType("resource").some(
    (r) => r.startTime >= rec.armed && (r.initiatorType === "fetch" || r.initiatorType === "xmlhttprequest"),
  );
}

// "before" arms a MutationObserver that counts changes in or under the element versus elsewhere
// in its document, listens for a navigation or a form submission the action may start, and notes
// the hidden elements near it. "after" answers at once when the DOM changed or a navigation
// started; else it lets the tasks the action queued run (one task) and looks again; still nothing
// and a sign of pending work: it waits for the first change, up to options.waitMs. No fixed wait:
// an action with no effect and no sign of more costs one task. options.settle "frame" first lets
// the page finish the frame the action started (an action of several steps, e.g. fill, whose
// answer checks what the field kept once the page's own handlers ran; options.field adds it).
export async function readState(el, phase, options = {}) {
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  let rec = win[EFFECT];
  if (phase === "before") {
    if (rec) disarm(rec);
    const counts = { inside: 0, elsewhere: 0 };
    rec = {
      counts, win, armed: performance.now(), navigate: null, submit: null, wake: null, expanded: [], noted: [],
    };
    rec.tally = (list) => {
      for (const m of list) {
        if (el === m.target || el.contains(m.target)) counts.inside++;
        else counts.elsewhere++;
        notePopupMutation(rec, m);
      }
      if (list.length && rec.wake) rec.wake();
    };
    rec.observer = new MutationObserver(rec.tally);
    rec.observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    rec.shadowObserver = watchShadowRoots(rec, el);
    rec.onNavigate = (e) => {
      rec.navigate = e;
      if (rec.wake) rec.wake();
    };
    rec.onSubmit = (e) => {
      rec.submit = e;
    };
    win.addEventListener("submit", rec.onSubmit, true);
    if (win.navigation) win.navigation.addEventListener("navigate", rec.onNavigate);
    rec.hidden = hiddenNear(el);
    win[EFFECT] = rec;
    setTimeout(() => disarm(rec), 5000); // never outlive the action by long
    rec.before = stateOf(el);
    let top = false;
    try {
      top = win === win.top;
    } catch {
      top = false;
    }
    return { ...rec.before, top, document: performance.timeOrigin, counts: null };
  }
  if (options.settle === "frame") await nextFrame();
  if (rec) {
    // DOM changes, or a navigation: the answer is there. Else (a state change alone: focus moves
    // on every first click) the tasks the action queued run first, and a sign of pending work is
    // waited on for the first DOM change or navigation.
    const mutated = () => {
      rec.tally(rec.observer.takeRecords());
      return rec.counts.inside + rec.counts.elsewhere > 0 || leaving(rec) !== null;
    };
    const waitMs = Math.max(0, Number(options.waitMs) || 0);
    if (!mutated()) {
      await nextTask();
      if (!mutated() && waitMs > 0 && pending(rec)) {
        await new Promise((resolve) => {
          rec.wake = resolve;
          setTimeout(resolve, waitMs);
        });
        rec.wake = null;
        await nextTask();
      }
    }
    // A form submission the page let through navigates in a task of its own (the HTML spec plans
    // it): when its submit handlers changed the DOM (Django's filter_horizontal selects its
    // chosen options), the answer above came first and missed it. Its navigate event is waited
    // for, briefly.
    const until = performance.now() + SUBMIT_NAVIGATE_MS;
    while (submitting(rec) && rec.navigate === null && performance.now() < until) {
      await new Promise((resolve) => {
        rec.wake = resolve;
        setTimeout(resolve, 20);
      });
      rec.wake = null;
    }
    rec.tally(rec.observer.takeRecords());
    const parts = popupParts(rec, el);
    if (parts.length) await popupRendered(parts, waitMs);
  }
  let shown = [];
  if (rec && rec.hidden) shown = nowShown(rec.hidden);
  const out = {
    ...stateOf(el), top: false, document: performance.timeOrigin,
    counts: rec ? { ...rec.counts } : null, shown, navigating: rec ? leaving(rec) : null,
    downloading: rec ? downloading(rec) : null, focusFrame: frameFocus(el), receipt: takeReceipt(el),
  };
  try {
    out.top = win === win.top;
  } catch {
    out.top = false;
  }
  // options.field: the text the field holds now as fill checks it (fieldValue: unmasked, a
  // contenteditable's innerText), read once the page has settled, in this same call.
  if (options.field) out.field = fieldValue(el);
  if (rec) disarm(rec);
  return out;
}
