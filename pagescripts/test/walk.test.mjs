import assert from "node:assert/strict";
import { test } from "node:test";

import { isFrameOwner, roleOf, typeOf } from "../src/walk.js";

const HTML_NS = "http://www.w3.org/1999/xhtml";

// Just enough of an element for the role and type rules: its tag, attributes and content window.
function element(tag, attributes = {}, props = {}) {
  return {
    localName: tag,
    tagName: tag.toUpperCase(),
    namespaceURI: HTML_NS,
    getAttribute: (n) => (n in attributes ? attributes[n] : null),
    hasAttribute: (n) => n in attributes,
    ...props,
  };
}

test("a frame owner dressed as a button is a frame (issue 43)", () => {
  const el = element("iframe", { role: "button", "aria-label": "Save draft" });
  assert.equal(isFrameOwner(el, "iframe"), true);
  assert.equal(roleOf(el, "iframe"), "frame");
  assert.equal(typeOf(el, "iframe", false, "button", ["role"]), "frame");
  for (const tag of ["frame", "fencedframe", "embed"]) {
    const owner = element(tag, { role: "link" });
    assert.equal(roleOf(owner, tag), "frame", tag);
    assert.equal(typeOf(owner, tag, false, "link", ["role"]), "frame", tag);
  }
});

test("an <object> is a frame when it holds a document, whatever its role", () => {
  const framed = element("object", { role: "button" }, { contentWindow: {} });
  assert.equal(isFrameOwner(framed, "object"), true);
  assert.equal(roleOf(framed, "object"), "frame");
  const picture = element("object", { role: "button" }, { contentWindow: null });
  assert.equal(isFrameOwner(picture, "object"), false);
  assert.notEqual(typeOf(picture, "object", false, "button", ["role"]), "frame");
});

test("other elements are never frames by tag", () => {
  for (const tag of ["button", "div", "a", "img", "canvas"]) {
    assert.equal(isFrameOwner(element(tag, { role: "button" }), tag), false, tag);
  }
  const svg = { ...element("iframe"), namespaceURI: "http://www.w3.org/2000/svg" };
  assert.equal(isFrameOwner(svg, "iframe"), false);
});
