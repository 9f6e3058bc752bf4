import assert from "node:assert/strict";
import { test } from "node:test";

import { splitSelector } from "../src/pierce.js";

test("a selector list splits into compounds and combinators", () => {
  assert.deepEqual(splitSelector("button"), [{ compounds: ["button"], combinators: [] }]);
  assert.deepEqual(splitSelector("my-panel  button.save"), [
    { compounds: ["my-panel", "button.save"], combinators: [" "] },
  ]);
  assert.deepEqual(splitSelector("a>b + c ~ d"), [
    { compounds: ["a", "b", "c", "d"], combinators: [">", "+", "~"] },
  ]);
  assert.deepEqual(splitSelector("a, b > c"), [
    { compounds: ["a"], combinators: [] },
    { compounds: ["b", "c"], combinators: [">"] },
  ]);
});

test("brackets, parentheses, strings and escapes stay inside their compound", () => {
  assert.deepEqual(splitSelector('div:is(a b, c) [title="x > y, z"]'), [
    { compounds: ["div:is(a b, c)", '[title="x > y, z"]'], combinators: [" "] },
  ]);
  assert.deepEqual(splitSelector("#a\\ b > i"), [{ compounds: ["#a\\ b", "i"], combinators: [">"] }]);
});

test("what does not split is null (the light DOM answers alone)", () => {
  for (const bad of ["", "> a", "a >", "a > > b", "a,", ",a", "a[", "a(", "'a"]) {
    assert.equal(splitSelector(bad), null, bad);
  }
});
