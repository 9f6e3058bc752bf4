// A person in the loop (extension/handoff.js), under node's own test runner with a hand-built
// chrome.action and clock: the badge on the tab while a request is open and given back after,
// one answer per request whichever way it ends, nothing answered twice.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { BADGE, Handoffs, TEXT_MAX } from "../../extension/handoff.js";

let calls;
let clock;
let timers;
let handoffs;

const flush = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  calls = [];
  clock = 1000;
  timers = new Map();
  let next = 1;
  handoffs = new Handoffs({
    action: {
      setBadgeText: async (d) => calls.push(["text", d.tabId, d.text]),
      setBadgeBackgroundColor: async (d) => calls.push(["color", d.tabId]),
      openPopup: async () => calls.push(["openPopup"]),
    },
    setTimeout: (fn, ms) => (timers.set(next, { fn, ms }), next++),
    clearTimeout: (id) => timers.delete(id),
    now: () => clock,
  });
});

describe("a handoff to the person", () => {
  test("the badge marks the tab until the person presses Done; the answer says how long", async () => {
    const answer = handoffs.ask(7, "Sign in with SSO", 60_000);
    await flush();
    assert.deepEqual(calls, [["openPopup"], ["text", 7, BADGE], ["color", 7]]);
    assert.deepEqual(handoffs.list(), [{ tabId: 7, text: "Sign in with SSO", since: 1000 }]);
    clock += 12_500;
    assert.equal(handoffs.finish(7, "done"), true);
    assert.deepEqual(await answer, { outcome: "done", ms: 12_500 });
    await flush();
    assert.deepEqual(calls.at(-1), ["text", 7, null], "the tab's own badge given back");
    assert.equal(timers.size, 0, "no timer left behind");
    assert.equal(handoffs.finish(7, "cancelled"), false, "answered once");
    assert.deepEqual(handoffs.list(), []);
  });

  test("time up, a closed tab, a host gone: each ends the request with its outcome", async () => {
    const timedOut = handoffs.ask(1, "a", 5000);
    const closed = handoffs.ask(2, "b", 5000);
    const gone = handoffs.ask(3, "c", 5000);
    const [[, first]] = timers;
    assert.equal(first.ms, 5000);
    first.fn();
    handoffs.finish(2, "tab_closed");
    handoffs.endAll("host_gone");
    assert.equal((await timedOut).outcome, "timeout");
    assert.equal((await closed).outcome, "tab_closed");
    assert.equal((await gone).outcome, "host_gone");
    assert.deepEqual(handoffs.list(), []);
  });

  test("a second request on a tab replaces the first, which is answered", async () => {
    const first = handoffs.ask(4, "one", 5000);
    const second = handoffs.ask(4, "two", 5000);
    assert.equal((await first).outcome, "replaced");
    assert.deepEqual(handoffs.list().map((h) => h.text), ["two"]);
    handoffs.finish(4, "cancelled");
    assert.equal((await second).outcome, "cancelled");
  });

  test("the agent's words are cut to one short text; a popup Chrome refuses is no error", async () => {
    handoffs = new Handoffs({
      action: { setBadgeText: async () => {}, setBadgeBackgroundColor: async () => {}, openPopup: async () => { throw new Error("no window"); } },
      setTimeout: () => 1, clearTimeout: () => {},
    });
    handoffs.ask(5, "x".repeat(5000), 1000);
    await flush();
    assert.equal(handoffs.list()[0].text.length, TEXT_MAX);
  });

  test("the timers are called unbound, as the worker's own setTimeout must be", async () => {
    // A worker's setTimeout called as a method of another object throws "Illegal invocation".
    function strictTimer(fn, ms) {
      if (this !== undefined) throw new TypeError("Illegal invocation");
      return 1;
    }
    handoffs = new Handoffs({
      action: { setBadgeText: async () => {}, setBadgeBackgroundColor: async () => {} },
      setTimeout: strictTimer, clearTimeout: strictTimer,
    });
    const answer = handoffs.ask(6, "x", 1000);
    handoffs.finish(6, "done");
    assert.equal((await answer).outcome, "done");
  });
});
