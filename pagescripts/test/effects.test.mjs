import assert from "node:assert/strict";
import { test } from "node:test";

import { ariaBoolean, focusLabel, shownValue } from "../src/effects.js";

test("focus is named by tag, id and label; the body is no focus", () => {
  const body = { localName: "body" };
  assert.equal(focusLabel(null, body), null);
  assert.equal(focusLabel(body, body), null);
  const el = (id, attrs) => ({ localName: "input", id, getAttribute: (n) => attrs[n] || null });
  assert.equal(focusLabel(el("q", {}), body), "input#q");
  assert.equal(focusLabel(el("", { name: "email" }), body), "input[email]");
  assert.equal(focusLabel(el("q", { "aria-label": "Search", name: "q" }), body), "input#q[Search]");
});

test("a password shows as its length only", () => {
  assert.equal(shownValue("password", "hunter2"), "*******");
  assert.equal(shownValue("text", "hunter2"), "hunter2");
});

test("ARIA true/false become booleans, anything else stays", () => {
  assert.equal(ariaBoolean("true"), true);
  assert.equal(ariaBoolean("false"), false);
  assert.equal(ariaBoolean("mixed"), "mixed");
  assert.equal(ariaBoolean(null), null);
});
