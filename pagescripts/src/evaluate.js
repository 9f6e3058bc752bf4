// `reins eval`'s page side: values parked between calls, their JSON form, and the call of the
// user's function on an element. None of these runs user code except runOnParked, by design.

import { PARKED, UNREACHABLE } from "./symbols.js";

// At most `limit` bytes of `text` as UTF-8, cut on a character boundary: {text, size} with the
// whole text's size in bytes, and truncated: true when it was cut.
export function cutUtf8(text, limit) {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= limit) return { text, size: bytes.length };
  const cut = new TextDecoder().decode(bytes.subarray(0, limit)).replace(/\uFFFD$/, "");
  return { text: cut, size: bytes.length, truncated: true };
}

// Puts a value in the slot `nonce` of the highest same-origin ancestor window (the frame a
// Runtime.evaluate in this session runs in), for a later evaluate to take. Runs no user code.
export function park(value, nonce) {
  let w = globalThis;
  try {
    while (w.parent !== w && w.parent.document) w = w.parent;
  } catch (e) {
    // a cross-origin parent: this window is the highest one reachable
  }
  (w[PARKED] || (w[PARKED] = new Map())).set(nonce, value);
  return true;
}

// The value parked under `nonce`, removed from its slot (undefined when there is none).
export function takeParked(nonce) {
  const slots = globalThis[PARKED];
  const value = slots && slots.get(nonce);
  if (slots) slots.delete(nonce);
  return value;
}

// The parked value's JSON text, through the page's own JSON.stringify (toJSON honoured), at most
// `limit` bytes: {ok: true, text, size[, truncated]} or {ok: false, reason}.
export function serializeParked(nonce, limit) {
  const value = takeParked(nonce);
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    return { ok: false, reason: String((e && e.message) || e).split("\n")[0] };
  }
  if (typeof text !== "string") return { ok: false, reason: "JSON.stringify gave no text" };
  return { ok: true, ...cutUtf8(text, limit) };
}

// Calls the user's function on the parked element. `source` is a thunk around the user's source
// text, so that the element is taken from its slot before any user code runs.
export function runOnParked(nonce, source) {
  const el = takeParked(nonce);
  if (el === undefined) throw new Error(UNREACHABLE);
  const fn = source();
  if (typeof fn !== "function") {
    throw new TypeError("--target expects a function, such as el => el.textContent");
  }
  return fn(el);
}
