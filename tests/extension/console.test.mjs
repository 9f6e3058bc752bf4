// The page's console from Chrome's Runtime domain (extension/console.js), on hand-built events:
// what is forwarded (a page's own world only, as text, cut down), what never is (another world's
// message, a context event, an object id), and the per-tab budget.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { argText, Budget, consoleEvent, LIMITS, noteContext } from "../../extension/console.js";
import { eventParams } from "../../extension/policy.js";

const page = (id, frameId = "F1") => ({ context: { id, origin: "https://app.test", name: "", auxData: { isDefault: true, type: "default", frameId } } });
const other = (id) => ({ context: { id, origin: "chrome-extension://abc", name: "Other extension", auxData: { isDefault: false, type: "isolated", frameId: "F1" } } });

function contextsOf(...events) {
  const contexts = new Set();
  for (const [method, params] of events) noteContext(contexts, method, params);
  return contexts;
}

describe("noteContext: the page's own worlds of a session", () => {
  test("keeps default contexts only, forgets destroyed and cleared ones", () => {
    const contexts = contextsOf(["Runtime.executionContextCreated", page(1)], ["Runtime.executionContextCreated", other(2)],
      ["Runtime.executionContextCreated", page(3, "F2")]);
    assert.deepEqual([...contexts], [1, 3]);
    noteContext(contexts, "Runtime.executionContextDestroyed", { executionContextId: 3 });
    assert.deepEqual([...contexts], [1]);
    assert.equal(noteContext(contexts, "Runtime.executionContextsCleared", {}), true);
    assert.equal(contexts.size, 0);
    assert.equal(noteContext(contexts, "Runtime.consoleAPICalled", {}), false);
  });
});

describe("consoleEvent: what is forwarded", () => {
  const contexts = contextsOf(["Runtime.executionContextCreated", page(1)], ["Runtime.executionContextCreated", other(2)]);
  const call = (type, args, executionContextId = 1) => consoleEvent("Runtime.consoleAPICalled", {
    type, args, executionContextId, timestamp: 1733390000123.4,
    stackTrace: { callFrames: [{ url: "", lineNumber: 0 }, { url: "https://app.test/app.js?k=1", lineNumber: 11, columnNumber: 3 }] },
  }, contexts);

  test("an error or warning of the page's world, as text, with where it came from", () => {
    const got = call("error", [{ type: "string", value: "declined:" }, { type: "number", value: 4242, description: "4242" }, { type: "object", objectId: "obj-9", className: "Object", description: "Object", preview: { properties: [{ name: "card", type: "string", value: "4242" }, { name: "n", type: "number", value: "2" }], overflow: false } }]);
    assert.deepEqual(got, { time: 1733390000123, level: "error", kind: "console", text: 'declined: 4242 {card: "4242", n: 2}', source: "https://app.test/app.js?k=1", line: 12 });
    assert.equal(call("warning", [{ type: "string", value: "slow" }]).level, "warn");
    assert.equal(call("assert", []).text, "Assertion failed");
    assert.ok(!JSON.stringify(got).includes("obj-9"));
  });

  test("nothing of another world, nor the levels the host does not keep", () => {
    assert.equal(call("error", [{ type: "string", value: "from another extension" }], 2), null);
    assert.equal(call("error", [{ type: "string", value: "unknown context" }], 77), null);
    for (const type of ["log", "info", "debug", "table", "trace", "dir"]) assert.equal(call(type, [{ type: "string", value: "x" }]), null);
  });

  test("an uncaught exception by its first line, a rejection as such", () => {
    const thrown = (text, exception, executionContextId = 1) => consoleEvent("Runtime.exceptionThrown", {
      timestamp: 5, exceptionDetails: { text, exception, executionContextId, url: "https://app.test/a.js", lineNumber: 4 },
    }, contexts);
    const error = { type: "object", subtype: "error", className: "Error", description: "Error: unhandled boom\n    at f (https://app.test/a.js:5:1)", objectId: "o1" };
    assert.deepEqual(thrown("Uncaught", error), { time: 5, level: "error", kind: "exception", text: "Error: unhandled boom", source: "https://app.test/a.js", line: 5 });
    assert.equal(thrown("Uncaught (in promise)", { type: "string", value: "nope" }).text, "Unhandled rejection: nope");
    assert.equal(thrown("Uncaught (in promise)", { type: "string", value: "nope" }).kind, "rejection");
    assert.equal(thrown("Uncaught", error, 2), null);
  });

  test("a flood is cut down: long texts, many arguments", () => {
    const long = call("error", Array.from({ length: 50 }, () => ({ type: "string", value: "x".repeat(1000) })));
    assert.ok(long.text.length <= LIMITS.text + 1);
    assert.equal(argText({ type: "string", value: "y".repeat(5000) }).length, LIMITS.arg + 1);
  });

  test("argText: primitives, null, undefined, unserializable numbers, arrays", () => {
    assert.equal(argText({ type: "undefined" }), "undefined");
    assert.equal(argText({ type: "object", subtype: "null", value: null }), "null");
    assert.equal(argText({ type: "number", unserializableValue: "NaN" }), "NaN");
    assert.equal(argText({ type: "boolean", value: false }), "false");
    assert.equal(argText({ type: "object", subtype: "array", preview: { properties: [{ name: "0", type: "number", value: "1" }], overflow: true } }), "[1, …]");
    assert.equal(argText({ type: "function", description: "function f() {}" }), "function f() {}");
  });
});

describe("eventParams: Runtime's own events never reach the host as they are", () => {
  test("context and console events are null to the generic path", () => {
    for (const method of ["Runtime.executionContextCreated", "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Runtime.bindingCalled"]) {
      assert.equal(eventParams(method, other(2)), null, method);
    }
  });
});

describe("Budget: per tab, per second", () => {
  test("lets a second's share go, counts the rest, and tells the count once", () => {
    const budget = new Budget(3);
    const went = Array.from({ length: 5 }, () => budget.take(10_000));
    assert.deepEqual(went, [true, true, true, false, false]);
    assert.equal(budget.take(11_000), true);
    assert.equal(budget.tell(), 2);
    assert.equal(budget.tell(), 0);
  });
});
