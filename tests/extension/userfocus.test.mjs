// The user's windows around a press (extension/userfocus.js), under node's own test runner with a
// hand-built `chrome`: the note is taken while the message's first commands run, is handed to
// whoever sends the press, and the windows are put back after the message, as they were noted.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { aroundPresses, presses } from "../../extension/userfocus.js";

let calls;
let windows;

beforeEach(() => {
  calls = [];
  // Tab 7, the front tab of window 1, which is minimized; window 2 has the user's focus.
  windows = { 1: { id: 1, state: "minimized", focused: false }, 2: { id: 2, state: "normal", focused: true } };
  globalThis.chrome = {
    tabs: { get: async (id) => (calls.push(["tabs.get", id]), { id, active: true, windowId: 1 }) },
    windows: {
      get: async (id) => (calls.push(["windows.get", id]), { ...windows[id] }),
      getAll: async () => (calls.push(["windows.getAll"]), Object.values(windows).map((w) => ({ ...w }))),
      update: async (id, change) => (calls.push(["windows.update", id, change]), { ...windows[id] }),
    },
  };
});

const click = {
  id: 1, type: "cdp_batch", tabId: 7, sequential: true,
  commands: [
    { method: "Runtime.callFunctionOn", params: {} },
    { method: "Input.dispatchMouseEvent", params: { type: "mouseMoved" } },
    { method: "Input.dispatchMouseEvent", params: { type: "mousePressed" } },
    { method: "Input.dispatchMouseEvent", params: { type: "mouseReleased" } },
  ],
};

describe("the user's windows around a press", () => {
  test("presses are mouse presses and touch starts, nothing else", () => {
    assert.ok(presses({ method: "Input.dispatchMouseEvent", params: { type: "mousePressed" } }));
    assert.ok(presses({ method: "Input.dispatchTouchEvent", params: { type: "touchStart" } }));
    assert.ok(!presses({ method: "Input.dispatchMouseEvent", params: { type: "mouseMoved" } }));
    assert.ok(!presses({ method: "Input.dispatchKeyEvent", params: { type: "keyDown" } }));
    assert.ok(!presses({ method: "Runtime.evaluate", params: {} }));
  });

  test("a message that presses gets the note while it runs, and the window goes back after", async () => {
    let noted = null;
    const answer = await aroundPresses(click, async (windowsNoted) => {
      // The message starts at once: the note is still being taken (no chrome call answered yet).
      assert.ok(windowsNoted instanceof Promise);
      calls.push(["run started"]);
      noted = await windowsNoted; // what sequence() awaits before the first mousePressed
      calls.push(["press"]);
      windows[1] = { id: 1, state: "normal", focused: true }; // Chrome raised it for the press
      return "answered";
    });
    assert.equal(answer, "answered");
    assert.deepEqual(noted, { windowId: 1, minimized: true, focusedWindowId: 2 });
    const names = calls.map((c) => c[0]);
    assert.ok(names.indexOf("run started") < names.indexOf("windows.get"), names.join(", "));
    assert.ok(names.indexOf("windows.getAll") < names.indexOf("press"), names.join(", "));
    assert.deepEqual(calls.at(-1), ["windows.update", 1, { state: "minimized" }]);
  });

  test("a message that does not press runs without a note and restores nothing", async () => {
    const read = { id: 2, type: "cdp", tabId: 7, method: "Runtime.evaluate", params: {} };
    const answer = await aroundPresses(read, async (windowsNoted) => {
      assert.equal(windowsNoted, null);
      return "read";
    });
    assert.equal(answer, "read");
    assert.deepEqual(calls, []);
  });

  test("a message that fails still puts the windows back", async () => {
    await assert.rejects(
      aroundPresses(click, async (windowsNoted) => {
        await windowsNoted;
        throw new Error("the tab went away");
      }),
      /the tab went away/,
    );
    assert.deepEqual(calls.at(-1), ["windows.update", 1, { state: "minimized" }]);
  });

  test("a window the user is looking at is noted as nothing to put back", async () => {
    windows[1] = { id: 1, state: "normal", focused: true };
    const noted = await aroundPresses(click, (windowsNoted) => windowsNoted);
    assert.equal(noted, null);
    assert.ok(!calls.some((c) => c[0] === "windows.update"));
  });
});
