// Entry point: collect(options) returns the element record described in docs/element-record.md.

import { deltaText } from "./delta.js";
import { markListened } from "./listeners.js";
import { scrollRegionsAmong } from "./scroll.js";
import { selectorsFor } from "./selectors.js";
import { API, ELEMENTS, GENERATION, LAST_SENT } from "./symbols.js";
import { describeOne, documentScope, useHints, walk } from "./walk.js";

export function describe(el) {
  return describeOne(el);
}

export function collect(options) {
  const opts = options || {};
  // The host's helpers live on a Symbol slot of reins's world's window: describe (identity
  // checks) and the collection itself, which later calls run without sending the bundle again
  // (observe/collect.py: its source, sent each time, cost a compile per options). `version`
  // names the bundle, so one from another build of the host is replaced.
  if (!window[API] || window[API].version !== opts.version) {
    window[API] = { describe, collect, version: opts.version ?? null };
  }
  if (opts.install === true) return null;
  const viewportOnly = opts.viewportOnly === true;
  const withSelectors = opts.withSelectors !== false;
  const maxElements = Number.isInteger(opts.maxElements) && opts.maxElements >= 0
    ? opts.maxElements : 50000;

  const state = {
    items: [],
    frames: [{ id: "f0", parent: null, url: location.href, selector: null, status: "ok" }],
    maxElements: viewportOnly ? Infinity : maxElements,
    truncated: false,
    visited: 0, // elements the walk looked at (the rest are counted if it stops early)
    width: window.innerWidth,
    height: window.innerHeight,
    // The compact record (docs/element-record.md) is built without the map-only fields.
    compact: opts.compact === true,
    // With `scrollRegions: N`: the main document's elements whose overflow-y may scroll.
    scrollers: Number.isInteger(opts.scrollRegions) ? [] : null,
  };
  if (Array.isArray(opts.listened)) markListened(opts.listened);
  useHints(opts.hints);
  walk(state, documentScope(document, "f0", 0, 0));

  let items = state.items;
  if (viewportOnly) {
    for (const frame of state.frames) {
      if (frame.at !== undefined) {
        frame.at = items.slice(0, frame.at).filter((item) => item.record.in_viewport).length;
      }
    }
    items = items.filter((item) => item.record.in_viewport);
    if (items.length > maxElements) {
      state.cut = items.length - maxElements; // found in view, not listed
      items = items.slice(0, maxElements);
      state.truncated = true;
    }
  }
  for (const frame of state.frames) {
    if (frame.at !== undefined) frame.at = Math.min(frame.at, items.length);
  }
  const delta = opts.compact === true && opts.asText === true && opts.delta === true;
  const elements = new Array(items.length);
  const boxes = delta ? new Array(items.length * 4) : null;
  const nodes = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const { el, record, scope } = items[i];
    record.i = i;
    if (withSelectors) {
      const { selectors, best } = selectorsFor(el, scope, state.compact);
      record.selectors = selectors;
      record.best = best;
    }
    if (delta) {
      // The box goes in its own list; `i` is the position.
      for (let k = 0; k < 4; k++) boxes[i * 4 + k] = record.box[k];
      elements[i] = compacted(record, DELTA_LEFT_OUT);
    } else {
      elements[i] = opts.compact === true ? compacted(record, MAP_ONLY) : record;
    }
    nodes[i] = el;
  }
  window[ELEMENTS] = nodes;
  // Which collection the stored nodes came from: the host keeps it beside its refs, so a ref can
  // reach the very node it was given to (even after a host restart) while the page still holds it.
  const gen = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  window[GENERATION] = gen;

  const result = {
    gen,
    url: location.href,
    title: document.title,
    timestamp: Date.now(),
    viewport: {
      width: window.innerWidth,
      height: window.innerHeight,
      scrollX: window.scrollX,
      scrollY: window.scrollY,
      dpr: window.devicePixelRatio,
    },
    frames: state.frames,
    elements,
    truncated: state.truncated,
    // Elements of this document the walk never looked at, when it stopped at maxElements.
    unread: !state.truncated ? 0 : state.cut
      ?? Math.max(0, document.getElementsByTagName("*").length - state.visited),
    // The document's identity: performance.timeOrigin is unique per document.
    origin: performance.timeOrigin,
  };
  if (state.scrollers !== null) {
    try {
      result.scrollable = scrollRegionsAmong(document, state.scrollers, opts.scrollRegions);
    } catch (e) {
      result.scrollable = []; // the state answers without its scroll line rather than fail
    }
  }
  if (delta) {
    const { text, sent } = deltaText(result, boxes, opts.since, window[LAST_SENT], nodes);
    window[LAST_SENT] = sent;
    return text;
  }
  // As one JSON string, the result crosses CDP and the extension about four times faster than the
  // same data as an object tree (measured: 5,000 elements, 3.9 MB, ~0.4 s against ~1.6 s).
  return opts.asText === true ? JSON.stringify(result) : result;
}

// The record without what only the interaction map uses (every selector kind, attributes,
// context, detection reasons) and without empty fields: about a third of the bytes, for `state`
// on large pages. Readers treat a missing field as null/false.
const MAP_ONLY = ["attributes", "context", "reasons", "href", "placeholder", "type", "obscured"];

const TRI_STATE = ["checked", "expanded", "selected", "pressed"];

// The delta form leaves out the position and the box as well (they are sent apart).
const DELTA_LEFT_OUT = [...MAP_ONLY, "i", "box"];

function compacted(record, leftOut) {
  const out = {};
  for (const key in record) {
    const value = record[key];
    if (value === null || leftOut.includes(key)) continue;
    if (value === false && key !== "in_viewport" && key !== "visible") continue;
    if (key === "shadow" && value.length === 0) continue;
    if (key === "text" && value === record.name) continue;
    if (key === "selectors") {
      if (record.best) out.selectors = { [record.best]: value[record.best] };
      continue;
    }
    if (key === "states") {
      const states = {};
      // false stays where it says something (unchecked, collapsed, unselected).
      for (const k in value) {
        if (value[k] === null || (value[k] === false && !TRI_STATE.includes(k))) continue;
        states[k] = value[k];
      }
      out.states = states;
      continue;
    }
    out[key] = value;
  }
  return out;
}
