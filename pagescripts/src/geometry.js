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

// Where the content box of a frame element starts, relative to its own window's viewport, and
// how much its window is scaled there (a CSS transform on the frame or an ancestor: the bounding
// box over the layout size). A rotated or skewed frame is taken as its bounding box.
export function contentBoxOrigin(frame, style) {
  const r = frame.getBoundingClientRect();
  const sx = frame.offsetWidth > 0 ? r.width / frame.offsetWidth : 1;
  const sy = frame.offsetHeight > 0 ? r.height / frame.offsetHeight : 1;
  return {
    x: r.x + (frame.clientLeft + parseFloat(style.paddingLeft)) * sx,
    y: r.y + (frame.clientTop + parseFloat(style.paddingTop)) * sy,
    sx,
    sy,
  };
}

// A point of a frame's viewport in its parent's: the frame's content-box origin and scale.
export function throughFrame(origin, x, y) {
  return { x: origin.x + origin.sx * x, y: origin.y + origin.sy * y };
}

// Where `win`'s viewport sits in the top window of this frame tree (same-origin frames): a point
// (x, y) of win is (offset.x + offset.sx * x, offset.y + offset.sy * y) there.
export function frameOffset(win) {
  let x = 0;
  let y = 0;
  let sx = 1;
  let sy = 1;
  for (let w = win; w.frameElement; w = w.parent) {
    const f = w.frameElement;
    const o = contentBoxOrigin(f, w.parent.getComputedStyle(f));
    x = o.x + o.sx * x;
    y = o.y + o.sy * y;
    sx *= o.sx;
    sy *= o.sy;
  }
  return { x, y, sx, sy };
}

// A box [x, y, width, height] of `win`'s viewport in the top viewport (see frameOffset).
export function toTop(offset, b) {
  return [offset.x + offset.sx * b[0], offset.y + offset.sy * b[1], b[2] * offset.sx, b[3] * offset.sy];
}

// The content-box origin of an element (an iframe) in the top viewport of this frame tree.
export function contentOrigin(el) {
  const own = contentBoxOrigin(el, el.ownerDocument.defaultView.getComputedStyle(el));
  const outer = frameOffset(el.ownerDocument.defaultView);
  return [outer.x + outer.sx * own.x, outer.y + outer.sy * own.y];
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
  return toTop(frameOffset(el.ownerDocument.defaultView), [r.x, r.y, r.width, r.height]);
}

// Is `hit` (the node Chrome's hit test found at the press point) the target's own label or inside
// it? The browser hands a press on a label to its control, as it does a person's click: a
// transparent native checkbox under its styled label is pressed through the label's decoration.
export function labelsControl(hit, target) {
  // A ::before or ::after answers as a CSSPseudoElement: its element is the one it decorates.
  const el = !hit ? null : hit.nodeType === 1 ? hit : hit.parentElement || hit.element || null;
  const label = el && typeof el.closest === "function" ? el.closest("label") : null;
  return label !== null && label.control === target;
}
