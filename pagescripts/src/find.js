// Finding elements for the host: CSS/XPath queries through frames and shadow roots, the elements
// a collection kept, and the element helpers the collection installs.

import { queryPiercing } from "./pierce.js";
import { API, ELEMENTS, GENERATION, MATCHES } from "./symbols.js";

// Runs a CSS or XPath query inside a chain of same-origin iframes (spec.frames, selectors from the
// outside in) and shadow hosts (spec.shadow); with spec.pierce a CSS query of a document also
// reaches into its open shadow roots (pierce.js), as a TARGET does. Keeps the matches for matchAt() and answers {count},
// {error, message}, or {frame: k} when the k-th iframe of the chain is cross-origin (its element
// is then match 0: the host continues in that frame's own session).
export function findMatches(spec) {
  let doc = document;
  let root = document;
  for (let k = 0; k < spec.frames.length; k++) {
    let el;
    try {
      el = root.querySelector(spec.frames[k]);
    } catch (e) {
      return { error: "invalid_selector", message: e.message };
    }
    if (!el) return { error: "not_found", message: "no iframe matches " + spec.frames[k] };
    if (!el.contentDocument) {
      window[MATCHES] = [el];
      return { frame: k };
    }
    doc = el.contentDocument;
    root = doc;
  }
  for (const host of spec.shadow) {
    const h = root.querySelector(host);
    if (!h || !h.shadowRoot) return { error: "not_found", message: "shadow host gone: " + host };
    root = h.shadowRoot;
  }
  let found = [];
  try {
    if (spec.kind === "xpath") {
      const r = doc.evaluate(spec.value, root === doc ? doc : root, null,
        XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      for (let i = 0; i < r.snapshotLength; i++) {
        const n = r.snapshotItem(i);
        if (n.nodeType === 1) found.push(n);
      }
    } else if (spec.pierce === true && root === doc) {
      found = queryPiercing(doc, spec.value);
    } else {
      found = Array.from(root.querySelectorAll(spec.value));
    }
  } catch (e) {
    return { error: "invalid_selector", message: e.message };
  }
  window[MATCHES] = found;
  return { count: found.length };
}

// The index-th match of the latest query; with `sole`, only when it was the one match (null
// else): a lookup whose round trip goes on to the probe of what it found (handles.py find_one)
// never probes, and so scrolls to, the first of several.
export function matchAt(index, sole = false) {
  const found = window[MATCHES];
  if (sole && found.length !== 1) return null;
  return found[index];
}

// The latest collection's elements (the accessibility source asks Chrome about each).
export function storedElements() {
  return window[ELEMENTS];
}

export function storedElement(index) {
  return window[ELEMENTS][index];
}

// Where the latest collection kept `el` (its index there), or -1: the walk kept no record of it.
export function storedIndexOf(el) {
  const stored = window[ELEMENTS];
  return stored ? stored.indexOf(el) : -1;
}

// The very element collection `generation` kept at `index`, while it is still attached.
export function sameNode(generation, index) {
  const stored = window[GENERATION] === generation ? window[ELEMENTS] : null;
  const el = stored && stored[index];
  return el && el.isConnected ? el : null;
}

// The element at the end of a chain of selectors, each after the first inside the previous
// match's (same-origin) frame document; null when one is missing.
export function frameElementByChain(chain) {
  let doc = document;
  let el = null;
  for (const sel of chain) {
    el = doc.querySelector(sel);
    if (!el) return null;
    if (el.contentDocument) doc = el.contentDocument;
  }
  return el;
}

export function hasApi() {
  return !!window[API];
}

// The element record (docs/element-record.md) of one element, through the helpers the collection
// installed; null in a document the collection has not run in yet.
export function describeElement(el) {
  const api = window[API];
  return api ? api.describe(el) : null;
}

// Of elements that all hold a text target's text, the positions of those holding none of the
// others (in the composed tree: a shadow root's host holds what is inside it): the ones that show
// the text themselves, as the deepest element holding a text does (a grid cell and the link inside
// it both named by its text: the link).
export function innermostOf(...els) {
  const holds = (outer, inner) => {
    for (let n = inner.parentNode || inner.host; n; n = n.parentNode || n.host) if (n === outer) return true;
    return false;
  };
  return els.flatMap((el, i) => (els.some((other) => other !== el && holds(el, other)) ? [] : [i]));
}
