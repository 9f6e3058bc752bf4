// Scrolling: which element scrolls for a target, moving it, and where a wheel turns it.

import { nodeLabel } from "./actions.js";
import { insideClips } from "./geometry.js";

function scrollsY(n) {
  if (n.scrollHeight <= n.clientHeight + 1) return false;
  const doc = n.ownerDocument;
  if (n === doc.scrollingElement || n === doc.documentElement || n === doc.body) {
    return n === doc.scrollingElement;
  }
  const o = n.ownerDocument.defaultView.getComputedStyle(n).overflowY;
  return o === "auto" || o === "scroll" || o === "overlay";
}

// What scrolls for `el`: itself when it scrolls, else its nearest scrolling ancestor (across
// shadow roots), else the document's scrolling element.
export function scrollerOf(el) {
  for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.parentNode && n.parentNode.host)) {
    if (scrollsY(n)) return n;
  }
  return el.ownerDocument.scrollingElement;
}

function isPage(s) {
  return s === s.ownerDocument.scrollingElement;
}

function position(s) {
  const max = Math.max(0, s.scrollHeight - s.clientHeight);
  const top = Math.round(s.scrollTop);
  return { scroll_top: top, max, at_end: top >= max - 1, at_top: top <= 0 };
}

// Scrolls what scrolls for `el`: {by: pixels} or {to: "top" | "bottom"}; answers what moved.
export function scrollOn(el, how) {
  const s = scrollerOf(el);
  const before = position(s);
  if (how.to === "top") s.scrollTop = 0;
  else if (how.to === "bottom") s.scrollTop = s.scrollHeight;
  else s.scrollTop = s.scrollTop + how.by;
  const after = position(s);
  return {
    scroller: isPage(s) ? "page" : nodeLabel(s),
    before: before.scroll_top, after: after.scroll_top, max: after.max,
    at_end: after.at_end, at_top: after.at_top,
  };
}

// Where a wheel over `el`'s scroller lands (the middle of its part inside the viewport, in this
// frame's viewport), with its position and height.
export function wheelPoint(el) {
  const s = scrollerOf(el);
  const w = s.ownerDocument.defaultView;
  let r = { left: 0, top: 0, right: w.innerWidth, bottom: w.innerHeight };
  if (!isPage(s)) {
    if (!scrollInView(s)) s.scrollIntoView({ block: "nearest" });
    r = s.getBoundingClientRect();
  }
  const x0 = Math.max(r.left, 0);
  const y0 = Math.max(r.top, 0);
  const x1 = Math.min(r.right, w.innerWidth);
  const y1 = Math.min(r.bottom, w.innerHeight);
  return {
    x: (x0 + x1) / 2, y: (y0 + y1) / 2, height: s.clientHeight || w.innerHeight,
    scroller: isPage(s) ? "page" : nodeLabel(s), ...position(s),
  };
}

function scrollInView(n) {
  const r = n.getBoundingClientRect();
  const w = n.ownerDocument.defaultView;
  return r.top >= 0 && r.bottom <= w.innerHeight;
}

// Is el's middle inside the viewport and inside every clipping ancestor's box?
export function shownInScrollers(el) {
  if (!el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return false;
  const w = el.ownerDocument.defaultView;
  const cx = r.left + r.width / 2;
  const cy = r.top + r.height / 2;
  if (cx < 0 || cy < 0 || cx > w.innerWidth || cy > w.innerHeight) return false;
  return insideClips(el);
}
