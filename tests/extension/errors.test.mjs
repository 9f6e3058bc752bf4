// Chrome's errors as the codes the host knows (extension/errors.js): each message Chrome gives,
// through the one table, to the error an answer carries.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { errorOf } from "../../extension/errors.js";
import { Refusal } from "../../extension/refusal.js";

describe("errorOf", () => {
  test("a refusal of the extension's own keeps its code and message", () => {
    assert.deepEqual(errorOf(new Refusal("cdp_blocked", "Storage.getCookies is not allowed")), {
      code: "cdp_blocked", message: "Storage.getCookies is not allowed",
    });
  });

  for (const [message, code] of [
    ["No tab with id: 12.", "target_closed"],
    ["No target with given id found", "target_closed"],
    ["Debugger is not attached to the tab with id: 5. Detached while handling command.", "target_closed"],
    ["Target closed", "target_closed"],
    ["Cannot access a chrome:// URL", "page_refused"],
    ['Cannot access contents of url "chrome-extension://abc/"', "page_refused"],
    ["Cannot attach to this target.", "page_refused"],
    ["Invalid parameters", "cdp_error"],
  ]) {
    test(`Chrome's "${message}" is ${code}`, () => {
      assert.deepEqual(errorOf(new Error(message)), { code, message });
    });
  }

  test("a thrown string is its own message", () => {
    assert.deepEqual(errorOf("boom"), { code: "cdp_error", message: "boom" });
  });
});
