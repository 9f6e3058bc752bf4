import assert from "node:assert/strict";
import { test } from "node:test";

import { contentBoxOrigin, sameBox, throughFrame, toTop, visibleCenter } from "../src/geometry.js";

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

test("a scaled frame's content box starts after its scaled border and padding", () => {
  // 360x260 layout box + 6px border + 9px padding each side = 390x290, drawn at scale 0.8
  const frame = {
    getBoundingClientRect: () => ({ x: 100, y: 50, width: 312, height: 232 }),
    offsetWidth: 390, offsetHeight: 290, clientLeft: 6, clientTop: 6,
  };
  const o = contentBoxOrigin(frame, { paddingLeft: "9px", paddingTop: "9px" });
  assert.deepEqual(o, { x: 112, y: 62, sx: 0.8, sy: 0.8 });
  assert.deepEqual(throughFrame(o, 100, 50), { x: 192, y: 102 });
});

test("an unscaled frame only moves points; a box is carried with its size", () => {
  const frame = {
    getBoundingClientRect: () => ({ x: 10, y: 20, width: 300, height: 150 }),
    offsetWidth: 300, offsetHeight: 150, clientLeft: 2, clientTop: 2,
  };
  const o = contentBoxOrigin(frame, { paddingLeft: "0px", paddingTop: "0px" });
  assert.deepEqual(o, { x: 12, y: 22, sx: 1, sy: 1 });
  assert.deepEqual(toTop({ x: 12, y: 22, sx: 0.5, sy: 0.5 }, [10, 20, 100, 40]), [17, 32, 50, 20]);
});
