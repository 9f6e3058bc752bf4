import assert from "node:assert/strict";
import { test } from "node:test";

import { sameBox, visibleCenter } from "../src/geometry.js";

test("a box that moved less than half a pixel is the same box", () => {
  assert.equal(sameBox([10, 20, 30, 40], [10.4, 19.6, 30, 40.49]), true);
  assert.equal(sameBox([10, 20, 30, 40], [10.5, 20, 30, 40]), false);
  assert.equal(sameBox([0, 0, 10, 10], [0, 0, 10, 11]), false);
});

test("the point is the middle of the box's visible part", () => {
  assert.deepEqual(visibleCenter([10, 20, 100, 40], 800, 600), { x: 60, y: 40 });
  // half above the viewport: the middle of what shows
  assert.deepEqual(visibleCenter([0, -20, 100, 40], 800, 600), { x: 50, y: 10 });
  // cut by the right and bottom edges
  assert.deepEqual(visibleCenter([700, 500, 200, 200], 800, 600), { x: 750, y: 550 });
});

test("less than a pixel inside the viewport gives no point", () => {
  assert.equal(visibleCenter([0, -40, 100, 40], 800, 600), null);
  assert.equal(visibleCenter([799.5, 10, 100, 40], 800, 600), null);
  assert.equal(visibleCenter([10, 10, 0.5, 40], 800, 600), null);
});
