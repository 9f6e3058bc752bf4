import assert from "node:assert/strict";
import { test } from "node:test";

import { argText, callerOf, messageOf, pushBounded, resourceRecord } from "../src/capture.js";

test("a bounded buffer keeps the newest items and counts the dropped", () => {
  const buffer = { items: [], dropped: 0 };
  for (let i = 0; i < 5; i++) pushBounded(buffer, i, 3);
  assert.deepEqual(buffer.items, [2, 3, 4]);
  assert.equal(buffer.dropped, 2);
});

test("console arguments become text, whatever they are", () => {
  assert.equal(argText("plain"), "plain");
  assert.equal(argText(new TypeError("bad")), "TypeError: bad");
  assert.equal(argText({ a: 1 }), '{"a":1}');
  const cyclic = {};
  cyclic.self = cyclic;
  assert.equal(argText(cyclic), "[object Object]");
  assert.equal(argText(undefined), "undefined");
  assert.equal(argText(10n), "10");
  assert.equal(messageOf(["a", 1, null], 100), "a 1 null");
  assert.equal(messageOf(["x".repeat(10)], 4), "xxxx…");
});

test("the caller is the first frame outside the capture", () => {
  const stack = [
    "Error",
    "    at console.reinsCapture [as error] (<anonymous>:5:10)",
    "    at save (http://127.0.0.1:8000/app.js?v=2:12:7)",
    "    at http://127.0.0.1:8000/other.js:1:1",
  ].join("\n");
  assert.deepEqual(callerOf(stack), { url: "http://127.0.0.1:8000/app.js?v=2", line: 12, column: 7 });
  assert.equal(callerOf("Error\n    at <anonymous>:1:1"), null);
  assert.equal(callerOf(undefined), null);
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
