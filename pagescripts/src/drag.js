// Drag: where the dragged element sits before and after a drag (what moved, in the page's own
// terms), and whether the page started a native HTML5 drag (a dragstart it did not cancel).

import { DRAG } from "./symbols.js";

const NAMED_CHILD = "h1,h2,h3,h4,h5,h6,legend,b,strong,[role=heading]";

function clip(text, most = 40) {
  const t = (text || "").replace(/\s+/g, " ").trim();
  return t.length <= most ? t : `${t.slice(0, most - 1)}…`;
}

// A short, readable name of a container: `#id`, `tag[data-testid="x"]` or its tag, then its
// label (aria-label, else its first heading-like child's text) in quotes.
function describeContainer(n) {
  if (!n) return null;
  const testid = n.getAttribute("data-testid");
  let out = n.id ? `#${n.id}` : testid ? `${n.localName}[data-testid="${testid}"]` : n.localName;
  const heading = n.querySelector(`:scope > :is(${NAMED_CHILD})`);
  const label = n.getAttribute("aria-label") || (heading && heading.textContent);
  if (clip(label)) out += ` "${clip(label)}"`;
  return out;
}

// Where `el` sits: its container and its position among the siblings of its own tag.
function placeOf(el) {
  const parent = el.parentElement;
  const same = parent ? Array.from(parent.children).filter((c) => c.localName === el.localName) : [el];
  return { parent: describeContainer(parent), index: same.indexOf(el) };
}

// What finds `el` again when the page replaced it (a framework re-rendering it in another list):
// its id, its test id, else its tag and text.
function keyOf(el) {
  return {
    id: el.id || null,
    testid: el.getAttribute("data-testid"),
    tag: el.localName,
    text: clip(el.textContent, 200),
  };
}

function findAgain(doc, key) {
  if (key.id) return doc.getElementById(key.id);
  if (key.testid) return doc.querySelector(`[data-testid="${CSS.escape(key.testid)}"]`);
  const like = Array.from(doc.getElementsByTagName(key.tag)).filter((n) => clip(n.textContent, 200) === key.text);
  return like.length === 1 ? like[0] : null;
}

// Before a drag: the source's place and key, and a watch for a native dragstart in its window
// (capture phase, so the page's own handlers cannot hide it; read back by dragStarted).
export function dragBefore(el) {
  const w = el.ownerDocument.defaultView;
  const watch = { started: false, event: null };
  if (w[DRAG]) w.removeEventListener("dragstart", w[DRAG].listener, true);
  watch.listener = (e) => { watch.event = e; watch.started = true; };
  w[DRAG] = watch;
  w.addEventListener("dragstart", watch.listener, true);
  return { place: placeOf(el), key: keyOf(el) };
}

// Did the page start a native drag since dragBefore (a dragstart nobody cancelled)?
export function dragStarted(el) {
  const watch = el.ownerDocument.defaultView[DRAG];
  return !!(watch && watch.started && !watch.event.defaultPrevented);
}

// After a drag (once the page rendered the frame the drop started): the source's place, found
// again by its key when the page replaced the node; null when it is nowhere. Ends the watch.
export function dragAfter(el, key) {
  const doc = el.ownerDocument;
  const w = doc.defaultView;
  if (w && w[DRAG]) {
    w.removeEventListener("dragstart", w[DRAG].listener, true);
    delete w[DRAG];
  }
  return new Promise((resolve) => {
    const done = () => {
      const now = el.isConnected ? el : findAgain(doc, key);
      resolve(now ? placeOf(now) : null);
    };
    const timer = setTimeout(done, 100); // a hidden tab runs no animation frames
    (w || globalThis).requestAnimationFrame(() => { clearTimeout(timer); setTimeout(done, 0); });
  });
}
