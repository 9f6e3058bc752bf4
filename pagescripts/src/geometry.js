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

// Does a press whose hit test found `hit` reach `target`, as a person's click there would? When
// `hit` is the target or inside it (shadow-including); inside the target's own <label> (the
// browser hands a press on a label to its control: a transparent native checkbox under its
// styled label); or a part of the target's own widget that is no control itself (`partOfWidget`).
// One rule for the page's probe, the receipt guard and the check after Chrome's hit test.
export function pressReaches(hit, target) {
  // A ::before or ::after answers as a CSSPseudoElement: its element is the one it decorates.
  const el = !hit ? null : hit.nodeType === 1 ? hit : hit.parentElement || hit.element || null;
  if (el === null) return false;
  if (within(el, target)) return true;
  const label = typeof el.closest === "function" ? el.closest("label") : null;
  if (label !== null && label.control === target) return true;
  return partOfWidget(el, target);
}

function within(n, el) {
  for (let c = n; c; c = c.parentNode || c.host) if (c === el) return true;
  return false;
}

const CONTROLS = "a[href], button, input, select, textarea, iframe, frame, embed, object, "
  + "[contenteditable=''], [contenteditable=true], [tabindex]:not([tabindex='-1']), [role=button], "
  + "[role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], "
  + "[role=option], [role=combobox], [role=textbox], [role=searchbox], [role=slider], "
  + "[role=spinbutton], [role=listbox], [role=menu], [role=dialog]";

// The controls whose widgets draw parts over them: fields and comboboxes, which show their
// placeholder, chosen value or chips over the element that carries the name.
const FIELDS = "input, textarea, select, [role=combobox], [role=textbox], [role=searchbox], "
  + "[contenteditable=''], [contenteditable=true]";

// Is `el` a part drawn with the field `target` in one widget (its placeholder, chips, icon,
// wrapper)? `el` is no other control, and the nearest of the target's ancestors (up to four,
// never the body) that holds `el` holds no control but the target, those inside it, those it sits
// in and those the page hides from the accessibility tree (a chip's remove button, aria-hidden
// and out of the tab order: a mouse's shortcut, drawn as part of the chip): a person's click on
// such a part is a click on the field (Element Plus lays its placeholder over its input;
// Mantine's MultiSelect draws its box around an input one pixel high that takes no pointer). A
// button's cover is never its part: a veil in the same wrapper still obscures it.
function partOfWidget(el, target) {
  if (typeof target.matches !== "function" || !target.matches(FIELDS)) return false;
  if (el.matches(CONTROLS) && !within(el, target) && !within(target, el)) return false;
  let a = target;
  for (let k = 0; k < 4; ) {
    a = a.parentNode || a.host || null;
    if (a === null) return false;
    if (a.nodeType !== 1) continue; // a shadow root: its host is next
    k++;
    if (a === a.ownerDocument.body || a === a.ownerDocument.documentElement) return false;
    if (!within(el, a)) continue;
    for (const c of a.querySelectorAll(CONTROLS)) {
      if (!within(c, target) && !within(target, c) && !hiddenPart(c, a)) return false;
    }
    return true;
  }
  return false;
}

// Is control `c` hidden from the accessibility tree (aria-hidden on it or an ancestor inside
// `wrapper`) and out of the tab order: a part of the widget's drawing, no control of its own?
function hiddenPart(c, wrapper) {
  if (c.getAttribute("tabindex") !== "-1") return false;
  for (let n = c; n && n !== wrapper; n = n.parentElement) {
    if (n.getAttribute("aria-hidden") === "true") return true;
  }
  return false;
}
