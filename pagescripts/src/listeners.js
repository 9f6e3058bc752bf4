// Elements whose only sign of being clickable is a listener bound with addEventListener (a
// jQuery-UI date picker's Prev/Next anchors): page JS cannot see those listeners, Chrome can
// (DOMDebugger.getEventListeners, one element at a time). The host asks about a bounded list of
// candidates before each collection and marks those with click listeners; detection reads the
// mark (walk.js). Candidates are anchors without href and images that nothing else marks as
// interactive, then leaf spans, divs, list items, cells, icons, labels and paragraphs in the
// viewport (at most 300 in all). Containers are never candidates, so listeners delegated to a
// root (React's, a list's) make nothing clickable.

import { shadowRoots } from "./pierce.js";
import { LISTENED } from "./symbols.js";

export const MAX_CANDIDATES = 300;
const PLAIN = ":not([role]):not([tabindex]):not([onclick])";
const CANDIDATES = `a:not([href])${PLAIN}, img${PLAIN}`;
// Leaves (no element inside) of the elements vanilla widgets bind handlers to, in the viewport:
// a leaf cannot be a delegating container, and what is off screen is found once scrolled to.
const LEAVES = ["span", "div", "li", "td", "i", "label", "p", "svg"].map((t) => t + PLAIN).join(", ");

function inViewport(r) {
  return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0
    && r.top < innerHeight && r.left < innerWidth;
}

// What the search found stays the answer while nothing in the document changes, scrolls or
// resizes: a mutation observer (on the document and every open shadow root searched) and
// capturing scroll/resize listeners mark it dirty. A still page's repeated observation asks
// Chrome about the same elements again (a listener added since is still found) without
// searching the whole document (~45 ms at 5,000 elements, ~140 ms at 20,000).
// What the page keeps in the slot is the page's to change: anything not of this shape (a page
// that wrote there, another version's) is replaced, so it cannot break the walk.
function kept() {
  const state = window[LISTENED];
  const ok = state !== null && typeof state === "object" && Array.isArray(state.candidates)
    && state.marked instanceof WeakSet && state.watched instanceof WeakSet
    && state.observer instanceof MutationObserver && typeof state.dirty === "boolean";
  return ok ? state : undefined;
}

function listening() {
  let state = kept();
  if (state === undefined) {
    state = { candidates: [], marked: new WeakSet(), dirty: true, watched: new WeakSet(), observer: null };
    const dirty = () => { state.dirty = true; };
    state.observer = new MutationObserver(dirty);
    addEventListener("scroll", dirty, { capture: true, passive: true });
    addEventListener("resize", dirty, { passive: true });
    window[LISTENED] = state;
  }
  return state;
}

const WATCH = { subtree: true, childList: true, attributes: true, characterData: true };

// The candidates, kept for markListened and answered as an array (the host takes their handles);
// null when there are none (no handle to take, nothing to release: one round trip).
export function listenerCandidates() {
  const state = listening();
  if (!state.dirty) return state.candidates.length > 0 ? state.candidates : null;
  const out = [];
  const roots = [document, ...shadowRoots(document, [])]; // one pass over the document for both
  for (const root of roots) {
    for (const el of root.querySelectorAll(CANDIDATES)) {
      if (typeof el.onclick === "function") continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      out.push(el);
      if (out.length === MAX_CANDIDATES) break;
    }
    if (out.length === MAX_CANDIDATES) break;
  }
  for (const root of roots) {
    if (out.length === MAX_CANDIDATES) break;
    for (const el of root.querySelectorAll(LEAVES)) {
      if (el.firstElementChild !== null || typeof el.onclick === "function") continue;
      if (!inViewport(el.getBoundingClientRect())) continue;
      out.push(el);
      if (out.length === MAX_CANDIDATES) break;
    }
  }
  for (const root of roots) {
    if (!state.watched.has(root)) {
      state.observer.observe(root, WATCH);
      state.watched.add(root);
    }
  }
  state.candidates = out;
  state.dirty = false;
  return out.length > 0 ? out : null;
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
