// Custom dropdowns and comboboxes: what kind of widget a trigger is, the options it has open
// (often rendered in a portal under <body>), and what the trigger shows once one is chosen.

import { isTextual } from "./actions.js";

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
  const typable = isTextual(el.localName, el.type) || el.isContentEditable;
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

// What the trigger shows: a field's value, else its text.
export function triggerShows(el) {
  if (isTextual(el.localName, el.type)) return el.value;
  return norm(el.innerText || el.textContent || el.getAttribute("aria-label") || "");
}
