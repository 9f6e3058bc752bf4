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

// The candidates, kept for markListened and answered as an array (the host takes their handles);
// null when there are none (no handle to take, nothing to release: one round trip).
export function listenerCandidates() {
  const out = [];
  for (const root of [document, ...shadowRoots(document, [])]) {
    for (const el of root.querySelectorAll(CANDIDATES)) {
      if (typeof el.onclick === "function") continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      out.push(el);
      if (out.length === MAX_CANDIDATES) break;
    }
    if (out.length === MAX_CANDIDATES) break;
  }
  for (const root of [document, ...shadowRoots(document, [])]) {
    if (out.length === MAX_CANDIDATES) break;
    for (const el of root.querySelectorAll(LEAVES)) {
      if (el.firstElementChild !== null || typeof el.onclick === "function") continue;
      if (!inViewport(el.getBoundingClientRect())) continue;
      out.push(el);
      if (out.length === MAX_CANDIDATES) break;
    }
  }
  const previous = window[LISTENED];
  window[LISTENED] = { candidates: out, marked: previous ? previous.marked : new WeakSet() };
  return out.length > 0 ? out : null;
}

// The candidates at these positions have click listeners; the others no longer do.
export function markListened(indices) {
  const state = window[LISTENED];
  if (!state) return 0;
  for (const el of state.candidates) state.marked.delete(el);
  for (const i of indices) if (state.candidates[i]) state.marked.add(state.candidates[i]);
  return indices.length;
}

export function isListened(el) {
  const state = window[LISTENED];
  return state !== undefined && state.marked.has(el);
}
