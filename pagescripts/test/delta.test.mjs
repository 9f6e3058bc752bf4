import assert from "node:assert/strict";
import { test } from "node:test";

import { deltaText } from "../src/delta.js";

const answer = (gen, elements) => ({ gen, url: "u", elements, truncated: false });
// Stand-ins for the records' elements (compared by identity).
const na = { n: "a" };
const nb = { n: "b" };
const nc = { n: "c" };

test("without a base every record is sent, and the boxes apart", () => {
  const { text, sent } = deltaText(answer("g1", [{ tag: "a" }, { tag: "b" }]), [1, 2, 3, 4, 5, 6, 7, 8], null, undefined, [na, nb]);
  const parsed = JSON.parse(text);
  assert.equal(parsed.elements, null);
  assert.equal(parsed.gen, "g1");
  assert.deepEqual(parsed.delta, { base: null, boxes: [1, 2, 3, 4, 5, 6, 7, 8], items: [{ tag: "a" }, { tag: "b" }] });
  assert.equal(sent.gen, "g1");
  assert.equal(sent.index.get(JSON.stringify({ tag: "b" })), 1);
});

test("a record the held collection had is sent as its index there", () => {
  const first = deltaText(answer("g1", [{ tag: "a" }, { tag: "b" }]), [0, 0, 0, 0, 0, 0, 0, 0], null, undefined, [na, nb]);
  const second = deltaText(answer("g2", [{ tag: "b" }, { tag: "c" }, { tag: "a" }]), new Array(12).fill(1), "g1", first.sent, [nb, nc, { n: "a, re-rendered" }]);
  const parsed = JSON.parse(second.text);
  // b is the same node; a's text comes from another node now: -0-1
  assert.deepEqual(parsed.delta.items, [1, { tag: "c" }, -1]);
  assert.equal(parsed.delta.base, "g1");
  // the next collection refers to this one's positions
  assert.equal(second.sent.gen, "g2");
  assert.equal(second.sent.index.get(JSON.stringify({ tag: "a" })), 2);
});

test("a base the page does not hold gets everything", () => {
  const first = deltaText(answer("g1", [{ tag: "a" }]), [0, 0, 0, 0], null, undefined, [na]);
  const parsed = JSON.parse(deltaText(answer("g2", [{ tag: "a" }]), [0, 0, 0, 0], "older", first.sent, [na]).text);
  assert.equal(parsed.delta.base, null);
  assert.deepEqual(parsed.delta.items, [{ tag: "a" }]);
});

test("records with the same text repeat the first of them", () => {
  const first = deltaText(answer("g1", [{ tag: "a" }, { tag: "a" }]), new Array(8).fill(0), null, undefined, [na, nb]);
  const parsed = JSON.parse(deltaText(answer("g2", [{ tag: "a" }, { tag: "a" }]), new Array(8).fill(0), "g1", first.sent, [na, nb]).text);
  // both repeat the first record's text; only the first is its node
  assert.deepEqual(parsed.delta.items, [0, -1]);
});

test("names and values are JSON-escaped inside the record text", () => {
  const tricky = { name: 'say "hi"\n\\ </script>', value: "\u2028" };
  const parsed = JSON.parse(deltaText(answer("g1", [tricky]), [0, 0, 0, 0], null, undefined, [na]).text);
  assert.deepEqual(parsed.delta.items, [tricky]);
});
