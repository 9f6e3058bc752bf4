import assert from "node:assert/strict";
import { test } from "node:test";

import { cutUtf8, park, runOnParked, serializeParked, takeParked } from "../src/evaluate.js";
import { PARKED, UNREACHABLE } from "../src/symbols.js";

test("text within the limit is kept whole, with its size in bytes", () => {
  assert.deepEqual(cutUtf8("héllo", 10), { text: "héllo", size: 6 });
  assert.deepEqual(cutUtf8("", 0), { text: "", size: 0 });
});

test("text over the limit is cut on a character boundary", () => {
  assert.deepEqual(cutUtf8("abcdef", 4), { text: "abcd", size: 6, truncated: true });
  // "é" is two bytes: a cut in its middle drops it whole
  assert.deepEqual(cutUtf8("aéb", 2), { text: "a", size: 4, truncated: true });
  // an emoji is four bytes
  assert.deepEqual(cutUtf8("ab😀", 5), { text: "ab", size: 6, truncated: true });
});

test("a parked value is taken once", () => {
  assert.equal(park({ id: 1 }, "n1"), true);
  assert.ok(globalThis[PARKED] instanceof Map);
  assert.deepEqual(takeParked("n1"), { id: 1 });
  assert.equal(takeParked("n1"), undefined);
  assert.equal(takeParked("never"), undefined);
});

test("serializing goes through JSON.stringify and says why it could not", () => {
  park({ a: [1, "x"], skip: undefined }, "s1");
  assert.deepEqual(serializeParked("s1", 100), { ok: true, text: '{"a":[1,"x"]}', size: 13 });
  const cyclic = {};
  cyclic.self = cyclic;
  park(cyclic, "s2");
  const refused = serializeParked("s2", 100);
  assert.equal(refused.ok, false);
  assert.match(refused.reason, /circular/i);
  assert.ok(!refused.reason.includes("\n"));
  park(() => 1, "s3");
  assert.deepEqual(serializeParked("s3", 100), { ok: false, reason: "JSON.stringify gave no text" });
  park("x".repeat(20), "s4");
  assert.deepEqual(serializeParked("s4", 10), { ok: true, text: '"xxxxxxxxx', size: 22, truncated: true });
});

test("the user's function gets the parked element, taken before any user code runs", () => {
  const el = { tag: "button" };
  park(el, "e1");
  let seenSlot;
  const result = runOnParked("e1", () => {
    seenSlot = globalThis[PARKED].has("e1");
    return (x) => x.tag;
  });
  assert.equal(result, "button");
  assert.equal(seenSlot, false);
});

test("no parked element, or not a function", () => {
  assert.throws(() => runOnParked("missing", () => (x) => x), { message: UNREACHABLE });
  park({}, "e2");
  assert.throws(() => runOnParked("e2", () => 42), TypeError);
});
