import assert from "node:assert/strict";
import { test } from "node:test";

import { textMatches } from "../src/textmatch.js";

test("text=foo: any case, whitespace-normalized substring (the query comes lowercased)", () => {
  assert.equal(textMatches("  Pear\n   Tart ", "pear tart", false), true);
  assert.equal(textMatches("Apple pie", "pie", false), true);
  assert.equal(textMatches("Apple pie", "pies", false), false);
});

test('text="foo": the whole normalized text, case included', () => {
  assert.equal(textMatches(" Apple \n pie ", "Apple pie", true), true);
  assert.equal(textMatches("Apple pie", "apple pie", true), false);
  assert.equal(textMatches("Apple pie!", "Apple pie", true), false);
});
