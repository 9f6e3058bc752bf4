// Scrolling: which element scrolls for a target, moving it, and where a wheel turns it.

import { nodeLabel } from "./actions.js";
import { insideClips } from "./geometry.js";
import { collapse } from "./text.js";
import { textsInside } from "./textmatch.js";
import { accessibleName, documentScope, roleOf, visibleText } from "./walk.js";

function scrollsY(n) {
  if (n.scrollHeight <= n.clientHeight + 1) return false;
  const doc = n.ownerDocument;
  if (n === doc.scrollingElement || n === doc.documentElement || n === doc.body) {
    return n === doc.scrollingElement;
  }
  const o = n.ownerDocument.defaultView.getComputedStyle(n).overflowY;
  return o === "auto" || o === "scroll" || o === "overlay";
}

// What scrolls for `el`: itself when it scrolls, else the scrolling element that fills it (a data
// grid's root and its virtual scroller), else its nearest scrolling ancestor (across shadow
// roots), else the document's scrolling element.
export function scrollerOf(el) {
  if (scrollsY(el)) return el;
  const inside = fillingScroller(el);
  if (inside) return inside;
  for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.parentNode && n.parentNode.host)) {
    if (scrollsY(n)) return n;
  }
  return el.ownerDocument.scrollingElement;
}

// The largest scrolling element inside `el` whose box covers at least half of el's (a grid's
// own scrollbar, a side list, do not); null when none does, or `el` is the page's root or body.
function fillingScroller(el) {
  const doc = el.ownerDocument;
  if (el === doc.documentElement || el === doc.body) return null;
  const r = el.getBoundingClientRect();
  let most = (r.width * r.height) / 2;
  let best = null;
  if (most <= 0) return null;
  for (const n of el.querySelectorAll("*")) {
    if (!scrollsY(n)) continue;
    const b = n.getBoundingClientRect();
    if (b.width * b.height >= most) {
      most = b.width * b.height;
      best = n;
    }
  }
  return best;
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

// Elements that stand for one row of a list or grid (a virtual list's rows carry their index).
const ROW_LIKE = '[role="row"], [role="listitem"], [role="option"], [role="treeitem"], [data-index], [aria-rowindex]';

// What `el`'s scroller shows now, for `scroll --until`'s search of a long list: the text of each
// row it shows (row-like elements whose middle lies inside the scroller's box, top to bottom,
// header rows left out; 60 at most, 120 characters each), with wheelPoint's answer, and `seen`:
// the stretches of the scroller's content (in px from its top) that are rendered now, merged
// ([[from, to], …], 20 at most; the box itself when no row-like element is there). With `spec`
// (the target, as drawnTarget takes it): `holds`, an element inside the scroller that it names
// is in view (the host then looks the target up the whole way), and `target_at`, where in the
// content the middle of that element lies, when one is rendered (null otherwise).
export function rowsShown(el, spec) {
  const at = wheelPoint(el);
  const s = scrollerOf(el);
  const page = isPage(s);
  const box = page ? { top: 0, bottom: s.ownerDocument.defaultView.innerHeight } : s.getBoundingClientRect();
  const origin = box.top + (page ? 0 : s.clientTop) - s.scrollTop;
  const rows = [];
  for (const row of rowsOf(s)) {
    const r = row.getBoundingClientRect();
    if (r.height === 0) continue;
    const mid = r.top + r.height / 2;
    if (mid < box.top || mid > box.bottom) continue;
    const text = (row.innerText || "").replace(/\s+/g, " ").trim().slice(0, 120);
    if (text) rows.push({ top: r.top, text });
  }
  rows.sort((a, b) => a.top - b.top);
  const seen = renderedSpans(s, page, at, at.height);
  const out = { ...at, rows: rows.slice(0, 60).map((r) => r.text), seen };
  if (spec) {
    const holder = drawnTarget(s, spec);
    out.holds = holder !== s && shownInScrollers(holder);
    let r = null;
    if (holder !== s) r = holder.getBoundingClientRect();
    out.target_at = r && r.height > 0 ? Math.round(r.top + r.height / 2 - origin) : null;
    if (typeof spec.role === "string") out.named_by_text = namedByText(s, spec.role);
  }
  return out;
}

// Is every element of `role` inside `s` named by the text it shows (its accessible name none, or
// its rendered text, spacing aside: a row's name from its cells is spaced where its text is not)?
// Then a role= target's name is a text its row shows, and the order of the rows proves it absent
// as it proves a text= target's.
function namedByText(s, role) {
  const scope = documentScope(s.ownerDocument, "f0", 0, 0);
  const bare = (v) => (v || "").replace(/\s+/g, "").toLowerCase();
  for (const el of s.querySelectorAll("*")) {
    const tag = el.localName;
    if (roleOf(el, tag) !== role) continue;
    const name = bare(accessibleName(el, tag, role, scope));
    if (name && name !== bare(el.innerText)) return false;
  }
  return true;
}

// The element inside scroller `s` that `spec` names and that is drawn, else `s`: a transparent
// copy (a data grid's focused row, kept at opacity 0 once scrolled away) is not where it is.
// `spec` is a TARGET as the host resolves it: {text, exact} (the text rule), {css} or {xpath} (the
// elements the selector or the path matches) or {role, name, exact} (the role and, when given, the name or text of
// the element's record, as the host's role= lookup matches them).
function drawnTarget(s, spec) {
  return candidatesIn(s, spec).find((el) => drawn(el) && hasBox(el)) || s;
}

function candidatesIn(s, spec) {
  if (typeof spec.css === "string") {
    try {
      return Array.from(s.querySelectorAll(spec.css));
    } catch {
      return [];
    }
  }
  if (typeof spec.xpath === "string") return xpathMatches(s, spec.xpath);
  if (typeof spec.role === "string") return roleMatches(s, spec);
  return textsInside(s, spec);
}

// The elements inside `s` an XPath names, evaluated on s's document as the host's lookup does.
function xpathMatches(s, xpath) {
  const doc = s.ownerDocument;
  const out = [];
  try {
    const r = doc.evaluate(xpath, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < r.snapshotLength; i++) {
      const n = r.snapshotItem(i);
      if (n.nodeType === 1 && n !== s && s.contains(n)) out.push(n);
    }
  } catch {
    return [];
  }
  return out;
}

function roleMatches(s, spec) {
  const exact = spec.exact === true;
  const fold = (v) => (exact ? collapse(v || "") : collapse(v || "").toLowerCase());
  const wanted = typeof spec.name === "string" ? fold(spec.name) : null;
  const scope = documentScope(s.ownerDocument, "f0", 0, 0);
  const out = [];
  for (const el of s.querySelectorAll("*")) {
    const tag = el.localName;
    if (roleOf(el, tag) !== spec.role) continue;
    if (wanted !== null) {
      const text = visibleText(el, tag);
      const names = [fold(accessibleName(el, tag, spec.role, scope) || text), fold(text)];
      if (!names.some((n) => (exact ? n === wanted : n.includes(wanted)))) continue;
    }
    out.push(el);
  }
  return out;
}

function hasBox(el) {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

function drawn(el) {
  return typeof el.checkVisibility !== "function"
    || el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
}

// The row-like elements of scroller `s` (header rows and rows inside rows left out).
function* rowsOf(s) {
  for (const row of s.querySelectorAll(ROW_LIKE)) {
    if (row.parentElement?.closest(ROW_LIKE) || row.querySelector('[role="columnheader"]')) continue;
    yield row;
  }
}

// The stretches of `s`'s content (px from its top) its rows render now, merged; the box itself
// when it has no row-like element.
function renderedSpans(s, page, at, height) {
  const box = page ? { top: 0 } : s.getBoundingClientRect();
  const origin = box.top + (page ? 0 : s.clientTop) - s.scrollTop;
  const spans = [];
  for (const row of rowsOf(s)) {
    const r = row.getBoundingClientRect();
    if (r.height > 0) spans.push([r.top - origin, r.bottom - origin]);
  }
  // The box itself is seen when what the rows render reaches its bottom edge (or the end): a
  // header above the first row, or the padding below the last, holds no row to look at.
  const bottom = at.scroll_top + height;
  const reach = (a, b) => a <= bottom && (b >= bottom - 1 || (at.at_end && b > at.scroll_top));
  if (spans.some(([a, b]) => reach(a, b))) spans.push([at.scroll_top, bottom]);
  return merged(spans, { scroll_top: at.scroll_top, height });
}

// Rendered stretches of content, merged where they touch (within 1 px), rounded inwards.
function merged(spans, at) {
  if (spans.length === 0) return [[at.scroll_top, at.scroll_top + at.height]];
  spans.sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [a, b] of spans) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out.slice(0, 20).map(([a, b]) => [Math.ceil(a), Math.floor(b)]);
}

// `scroll --until`'s sweep of a list in no order a search can use: from `from` (px of content)
// down, each step as long as what the list rendered at the last (at least half a screen), until
// an element `spec` names is rendered (drawnTarget), the end, `most` steps or `ms` milliseconds. A step sets the
// scroll position and tells the list at once (a scroll event, as the browser sends one at the
// next frame), so a list that renders in its scroll handler draws many positions a frame; where
// what it rendered does not cover the box yet, the step waits for a task, then two frames.
// Answers the last step's rowsShown, with `seen` merged over all steps and `looks`.
export async function sweepList(el, spec, from, most, ms) {
  const s = scrollerOf(el);
  const page = isPage(s);
  const stop = Date.now() + ms;
  const height = s.clientHeight || s.ownerDocument.defaultView.innerHeight;
  const spans = [];
  let looks = 0;
  let top = from;
  // One step's look, lean (the full rowsShown only where the text is rendered): what is rendered.
  const rendered = () => {
    const at = position(s);
    return { ...at, height, seen: renderedSpans(s, page, at, height) };
  };
  while (looks < most && (looks === 0 || Date.now() < stop)) {
    s.scrollTop = top;
    (page ? s.ownerDocument : s).dispatchEvent(new Event("scroll", { bubbles: page }));
    let look = rendered();
    // A list that renders in a task it schedules (React's scheduler) draws after one; others at
    // the next frames.
    for (const wait of [taskPassed, framesPassed]) {
      if (covers(look)) break;
      await wait(el);
      look = rendered();
    }
    looks += 1;
    spans.push(...look.seen);
    if (drawnTarget(s, spec) !== s || look.at_end) break;
    const at = look.scroll_top;
    const span = look.seen.filter(([a, b]) => a <= at + 1 && b > at).map(([, b]) => b - at)[0] || 0;
    top = at + Math.max(span, height / 2);
  }
  const last = rowsShown(el, spec);
  return { ...last, seen: merged([...spans, ...last.seen], last), looks };
}

// Resolves once the tasks already queued (a render a list scheduled) have run.
function taskPassed() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function covers(look) {
  const top = look.scroll_top;
  return look.seen.some(([a, b]) => a <= top + 1 && b >= top + Math.min(look.height, look.max + look.height - top) - 1);
}

// Resolves once the page drew two frames (the scroll a wheel started reached the page, and its
// scroll handlers ran); bounded, since a hidden tab runs no animation frames.
export function framesPassed(el) {
  const w = el.ownerDocument.defaultView;
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    w.requestAnimationFrame(() => w.requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
  });
}

// rowsShown's answer once the page drew two frames (framesPassed): one call for a wheel turn's look.
export async function rowsAfterFrames(el, spec) {
  await framesPassed(el);
  return rowsShown(el, spec);
}

function scrollInView(n) {
  const r = n.getBoundingClientRect();
  const w = n.ownerDocument.defaultView;
  return r.top >= 0 && r.bottom <= w.innerHeight;
}

// Is el's middle inside the viewport and inside every clipping ancestor's box, and is el drawn
// there? Not when transparent (opacity 0 here or above: MUI's data grid keeps its focused row
// rendered so, scrolled away, laid over the rows in view), unless it is a control a press on its
// middle reaches (a transparent native checkbox over its styled twin; reins's world's hit test).
export function shownInScrollers(el) {
  if (!el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return false;
  const w = el.ownerDocument.defaultView;
  const cx = r.left + r.width / 2;
  const cy = r.top + r.height / 2;
  if (cx < 0 || cy < 0 || cx > w.innerWidth || cy > w.innerHeight) return false;
  if (!insideClips(el)) return false;
  if (drawn(el)) return true;
  const root = el.getRootNode();
  return el.matches(TRANSPARENT_CONTROLS) && typeof root.elementFromPoint === "function"
    && root.elementFromPoint(cx, cy) === el;
}

const TRANSPARENT_CONTROLS = 'input, select, textarea, [role="checkbox"], [role="radio"], [role="switch"], '
  + '[role="spinbutton"], [role="textbox"], [role="searchbox"], [role="combobox"]';

// Is `el` in view inside what scrolls for `within` (scroll --until's SCROLLER): inside that
// scroller (across shadow roots; the page holds all), and shownInScrollers.
export function shownInScrollerOf(el, within) {
  const s = scrollerOf(within);
  let inside = isPage(s);
  for (let n = el; n && !inside; n = n.parentNode || n.host) inside = n === s;
  return inside && shownInScrollers(el);
}

// A selector reins takes as TARGET for a scroller, when a short unique one exists: its id, test
// id or aria-label, else its tag and classes; null otherwise.
function scrollerTarget(n) {
  const doc = n.ownerDocument;
  const unique = (css) => {
    try {
      return doc.querySelectorAll(css).length === 1 ? css : null;
    } catch {
      return null;
    }
  };
  if (n.id && unique(`#${CSS.escape(n.id)}`)) return `#${CSS.escape(n.id)}`;
  for (const attr of ["data-testid", "aria-label"]) {
    const v = n.getAttribute(attr);
    if (v && !v.includes('"')) {
      const css = unique(`[${attr}="${v}"]`);
      if (css) return css;
    }
  }
  const classes = typeof n.className === "string" ? n.className.trim().split(/\s+/).filter(Boolean) : [];
  return classes.length ? unique(n.localName + classes.map((c) => `.${CSS.escape(c)}`).join("")) : null;
}

// The regions of this document that scroll, and how far each can still go: the page first, then
// the elements that scroll (overflow auto/scroll with more content than box), those with a box in
// the viewport first, at most `most`. [{target, label, below, above}] (px, rounded).
export function scrollRegions(most) {
  return scrollRegionsAmong(document, document.body ? document.body.getElementsByTagName("*") : [], most);
}

// The same among `nodes` (the collection passes the elements whose computed overflow-y may
// scroll, which its walk already has: no second pass over the document).
export function scrollRegionsAmong(doc, nodes, most) {
  const w = doc.defaultView;
  const out = [];
  const page = doc.scrollingElement;
  if (page && page.scrollHeight > page.clientHeight + 1) {
    const p = position(page);
    out.push({ target: "page", label: "page", below: p.max - p.scroll_top, above: p.scroll_top });
  }
  const found = [];
  for (const n of nodes) {
    if (n.scrollHeight <= n.clientHeight + 1 || n === page || !scrollsY(n)) continue;
    const r = n.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const inView = r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
    found.push({ n, inView });
  }
  found.sort((a, b) => Number(b.inView) - Number(a.inView));
  for (const { n } of found.slice(0, Math.max(0, most - out.length))) {
    const p = position(n);
    out.push({ target: scrollerTarget(n), label: nodeLabel(n), below: p.max - p.scroll_top, above: p.scroll_top });
  }
  return out;
}
