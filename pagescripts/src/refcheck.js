// A ref's element checked and probed in one call: the very element the latest collection kept
// at `index` (while `generation` is the page's collection), its record now (for the host's
// identity check) and, with `opts`, the actionability probe the action would run first.

import { coverAt, probe } from "./actions.js";
import { readState } from "./effects.js";
import { describeElement, sameNode } from "./find.js";
import { ELEMENTS, GENERATION } from "./symbols.js";

export async function probeSame(generation, index, opts) {
  const el = sameNode(generation, index);
  if (!el) return null;
  return { record: describeElement(el), probe: opts ? await probe(el, opts) : null };
}

// Why the element may not take input at `point` now, or null: the probe's findings, then the
// point itself (the middle of the box it was seen at) must reach the element.
function unready(el, found, point, needEnabled) {
  if (!found || found.state !== "ok") return "detached";
  if (needEnabled && found.disabled) return "disabled";
  if (!found.visible || found.offscreen || found.noHit || found.cover) return "not actionable";
  if (!found.stable) return "moving";
  if (!Array.isArray(point) || !point.every(Number.isFinite)) return "no point";
  return coverAt(el, window, point[0], point[1]) === null ? null : "point not on it";
}

// The first step of an action given in the same round trip as its ref's lookup (act/refs.py): the
// very element, with the identity fields the host checked (`expect`, null for absent), ready for
// input (the probe) and hit at `point`. Then the "before" state read, and the batch goes on to the
// input. Anything else throws the findings as JSON text ({record, probe, why}): the batch stops
// there, before any input, and the host goes on from the findings as from `probeSame`'s.
export async function pressSame(generation, index, opts, expect, point, needEnabled) {
  const el = sameNode(generation, index);
  if (!el) throw JSON.stringify({ why: "gone" });
  const record = describeElement(el);
  const found = { record, probe: await probe(el, opts) };
  let why = el.ownerDocument === document ? null : "in a frame";
  // `expect` names every field the host's identity check reads (act/refs.py, _IDENTITY_FIELDS).
  for (const key of Object.keys(expect ?? {})) {
    if (why === null && (record?.[key] ?? null) !== (expect[key] ?? null)) why = "identity: " + key;
  }
  why = why ?? unready(el, found.probe, point, needEnabled);
  if (why !== null) throw JSON.stringify({ ...found, why });
  return { ...found, before: await readState(el, "before", {}) };
}

// A state read of the element the latest collection kept at `index`, attached or not (the read
// after an action that removed it says so).
export async function readHeld(generation, index, phase, options) {
  const el = window[GENERATION] === generation ? window[ELEMENTS][index] : null;
  if (!el) throw new Error("the element the action was given to is not held any more");
  return readState(el, phase, options);
}
