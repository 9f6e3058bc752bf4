import assert from "node:assert/strict";
import { test } from "node:test";

import { collapse, cssString, xpathLiteral } from "../src/text.js";

test("whitespace collapses to single spaces, trimmed", () => {
  assert.equal(collapse("  a \n\t b  "), "a b");
  assert.equal(collapse(null), "");
});

test("XPath literals take whichever quote the text lacks, else concat()", () => {
  assert.equal(xpathLiteral("it"), "'it'");
  assert.equal(xpathLiteral("it's"), `"it's"`);
  assert.equal(xpathLiteral(`say "it's"`), `concat('say "it', "'", 's"')`);
});

test("CSS strings escape the quote, backslashes and control characters", () => {
  assert.equal(cssString('a"b', '"'), '"a\\"b"');
  assert.equal(cssString("a\\b", '"'), '"a\\\\b"');
  assert.equal(cssString("a\nb", "'"), "'a\\a b'");
});
