// The boxes a trace's picture fills before it is written: fields masked by default (passwords,
// one-time codes, card fields), the elements of the site's selector rules, and the text and field
// values its text patterns match. Runs in reins's own world: the page's replaced lookups and
// getters are not there. Boxes are in the top viewport's CSS pixels (same-origin frames added up).
//
// What it cannot search is said, never left silently: a frame it cannot enter (another site's)
// is answered as a box to fill whole; an element that may hold a closed shadow root (a custom
// element that renders with no children of its own) is named in `notes`. A selector or pattern the
// page cannot use is answered in `bad`: the host then writes no picture.

import { contentBoxOrigin } from "./geometry.js";
import { shadowRoots } from "./pierce.js";

// Text patterns are run on pieces of at most WINDOW characters that overlap (the host's checks
// keep the patterns simple; the pieces keep a long text from making one slow).
export const WINDOW = 4000;
const OVERLAP = 1000;
const MAX_BOXES = 3000;
const MAX_FRAMES = 100;

export const DEFAULT_MASKED =
  "input[type=password i], [autocomplete~=one-time-code i], [autocomplete*=cc- i]";
// Names and ids of card fields that say nothing in `autocomplete`.
export const CARD_NAME = /card.?num|cc.?(num|no)|cvc|cvv|csc|security.?code|card.?exp|cc.?exp|exp(iry|iration)?.?date|one.?time|otp/i;

// Does `text` hold a match of one of `patterns` (RegExp objects without the g flag)?
export function textMatches(text, patterns) {
  if (patterns.length === 0 || !text) return false;
  for (let start = 0; start < text.length; start += WINDOW - OVERLAP) {
    const piece = text.slice(start, start + WINDOW);
    if (patterns.some((p) => p.test(piece))) return true;
    if (start + WINDOW >= text.length) break;
  }
  return false;
}

// Is this form field masked by default, by what it says it holds?
export function defaultMasked(el) {
  if (el.matches(DEFAULT_MASKED)) return true;
  const tag = el.localName;
  if (tag !== "input" && tag !== "textarea" && tag !== "select") return false;
  return CARD_NAME.test(el.getAttribute("name") || "") || CARD_NAME.test(el.id || "");
}

function addBox(out, offset, r) {
  if (r.width <= 0 || r.height <= 0) return;
  out.boxes.push([offset.x + offset.sx * r.x, offset.y + offset.sy * r.y, r.width * offset.sx, r.height * offset.sy]);
}

function searchRoot(root, offset, rules, out) {
  const elements = new Set();
  for (const el of root.querySelectorAll("input, textarea, select, [autocomplete]")) {
    if (defaultMasked(el) || (el.value !== undefined && textMatches(String(el.value), rules.patterns))) {
      elements.add(el);
    }
  }
  for (const selector of rules.selectors) {
    try {
      for (const el of root.querySelectorAll(selector)) elements.add(el);
    } catch (_) {
      if (!out.bad.includes(selector)) out.bad.push(selector);
    }
  }
  for (const el of elements) addBox(out, offset, el.getBoundingClientRect());
  if (rules.patterns.length > 0) {
    const doc = root.ownerDocument || root;
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = doc.createRange();
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (!textMatches(node.data, rules.patterns)) continue;
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) addBox(out, offset, r);
    }
  }
  for (const el of root.querySelectorAll("*")) {
    if (el.localName.includes("-") && el.shadowRoot === null && el.childElementCount === 0) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && !out.closed.includes(el.localName)) out.closed.push(el.localName);
    }
  }
}

function searchDocument(doc, offset, rules, out) {
  for (const root of [doc, ...shadowRoots(doc, [])]) {
    searchRoot(root, offset, rules, out);
    for (const frame of root.querySelectorAll("iframe, frame")) {
      const r = frame.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      let inner = null;
      try {
        inner = frame.contentDocument;
      } catch (_) {
        inner = null;
      }
      if (inner === null || out.frames >= MAX_FRAMES) {
        addBox(out, offset, r);
        out.unsearched++;
        continue;
      }
      out.frames++;
      const o = contentBoxOrigin(frame, doc.defaultView.getComputedStyle(frame));
      const inside = { x: offset.x + offset.sx * o.x, y: offset.y + offset.sy * o.y, sx: offset.sx * o.sx, sy: offset.sy * o.sy };
      searchDocument(inner, inside, rules, out);
    }
  }
}

// The top document's site as the host keeps rules under it (setup/config.py site_origin).
export function siteOf(loc) {
  return loc.protocol === "file:" ? "file://" : loc.origin;
}

// bySite: {site: {selectors: [CSS], patterns: [source]}}; the rules of "*" and of this document's
// own site apply. Answers {boxes, dpr, bad, unsearched, closed, too_many, site}.
export function maskBoxes(bySite) {
  const site = siteOf(location);
  const rules = { selectors: [], patterns: [] };
  for (const key of ["*", site]) {
    const r = Object.prototype.hasOwnProperty.call(bySite, key) ? bySite[key] : null;
    if (r === null) continue;
    rules.selectors.push(...(r.selectors || []));
    rules.patterns.push(...(r.patterns || []));
  }
  const out = { boxes: [], bad: [], unsearched: 0, frames: 0, closed: [] };
  const patterns = [];
  for (const source of rules.patterns) {
    try {
      patterns.push(new RegExp(source));
    } catch (_) {
      out.bad.push(source);
    }
  }
  searchDocument(document, { x: 0, y: 0, sx: 1, sy: 1 }, { selectors: rules.selectors, patterns }, out);
  return {
    site,
    boxes: out.boxes.slice(0, MAX_BOXES),
    too_many: out.boxes.length > MAX_BOXES,
    dpr: window.devicePixelRatio || 1,
    bad: out.bad,
    unsearched: out.unsearched,
    closed: out.closed.slice(0, 10),
  };
}

// Is `el` masked (by default, or by a rule of its top document's site)? A value typed into it is
// then kept out of the trace's text.
export function maskedElement(el, bySite) {
  if (defaultMasked(el)) return true;
  const site = siteOf(location);
  for (const key of ["*", site]) {
    const r = Object.prototype.hasOwnProperty.call(bySite, key) ? bySite[key] : null;
    if (r === null) continue;
    for (const selector of r.selectors || []) {
      try {
        if (el.matches(selector) || el.closest(selector) !== null) return true;
      } catch (_) {
        return true; // a rule the page cannot read: count the field as masked
      }
    }
  }
  return false;
}
