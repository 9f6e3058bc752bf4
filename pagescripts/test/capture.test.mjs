import assert from "node:assert/strict";
import { test } from "node:test";

import { pushBounded, resourceRecord } from "../src/capture.js";

test("a bounded buffer keeps the newest items and counts the dropped", () => {
  const buffer = { items: [], dropped: 0 };
  for (let i = 0; i < 5; i++) pushBounded(buffer, i, 3);
  assert.deepEqual(buffer.items, [2, 3, 4]);
  assert.equal(buffer.dropped, 2);
});

test("a resource timing keeps status, type and timing, in epoch milliseconds", () => {
  const entry = { name: "http://x.test/api?id=1", initiatorType: "fetch", entryType: "resource",
    responseStatus: 404, startTime: 100.4, duration: 20.6, transferSize: 300 };
  assert.deepEqual(resourceRecord(entry, 1000), {
    time: 1100, url: "http://x.test/api?id=1", type: "fetch", status: 404, duration_ms: 21,
    transfer_size: 300,
  });
  const old = { name: "u", entryType: "resource", startTime: 0, duration: 0 };
  assert.equal(resourceRecord(old, 0).status, null);
});
