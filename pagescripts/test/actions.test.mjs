import assert from "node:assert/strict";
import { test } from "node:test";

import {
  checkedState, fieldValue, isTextual, nodeLabel, pickOptions, segmentsOf, steadySincePressProbe,
} from "../src/actions.js";
import { MOVING, STEADY } from "../src/symbols.js";

test("a covering node is named by tag, id, two classes and its text", () => {
  assert.equal(nodeLabel(null), "nothing");
  assert.equal(nodeLabel({ localName: "div", id: "", className: "", innerText: "" }), "div");
  assert.equal(
    nodeLabel({ localName: "div", id: "veil", className: " modal  open wide ", innerText: "  Accept\n  cookies " }),
    'div#veil.modal.open "Accept cookies"',
  );
  const long = "x".repeat(40);
  assert.equal(nodeLabel({ localName: "p", className: "", innerText: long }), `p "${"x".repeat(30)}"`);
  // an SVG element's className is an object, not a string
  assert.equal(nodeLabel({ localName: "svg", className: { baseVal: "icon" }, textContent: "" }), "svg");
});

test("text fields are textareas and inputs that hold text", () => {
  for (const type of ["text", "email", "password", "search", "number", "tel", "url", ""]) {
    assert.equal(isTextual("input", type), true, type);
  }
  for (const type of ["checkbox", "radio", "button", "submit", "reset", "file", "image", "range", "color", "hidden"]) {
    assert.equal(isTextual("input", type), false, type);
  }
  assert.equal(isTextual("textarea", undefined), true);
  assert.equal(isTextual("div", undefined), false);
});

const OPTIONS = [
  { value: "nl", label: "Netherlands" },
  { value: "de", label: " Germany " },
  { value: "fr", label: "France" },
];

test("options are picked by value, then label, then label in any case", () => {
  assert.deepEqual(pickOptions(OPTIONS, ["nl"], false), { picked: [OPTIONS[0]] });
  assert.deepEqual(pickOptions(OPTIONS, ["Germany"], false), { picked: [OPTIONS[1]] });
  assert.deepEqual(pickOptions(OPTIONS, [" france"], false), { picked: [OPTIONS[2]] });
  assert.deepEqual(pickOptions(OPTIONS, ["nl", "France"], true), { picked: [OPTIONS[0], OPTIONS[2]] });
});

test("a missing option lists the ones there are; one select takes one value", () => {
  assert.deepEqual(pickOptions(OPTIONS, ["Spain"], false), {
    error: "select_mismatch",
    message: 'no option "Spain"; options: Netherlands,  Germany , France',
    missing: "Spain",
    options: ["Netherlands", " Germany ", "France"],
  });
  assert.deepEqual(pickOptions(OPTIONS, ["nl", "de"], false), {
    error: "select_mismatch", message: "this select takes one value",
  });
});

test("checkable state of inputs and ARIA widgets", () => {
  const attrs = (map) => ({ getAttribute: (name) => (name in map ? map[name] : null) });
  assert.deepEqual(checkedState({ type: "checkbox", checked: true, ...attrs({}) }), { kind: "checkbox", checked: true });
  assert.deepEqual(checkedState({ type: "radio", checked: false, ...attrs({}) }), { kind: "radio", checked: false });
  assert.deepEqual(checkedState({ ...attrs({ role: "switch", "aria-checked": "true" }) }), { kind: "switch", checked: true });
  assert.deepEqual(checkedState({ ...attrs({ role: "menuitemcheckbox", "aria-checked": "mixed" }) }),
    { kind: "menuitemcheckbox", checked: false });
  assert.deepEqual(checkedState({ type: "text", ...attrs({ role: "button" }) }), { kind: null });
});

test("a contenteditable's value is its text without the last newline", () => {
  const plain = { getAttribute: () => null, parentElement: null };
  assert.equal(fieldValue({ ...plain, isContentEditable: true, innerText: "one\ntwo\n" }), "one\ntwo");
  assert.equal(fieldValue({ ...plain, isContentEditable: false, value: "typed\n" }), "typed\n");
});

test("a segmented date field: its parts, and its value the whole field's text", () => {
  const role = (r) => (name) => (name === "role" ? r : null);
  const parts = [];
  const group = { getAttribute: role("group"), querySelectorAll: () => parts };
  const between = [];
  const ownerDocument = {
    createRange: () => ({
      setStartBefore: (n) => between.push(n), setEndAfter: (n) => between.push(n),
      toString: () => "\u206603\u2069/\u2066DD\u2069/\n\u2066YYYY\u2069",
    }),
  };
  for (let i = 0; i < 3; i++) parts.push({ getAttribute: role("spinbutton"), parentElement: { closest: () => group }, ownerDocument });
  assert.deepEqual(segmentsOf(parts[1]), { group, parts });
  assert.deepEqual(segmentsOf(group), { group, parts });
  assert.equal(fieldValue(parts[0]), "03/DD/ YYYY");
  assert.deepEqual(between, [parts[0], parts[2]]); // from the first part to the last, not the label
  // One spinbutton alone in a group is no segmented field; another element of the group is no part.
  const lone = { getAttribute: role("group"), querySelectorAll: () => [parts[0]] };
  assert.equal(segmentsOf({ getAttribute: role("spinbutton"), parentElement: { closest: () => lone } }), null);
  assert.equal(segmentsOf({ getAttribute: role("textbox"), parentElement: { closest: () => group } }), null);
});

// An element as steadySincePressProbe reads it: its box, no animations, its window's STEADY map.
function placed(box) {
  const win = { [STEADY]: new WeakMap() };
  const el = {
    isConnected: true, parentElement: null, ownerDocument: { defaultView: win },
    getBoundingClientRect: () => ({ x: box[0], y: box[1], width: box[2], height: box[3] }),
    getAnimations: () => [],
  };
  return { el, win };
}

test("a press's second look passes only on the box its probe saw, once", async () => {
  const { el, win } = placed([10, 20, 80, 30]);
  win[STEADY].set(el, { box: [10, 20, 80, 30], framed: true });
  await steadySincePressProbe(el);
  assert.equal(win[STEADY].has(el), false); // taken: a later press needs a probe of its own
  await assert.rejects(steadySincePressProbe(el), { message: MOVING });
});

test("a press's second look refuses an element that moved since its probe", async () => {
  const { el, win } = placed([10, 24, 80, 30]);
  win[STEADY].set(el, { box: [10, 20, 80, 30], framed: true });
  await assert.rejects(steadySincePressProbe(el), { message: MOVING });
  const gone = placed([10, 20, 80, 30]);
  gone.win[STEADY].set(gone.el, { box: [10, 20, 80, 30], framed: true });
  gone.el.isConnected = false;
  await assert.rejects(steadySincePressProbe(gone.el), { message: MOVING });
});
