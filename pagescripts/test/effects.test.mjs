import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ariaBoolean, armReceipt, focusLabel, nowShown, shownValue, takeReceipt,
} from "../src/effects.js";
import { RECEIPT, STEADY } from "../src/symbols.js";

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

// An element whose probe left its second look to the press (actions.js deferSecondLook), in a
// window whose animation frames never come, as in a hidden tab (docs/hidden-tabs.md).
function deferredInHiddenTab() {
  const listeners = new Map();
  const win = {
    addEventListener: (type, fn) => listeners.set(type, fn),
    removeEventListener: (type) => listeners.delete(type),
  };
  const el = {
    isConnected: true, parentElement: null, ownerDocument: { defaultView: win },
    getBoundingClientRect: () => ({ x: 10, y: 20, width: 80, height: 30 }),
    getAnimations: () => [],
  };
  win[STEADY] = new WeakMap([[el, { box: [10, 20, 80, 30], framed: false }]]);
  return { el, win, listeners };
}

test("the steady check of a press answers in a tab that runs no animation frames", { timeout: 5000 }, async () => {
  const { el, win, listeners } = deferredInHiddenTab();
  const frames = globalThis.requestAnimationFrame;
  globalThis.requestAnimationFrame = () => 0; // never calls back
  try {
    // Without its bound, the wait for a frame never ends: the test fails (pending, or timed out).
    assert.equal(await armReceipt(el, true), true);
    assert.ok(win[RECEIPT], "the receipt is armed once the element held still");
    assert.ok(listeners.has("pointerdown"));
    assert.deepEqual(takeReceipt(el), { seen: 0, elsewhere: [] });
    assert.equal(listeners.size, 0);
  } finally {
    globalThis.requestAnimationFrame = frames;
  }
});
