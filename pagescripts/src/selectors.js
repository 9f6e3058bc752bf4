// Selectors for a detected element, each with the number of elements it matches in the element's
// own root (its frame's document, or its shadow root), and the best (unique) one.
//
// Counts come from indexes built once per root (ids, test ids, aria-labels, first text runs per
// tag) or from one cached querySelectorAll per distinct selector, so a page with thousands of
// elements costs a handful of document scans rather than one per element.

import { cssString, FIELD_LIMIT, xpathLiteral } from "./text.js";

const HTML_NS = "http://www.w3.org/1999/xhtml";
const SAFE_CLASS = /^-?[A-Za-z_][A-Za-z0-9_-]*$/;
const XPATH_NAME = /^[a-z][a-z0-9._-]*$/;
const MAX_CLASSES = 4;
const SNIPPET_LIMIT = 60;
const BEST_ORDER = ["byTestId", "byId", "byText", "byAriaLabel", "byCSS", "byRole"];

// Per-root caches live on the scope object the walk creates for each document and shadow root.
export function rootCaches() {
  return { values: new Map(), queries: new Map(), texts: new Map(), steps: new Map() };
}

// The kinds in the order the full record lists them (the interaction map's JSON keeps it).
const LISTED = ["byId", "byTestId", "byText", "byCSS", "byRole", "byAriaLabel"];

// bestOnly: only the best selector is wanted (the compact record sends no other), so the kinds
// are tried in BEST_ORDER and the first unique one ends the search; `selectors` then holds the
// kinds tried. The best is the one the full computation would choose.
export function selectorsFor(el, scope, bestOnly = false) {
  const tag = el.localName;
  const selectors = {};
  if (!bestOnly) for (const key of LISTED) selectors[key] = selectorOf(key, el, tag, scope);
  for (const key of BEST_ORDER) {
    if (!(key in selectors)) selectors[key] = selectorOf(key, el, tag, scope);
    if (selectors[key] !== null && selectors[key].count === 1) return { selectors, best: key };
  }
  // Unique by construction (a child chain from a unique anchor), so not counted by a query.
  selectors.byPath = { sel: structuralPath(el, scope), count: 1 };
  return { selectors, best: "byPath" };
}

function selectorOf(key, el, tag, scope) {
  switch (key) {
    case "byTestId":
      return valueSelector(el, scope, "data-testid", '"');
    case "byId":
      return idSelector(el, scope);
    case "byText":
      return textSelector(el, tag, scope);
    case "byAriaLabel":
      return valueSelector(el, scope, "aria-label", "'");
    case "byCSS":
      return classSelector(el, tag, scope);
    default: {
      const role = el.getAttribute("role");
      return role && role.trim() ? querySelector(`[role=${cssString(role, "'")}]`, scope) : null;
    }
  }
}

// A selector for a shadow host or an iframe inside its own root: its id when unique, else a path.
export function locatorFor(el, scope) {
  const id = el.id;
  if (id && id.length <= FIELD_LIMIT && valueCount(scope, "id", id) === 1) return "#" + CSS.escape(id);
  return structuralPath(el, scope);
}

function idSelector(el, scope) {
  const id = el.getAttribute("id");
  if (!id || id.length > FIELD_LIMIT) return null;
  return { sel: "#" + CSS.escape(id), count: valueCount(scope, "id", id) };
}

function valueSelector(el, scope, attr, quote) {
  const value = el.getAttribute(attr);
  if (!value || !value.trim() || value.length > FIELD_LIMIT) return null;
  return { sel: `[${attr}=${cssString(value, quote)}]`, count: valueCount(scope, attr, value) };
}

// How many elements of the root carry attr="value" exactly (one scan of the root per attribute).
function valueCount(scope, attr, value) {
  const caches = scope.caches;
  let counts = caches.values.get(attr);
  if (counts === undefined) {
    counts = new Map();
    for (const e of scope.root.querySelectorAll(`[${attr}]`)) {
      const v = e.getAttribute(attr);
      counts.set(v, (counts.get(v) || 0) + 1);
    }
    caches.values.set(attr, counts);
  }
  return counts.get(value) || 0;
}

function classSelector(el, tag, scope) {
  const raw = el.getAttribute("class");
  if (!raw) return null;
  const picked = [];
  for (const c of raw.split(/\s+/)) {
    if (c && SAFE_CLASS.test(c) && !picked.includes(c)) picked.push(c);
    if (picked.length === MAX_CLASSES) break;
  }
  if (picked.length === 0) return null;
  return querySelector(cssTag(tag) + picked.map((c) => "." + c).join(""), scope);
}

function querySelector(sel, scope) {
  return { sel, count: countQuery(sel, scope) };
}

function countQuery(sel, scope) {
  const queries = scope.caches.queries;
  let n = queries.get(sel);
  if (n === undefined) {
    try {
      n = scope.root.querySelectorAll(sel).length;
    } catch (e) {
      n = 0;
    }
    queries.set(sel, n);
  }
  return n;
}

// XPath cannot see into shadow roots, so byText exists only for elements of a document.
// `contains(text(), S)` tests the element's first text node, so S is taken from that node.
function textSelector(el, tag, scope) {
  if (!scope.isDocument || el.namespaceURI !== HTML_NS || !XPATH_NAME.test(tag)) return null;
  const snippet = textSnippet(firstTextRun(el));
  if (snippet === null) return null;
  const { count, ranks } = textIndex(scope, tag).ranked(snippet);
  const base = `//${tag}[contains(text(), ${xpathLiteral(snippet)})]`;
  if (count <= 1) return { sel: base, count };
  const rank = ranks.get(el);
  if (rank === undefined) return { sel: base, count };
  return { sel: `(${base})[${rank}]`, count: 1 };
}

// XPath's text() sees a run of adjacent text nodes as one.
function firstTextRun(el) {
  let n = el.firstChild;
  while (n !== null && n.nodeType !== 3 && n.nodeType !== 4) n = n.nextSibling;
  if (n === null) return "";
  let s = "";
  for (; n !== null && (n.nodeType === 3 || n.nodeType === 4); n = n.nextSibling) s += n.data;
  return s;
}

// The first line of the text, as it appears in the node (contains() compares raw characters).
function textSnippet(run) {
  const trimmed = run.trim();
  if (!trimmed) return null;
  let s = trimmed.split(/\s*[\n\r\t]\s*|\s{2,}/)[0];
  if (s.length > SNIPPET_LIMIT) {
    let end = SNIPPET_LIMIT;
    const code = s.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    s = s.slice(0, end).trimEnd();
  }
  return s || null;
}

function textIndex(scope, tag) {
  let index = scope.caches.texts.get(tag);
  if (index === undefined) {
    index = new TextIndex(scope.root, tag);
    scope.caches.texts.set(tag, index);
  }
  return index;
}

// First text runs of every element of one tag in a document, in document order (XPath's order),
// with a trigram index so that "which of them contain S" does not scan them all for every S.
class TextIndex {
  constructor(doc, tag) {
    this.elements = [];
    this.texts = [];
    this.grams = null;
    for (const e of doc.getElementsByTagName(tag)) {
      if (e.namespaceURI !== HTML_NS) continue;
      this.elements.push(e);
      this.texts.push(firstTextRun(e));
    }
  }

  // How many elements contain `s`, and each one's rank among them (1-based), kept per `s`: a
  // flood of siblings with the same text costs one pass, not one per sibling.
  ranked(s) {
    if (this.memo === undefined) this.memo = new Map();
    let found = this.memo.get(s);
    if (found === undefined) {
      const matches = this.matches(s);
      const ranks = new Map();
      if (matches.length > 1) for (let k = 0; k < matches.length; k++) ranks.set(this.elements[matches[k]], k + 1);
      found = { count: matches.length, ranks };
      this.memo.set(s, found);
    }
    return found;
  }

  matches(s) {
    const texts = this.texts;
    const out = [];
    if (s.length < 3 || texts.length < 256) {
      for (let i = 0; i < texts.length; i++) if (texts[i].includes(s)) out.push(i);
      return out;
    }
    if (this.grams === null) this.grams = buildGrams(texts);
    let shortest = null;
    for (let j = 0; j + 3 <= s.length; j++) {
      const list = this.grams.get(s.slice(j, j + 3));
      if (list === undefined) return out;
      if (shortest === null || list.length < shortest.length) shortest = list;
    }
    for (const i of shortest) if (texts[i].includes(s)) out.push(i);
    return out;
  }
}

function buildGrams(texts) {
  const grams = new Map();
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    for (let j = 0; j + 3 <= t.length; j++) {
      const g = t.slice(j, j + 3);
      const list = grams.get(g);
      if (list === undefined) grams.set(g, [i]);
      else if (list[list.length - 1] !== i) list.push(i);
    }
  }
  return grams;
}

// A child-combinator chain of tag:nth-of-type steps from the nearest ancestor with a unique id, or
// from the top of the root; unique by construction.
export function structuralPath(el, scope) {
  const steps = [];
  for (let n = el; n !== null && n.nodeType === 1; n = n.parentNode) {
    if (n !== el && n.id && valueCount(scope, "id", n.id) === 1) {
      steps.push("#" + CSS.escape(n.id));
      break;
    }
    steps.push(pathStep(n, scope));
    if (n.parentNode === scope.root) {
      // In a shadow root, :host > anchors the chain at the top (":scope" matches nothing there).
      if (!scope.isDocument) steps.push(":host");
      break;
    }
  }
  return steps.reverse().join(" > ");
}

// A step names the element among its parent's children of the same type. The steps of all
// children of a parent are computed in one pass and kept: walking siblings per element (or asking
// for childElementCount, which Blink counts) is quadratic on a flat list.
function pathStep(n, scope) {
  const parent = n.parentNode;
  let steps = scope.caches.steps.get(parent);
  if (steps === undefined) {
    steps = new Map();
    const total = new Map();
    for (let c = parent.firstElementChild; c !== null; c = c.nextElementSibling) {
      total.set(c.localName, (total.get(c.localName) || 0) + 1);
    }
    const seen = new Map();
    for (let c = parent.firstElementChild; c !== null; c = c.nextElementSibling) {
      const name = c.localName;
      const k = (seen.get(name) || 0) + 1;
      seen.set(name, k);
      steps.set(c, total.get(name) > 1 ? `${cssTag(name)}:nth-of-type(${k})` : cssTag(name));
    }
    scope.caches.steps.set(parent, steps);
  }
  return steps.get(n);
}

function cssTag(name) {
  return /^[a-zA-Z][a-zA-Z0-9-]*$/.test(name) ? name : CSS.escape(name);
}
