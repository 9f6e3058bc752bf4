// Text targets as a person sees the page, with the rules of Playwright's text engine: `text=foo`
// matches elements whose whitespace-normalized text contains "foo" in any case, `text="foo"` those
// whose normalized text is exactly "foo"; the smallest element holding the text wins, not its
// ancestors; input buttons match by their value. Open shadow roots are read as rendered (a host's
// shadow tree, slots filled with what they are assigned). Only visible matches are kept.

import { MATCHES } from "./symbols.js";
import { collapse } from "./text.js";

const NO_TEXT = new Set(["head", "script", "style", "template", "noscript"]);
const BUTTON_INPUTS = new Set(["button", "submit", "reset"]);

// Does text match the query? Both whitespace-normalized; `wanted` is lowercased unless exact.
export function textMatches(text, wanted, exact) {
  const shown = collapse(text);
  return exact ? shown === wanted : shown.toLowerCase().includes(wanted);
}

// One pass over the composed tree: each element's text is gathered from its children once, and
// an element is a match when its text matches and no element inside it does.
function visit(el, query, out) {
  if (NO_TEXT.has(el.localName)) return { text: "", matched: false };
  if (el.localName === "input") {
    const text = BUTTON_INPUTS.has(el.type) ? el.value : "";
    const self = text !== "" && textMatches(text, query.wanted, query.exact);
    if (self) out.push(el);
    return { text, matched: self };
  }
  const parts = [];
  let inner = false;
  for (const n of renderedChildren(el)) {
    if (n.nodeType === 3) parts.push(n.data);
    else if (n.nodeType === 1) {
      const r = visit(n, query, out);
      parts.push(r.text);
      inner = inner || r.matched;
    }
  }
  const text = parts.join("");
  const self = !inner && textMatches(text, query.wanted, query.exact);
  if (self) out.push(el);
  return { text, matched: self || inner };
}

// What a node renders as its children: an open shadow root's tree, a slot's assigned nodes (its
// own children when nothing is assigned), else its children.
export function renderedChildren(node) {
  if (node.shadowRoot) return node.shadowRoot.childNodes;
  if (node.localName === "slot") {
    const assigned = node.assignedNodes();
    return assigned.length > 0 ? assigned : node.childNodes;
  }
  return node.childNodes;
}

// An element's text as the text rules read it (the DOM text through open shadow roots, slots
// filled, button inputs by value), whitespace-normalized: what `expect text` compares.
export function elementText(el) {
  return collapse(visit(el, { wanted: null, exact: true }, []).text);
}

// As Playwright's "visible": a non-empty box and not visibility:hidden (display:none has no box).
export function isVisible(el) {
  const rect = el.getBoundingClientRect();
  if (rect.width <= 0 || rect.height <= 0) return false;
  return typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true });
}

// The visible elements of the document whose text matches, in document order, parked for
// matchAt(); answers {count, matches: [{tag, text, box}]}.
export function findText(spec) {
  const exact = spec.exact === true;
  const wanted = exact ? collapse(spec.text) : collapse(spec.text).toLowerCase();
  const found = [];
  if (wanted !== "" && document.body) visit(document.body, { wanted, exact }, found);
  const shown = found.filter(isVisible);
  window[MATCHES] = shown;
  return {
    count: shown.length,
    matches: shown.slice(0, 20).map((el) => {
      const r = el.getBoundingClientRect();
      const text = el.localName === "input" ? el.value : el.innerText;
      return {
        tag: el.localName,
        text: collapse(text).slice(0, 100),
        box: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
      };
    }),
  };
}

// The first visible element of the document, or of a same-origin frame, that holds the text
// (`wait --text`), or null. The same rule as text targets: the DOM text, not its CSS rendering (a
// heading written "March 2026" and shown uppercase matches "march"), whitespace-normalized, any
// case unless exact. The host asks Chrome's accessibility tree about the element it answers.
export function textHolder(spec) {
  const exact = spec.exact === true;
  const wanted = exact ? collapse(spec.text) : collapse(spec.text).toLowerCase();
  if (wanted === "") return null;
  const seen = (doc) => {
    const found = [];
    if (doc.body) visit(doc.body, { wanted, exact }, found);
    const shown = found.find(isVisible);
    if (shown) return shown;
    for (const f of doc.querySelectorAll("iframe,frame")) {
      let inner = null;
      try {
        inner = f.contentDocument;
      } catch (e) {
        inner = null; // a frame that will not be read: not seen
      }
      const there = inner ? seen(inner) : null;
      if (there) return there;
    }
    return null;
  };
  return seen(document);
}

// The element inside `el` that shows the text (the smallest one holding it, visible), or `el`
// itself: where a text target is pressed when it resolved to a big clickable container (a table
// row whose middle lies on another cell's link), as Playwright presses the element its text
// engine matched.
export function textInside(el, spec) {
  return textsInside(el, spec)[0] || el;
}

// Every element inside `el` (not `el`) that shows the text, visible, in document order.
export function textsInside(el, spec) {
  const exact = spec.exact === true;
  const wanted = exact ? collapse(spec.text) : collapse(spec.text).toLowerCase();
  if (wanted === "") return [];
  const found = [];
  visit(el, { wanted, exact }, found);
  return found.filter((m) => m !== el && isVisible(m));
}
