import assert from "node:assert/strict";
import { test } from "node:test";

import { matchLabel } from "../src/choose.js";

const LABELS = ["Travel", "Meals", "Software", "Office Supplies"];

test("an option is matched exactly, then ignoring case", () => {
  assert.equal(matchLabel(LABELS, "Meals"), 1);
  assert.equal(matchLabel(LABELS, "  meals "), 1);
});

test("a prefix or a part names an option only when it names one", () => {
  assert.equal(matchLabel(LABELS, "soft"), 2);
  assert.equal(matchLabel(LABELS, "supplies"), 3);
  assert.equal(matchLabel(["Apple", "Apricot"], "Ap"), -1);
  assert.equal(matchLabel(LABELS, "Dinner"), -1);
});
