import assert from "node:assert/strict";
import { test } from "node:test";

import { ariaBoolean, focusLabel, nowShown, shownValue } from "../src/effects.js";

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

test("shown names the outermost once-hidden elements that now render with a box", () => {
  const node = (id, { visible = true, box = 10, parent = null } = {}) => {
    const n = {
      id, localName: "ul", className: "", innerText: "", isConnected: true, parent,
      checkVisibility: () => visible,
      getBoundingClientRect: () => ({ width: box, height: box }),
      contains: (o) => { for (let c = o; c; c = c.parent) if (c === n) return true; return false; },
    };
    return n;
  };
  const menu = node("menu");
  const item = node("item", { parent: menu });
  const still = node("still", { visible: false });
  const flat = node("flat", { box: 0 });
  assert.deepEqual(nowShown([menu, item, still, flat]), ["ul#menu"]);
  assert.deepEqual(nowShown([]), []);
});
