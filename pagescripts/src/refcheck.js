// A ref's element checked and probed in one call: the very element the latest collection kept
// at `index` (while `generation` is the page's collection), its record now (for the host's
// identity check) and, with `opts`, the actionability probe the action would run first.

import { probe } from "./actions.js";
import { describeElement, sameNode } from "./find.js";

export async function probeSame(generation, index, opts) {
  const el = sameNode(generation, index);
  if (!el) return null;
  return { record: describeElement(el), probe: opts ? await probe(el, opts) : null };
}
