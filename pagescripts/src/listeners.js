// Elements whose only sign of being clickable is a listener bound with addEventListener (a
// jQuery-UI date picker's Prev/Next anchors): page JS cannot see those listeners, Chrome can
// (DOMDebugger.getEventListeners, one element at a time). The host asks about a bounded list of
// candidates before each collection and marks those with click listeners; detection reads the
// mark (walk.js). Candidates are anchors without href and images that nothing else marks as
// interactive: the elements such scripts bind to. Containers are never candidates, so listeners
// delegated to a root (React's, a list's) make nothing clickable.

import { shadowRoots } from "./pierce.js";
import { LISTENED } from "./symbols.js";

export const MAX_CANDIDATES = 300;
const CANDIDATES = "a:not([href]):not([role]):not([tabindex]):not([onclick]), img:not([role]):not([tabindex]):not([onclick])";

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
