// The walk: document order through open shadow roots and same-origin iframes, detection of
// interactive elements, and one record per detected element.

import { computeAccessibleName, getRole } from "dom-accessibility-api";
import {
  ANCESTOR_ROLES, FRAME_OWNER_TAGS, NAME_FROM_CONTENT, NATIVE_TAGS, SECTION_ROLES, SKIP_TAGS, SVG_NS, TEXT_INPUT_TYPES, WIDGET_ROLES,
} from "./rules.js";
import { HINT_ONCLICK, HINT_REACT, isListened, readHints } from "./listeners.js";
import { locatorFor, rootCaches } from "./selectors.js";
import { boundedText, clipField, collapse, cssString, TEXT_LIMIT } from "./text.js";

// Text-level elements whose content names their ancestor as plain text.
const PLAIN_CONTENT = new Set([
  "span", "b", "i", "em", "strong", "small", "mark", "u", "s", "sub", "sup", "code", "kbd",
  "abbr", "bdi", "bdo", "cite", "data", "dfn", "q", "samp", "time", "var", "font", "div", "p",
  "br", "wbr",
]);

const ROOT_ANCESTRY = { role: null, section: null, faded: false };

// A scope is one root (a frame's document or a shadow root) with what its elements share.
export function documentScope(doc, frameId, offsetX, offsetY) {
  const win = doc.defaultView;
  return {
    root: doc, doc, win, frameId, offsetX, offsetY, isDocument: true, shadow: [],
    width: win.innerWidth, height: win.innerHeight, labels: null, caches: rootCaches(),
  };
}

function shadowScope(parent, host) {
  return {
    ...parent, root: host.shadowRoot, isDocument: false,
    shadow: parent.shadow.concat([locatorFor(host, parent)]), labels: null, caches: rootCaches(),
  };
}

// The hints of this collection (element -> bits), from the page's world (useHints).
let hintsNow = new Map();

export function useHints(hints) {
  hintsNow = readHints(hints);
}

export function walk(state, scope) {
  walkChildren(state, scope.root, scope, false, ROOT_ANCESTRY);
}

function walkChildren(state, parent, scope, parentPointer, ancestry) {
  let sibling = 0;
  for (let el = parent.firstElementChild; el !== null; el = el.nextElementSibling) {
    if (state.truncated) return;
    visit(state, el, sibling++, scope, parentPointer, ancestry);
  }
}

function visit(state, el, sibling, scope, parentPointer, ancestry) {
  state.visited++;
  const tag = el.localName;
  if (SKIP_TAGS.has(tag)) return;
  // aria-hidden subtrees are not offered to users of assistive technology, nor to agents: they
  // hold decoys such as the hidden native <select> behind a Radix select.
  if (el.getAttribute("aria-hidden") === "true") return;
  const style = scope.win.getComputedStyle(el);
  const pointer = style.cursor === "pointer";
  const explicitRole = firstToken(el.getAttribute("role"));
  // Nothing under display:none renders, and content-visibility:hidden skips its contents.
  if (style.display === "none") return;
  // What may scroll in the main document, for the state's scroll line (index.js).
  if (state.scrollers !== null && scope.isDocument && scope.frameId === "f0") {
    const o = style.overflowY;
    if (o === "auto" || o === "scroll" || o === "overlay") state.scrollers.push(el);
  }
  const reasons = detect(el, tag, style, pointer, parentPointer, explicitRole);
  let role = null;
  // display:contents: no box of its own (hiddenNow keeps it; describe reads its zero box).
  const rect = reasons !== null && style.display !== "contents" ? el.getBoundingClientRect() : null;
  if (reasons !== null && !hiddenNow(el, tag, style, ancestry, rect)) {
    if (state.items.length >= state.maxElements) {
      state.truncated = true;
      return;
    }
    const record = describe(state, el, tag, style, scope, ancestry, sibling, reasons, explicitRole, rect);
    role = record.role;
    state.items.push({ el, record, scope });
  }

  let inner = ancestry;
  const ownRole = role !== null && role !== "generic" ? role : ancestorRole(el, tag, explicitRole);
  const faded = style.opacity === "0";
  if (ownRole !== null || faded) {
    inner = {
      role: ownRole || ancestry.role,
      section: SECTION_ROLES.has(ownRole) ? sectionName(el, ownRole) : ancestry.section,
      faded: ancestry.faded || faded,
    };
  }
  if (style.contentVisibility === "hidden") return;
  if (el.shadowRoot) walkChildren(state, el.shadowRoot, shadowScope(scope, el), pointer, inner);
  if (tag === "iframe" || tag === "frame") enterFrame(state, el, style, scope);
  if (tag === "select" && !optionsInPage(el, style)) return;
  walkChildren(state, el, scope, pointer, inner);
}

// A drop-down <select> shows its options in a picker of its own, not in the page: they have no
// box, so none is ever listed, and a long list (countries, time zones) can be most of a form's
// nodes. A list box (multiple, or size > 1) and a customizable select (appearance: base-select,
// whose picker is page content) render them.
function optionsInPage(el, style) {
  return el.multiple || el.size > 1 || style.appearance === "base-select";
}

// Hidden at this moment, so never listed: no box (zero size), visibility other than visible,
// transparent (opacity 0 here or above), clipped away (the visually-hidden pattern), or not
// rendered for a reason checkVisibility knows (a content-visibility:hidden ancestor). A native
// control hidden that way behind a visible <label> is what a person uses through the label (the
// styled checkbox): it stays. So does a transparent one laid over the styled twin it draws (MUI's
// checkbox and switch: an <input> at opacity 0 over its icon): a person's click there reaches it.
// rect: the element's getBoundingClientRect(), null for display:contents.
function hiddenNow(el, tag, style, ancestry, rect) {
  if (rect === null) return false; // display:contents: no box of its own; its children have them
  if (rect.width <= 0 || rect.height <= 0 || style.visibility !== "visible") return true;
  if (typeof el.checkVisibility === "function" && !el.checkVisibility()) return true;
  const clipped = clippedAway(style);
  if (!ancestry.faded && style.opacity !== "0" && !clipped) return false;
  if (LABELLED_CONTROLS.has(tag)) return !(hasVisibleLabel(el) || (!clipped && overItsTwin(el, rect)));
  // A field drawn transparent over what stands in for it until it is used (MUI X's date field:
  // its Month/Day/Year sections, at opacity 0 under the field's label while empty): what a press
  // on its spot reaches, and a person types there after that press.
  return !(FIELD_ROLES.has(el.getAttribute("role")) && !clipped && overItsTwin(el, rect));
}

// The roles of a field a person types into (a transparent one is listed by the rule above).
const FIELD_ROLES = new Set(["spinbutton", "textbox", "searchbox", "combobox"]);

// Is a transparent control what a press on its spot reaches? In view: the top of the hit test at
// its centre, in its own tree (reins's world's elementFromPoint, which the page cannot replace).
// Out of view: it lies within its parent's box, and that parent shows (the twin it covers).
function overItsTwin(el, rect) {
  const win = el.ownerDocument.defaultView;
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  if (win !== null && x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight) {
    const root = el.getRootNode();
    return typeof root.elementFromPoint === "function" && root.elementFromPoint(x, y) === el;
  }
  const parent = el.parentElement;
  if (parent === null || win === null || win.getComputedStyle(parent).opacity === "0") return false;
  const p = parent.getBoundingClientRect();
  return p.width > 0 && p.height > 0 && rect.left >= p.left - 1 && rect.top >= p.top - 1
    && rect.right <= p.right + 1 && rect.bottom <= p.bottom + 1;
}

const LABELLED_CONTROLS = new Set(["input", "select", "textarea"]);

function clippedAway(style) {
  const clip = style.clip;
  if (clip && clip.startsWith("rect(") && style.position !== "static" && style.position !== "relative") {
    const [top, right, bottom, left] = clip.slice(5, -1).split(/[\s,]+/).map(parseFloat);
    if (!(bottom > top) || !(right > left)) return true;
  }
  const path = style.clipPath;
  return path.startsWith("inset(") && parseFloat(path.slice(6)) >= 50;
}

function hasVisibleLabel(el) {
  const labels = el.labels;
  if (!labels) return false;
  for (const label of labels) {
    const r = label.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return true;
  }
  return false;
}

// The reasons an element is interactive, or null. A pointer cursor counts only where a pointer
// region starts: children inheriting it from a clickable ancestor are part of that ancestor.
function detect(el, tag, style, pointer, parentPointer, explicitRole) {
  const reasons = [];
  const isSvg = el.namespaceURI === SVG_NS;
  let native = false;
  if (!isSvg && NATIVE_TAGS.has(tag)) {
    if (tag === "input" && el.type === "hidden") return null;
    reasons.push("native");
    native = true;
  } else if (tag === "a" && (el.hasAttribute("href") || el.hasAttribute("xlink:href"))) {
    reasons.push("link");
    native = true;
  }
  if (explicitRole !== null && WIDGET_ROLES.has(explicitRole)) reasons.push("role");
  // What only the page's world tells (React's props, an onclick property): hints handed over
  // by the host (listeners.js handlerHints).
  const hint = hintsNow.get(el) || 0;
  if (el.hasAttribute("onclick") || (hint & HINT_ONCLICK) !== 0) reasons.push("onclick");
  if ((hint & HINT_REACT) !== 0) reasons.push("react");
  if (isListened(el)) reasons.push("listener"); // a click listener Chrome reported (listeners.js)
  if (pointer && !parentPointer && tag !== "html" && tag !== "body") reasons.push("pointer");
  const tabindex = el.getAttribute("tabindex");
  if (tabindex !== null && parseInt(tabindex, 10) >= 0) reasons.push("tabindex");
  if (isEditingHost(el)) reasons.push("contenteditable");
  if (reasons.length === 0) return null;
  // The page itself is not a control: React traps clicks on portal containers (body) with a
  // no-op onclick, and delegated listeners live on the root.
  if ((tag === "body" || tag === "html") && explicitRole === null) return null;
  if (!native && style.pointerEvents === "none") return null;
  if (isSvg) reasons.push("svg");
  return reasons;
}

// The elements HTML lets carry a shadow root (besides custom elements, named with a dash).
const SHADOW_HOSTS = new Set([
  "article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
  "header", "main", "nav", "p", "section", "span",
]);
// May `el` (which has a box) show a closed shadow root's tree? No script reaches a closed root,
// reins's world included, so this is the outside view: an element that may carry one, has no
// open one, and whose own children show nothing. The host asks the browser about those
// (observe/sealed.py), which lists the controls such a root holds.
function maySealATree(el, tag) {
  if (el.shadowRoot !== null || !(SHADOW_HOSTS.has(tag) || tag.includes("-"))) return false;
  for (let n = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1 && n.getClientRects().length > 0) return false;
    if (n.nodeType === 3 && n.data.trim() !== "") {
      const range = n.ownerDocument.createRange();
      range.selectNodeContents(n);
      if (range.getClientRects().length > 0) return false;
    }
  }
  return true;
}

function isEditingHost(el) {
  const attr = el.getAttribute("contenteditable");
  if (attr === null || attr === "false" || !el.isContentEditable) return false;
  const parent = el.parentElement;
  return parent === null || !parent.isContentEditable;
}

// box: the element's getBoundingClientRect() if the caller has it (taken before the names and
// states are read, none of which moves anything), else null.
function describe(state, el, tag, style, scope, ancestry, sibling, reasons, explicitRole, box) {
  const isSvg = el.namespaceURI === SVG_NS;
  const role = roleOf(el, tag);
  const text = visibleText(el, tag);
  const name = accessibleName(el, tag, role, scope) || text;
  const states = isFrameOwner(el, tag) ? frameStates(el, scope) : statesOf(el, tag, scope);
  const rect = box || el.getBoundingClientRect();
  const x = rect.left + scope.offsetX;
  const y = rect.top + scope.offsetY;
  const hasBox = rect.width > 0 && rect.height > 0;
  const visible = hasBox && style.visibility === "visible" && style.display !== "none"
    && style.opacity !== "0" && !ancestry.faded;
  const inViewport = hasBox && x < state.width && y < state.height
    && x + rect.width > 0 && y + rect.height > 0;
  const attr = (n) => clipField(el.getAttribute(n));
  return {
    i: 0,
    frame: scope.frameId,
    shadow: scope.shadow,
    tag,
    type: typeOf(el, tag, isSvg, explicitRole, reasons),
    role,
    name: clipField(name),
    text,
    value: clipField(valueOf(el, tag) ?? customValue(el, tag, role, name)),
    testid: attr("data-testid"),
    id: attr("id"),
    aria_label: attr("aria-label"),
    name_attr: attr("name"),
    // Only the interaction map reads it (resolving a link's URL is not free on a big page).
    href: state.compact ? null : clipField(hrefOf(el, tag)),
    placeholder: attr("placeholder"),
    parent_role: ancestry.role,
    sibling_index: sibling,
    states,
    in_viewport: inViewport,
    visible,
    // The compact record leaves out what only the interaction map reads: not worked out for it
    // (a hit test per element in view is the walk's largest single cost).
    obscured: visible && inViewport && !state.compact ? isObscured(el, rect, scope) : false,
    box: [round(x), round(y), round(rect.width), round(rect.height)],
    selectors: null,
    best: null,
    attributes: state.compact ? null : attributesOf(el, states.disabled),
    context: { section: ancestry.section },
    sealed: hasBox && maySealATree(el, tag),
    reasons,
  };
}

// A custom combobox (a button with role=combobox, as Radix and MUI render) shows its committed
// value as its content; agents read it there to verify a choice.
function customValue(el, tag, role, name) {
  if (role !== "combobox" || tag === "input" || tag === "select") return null;
  const parts = [];
  for (let n = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 3) parts.push(n.data);
    else if (n.nodeType === 1 && n.getAttribute("aria-hidden") !== "true") parts.push(n.textContent);
  }
  const shown = collapse(parts.join(" "));
  return shown && shown !== name ? shown : null;
}

function round(v) {
  return Math.round(v * 10) / 10;
}

function firstToken(role) {
  if (role === null) return null;
  const token = role.trim().split(/\s+/)[0].toLowerCase();
  return token || null;
}

// A frame owner is a frame whatever its role attribute says (`<iframe role=button>` of another
// site painted like the page's button): listed as one, never as a control to press.
export function isFrameOwner(el, tag) {
  if (el.namespaceURI === SVG_NS) return false;
  if (FRAME_OWNER_TAGS.has(tag)) return true;
  return tag === "object" && el.contentWindow != null;
}

export function roleOf(el, tag) {
  if (isFrameOwner(el, tag)) return "frame";
  let role = null;
  try {
    role = getRole(el);
  } catch (e) {
    role = null;
  }
  if (role === null || role === "presentation" || role === "none") {
    return tag === "input" && el.type === "password" ? "textbox" : "generic";
  }
  return role;
}

export function typeOf(el, tag, isSvg, explicitRole, reasons) {
  if (isSvg) return "svg";
  if (isFrameOwner(el, tag)) return "frame";
  switch (tag) {
    case "input":
      return "input-" + (el.type || "text");
    case "button": {
      const kind = (el.getAttribute("type") || "").trim().toLowerCase();
      return kind === "submit" || kind === "reset" ? "button-" + kind : "button";
    }
    case "select":
    case "textarea":
    case "summary":
      return tag;
    case "a":
      if (reasons.includes("link")) return "a";
      break;
    default:
      break;
  }
  if (reasons.includes("contenteditable")) return tag + "-editable";
  if (explicitRole !== null && WIDGET_ROLES.has(explicitRole)) return tag + "-" + explicitRole;
  return tag + "-clickable";
}

export function visibleText(el, tag) {
  if (tag === "input") return isButtonInput(el) ? collapse(el.value) || defaultButtonLabel(el) : "";
  if (tag === "select") {
    const option = el.options[el.selectedIndex];
    return option ? collapse(option.text).slice(0, TEXT_LIMIT) : "";
  }
  if (tag === "textarea") return "";
  return boundedText(el);
}

function isButtonInput(el) {
  const t = el.type;
  return t === "button" || t === "submit" || t === "reset";
}

function defaultButtonLabel(el) {
  return el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "";
}

// Name computation, cheap paths first: the full algorithm (dom-accessibility-api) walks labels,
// descendants and styles, so it runs only where the cheap answer could be wrong.
export function accessibleName(el, tag, role, scope) {
  if (el.hasAttribute("aria-labelledby")) return fullName(el, scope);
  const aria = el.getAttribute("aria-label");
  if (aria !== null && aria.trim()) return collapse(aria);
  if (el.namespaceURI !== SVG_NS) {
    if (tag === "input" && isButtonInput(el)) return collapse(el.value) || defaultButtonLabel(el);
    if (tag === "input" && el.type === "image") return collapse(el.getAttribute("alt") || "");
    if (tag === "button") {
      // A <label for> names a button before its content does (accname: host-language label).
      const labelled = labelName(el, scope);
      if (labelled) return labelled;
    }
    if (tag === "input" || tag === "select" || tag === "textarea") {
      const labelled = labelName(el, scope);
      if (labelled !== null) return labelled;
      return collapse(el.getAttribute("title") || el.getAttribute("placeholder") || "");
    }
  }
  if (NAME_FROM_CONTENT.has(role)) {
    const name = el.childElementCount === 0 ? collapse(el.textContent) : contentName(el, scope);
    if (name) return name;
  }
  return collapse(el.getAttribute("title") || "");
}

// Name from content for the common subtree of plain text-level elements (an icon and a label in a
// button): the text of the rendered descendants, block boxes separated by spaces. Anything that
// can name itself differently (images, controls, roles, ARIA labels, SVG titles) gets the full
// algorithm, which also reads ::before/::after content and is several times slower.
function contentName(el, scope) {
  const parts = [];
  if (!plainContent(el, scope, parts, 0)) return fullName(el, scope);
  return collapse(parts.join(""));
}

function plainContent(parent, scope, parts, depth) {
  if (depth > 8) return false;
  for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 3) {
      parts.push(n.data);
      continue;
    }
    if (n.nodeType !== 1) continue;
    if (n.getAttribute("aria-hidden") === "true") continue;
    if (!PLAIN_CONTENT.has(n.localName) && n.namespaceURI !== SVG_NS) return false;
    if (n.hasAttribute("role") || n.hasAttribute("aria-label") || n.hasAttribute("aria-labelledby")
      || n.hasAttribute("title") || n.shadowRoot) return false;
    if (n.getAttribute("aria-hidden") === "true") continue;
    const style = scope.win.getComputedStyle(n);
    if (style.display === "none" || style.visibility === "hidden") continue;
    if (n.namespaceURI === SVG_NS) {
      // An icon: silent unless it names itself.
      if (n.querySelector("title, desc, text, [aria-label], [aria-labelledby], [role]") !== null) {
        return false;
      }
      continue;
    }
    const block = !style.display.startsWith("inline");
    if (block) parts.push(" ");
    if (!plainContent(n, scope, parts, depth + 1)) return false;
    if (block) parts.push(" ");
  }
  return true;
}

function fullName(el, scope) {
  try {
    return collapse(computeAccessibleName(el, { getComputedStyle: (e, p) => scope.win.getComputedStyle(e, p) }));
  } catch (e) {
    return "";
  }
}

// Labels from an index of label[for] built once per root (input.labels is slow: it scans the
// document on first use for every element) plus a wrapping <label>.
function labelName(el, scope) {
  const labels = [];
  if (el.id) {
    if (scope.labels === null) {
      scope.labels = new Map();
      for (const label of scope.root.querySelectorAll("label[for]")) {
        const list = scope.labels.get(label.htmlFor);
        if (list) list.push(label);
        else scope.labels.set(label.htmlFor, [label]);
      }
    }
    for (const label of scope.labels.get(el.id) || []) labels.push(label);
  }
  const wrapping = el.closest("label");
  if (wrapping !== null && !labels.includes(wrapping) && (!wrapping.htmlFor || wrapping.htmlFor === el.id)) {
    labels.push(wrapping);
  }
  if (labels.length === 0) return null;
  const parts = [];
  for (const label of labels) {
    // Embedded controls contribute their values to a label's text; leave that to the full
    // algorithm rather than read option lists or textarea defaults as text. (A label of text
    // alone, the usual one, has none to look for.)
    if (label.firstElementChild !== null) {
      for (const inner of label.querySelectorAll("input, select, textarea, button, [role]")) {
        if (inner !== el || el.localName !== "input") return fullName(el, scope) || null;
      }
    }
    const text = collapse(label.textContent);
    if (text) parts.push(text);
  }
  return parts.length ? parts.join(" ") : null;
}

function valueOf(el, tagName) {
  if (tagName === "input") {
    if (el.type === "password") return el.value ? "********" : "";
    // A checkbox's implicit "on" says nothing; its checked state is in `states`.
    if (el.type === "checkbox" || el.type === "radio") return el.getAttribute("value");
    return el.value;
  }
  if (tagName === "select" || tagName === "textarea") return el.value;
  return null;
}

function hrefOf(el, tagName) {
  if (tagName !== "a") return null;
  if (typeof el.href === "string") return el.href || null;
  return el.getAttribute("href") || el.getAttribute("xlink:href");
}

function statesOf(el, tagName, scope) {
  const aria = (n) => el.getAttribute(n);
  const formControl = tagName === "input" || tagName === "button" || tagName === "select"
    || tagName === "textarea";
  const disabled = (formControl && el.matches(":disabled")) || aria("aria-disabled") === "true";
  let checked = tristate(aria("aria-checked"));
  if (tagName === "input" && (el.type === "checkbox" || el.type === "radio")) {
    checked = el.indeterminate ? "mixed" : el.checked;
  }
  let expanded = tristate(aria("aria-expanded"));
  if (expanded === null && tagName === "summary" && el.parentElement) {
    expanded = el.parentElement.localName === "details" ? el.parentElement.open : null;
  }
  let selected = tristate(aria("aria-selected"));
  if (tagName === "option") selected = el.selected;
  const textual = tagName === "textarea" || (tagName === "input" && TEXT_INPUT_TYPES.has(el.type));
  const readonly = (textual && el.readOnly) || aria("aria-readonly") === "true";
  const editable = el.isContentEditable || (textual && !disabled && !el.readOnly);
  const required = ((tagName === "input" || tagName === "select" || tagName === "textarea") && el.required)
    || aria("aria-required") === "true";
  return {
    disabled,
    checked,
    expanded,
    selected,
    focused: scope.root.activeElement === el,
    editable,
    readonly,
    required,
  };
}

// A frame owner's ARIA states (aria-checked, aria-expanded, …) are its page's dressing: a frame
// is neither checked nor editable.
function frameStates(el, scope) {
  return {
    disabled: false, checked: null, expanded: null, selected: null,
    focused: scope.root.activeElement === el, editable: false, readonly: false, required: false,
  };
}

function tristate(v) {
  if (v === "true") return true;
  if (v === "false") return false;
  if (v === "mixed") return "mixed";
  return null;
}

const KEPT_ATTRIBUTES = [
  "id", "class", "type", "name", "role", "href", "placeholder", "aria-label", "data-testid", "title",
];

function attributesOf(el, disabled) {
  const out = {};
  for (const n of KEPT_ATTRIBUTES) {
    const v = el.getAttribute(n);
    if (v !== null) out[n] = clipField(v);
  }
  out.disabled = disabled;
  return out;
}

// Covered when the hit target at the centre of the element's visible part is neither the element
// nor something inside it (shadow trees included).
function isObscured(el, rect, scope) {
  const left = Math.max(rect.left, 0);
  const top = Math.max(rect.top, 0);
  const right = Math.min(rect.right, scope.width);
  const bottom = Math.min(rect.bottom, scope.height);
  if (right <= left || bottom <= top) return false;
  const hit = scope.root.elementFromPoint((left + right) / 2, (top + bottom) / 2);
  if (hit === null) return false;
  for (let n = hit; n; n = n.parentNode || n.host) {
    if (n === el) return false;
  }
  return true;
}

function ancestorRole(el, tagName, explicitRole) {
  if (explicitRole !== null) {
    return explicitRole === "presentation" || explicitRole === "none" || explicitRole === "generic"
      ? null : explicitRole;
  }
  if (el.namespaceURI === SVG_NS) return null;
  if (tagName === "section") {
    return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null;
  }
  return ANCESTOR_ROLES[tagName] || null;
}

function sectionName(el, role) {
  const label = el.getAttribute("aria-label");
  if (label && label.trim()) return collapse(label);
  return role.charAt(0).toUpperCase() + role.slice(1);
}

function enterFrame(state, el, style, scope) {
  const id = "f" + state.frames.length;
  let doc = null;
  try {
    doc = el.contentDocument;
  } catch (e) {
    doc = null;
  }
  state.frames.push({
    id,
    parent: scope.frameId,
    url: doc ? doc.URL : el.src || el.getAttribute("src") || "",
    selector: frameSelector(el, scope),
    status: doc ? "ok" : "cross_origin",
  });
  // Where the host splices in what it reads through the frame's own session, so that the
  // elements of a cross-origin frame follow their iframe in document order too.
  if (!doc) state.frames[state.frames.length - 1].at = state.items.length;
  if (!doc || !doc.defaultView) return;
  const rect = el.getBoundingClientRect();
  const offsetX = scope.offsetX + rect.left + el.clientLeft + (parseFloat(style.paddingLeft) || 0);
  const offsetY = scope.offsetY + rect.top + el.clientTop + (parseFloat(style.paddingTop) || 0);
  walk(state, documentScope(doc, id, offsetX, offsetY));
}

function frameSelector(el, scope) {
  if (el.id) return el.localName + "#" + CSS.escape(el.id);
  for (const attr of ["name", "title"]) {
    const v = el.getAttribute(attr);
    if (v) return `${el.localName}[${attr}=${cssString(v, "'")}]`;
  }
  return locatorFor(el, scope);
}

// One element's record, as the walk would have made it, for identity checks of a single element
// (the host verifies that a ref still names the same logical element before acting on it).
export function describeOne(el) {
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  let root = el.getRootNode();
  let scope = documentScope(doc, "f0", 0, 0);
  const hosts = [];
  for (let r = root; r instanceof win.ShadowRoot; r = r.host.getRootNode()) hosts.unshift(r.host);
  for (const host of hosts) scope = shadowScope(scope, host);
  let parentRole = null;
  for (let p = el.parentElement || (el.getRootNode().host || null); p !== null;
    p = p.parentElement || (p.getRootNode().host || null)) {
    const r = ancestorRole(p, p.localName, firstToken(p.getAttribute("role")));
    if (r !== null) { parentRole = r; break; }
  }
  let sibling = 0;
  for (let s = el.previousElementSibling; s !== null; s = s.previousElementSibling) sibling++;
  const style = win.getComputedStyle(el);
  const explicitRole = firstToken(el.getAttribute("role"));
  const reasons = detect(el, el.localName, style, style.cursor === "pointer", false, explicitRole) || [];
  const state = { width: win.innerWidth, height: win.innerHeight };
  const record = describe(state, el, el.localName, style, scope,
    { role: parentRole, section: null, faded: false }, sibling, reasons, explicitRole, null);
  record.connected = el.isConnected;
  return record;
}
