import assert from "node:assert/strict";
import { test } from "node:test";

import { deltaText } from "../src/delta.js";

const answer = (gen, elements) => ({ gen, url: "u", elements, truncated: false });

test("without a base every record is sent, and the boxes apart", () => {
  const { text, sent } = deltaText(answer("g1", [{ tag: "a" }, { tag: "b" }]), [1, 2, 3, 4, 5, 6, 7, 8], null, undefined);
  const parsed = JSON.parse(text);
  assert.equal(parsed.elements, null);
  assert.equal(parsed.gen, "g1");
  assert.deepEqual(parsed.delta, { base: null, boxes: [1, 2, 3, 4, 5, 6, 7, 8], items: [{ tag: "a" }, { tag: "b" }] });
  assert.equal(sent.gen, "g1");
  assert.equal(sent.index.get(JSON.stringify({ tag: "b" })), 1);
});

test("a record the held collection had is sent as its index there", () => {
  const first = deltaText(answer("g1", [{ tag: "a" }, { tag: "b" }]), [0, 0, 0, 0, 0, 0, 0, 0], null, undefined);
  const second = deltaText(answer("g2", [{ tag: "b" }, { tag: "c" }, { tag: "a" }]), new Array(12).fill(1), "g1", first.sent);
  const parsed = JSON.parse(second.text);
  assert.deepEqual(parsed.delta.items, [1, { tag: "c" }, 0]);
  assert.equal(parsed.delta.base, "g1");
  // the next collection refers to this one's positions
  assert.equal(second.sent.gen, "g2");
  assert.equal(second.sent.index.get(JSON.stringify({ tag: "a" })), 2);
});

test("a base the page does not hold gets everything", () => {
  const first = deltaText(answer("g1", [{ tag: "a" }]), [0, 0, 0, 0], null, undefined);
  const parsed = JSON.parse(deltaText(answer("g2", [{ tag: "a" }]), [0, 0, 0, 0], "older", first.sent).text);
  assert.equal(parsed.delta.base, null);
  assert.deepEqual(parsed.delta.items, [{ tag: "a" }]);
});

test("records with the same text repeat the first of them", () => {
  const first = deltaText(answer("g1", [{ tag: "a" }, { tag: "a" }]), new Array(8).fill(0), null, undefined);
  const parsed = JSON.parse(deltaText(answer("g2", [{ tag: "a" }, { tag: "a" }]), new Array(8).fill(0), "g1", first.sent).text);
  assert.deepEqual(parsed.delta.items, [0, 0]);
});

test("names and values are JSON-escaped inside the record text", () => {
  const tricky = { name: 'say "hi"\n\\ </script>', value: "\u2028" };
  const parsed = JSON.parse(deltaText(answer("g1", [tricky]), [0, 0, 0, 0], null, undefined).text);
  assert.deepEqual(parsed.delta.items, [tricky]);
});
