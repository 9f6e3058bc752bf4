// Chrome's errors as the codes the host knows (extension/errors.js): each message Chrome gives,
// through the one table, to the error an answer carries. The host trusts what this answers and
// reads none of Chrome's words itself (tests/unit/test_chrome_errors.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { CHROME_ERRORS, errorOf } from "../../extension/errors.js";
import { Refusal } from "../../extension/refusal.js";

const gone = { code: "target_closed" };
const refused = { code: "page_refused" };

describe("errorOf", () => {
  test("a refusal of the extension's own keeps its code and message, and says nothing more", () => {
    assert.deepEqual(errorOf(new Refusal("cdp_blocked", "Storage.getCookies is not allowed")), {
      code: "cdp_blocked", message: "Storage.getCookies is not allowed",
    });
    // A refusal whose message has Chrome's words is still the extension's own.
    assert.deepEqual(errorOf(new Refusal("page_refused", "tab detached: Execution was terminated")).code, "page_refused");
  });

  for (const [message, meaning] of [
    ["No tab with id: 12.", gone],
    ["No target with given id found", gone],
    ["Debugger is not attached to the tab with id: 5. Detached while handling command.", gone],
    ["Target closed", gone],
    ["Cannot access a chrome:// URL", refused],
    ['Cannot access contents of url "chrome-extension://abc/"', refused],
    ["Cannot attach to this target.", refused],
    ["Cannot navigate to chrome://settings", refused],
    ["Execution was terminated", { code: "timeout", transient: true, chrome: "script_terminated" }],
    ["No node with given id found", { code: "ref_stale", transient: true, chrome: "node_gone" }],
    ["Could not find node with given id", { code: "ref_stale", transient: true, chrome: "node_gone" }],
    ["Execution context was destroyed.", { code: "cdp_error", transient: true, chrome: "context_gone" }],
    ["Cannot find context with specified id", { code: "cdp_error", transient: true, chrome: "context_gone" }],
    ["Could not find object with given id", { code: "cdp_error", chrome: "object_gone" }],
    ["Screencast already active", { code: "cdp_error", chrome: "already_active" }],
    ["No node found at given location", { code: "cdp_error", chrome: "no_node_at_point" }],
    ['{"code":-32603,"message":"Internal error"}', { code: "cdp_error", chrome: "internal_error" }],
    ["Invalid parameters", { code: "cdp_error" }],
    ["", { code: "cdp_error" }],
  ]) {
    test(`Chrome's "${message}" answers ${JSON.stringify(meaning)}`, () => {
      assert.deepEqual(errorOf(new Error(message)), { ...meaning, message });
    });
  }

  test("a thrown string is its own message", () => {
    assert.deepEqual(errorOf("boom"), { code: "cdp_error", message: "boom" });
  });

  test("the first entry that matches wins: a closed tab is a close whatever else it says", () => {
    assert.equal(errorOf(new Error("Target closed. Execution was terminated")).code, "target_closed");
  });

  test("every entry is a code the host knows, and says what it means in one word or not at all", () => {
    const known = new Set(["target_closed", "page_refused", "timeout", "ref_stale", "cdp_error"]);
    for (const entry of CHROME_ERRORS) {
      assert.ok(known.has(entry.code), entry.code);
      assert.ok(entry.chrome === undefined || /^[a-z_]+$/.test(entry.chrome), entry.chrome);
    }
  });
});
