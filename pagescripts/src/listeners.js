// Elements whose only sign of being clickable is a listener bound with addEventListener (a
// jQuery-UI date picker's Prev/Next anchors): page JS cannot see those listeners, Chrome can
// (DOMDebugger.getEventListeners, one element at a time). The host asks about a bounded list of
// candidates before each collection and marks those with click listeners; detection reads the
// mark (walk.js). All of this runs in reins's own world: the host hands each candidate to the
// page's world by Chrome's node id for the question (Chrome answers only about listeners of the
// world the node handle is from). Candidates are anchors without href and images that nothing else marks as
// interactive, then leaf spans, divs, list items, cells, icons, labels and paragraphs in the
// viewport (at most 300 in all). Containers are never candidates, so listeners delegated to a
// root (React's, a list's) make nothing clickable.

import { shadowRoots } from "./pierce.js";
import { REACT_HANDLERS, REACT_PROP_PREFIXES } from "./rules.js";
import { LISTENED } from "./symbols.js";

export const MAX_CANDIDATES = 300;
const PLAIN = ":not([role]):not([tabindex]):not([onclick])";
// The selectors are built when first asked for, not at the module's top level: every page
// function is bundled with this module's top-level code, and a string built there (esbuild cannot
// prove a template or a .map().join() pure) would be sent with each of them.
let selectors = null;
function searched() {
  selectors ??= {
    candidates: `a:not([href])${PLAIN}, img${PLAIN}`,
    // Leaves (no element inside) of the elements vanilla widgets bind handlers to, in the
    // viewport: a leaf cannot be a delegating container, and what is off screen is found once
    // scrolled to.
    leaves: ["span", "div", "li", "td", "i", "label", "p", "svg"].map((t) => t + PLAIN).join(", "),
  };
  return selectors;
}

function inViewport(r) {
  return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0
    && r.top < innerHeight && r.left < innerWidth;
}

// What the search found stays the answer while nothing in the document changes, scrolls or
// resizes: a mutation observer (on the document and every open shadow root searched) and
// capturing scroll/resize listeners mark it dirty. A still page's repeated observation asks
// Chrome about the same elements again (a listener added since is still found) without
// searching the whole document (~45 ms at 5,000 elements, ~140 ms at 20,000).
// It is kept in reins's own world (out of the page's reach); anything not of this shape (another
// version's) is replaced.
function kept() {
  const state = window[LISTENED];
  const ok = state !== null && typeof state === "object" && Array.isArray(state.candidates)
    && state.marked instanceof WeakSet && state.watched instanceof WeakSet
    && state.observer instanceof MutationObserver && typeof state.dirty === "boolean"
    && typeof state.gen === "string";
  return ok ? state : undefined;
}

function listening() {
  let state = kept();
  if (state === undefined) {
    state = {
      candidates: [], gen: "", marked: new WeakSet(), dirty: true, watched: new WeakSet(), observer: null,
    };
    const dirty = () => { state.dirty = true; };
    state.observer = new MutationObserver(dirty);
    addEventListener("scroll", dirty, { capture: true, passive: true });
    addEventListener("resize", dirty, { passive: true });
    window[LISTENED] = state;
  }
  return state;
}

const WATCH = { subtree: true, childList: true, attributes: true, characterData: true };

// The search (see above): at most MAX_CANDIDATES elements, the roots it went through.
function search() {
  const out = [];
  const roots = [document, ...shadowRoots(document, [])]; // one pass over the document for both
  for (const root of roots) {
    for (const el of root.querySelectorAll(searched().candidates)) {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      out.push(el);
      if (out.length === MAX_CANDIDATES) break;
    }
    if (out.length === MAX_CANDIDATES) break;
  }
  for (const root of roots) {
    if (out.length === MAX_CANDIDATES) break;
    for (const el of root.querySelectorAll(searched().leaves)) {
      if (el.firstElementChild !== null) continue;
      if (!inViewport(el.getBoundingClientRect())) continue;
      out.push(el);
      if (out.length === MAX_CANDIDATES) break;
    }
  }
  return { out, roots };
}

function sameList(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The candidates, kept for markListened: answered as {gen, count}. `gen` changes only when the
// list does, so the host asks for the elements (candidateList) and hands them to the page's
// world once per list, not once per observation.
export function listenerCandidates() {
  const state = listening();
  if (state.dirty) {
    const { out, roots } = search();
    for (const root of roots) {
      if (!state.watched.has(root)) {
        state.observer.observe(root, WATCH);
        state.watched.add(root);
      }
    }
    if (!sameList(out, state.candidates) || state.gen === "") {
      state.candidates = out;
      state.gen = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
    }
    state.dirty = false;
  }
  return { gen: state.gen, count: state.candidates.length };
}

// The candidates as an array (the host takes their handles), or null when there are none.
export function candidateList() {
  const state = kept();
  return state !== undefined && state.candidates.length > 0 ? state.candidates : null;
}

// The candidates at these positions have click listeners; the others no longer do.
export function markListened(indices) {
  const state = kept();
  if (!state || !Array.isArray(indices)) return 0;
  for (const el of state.candidates) state.marked.delete(el);
  for (const i of indices) if (state.candidates[i]) state.marked.add(state.candidates[i]);
  return indices.length;
}

export function isListened(el) {
  const state = kept();
  return state !== undefined && state.marked.has(el);
}

// ---- hints: what only the page's world (or Chrome) can tell, handed to reins's world ----------
//
// The collection runs in reins's own world (host/reins/page/call.py OWN_WORLD), which sees the
// DOM but not the page's expandos: React's props and an `onclick` property are read in the
// page's world, here, and handed over as positions in one enumeration of the document both
// worlds make alike (`everyElement`). They are
// hints: they may widen what `state` lists, never decide where input goes or what committed. A
// page that lies here (or changes the document in between) gets a count that does not match
// reins's own, and no hints.

export const HINT_REACT = 1;
export const HINT_ONCLICK = 2;

// Every element of the document, its open shadow roots' and its same-origin frames', in one
// order: the document's, then each open shadow root's (pierce.js order), then each frame's.
export function everyElement(doc, out = []) {
  const roots = [doc, ...shadowRoots(doc, [])];
  const start = out.length;
  for (const root of roots) for (const el of root.querySelectorAll("*")) out.push(el);
  const end = out.length;
  for (let i = start; i < end; i++) {
    const el = out[i];
    if (el.localName !== "iframe" && el.localName !== "frame") continue;
    let inner = null;
    try {
      inner = el.contentDocument;
    } catch (_) {
      inner = null;
    }
    if (inner) everyElement(inner, out);
  }
  return out;
}

function reactManaged(el) {
  const keys = Object.keys(el); // React's expandos are own properties
  for (let k = 0; k < keys.length; k++) {
    if (keys[k].startsWith("__react")) return true;
  }
  return false;
}

function hasReactHandler(el) {
  const keys = Object.keys(el);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (!REACT_PROP_PREFIXES.some((p) => key.startsWith(p))) continue;
    const props = el[key];
    if (props && typeof props === "object" && REACT_HANDLERS.some((h) => props[h])) return true;
  }
  return false;
}

// In the page's world: the hints for the collection, as flat [position, bits, ...] over
// everyElement(document), with its count. Nothing is kept here: the page's world holds no state
// of reins's.
export function handlerHints() {
  const all = everyElement(document);
  const flat = [];
  for (let i = 0; i < all.length; i++) {
    const el = all[i];
    // React sets a no-op `onclick` property on its root containers and on elements it listens
    // on; for React-managed nodes only its own props say whether there is a handler.
    const react = reactManaged(el);
    if (react && hasReactHandler(el)) flat.push(i, HINT_REACT);
    else if (!react && typeof el.onclick === "function") flat.push(i, HINT_ONCLICK);
  }
  return { count: all.length, marks: flat };
}

// In reins's world: the hints as a map of element to bits, or an empty one when the page's
// enumeration does not match reins's own (a lie, or a change in between).
export function readHints(hints) {
  const out = new Map();
  if (hints === null || typeof hints !== "object" || !Array.isArray(hints.marks)) return out;
  if (hints.marks.length === 0) return out;
  const all = everyElement(document);
  if (hints.count !== all.length) return out;
  const marks = hints.marks;
  for (let k = 0; k + 1 < marks.length; k += 2) {
    const el = all[marks[k]];
    if (el !== undefined && Number.isInteger(marks[k + 1])) out.set(el, marks[k + 1]);
  }
  return out;
}
