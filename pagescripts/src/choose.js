// Custom dropdowns and comboboxes: what kind of widget a trigger is, the options it has open
// (often rendered in a portal under <body>), and what the trigger shows once one is chosen.

import { isTextual } from "./actions.js";
import { queryPiercing, shadowRoots } from "./pierce.js";
import { POPUP } from "./symbols.js";
import { elementText, isVisible, renderedChildren } from "./textmatch.js";

const OPTIONS = '[role=option], [role=menuitem], [role=menuitemradio], [role=treeitem], [role=listbox] li';

function norm(s) {
  return (s || "").replace(/\s+/g, " ").trim();
}

// "native" (a <select>: `reins select`), "replaced" (a <select> a script drew a widget of its
// own for: replacedBy), "combobox" (a text field that filters its options as one types) or
// "trigger" (anything opened by a click).
export function chooseKind(el) {
  if (el.localName === "select") return replacedBy(el) ? "replaced" : "native";
  // A read-only field with role=combobox is the select-only pattern (Element Plus): opened by a
  // click, never typed into.
  const typable = (isTextual(el.localName, el.type) && !el.readOnly) || el.isContentEditable;
  if (typable && (el.getAttribute("role") === "combobox" || el.hasAttribute("aria-autocomplete"))) return "combobox";
  return "trigger";
}

const FIELDS = "input, select, textarea, [role=combobox], [contenteditable=true]";

// The widget a script drew for the <select> `el` and hid it under (select2, Tom Select): a
// combobox shown in the element right after it, while the select shows no box a person sees
// (a pixel or less, hidden, or transparent); else null. Its label still names the select.
export function replacedBy(el) {
  if (el.localName !== "select") return null;
  const r = el.getBoundingClientRect();
  const style = el.ownerDocument.defaultView.getComputedStyle(el);
  if (r.width > 1 && r.height > 1 && isVisible(el) && style.opacity !== "0") return null;
  const next = el.nextElementSibling;
  if (next === null) return null;
  const box = next.matches("[role=combobox]") ? next : next.querySelector("[role=combobox]");
  return box !== null && isVisible(box) ? box : null;
}

// The control a choose acts on: `el`, unless `el` is a part with no role of its own (the
// placeholder beside a widget's field, which `state` lists when the field has no name): then the
// one field of the nearest ancestor (up to three) that holds any. Custom elements stay themselves.
export function chooseControl(el) {
  const own = el.matches(`${FIELDS}, button, a[href], [role], [tabindex]`) || el.localName.includes("-");
  let a = own ? null : el.parentElement;
  for (let k = 0; a !== null && k < 3; k++, a = a.parentElement) {
    const fields = a.querySelectorAll(FIELDS);
    if (fields.length === 1) return fields[0];
    if (fields.length > 1) break;
  }
  return el;
}

// What offers options, or is one: an animation on it, inside it or around it moves a popup.
const OFFERING = `${OPTIONS}, [role=listbox], [role=menu], [role=tree]`;

// The animations and transitions that will end, running now on the widget `control` belongs to:
// every one in the shadow trees `control` lives in and those nested in them (a web component's
// popup closes inside them: Shoelace's), and the document's on an element that offers options,
// holds one or is inside one (a panel in a portal: Angular Material's). Spinners never end and
// are left out.
export function widgetMotion(control) {
  const roots = [];
  for (let r = control.getRootNode(); r.nodeType === 11 && r.host; r = r.host.getRootNode()) {
    roots.push(r);
    shadowRoots(r, roots);
  }
  if (control.shadowRoot) {
    roots.push(control.shadowRoot);
    shadowRoots(control.shadowRoot, roots);
  }
  shadowRoots(control, roots);
  const ends = (a) => a.playState === "running" && a.effect !== null
    && Number.isFinite(a.effect.getComputedTiming().endTime);
  const ours = [...new Set(roots)].flatMap((r) => (r.getAnimations ? r.getAnimations() : []));
  const doc = control.ownerDocument;
  const offered = (doc.getAnimations ? doc.getAnimations() : []).filter((a) => {
    const t = a.effect && a.effect.target;
    return t && t.nodeType === 1 && (t.closest(OFFERING) !== null || t.querySelector(OFFERING) !== null);
  });
  return [...ours, ...offered].filter(ends);
}

// Resolves once the widget `control` belongs to is at rest (widgetMotion's animations ended), or
// after `ms`; at once in a tab that draws no frames (its animations do not advance). A person
// waits for a closing popup to go before pressing its trigger again: a press during the close
// leaves some widgets open with nothing shown (Shoelace's select). Answers whether it waited.
export function widgetAtRest(control, ms) {
  const moving = widgetMotion(control);
  if (moving.length === 0 || control.ownerDocument.visibilityState === "hidden") return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    Promise.all(moving.map((a) => a.finished.catch(() => null))).then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

// The popup a press on `trigger` makes appear, for widgets whose options carry no role (Ant
// Design's are plain divs): armed before the press, once the widget is at rest (widgetAtRest,
// `restMs`), it notes the elements added to the document and those whose class, style or hidden
// changed, leaving out the trigger and what holds it. Answers {waited, open, shows}: whether the
// widget moved, whether it is open already (expanded, the popup it names showing options: a
// multi-select that stays open after a pick, which a press on its trigger would close), and what
// it shows before anything is pressed or typed (triggerShows).
export async function watchPopup(trigger, restMs) {
  const waited = await widgetAtRest(trigger, restMs);
  const shows = triggerShows(trigger);
  const doc = trigger.ownerDocument;
  const win = doc.defaultView;
  if (win[POPUP]) win[POPUP].observer.disconnect();
  const rec = { roots: new Set() };
  rec.note = (list) => {
    for (const m of list) {
      const nodes = m.type === "childList" ? Array.from(m.addedNodes) : [m.target];
      for (const n of nodes) {
        if (n.nodeType === 1 && !n.contains(trigger) && !trigger.contains(n)) rec.roots.add(n);
      }
    }
  };
  rec.observer = new MutationObserver(rec.note);
  rec.observer.observe(doc, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["class", "style", "hidden"],
  });
  win[POPUP] = rec;
  setTimeout(() => rec.observer.disconnect(), 10000); // never outlive the choose by long
  const open = trigger.getAttribute("aria-expanded") === "true" && namedOptions(trigger).length > 0;
  return { waited, open, shows };
}

function pointer(el) {
  return el !== null && el.ownerDocument.defaultView.getComputedStyle(el).cursor === "pointer";
}

// The items of the popup watchPopup saw appear: its visible parts a person would click (the
// outermost that shows the pointer cursor), else those that hold text of their own.
function popupItems(trigger) {
  const rec = trigger.ownerDocument.defaultView[POPUP];
  if (!rec) return [];
  rec.note(rec.observer.takeRecords());
  const roots = Array.from(rec.roots).filter((r) => r.isConnected);
  const top = roots.filter((r) => !roots.some((o) => o !== r && o.contains(r)));
  const parts = top.flatMap((r) => [r, ...queryPiercing(r, "*")]).filter((n) => isVisible(n) && elementText(n));
  const clickable = parts.filter((n) => pointer(n) && !pointer(n.parentElement));
  if (clickable.length) return clickable;
  return parts.filter((n) => Array.from(n.childNodes).some((c) => c.nodeType === 3 && c.data.trim()));
}

// A popup the page gives a role: its options carry roles too.
const ROLED_POPUP = "[role=listbox], [role=menu], [role=tree], [role=grid]";

// The visible options `trigger` has open: those of the popup it controls when it names one (in
// its own tree: a shadow root's ids are its own), else every visible option on the page and in
// its open shadow roots (portals rarely sit near their trigger; a web component's popover lives
// in its shadow root), else the items of the popup the press made appear (popupItems).
function openOptions(trigger) {
  const inside = namedOptions(trigger);
  if (inside.length) return inside;
  const all = queryPiercing(trigger.ownerDocument, OPTIONS).filter(isVisible);
  // The popup's parts are guessed (popupItems) only for a widget whose popup has no role: in a
  // listbox showing none of its options ("No options"), a chip beside the field is no option.
  return all.length || namedPopups(trigger).some((p) => p.matches(ROLED_POPUP) && isVisible(p))
    ? all
    : popupItems(trigger);
}

// The popups `trigger` names (aria-controls, aria-owns), looked up in its own tree first (a
// shadow root's ids are its own).
function namedPopups(trigger) {
  const doc = trigger.ownerDocument;
  const root = trigger.getRootNode();
  const ids = [trigger.getAttribute("aria-controls"), trigger.getAttribute("aria-owns")].join(" ");
  return ids.split(/\s+/).filter(Boolean)
    .map((id) => (root.getElementById ? root.getElementById(id) : null) || doc.getElementById(id))
    .filter((popup) => popup !== null);
}

// The visible options of the first popup `trigger` names that shows any.
function namedOptions(trigger) {
  for (const popup of namedPopups(trigger)) {
    const inside = queryPiercing(popup, OPTIONS).filter(isVisible);
    if (inside.length) return inside;
  }
  return [];
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

// An option's label as a person reads it: its text without the parts the page hides from the
// accessibility tree (the check mark Radix draws beside the chosen item, aria-hidden), else its
// whole text.
function optionLabel(option) {
  const whole = elementText(option);
  if (option.querySelector('[aria-hidden="true"]') === null) return whole;
  const parts = [];
  const visit = (node) => {
    for (const n of renderedChildren(node)) {
      if (n.nodeType === 3) parts.push(n.data);
      else if (n.nodeType === 1 && n.getAttribute("aria-hidden") !== "true") visit(n);
    }
  };
  visit(option);
  return norm(parts.join("")) || whole;
}

// {index, label, selected} of the open option named `text` (`selected`: the page marks it chosen
// already, aria-selected or aria-checked), or {options} (the labels seen) when none is.
export function findOption(trigger, text) {
  const options = openOptions(trigger);
  const labels = options.map(optionLabel);
  const i = matchLabel(labels, text);
  if (i < 0) return { options: labels };
  const marked = (name) => options[i].getAttribute(name) === "true";
  return { index: i, label: labels[i], selected: marked("aria-selected") || marked("aria-checked") };
}

// The open option at `index` (the element, for the host to click), if it is still the one
// labelled `label` (the options may change between two calls; never another one).
export function optionAt(trigger, index, label) {
  const option = openOptions(trigger)[index];
  return option && optionLabel(option) === label ? option : null;
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
