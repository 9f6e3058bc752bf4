// What lets a press ride in the same sequential batch as the mouse move and Chrome's hit test
// (the host's act/guarded.py): the extension, not the host, decides between the hit test's answer
// and the press, so a batch never presses what the hit test did not find to be the target. Pure:
// sequencer.js applies it to the answers so far; node's test runner drives it with hand-built
// trees (tests/extension/hitguard.test.mjs).
//
// `fill` (a command's): parameters taken from an earlier answer of the same batch, such as the
// element handle a lookup answered, so a command can name what the batch found: {"objectId":
// [index, "result", "objectId"], "arguments.0.objectId": …}, a dotted name for a place inside a
// parameter that is there already; only an object id (a handle) is ever filled. Only a string or a number is taken, from a path of own
// properties; the command then goes through policy like any (sessions.command), with the
// parameters it finally carries.
//
// `onlyIf` (a command's): the conditions it is sent under, else the batch ends before it:
//   tree: the index of the target's DOM.describeNode answer (depth -1, pierce);
//   hit: the index of DOM.getNodeForLocation's answer (at the press point, after the move);
//   metrics / scroll: the index of Page.getLayoutMetrics' answer and the scroll offset the hit
//     test's document point was computed with (the guess must hold);
//   noDialog: no JavaScript dialog opened in the tab since the batch began.
// The hit must be the target or inside it (children, shadow roots, pseudo-elements), never a
// frame owner other than the target, and not under a closed shadow root (what a closed tree
// holds is the host's to judge, as are labels and a widget's own parts: the host looks again
// when the batch ends here, and sends the press itself when it does reach the target).

import { Refusal } from "./refusal.js";

// Elements that show another document (the host's FRAME_OWNERS).
export const FRAME_OWNERS = new Set(["IFRAME", "FRAME", "OBJECT", "EMBED", "FENCEDFRAME", "PORTAL"]);

// How far the layout viewport may be from the guessed scroll offset (CSS pixels).
const SCROLL_SLACK = 0.5;

// Is the node a frame owner by what Chrome says of it?
function ownsFrame(node) {
  return FRAME_OWNERS.has(String(node?.nodeName ?? "").toUpperCase()) || !!node?.frameId || !!node?.contentDocument;
}

// The nodes from `tree` down to the node whose backendNodeId is `hit`, or null when the hit is not
// in the tree (a frame's document counts only when the tree's root is that frame's owner).
export function pathTo(tree, hit) {
  if (!tree || typeof tree !== "object" || !Number.isInteger(hit)) return null;
  const stack = [[tree, [tree]]];
  if (tree.contentDocument && typeof tree.contentDocument === "object") stack.push([tree.contentDocument, [tree, tree.contentDocument]]);
  while (stack.length) {
    const [node, path] = stack.pop();
    if (node.backendNodeId === hit) return path;
    for (const key of ["children", "shadowRoots", "pseudoElements"]) {
      const kids = Array.isArray(node[key]) ? node[key] : [];
      for (const kid of kids) if (kid && typeof kid === "object") stack.push([kid, [...path, kid]]);
    }
  }
  return null;
}

// Does a press at a point whose hit test answered `hit` go to the root of `tree` by the rule a
// batch may press on: the target itself, or inside it, never a frame owner under it, nor anything
// under a closed shadow root.
export function hitReaches(tree, hit) {
  const path = pathTo(tree, hit);
  if (path === null) return false;
  if (path.some((node) => node.shadowRootType === "closed")) return false;
  return hit === tree.backendNodeId || !ownsFrame(path[path.length - 1]);
}

// The answer's result at `path` ([index, key, key, …]) among the batch's answers so far, when it
// is a string or a number; else undefined.
function taken(out, path) {
  if (!Array.isArray(path) || !Number.isInteger(path[0])) return undefined;
  const answer = out[path[0]];
  if (!answer?.ok) return undefined;
  let value = answer.result;
  for (const key of path.slice(1)) {
    if (value === null || typeof value !== "object" || typeof key !== "string" || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return typeof value === "string" || typeof value === "number" ? value : undefined;
}

// The command with its `fill` parameters taken from the answers so far; throws a Refusal when one
// is not there (the lookup it names found nothing): the batch ends there.
export function filled(command, out) {
  if (!command.fill || typeof command.fill !== "object") return command;
  const params = structuredClone(command.params ?? {});
  for (const [name, path] of Object.entries(command.fill)) {
    // Only a handle is ever taken from an answer: no script, URL or context id comes that way.
    if (!/(^|\.)objectId$/.test(name)) throw new Refusal("bad_request", `only an objectId may be filled in ${command.method}, not ${name}`);
    const value = taken(out, path);
    if (value === undefined) throw new Refusal("ref_stale", `the batch has no ${name} for ${command.method}: what it looked up is gone`, { transient: true, chrome: "fill_missing" });
    const keys = name.split(".");
    let place = params;
    for (const key of keys.slice(0, -1)) {
      place = place !== null && typeof place === "object" && Object.hasOwn(place, key) ? place[key] : null;
      if (place === null || typeof place !== "object") throw new Refusal("bad_request", `no parameter ${name} to fill in ${command.method}`);
    }
    place[keys[keys.length - 1]] = value;
  }
  return { ...command, params };
}

// Why the command may not be sent by its `onlyIf`, or null when it may. `dialogsSince`: how many
// JavaScript dialogs the tab opened since the batch began.
export function guardRefuses(onlyIf, out, dialogsSince = 0) {
  if (!onlyIf || typeof onlyIf !== "object") return null;
  if (onlyIf.noDialog && dialogsSince > 0) return "a dialog opened";
  if (onlyIf.tree !== undefined) {
    const tree = out[onlyIf.tree]?.ok ? out[onlyIf.tree].result?.node : null;
    if (!tree || ownsFrame(tree)) return "the target is not known, or is a frame";
    if (onlyIf.hit !== undefined) {
      const hit = out[onlyIf.hit]?.ok ? out[onlyIf.hit].result?.backendNodeId : null;
      if (!hitReaches(tree, hit)) return "the hit test found another node";
    }
  }
  if (onlyIf.metrics !== undefined) {
    const viewport = out[onlyIf.metrics]?.ok ? out[onlyIf.metrics].result?.cssLayoutViewport : null;
    const [x, y] = Array.isArray(onlyIf.scroll) ? onlyIf.scroll.map(Number) : [Number.NaN, Number.NaN];
    if (!viewport || !(Math.abs(Number(viewport.pageX ?? 0) - x) < SCROLL_SLACK && Math.abs(Number(viewport.pageY ?? 0) - y) < SCROLL_SLACK)) {
      return "the page scrolled";
    }
  }
  return null;
}

// The answer a batch ends with when a guard held the command back (the host looks again).
export function heldBack(why) {
  return { ok: false, error: { code: "obscured", transient: true, chrome: "held_back", message: `not sent: ${why}` } };
}
