// Which tabs reins may drive and what the user's Cancel means (extension/ownership.js), under
// node's own test runner: node --test tests/extension/

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { DetachReasons, Ownership } from "../../extension/ownership.js";

function memoryStore(initial = {}) {
  const data = { ...initial };
  return {
    data,
    get: async (keys) => Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]])),
    set: async (values) => Object.assign(data, values),
  };
}

describe("Ownership in the user's own browser", () => {
  test("only tabs reins opened or was handed are reins's", async () => {
    const own = new Ownership(memoryStore());
    assert.equal(own.check(7).code, "tab_not_reins");
    assert.match(own.check(7).message, /tab 7 is the user's/);
    await own.opened(8);
    assert.deepEqual(own.check(8), { ok: true });
    assert.deepEqual(own.take(7), { ok: true });
    assert.ok(own.isReins(7));
    await own.takeBack(7);
    assert.equal(own.check(7).code, "tab_not_reins");
  });

  test("Cancel stops reins on the tab, and only the user can undo it", async () => {
    const own = new Ownership(memoryStore());
    await own.opened(8);
    own.canceled(8);
    assert.equal(own.check(8).code, "detached_by_user");
    assert.match(own.check(8).message, /Cancel/);
    assert.equal(own.take(8).code, "detached_by_user"); // `reins tab select` does not override it
    assert.equal(own.check(8).code, "detached_by_user");
    await own.handOver(8);
    assert.deepEqual(own.check(8), { ok: true });
  });

  test("a browser reins launched: every tab is reins's, except one the user stopped it on", () => {
    const own = new Ownership(memoryStore());
    own.launched = true;
    assert.deepEqual(own.check(123), { ok: true });
    own.canceled(123);
    assert.equal(own.check(123).code, "detached_by_user");
  });

  test("the sets survive a worker restart and go with closed tabs", async () => {
    const store = memoryStore();
    const first = new Ownership(store);
    await first.opened(1);
    await first.opened(2);
    await first.canceled(2);
    const second = new Ownership(store);
    const loading = second.load();
    const event = second.opened(3); // an event that comes in while the worker is loading
    await Promise.all([loading, event]);
    assert.deepEqual([...second.owned].sort(), [1, 3]);
    assert.deepEqual([...second.stopped], [2]);
    await second.closed(2);
    await second.closed(1);
    assert.deepEqual(store.data, { reinsTabs: [3], stoppedTabs: [] });
  });
});

describe("DetachReasons: the reason behind 'Detached while handling command.'", () => {
  test("the reason that comes a moment after the failed command", async () => {
    const reasons = new DetachReasons();
    const waiting = reasons.wait(5, 500);
    setTimeout(() => reasons.record(5, "canceled_by_user"), 50);
    assert.equal(await waiting, "canceled_by_user");
  });

  test("a reason that came first is not missed", async () => {
    const reasons = new DetachReasons();
    reasons.record(5, "target_closed");
    assert.equal(await reasons.wait(5, 500), "target_closed");
    assert.equal(await reasons.wait(5, 10, Date.now() + 5000), null); // too old by then
  });

  test("no reason within the wait, or one for another tab: null", async () => {
    const reasons = new DetachReasons();
    const waiting = reasons.wait(5, 60);
    reasons.record(6, "canceled_by_user");
    assert.equal(await waiting, null);
  });
});
