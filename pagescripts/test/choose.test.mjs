import assert from "node:assert/strict";
import { test } from "node:test";

import { matchLabel, widgetAtRest, widgetMotion } from "../src/choose.js";

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

// Hand-built stand-ins for the DOM: an element with `closest`/`querySelector` answers, an
// animation with its play state and end.
function animation(target, { state = "running", end = 150 } = {}) {
  return {
    playState: state,
    effect: { target, getComputedTiming: () => ({ endTime: end }) },
    finished: new Promise(() => {}),
  };
}

function element({ inPopup = false, holdsPopup = false } = {}) {
  return {
    nodeType: 1,
    closest: () => (inPopup ? {} : null),
    querySelector: () => (holdsPopup ? {} : null),
    querySelectorAll: () => [],
  };
}

function widget(documentAnimations, { hidden = false } = {}) {
  const doc = { nodeType: 9, getAnimations: () => documentAnimations, visibilityState: hidden ? "hidden" : "visible" };
  return { ...element(), ownerDocument: doc, getRootNode: () => doc, shadowRoot: null };
}

test("the motion that counts: a popup's finite animations, not a spinner or the rest of the page", () => {
  const panel = animation(element({ holdsPopup: true }));
  const option = animation(element({ inPopup: true }));
  const spinner = animation(element({ inPopup: true }), { end: Infinity });
  const banner = animation(element());
  const done = animation(element({ holdsPopup: true }), { state: "finished" });
  assert.deepEqual(widgetMotion(widget([panel, option, spinner, banner, done])), [panel, option]);
});

// The test's timeout is the failure of a wait without its bound (the animation never finishes).
test("a widget at rest, or in a tab that draws no frames, is not waited for", { timeout: 5000 }, async () => {
  assert.equal(await widgetAtRest(widget([]), 500), false);
  const closing = animation(element({ holdsPopup: true }));
  assert.equal(await widgetAtRest(widget([closing], { hidden: true }), 500), false);
  // An animation that never finishes is waited for no longer than asked.
  assert.equal(await widgetAtRest(widget([closing]), 30), true);
});
