// Boxes and points: pure helpers, and the offsets of same-origin frames.

// Two [x, y, width, height] boxes within half a pixel of each other.
export function sameBox(a, b) {
  return a.every((v, i) => Math.abs(v - b[i]) < 0.5);
}

// The middle of the part of `box` inside a vw x vh viewport; null when less than a pixel of it
// is inside.
export function visibleCenter(box, vw, vh) {
  const x0 = Math.max(box[0], 0);
  const y0 = Math.max(box[1], 0);
  const x1 = Math.min(box[0] + box[2], vw);
  const y1 = Math.min(box[1] + box[3], vh);
  if (x1 - x0 < 1 || y1 - y0 < 1) return null;
  return { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
}

// Where the content box of a frame element starts, relative to its own window's viewport.
export function contentBoxOrigin(frame, style) {
  const r = frame.getBoundingClientRect();
  return {
    x: r.x + frame.clientLeft + parseFloat(style.paddingLeft),
    y: r.y + frame.clientTop + parseFloat(style.paddingTop),
  };
}

// The offset of `win`'s viewport in the top window of this frame tree (same-origin frames).
export function frameOffset(win) {
  let x = 0;
  let y = 0;
  for (let w = win; w.frameElement; w = w.parent) {
    const f = w.frameElement;
    const o = contentBoxOrigin(f, w.parent.getComputedStyle(f));
    x += o.x;
    y += o.y;
  }
  return { x, y };
}

// The content-box origin of an element (an iframe) in the top viewport of this frame tree.
export function contentOrigin(el) {
  const own = contentBoxOrigin(el, el.ownerDocument.defaultView.getComputedStyle(el));
  const outer = frameOffset(el.ownerDocument.defaultView);
  return [own.x + outer.x, own.y + outer.y];
}

// Is the middle of el inside every ancestor that clips it (overflow other than visible: a
// scrolling list)? The window itself is not checked here.
export function insideClips(el) {
  const w = el.ownerDocument.defaultView;
  const r = el.getBoundingClientRect();
  const cx = r.left + r.width / 2;
  const cy = r.top + r.height / 2;
  const root = el.ownerDocument.documentElement;
  for (let n = el.parentElement; n && n !== root && n !== el.ownerDocument.body; n = n.parentElement) {
    const o = w.getComputedStyle(n);
    if (o.overflowY === "visible" && o.overflowX === "visible") continue;
    const b = n.getBoundingClientRect();
    if (cy < b.top || cy > b.bottom || cx < b.left || cx > b.right) return false;
  }
  return true;
}

// An element's box [x, y, width, height] in the top viewport of this frame tree (no scrolling);
// null once it left the page.
export function viewportBox(el) {
  if (!el.isConnected) return null;
  const r = el.getBoundingClientRect();
  const offset = frameOffset(el.ownerDocument.defaultView);
  return [r.x + offset.x, r.y + offset.y, r.width, r.height];
}
