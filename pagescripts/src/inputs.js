// The field side of fill and type: a text field is focused and its text selected (or the caret put
// at its end) for the keys and text the host sends next; an input whose value a picker sets (date,
// time, datetime-local, month, week, color, range) is given its value as the picker would give it.

import { fieldValue, prepareField, segmentsOf } from "./actions.js";

export const PICKER_TYPES = ["date", "time", "datetime-local", "month", "week", "color", "range"];

const VALID_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

// Did the browser take `value` for an input of `type`, judging by what its value became
// (`canonical`)? Date-like inputs empty an invalid value, a color input turns it black, a range
// input moves it to its default, or clamps and rounds it to its bounds and step.
export function pickerTakes(type, value, canonical) {
  if (value === "") return true; // clearing
  if (type === "color") return canonical !== "#000000" || value.toLowerCase() === "#000000";
  if (type === "range") return VALID_NUMBER.test(value) && Number(canonical) === Number(value);
  return canonical !== "";
}

function bounds(el) {
  const out = {};
  for (const attr of ["min", "max", "step"]) {
    if (el.hasAttribute(attr)) out[attr] = el.getAttribute(attr);
  }
  return out;
}

// Sets a picker input's value as a person's pick does: the browser's own parser judges it first
// (a detached input of the same type and bounds), then the native setter of the prototype (so a
// framework's value tracker, React's, sees a change), then `input` and `change`, bubbling.
function setPickerValue(el, value) {
  const found = { ok: true, picker: true, type: el.type, bounds: bounds(el) };
  if (el.disabled) return { ok: false, why: "disabled" };
  if (el.readOnly) return { ok: false, why: "read-only" };
  const doc = el.ownerDocument;
  const probe = doc.createElement("input");
  probe.type = el.type;
  for (const [name, v] of Object.entries(found.bounds)) probe.setAttribute(name, v);
  probe.value = value;
  if (!pickerTakes(el.type, value, probe.value)) return { ...found, invalid: true };
  const view = doc.defaultView || globalThis;
  const setter = Object.getOwnPropertyDescriptor(view.HTMLInputElement.prototype, "value").set;
  const before = el.value;
  el.focus();
  setter.call(el, probe.value);
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { ...found, before, value: probe.value, kept: el.value };
}

// Makes a field ready for fill (`mode` "all") or type ("end"): {ok, picker, …} for a picker input
// (already set to `value`), else prepareField's answer with the text the field held before.
export function enterField(el, mode, value) {
  if (el.localName === "input" && PICKER_TYPES.includes(el.type)) {
    if (mode !== "all") {
      return { ok: false, why: "a " + el.type + " input takes a whole value, not typed keys: use fill" };
    }
    return setPickerValue(el, value.trim());
  }
  const segmented = segmentsOf(el);
  if (segmented !== null) return enterSegments(el, mode, segmented);
  const ready = prepareField(el, mode);
  return ready.ok ? { ...ready, original: fieldValue(el) } : ready;
}

// A segmented field (segmentsOf): focus goes to the part given, or for the whole field (fill) to
// its first part; the host types the digits, and the field moves on by itself. `labels` name
// the parts in their order (Month, Day, Year …), which puts a whole date in the field's order.
function enterSegments(el, mode, { group, parts }) {
  if (parts.some((p) => p.getAttribute("aria-disabled") === "true")) return { ok: false, why: "disabled" };
  if (parts.some((p) => p.getAttribute("aria-readonly") === "true")) return { ok: false, why: "read-only" };
  const first = el === group || mode === "all" ? parts[0] : el;
  first.focus();
  const labels = parts.map((p) => p.getAttribute("aria-label") || "");
  return { ok: true, segmented: true, labels, original: fieldValue(group) };
}
