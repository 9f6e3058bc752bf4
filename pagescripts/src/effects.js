// What an action may change, read before and after it (the host compares the two reads).

import { EFFECT } from "./symbols.js";

// A short label for the focused element: tag#id[aria-label or name]; null for none or the body.
export function focusLabel(n, body) {
  if (!n || n === body) return null;
  let s = n.localName;
  if (n.id) s += "#" + n.id;
  const l = n.getAttribute && (n.getAttribute("aria-label") || n.getAttribute("name"));
  return l ? s + "[" + l + "]" : s;
}

// A text field's value as the report shows it: a password only by its length.
export function shownValue(type, value) {
  return type === "password" ? "*".repeat(value.length) : value;
}

// true/false for the ARIA strings "true"/"false"; anything else (null, "mixed") as it is.
export function ariaBoolean(value) {
  if (value === "true") return true;
  if (value === "false") return false;
  return value;
}

// "before" also arms a MutationObserver that counts changes in or under the element versus
// elsewhere in its document; "after" first lets the page finish the frame the action started (one
// animation frame and a task), then reads again with those counts. One call each, so an action
// costs two round trips for its report.
export async function readState(el, phase) {
  const doc = el.ownerDocument;
  let rec = window[EFFECT];
  if (phase === "before") {
    if (rec) rec.observer.disconnect();
    const counts = { inside: 0, elsewhere: 0 };
    const tally = (list) => {
      for (const m of list) {
        if (el === m.target || el.contains(m.target)) counts.inside++;
        else counts.elsewhere++;
      }
    };
    const observer = new MutationObserver(tally);
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    rec = window[EFFECT] = { observer, counts, tally };
    setTimeout(() => observer.disconnect(), 5000); // never outlive the action by long
  } else {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  }
  let value = null;
  if ("value" in el && typeof el.value === "string" && !["button", "submit", "reset"].includes(el.type)) {
    value = shownValue(el.type, el.value);
  } else if (el.isContentEditable) {
    value = el.innerText;
  }
  let checked = null;
  if (el.type === "checkbox" || el.type === "radio") checked = el.indeterminate ? "mixed" : el.checked;
  else if (el.hasAttribute("aria-checked")) checked = ariaBoolean(el.getAttribute("aria-checked"));
  let selected = null;
  if (el.localName === "select") selected = Array.from(el.selectedOptions).map((o) => o.label);
  const expanded = el.getAttribute("aria-expanded");
  let counts = null;
  if (phase !== "before" && rec) {
    rec.tally(rec.observer.takeRecords());
    counts = rec.counts;
  }
  let top = false;
  try {
    top = doc.defaultView === doc.defaultView.top;
  } catch {
    top = false;
  }
  return {
    connected: el.isConnected, value, checked, selected, top,
    expanded: expanded === null ? null : expanded === "true", focus: focusLabel(doc.activeElement, doc.body),
    url: location.href, document: performance.timeOrigin, counts,
  };
}
