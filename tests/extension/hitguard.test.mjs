// The guard that lets a press ride in the batch of its move and hit test (extension/hitguard.js),
// and the sequencer applying it (extension/sequencer.js), on hand-built DOM.describeNode trees and
// answers: what is pressed, what is held back, and what the batch answers then.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { filled, guardRefuses, heldBack, hitReaches, pathTo } from "../../extension/hitguard.js";
import { sequence } from "../../extension/sequencer.js";

// <button id=1><span id=2>Save</span><iframe id=3></iframe>#shadow(open id=4 > b id=5)
// #shadow(closed id=6 > button id=7)</button>
const tree = {
  backendNodeId: 1, nodeName: "BUTTON",
  children: [
    { backendNodeId: 2, nodeName: "SPAN", children: [{ backendNodeId: 20, nodeName: "#text" }] },
    { backendNodeId: 3, nodeName: "IFRAME", contentDocument: { backendNodeId: 30, nodeName: "#document" } },
  ],
  shadowRoots: [
    { backendNodeId: 4, nodeName: "#document-fragment", shadowRootType: "open", children: [{ backendNodeId: 5, nodeName: "B" }] },
    { backendNodeId: 6, nodeName: "#document-fragment", shadowRootType: "closed", children: [{ backendNodeId: 7, nodeName: "BUTTON" }] },
  ],
  pseudoElements: [{ backendNodeId: 8, nodeName: "::before" }],
};

describe("hitReaches: may a press at the hit go to the tree's root", () => {
  test("the target, its descendants, open shadow trees and pseudo-elements", () => {
    for (const hit of [1, 2, 20, 4, 5, 8]) assert.equal(hitReaches(tree, hit), true, `hit ${hit}`);
  });
  test("not a node outside it, a frame owner inside it, nor a closed tree's node", () => {
    for (const hit of [99, 3, 30, 6, 7]) assert.equal(hitReaches(tree, hit), false, `hit ${hit}`);
    assert.equal(hitReaches(tree, null), false);
    assert.equal(hitReaches(null, 1), false);
  });
  test("a frame's document counts only when the target is that frame's owner", () => {
    const frame = { backendNodeId: 3, nodeName: "IFRAME", contentDocument: { backendNodeId: 30, nodeName: "#document" } };
    assert.equal(hitReaches(frame, 3), true);
    assert.deepEqual(pathTo(frame, 30).map((n) => n.backendNodeId), [3, 30]);
  });
});

const ok = (result) => ({ ok: true, result });
const answers = (hit, viewport = { pageX: 0, pageY: 100 }) => [
  ok({ node: tree }), ok({}), ok({ backendNodeId: hit }), ok({ cssLayoutViewport: viewport }),
];
const guard = { tree: 0, hit: 2, metrics: 3, scroll: [0, 100], noDialog: true };

describe("guardRefuses", () => {
  test("holds when the hit reaches the target and the scroll guess held", () => {
    assert.equal(guardRefuses(guard, answers(5)), null);
  });
  test("refuses a hit elsewhere, a scroll that moved, a dialog, a frame target, no tree", () => {
    assert.match(guardRefuses(guard, answers(99)), /another node/);
    assert.match(guardRefuses(guard, answers(5, { pageX: 0, pageY: 140 })), /scrolled/);
    assert.match(guardRefuses(guard, answers(5), 1), /dialog/);
    const frameTarget = [ok({ node: { backendNodeId: 3, nodeName: "IFRAME" } }), ...answers(3).slice(1)];
    assert.match(guardRefuses(guard, frameTarget), /frame/);
    assert.match(guardRefuses(guard, [{ ok: false, error: {} }, ...answers(5).slice(1)]), /not known/);
    assert.match(guardRefuses({ ...guard, scroll: undefined }, answers(5)), /scrolled/);
  });
  test("no guard, no condition", () => {
    assert.equal(guardRefuses(undefined, []), null);
  });
});

describe("filled: parameters from an earlier answer", () => {
  const out = [ok({ result: { objectId: "obj-1", type: "object" } }), ok({ result: { type: "object", subtype: "null" } })];
  test("takes a string at an own-property path", () => {
    const c = filled({ method: "DOM.describeNode", params: { depth: -1 }, fill: { objectId: [0, "result", "objectId"] } }, out);
    assert.deepEqual(c.params, { depth: -1, objectId: "obj-1" });
  });
  test("fills a place inside a parameter, never one that is not there", () => {
    const c = filled({ method: "Runtime.callFunctionOn", params: { arguments: [{ objectId: "" }, { value: 1 }] }, fill: { "arguments.0.objectId": [0, "result", "objectId"] } }, out);
    assert.deepEqual(c.params.arguments, [{ objectId: "obj-1" }, { value: 1 }]);
    assert.throws(() => filled({ method: "M", params: {}, fill: { "arguments.0.objectId": [0, "result", "objectId"] } }, out), (err) => err.code === "bad_request");
  });
  test("fills an object id only: never a script, a URL or a context", () => {
    const out2 = [ok({ result: { value: "alert(1)", objectId: "obj-1" } })];
    for (const name of ["expression", "url", "executionContextId", "arguments.0.value"]) {
      assert.throws(() => filled({ method: "Runtime.evaluate", params: { arguments: [{}] }, fill: { [name]: [0, "result", "value"] } }, out2), (err) => err.code === "bad_request", name);
    }
  });
  test("refuses a path that finds nothing, an inherited key or an object", () => {
    for (const path of [[1, "result", "objectId"], [0, "result", "toString"], [0, "result"], [5, "x"], ["0"]]) {
      assert.throws(() => filled({ method: "M", params: {}, fill: { objectId: path } }, out), (err) => err.code === "ref_stale" && err.extra.chrome === "fill_missing");
    }
  });
});

describe("a sequential batch with a guarded press", () => {
  const results = {
    lookup: { result: { objectId: "obj-1" } },
    "DOM.describeNode": { node: tree },
    "Input.dispatchMouseEvent": {},
    "DOM.getNodeForLocation": { backendNodeId: 5 },
    "Page.getLayoutMetrics": { cssLayoutViewport: { pageX: 0, pageY: 100 } },
    arm: {},
  };
  const batch = (hit, dialogs = () => 0) => {
    const sent = [];
    const send = async (c) => {
      sent.push(c);
      if (c.method === "DOM.getNodeForLocation") return { backendNodeId: hit };
      return results[c.method] ?? {};
    };
    const commands = [
      { method: "lookup", params: {} },
      { method: "DOM.describeNode", params: { depth: -1 }, fill: { objectId: [0, "result", "objectId"] } },
      { method: "Input.dispatchMouseEvent", params: { type: "mouseMoved" } },
      { method: "DOM.getNodeForLocation", params: {} },
      { method: "Page.getLayoutMetrics", params: {} },
      { method: "arm", params: {}, fill: { objectId: [0, "result", "objectId"] }, onlyIf: { tree: 1, hit: 3, metrics: 4, scroll: [0, 100], noDialog: true } },
      { method: "Input.dispatchMouseEvent", params: { type: "mousePressed" }, noWait: true },
      { method: "Input.dispatchMouseEvent", params: { type: "mouseReleased" } },
    ];
    return { sent, run: sequence({ commands }, { send, errorOf: (e) => ({ code: e.code, message: e.message, ...e.extra }), dialogs }) };
  };

  test("presses when the hit reaches the target, with the handle the lookup answered", async () => {
    const { sent, run } = batch(2);
    const out = await run;
    assert.equal(out.length, 8);
    assert.ok(out.every((a) => a.ok));
    assert.equal(sent[1].params.objectId, "obj-1");
    assert.equal(sent[5].params.objectId, "obj-1");
    assert.deepEqual(sent.slice(6).map((c) => c.params.type), ["mousePressed", "mouseReleased"]);
  });
  test("sends no press when the hit is elsewhere: the batch ends held back", async () => {
    const { sent, run } = batch(99);
    const out = await run;
    assert.equal(sent.length, 5);
    assert.deepEqual(out[5], heldBack("the hit test found another node"));
    assert.equal(out.length, 6);
  });
  test("sends no press after a dialog opened during the batch", async () => {
    let count = 0;
    const { sent, run } = batch(2, () => count++);
    const out = await run;
    assert.equal(sent.length, 5);
    assert.equal(out[5].error.chrome, "held_back");
  });
  test("ends at a handle the lookup did not find, before anything is sent with it", async () => {
    const sent = [];
    const send = async (c) => (sent.push(c), c.method === "lookup" ? { result: { type: "object", subtype: "null" } } : {});
    const out = await sequence(
      { commands: [{ method: "lookup", params: {} }, { method: "DOM.describeNode", params: {}, fill: { objectId: [0, "result", "objectId"] } }, { method: "Input.dispatchMouseEvent", params: {} }] },
      { send, errorOf: (e) => ({ code: e.code, ...e.extra }) },
    );
    assert.equal(sent.length, 1);
    assert.deepEqual(out[1], { ok: false, error: { code: "ref_stale", transient: true, chrome: "fill_missing" } });
  });
});
