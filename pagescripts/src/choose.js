// Custom dropdowns and comboboxes: what kind of widget a trigger is, the options it has open
// (often rendered in a portal under <body>), and what the trigger shows once one is chosen.

import { isTextual } from "./actions.js";
import { renderedChildren } from "./textmatch.js";

const OPTIONS = '[role=option], [role=menuitem], [role=menuitemradio], [role=treeitem], [role=listbox] li';

function norm(s) {
  return (s || "").replace(/\s+/g, " ").trim();
}

function shown(el) {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && (!el.checkVisibility || el.checkVisibility({ visibilityProperty: true }));
}

// "native" (a <select>: `reins select`), "combobox" (a text field that filters its options as
// one types) or "trigger" (anything opened by a click).
export function chooseKind(el) {
  if (el.localName === "select") return "native";
  // A read-only field with role=combobox is the select-only pattern (Element Plus): opened by a
  // click, never typed into.
  const typable = (isTextual(el.localName, el.type) && !el.readOnly) || el.isContentEditable;
  if (typable && (el.getAttribute("role") === "combobox" || el.hasAttribute("aria-autocomplete"))) return "combobox";
  return "trigger";
}

// The visible options `trigger` has open: those of the popup it controls when it names one,
// else every visible option on the page (portals rarely sit near their trigger).
function openOptions(trigger) {
  const doc = trigger.ownerDocument;
  const ids = [trigger.getAttribute("aria-controls"), trigger.getAttribute("aria-owns")].join(" ");
  for (const id of ids.split(/\s+/).filter(Boolean)) {
    const popup = doc.getElementById(id);
    const inside = popup ? Array.from(popup.querySelectorAll(OPTIONS)).filter(shown) : [];
    if (inside.length) return inside;
  }
  return Array.from(doc.querySelectorAll(OPTIONS)).filter(shown);
}

// Which of `labels` is `text`: exact, then ignoring case, then the only one starting with it,
// then the only one containing it; -1 when none or several.
export function matchLabel(labels, text) {
  const want = norm(text);
  const low = want.toLowerCase();
  let i = labels.indexOf(want);
  if (i < 0) i = labels.findIndex((l) => l.toLowerCase() === low);
  for (const test of [(l) => l.toLowerCase().startsWith(low), (l) => l.toLowerCase().includes(low)]) {
    if (i >= 0) break;
    const hits = labels.map((l, k) => (test(l) ? k : -1)).filter((k) => k >= 0);
    if (hits.length === 1) i = hits[0];
  }
  return i;
}

// {index, label} of the open option named `text`, or {options} (the labels seen) when none is.
export function findOption(trigger, text) {
  const labels = openOptions(trigger).map((o) => norm(o.innerText || o.textContent));
  const i = matchLabel(labels, text);
  return i >= 0 ? { index: i, label: labels[i] } : { options: labels };
}

// The open option at `index` (the element, for the host to click).
export function optionAt(trigger, index) {
  return openOptions(trigger)[index] || null;
}

// What the list a control offers is made of: never what it shows as chosen (a menu rendered
// inside its trigger would otherwise make the trigger "show" every option).
const OFFERED = "[role=option], [role=listbox], [role=menu], [role=menuitem], [role=menuitemradio], "
  + "[role=menuitemcheckbox], [role=tree], [role=treeitem], [role=dialog], label";

// The text `el` shows as rendered (open shadow roots, slots filled, a text field's value),
// without what it offers, what it does not render, and `skip`'s subtree.
function shownText(el, skip) {
  const parts = [];
  const popups = new Set(
    [el.getAttribute("aria-controls"), el.getAttribute("aria-owns")].join(" ").split(/\s+/).filter(Boolean),
  );
  const visit = (node) => {
    for (const n of renderedChildren(node)) {
      if (n.nodeType === 3) parts.push(n.data);
      else if (n.nodeType === 1 && n !== skip && isTextual(n.localName, n.type)) {
        // A field drawn inside the trigger shows its value (a transparent form-value one does not).
        if (!n.checkVisibility || n.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
          parts.push(` ${n.value} `);
        }
      }
      else if (n.nodeType === 1 && n !== skip && !n.matches(OFFERED) && !popups.has(n.id)) {
        // display: contents has no box of its own (checkVisibility says no); its children do.
        const display = n.ownerDocument.defaultView.getComputedStyle(n).display;
        if (display !== "contents" && n.checkVisibility && !n.checkVisibility({ visibilityProperty: true })) {
          continue;
        }
        visit(n);
        if (n.localName === "br" || display !== "inline") parts.push(" ");
      }
    }
  };
  visit(el);
  return norm(parts.join(""));
}

const FIELDS = "input, select, textarea, [role=combobox], [contenteditable=true]";

// What a text field shows as chosen when its own value does not hold it: a multi-select's chips
// beside the input (which empties again), or a widget that shows its choice in another element
// of the same control. The nearest ancestor (up to four) that shows text besides the field and
// holds no other field.
function besideField(el) {
  let a = el.parentElement;
  for (let k = 0; a !== null && k < 4; k++, a = a.parentElement) {
    if (Array.from(a.querySelectorAll(FIELDS)).some((f) => f !== el && !el.contains(f))) return "";
    const text = shownText(a, el);
    if (text) return text;
  }
  return "";
}

// What the trigger shows: a field's value (else what it shows beside it), else its own text
// without the options it offers.
export function triggerShows(el) {
  if (isTextual(el.localName, el.type)) return norm(el.value) ? el.value : besideField(el);
  return shownText(el, null) || norm(el.getAttribute("aria-label") || "");
}
