// The connection to the host (extension/port.js), under node's own test runner with a hand-built
// chrome.runtime.connectNative: a host that starts or cannot be started, that talks and that
// exits; the timer is a list the test fires by hand, so the backoff is read, not waited for.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { FIRST_RETRY_MS, HostPort, keptId, LAST_RETRY_MS } from "../../extension/port.js";

let hosts; // every port connectNative handed out, in order
let refuse; // connectNative throws this, if set (no host installed)
let lastError; // what chrome.runtime.lastError says in onDisconnect
let timers; // pending setTimeout calls: {fn, ms}
let received; // what the worker was handed from the host
let disconnects; // how many times onDisconnect ran
let badges; // [text, color] in order
let warnings;
let paused;
let host;

// A native port: what the worker posts, and a host the test makes talk or exit.
function fakePort() {
  const listeners = { message: [], disconnect: [] };
  return {
    posted: [],
    postMessage(message) {
      if (this.broken) throw new Error("Attempting to use a disconnected port object");
      this.posted.push(message);
    },
    onMessage: { addListener: (fn) => listeners.message.push(fn) },
    onDisconnect: { addListener: (fn) => listeners.disconnect.push(fn) },
    say: (msg) => listeners.message.forEach((fn) => fn(msg)),
    exit: () => listeners.disconnect.forEach((fn) => fn()),
  };
}

// Fires the one pending timer (the reconnect) and says after how long it was due.
function fireRetry() {
  assert.equal(timers.length, 1, "one reconnect pending");
  const { fn, ms } = timers.shift();
  fn();
  return ms;
}

beforeEach(() => {
  hosts = [];
  refuse = null;
  lastError = undefined;
  timers = [];
  received = [];
  disconnects = 0;
  badges = [];
  warnings = [];
  paused = false;
  host = new HostPort({
    connectNative: () => {
      if (refuse) throw refuse;
      const port = fakePort();
      hosts.push(port);
      return port;
    },
    lastError: () => lastError,
    hello: () => ({ type: "hello", paused }),
    onMessage: (msg) => received.push(msg),
    onDisconnect: () => disconnects++,
    paused: () => paused,
    setBadge: (text, color) => badges.push([text, color]),
    setTimeout: (fn, ms) => (timers.push({ fn, ms }), timers.length),
    warn: (...args) => warnings.push(args.join(" ")),
  });
});

describe("connecting", () => {
  test("on connect the worker says hello first, and the badge says on", () => {
    host.wake();
    assert.equal(hosts.length, 1);
    assert.deepEqual(hosts[0].posted, [{ type: "hello", paused: false }]);
    assert.ok(host.connected);
    assert.deepEqual(badges.at(-1), ["on", "#1a7f37"]);
    assert.deepEqual(timers, []);
  });

  test("the hello is made at each connect: it says what is true then", () => {
    host.wake();
    paused = true;
    hosts[0].exit();
    fireRetry();
    assert.deepEqual(hosts[1].posted, [{ type: "hello", paused: true }]);
    assert.deepEqual(badges.at(-1), ["II", "#b8860b"]);
  });

  test("waking while connected, or while a retry waits, starts nothing more", () => {
    host.wake();
    host.wake();
    assert.equal(hosts.length, 1);
    hosts[0].exit();
    host.wake();
    assert.equal(hosts.length, 1);
    assert.equal(timers.length, 1);
  });

  test("what the host says is handed on, in order", () => {
    host.wake();
    hosts[0].say({ type: "host_hello", version: "1" });
    hosts[0].say({ id: 1, type: "status" });
    assert.deepEqual(received, [{ type: "host_hello", version: "1" }, { id: 1, type: "status" }]);
  });
});

describe("a host that exits", () => {
  test("the port is dropped, onDisconnect runs, the badge says off, and a retry is scheduled", () => {
    host.wake();
    lastError = "Native host has exited.";
    hosts[0].exit();
    assert.ok(!host.connected);
    assert.equal(disconnects, 1);
    assert.deepEqual(badges.at(-1), ["off", "#888888"]);
    assert.deepEqual(warnings, [`reins: host not connected (Native host has exited.); retrying in ${FIRST_RETRY_MS} ms`]);
    assert.equal(fireRetry(), FIRST_RETRY_MS);
    assert.equal(hosts.length, 2);
    assert.ok(host.connected);
    assert.deepEqual(hosts[1].posted, [{ type: "hello", paused: false }]);
  });

  test("one retry at a time: a second word of the same exit schedules nothing more", () => {
    host.wake();
    hosts[0].exit();
    hosts[0].exit();
    assert.equal(timers.length, 1);
    assert.equal(fireRetry(), FIRST_RETRY_MS);
  });

  test("without a word from Chrome the reason is that the host exited", () => {
    host.wake();
    hosts[0].exit();
    assert.match(warnings[0], /\(host exited\)/);
  });

  test("a host that keeps exiting is retried after 250 ms, doubling to 5 s at most", () => {
    host.wake();
    const waits = [];
    for (let i = 0; i < 8; i++) {
      hosts.at(-1).exit();
      waits.push(fireRetry());
    }
    assert.deepEqual(waits, [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    assert.equal(LAST_RETRY_MS, 5000);
  });

  test("a word from the host proves it alive: the next retry starts fast again", () => {
    host.wake();
    for (let i = 0; i < 3; i++) {
      hosts.at(-1).exit();
      fireRetry();
    }
    hosts.at(-1).say({ type: "host_hello" });
    hosts.at(-1).exit();
    assert.equal(fireRetry(), FIRST_RETRY_MS);
  });

  test("a host that cannot be started is retried with the same backoff", () => {
    refuse = new Error("Specified native messaging host not found.");
    host.wake();
    assert.ok(!host.connected);
    assert.deepEqual(badges.at(-1), ["off", "#888888"]);
    assert.match(warnings[0], /Specified native messaging host not found/);
    assert.equal(fireRetry(), 250);
    assert.equal(fireRetry(), 500);
    refuse = null;
    assert.equal(fireRetry(), 1000);
    assert.ok(host.connected);
    assert.deepEqual(timers, []);
    assert.equal(disconnects, 0, "a port that never opened never disconnects");
  });
});

describe("posting", () => {
  test("while disconnected a message is dropped, not queued for the next host", () => {
    host.post({ type: "event" });
    host.wake();
    hosts[0].exit();
    host.post({ type: "paused", paused: true });
    fireRetry();
    assert.deepEqual(hosts[0].posted, [{ type: "hello", paused: false }]);
    assert.deepEqual(hosts[1].posted, [{ type: "hello", paused: false }]);
  });

  test("a port Chrome already closed fails the post with a warning, not an exception", () => {
    host.wake();
    hosts[0].broken = true;
    assert.doesNotThrow(() => host.post({ type: "event" }));
    assert.match(warnings[0], /postMessage failed/);
  });
});

describe("the badge", () => {
  test("off, on or paused, as the state is when asked", () => {
    host.updateBadge();
    host.wake();
    paused = true;
    host.updateBadge();
    paused = false;
    host.updateBadge();
    assert.deepEqual(badges, [["off", "#888888"], ["on", "#1a7f37"], ["II", "#b8860b"], ["on", "#1a7f37"]]);
  });
});

describe("answers and what the host said of itself", () => {
  test("an answer too large for Chrome to carry is answered message_too_large, with its id", () => {
    host.wake();
    host.answer({ id: 4, ok: true, result: "x".repeat(50) }, 64);
    host.answer({ id: 5, ok: true, result: "small" }, 64);
    assert.deepEqual(hosts[0].posted.slice(1), [
      { id: 4, ok: false, error: { code: "message_too_large", message: "result of 80 bytes exceeds 64" } },
      { id: 5, ok: true, result: "small" },
    ]);
  });

  test("host_hello is kept as info until the host goes", () => {
    host.wake();
    hosts[0].say({ type: "host_hello", version: "0.9", profile: "work", launched: 1, extra: true });
    assert.deepEqual(host.info, { version: "0.9", profile: "work", launched: true });
    hosts[0].exit();
    assert.equal(host.info, null);
  });
});

describe("keptId: the ids said in hello", () => {
  const area = (data, fail = false) => ({
    data,
    get: async (key) => {
      if (fail) throw new Error("storage failed");
      return key in data ? { [key]: data[key] } : {};
    },
    set: async (v) => Object.assign(data, v),
  });

  test("made on first use, then kept", async () => {
    const store = area({});
    const made = await keptId(store, "instance", () => {});
    assert.match(made, /^[0-9a-f-]{36}$/);
    assert.equal(store.data.instance, made);
    assert.equal(await keptId(store, "instance", () => {}), made);
  });

  test("storage failing: no id, and a warning", async () => {
    const said = [];
    assert.equal(await keptId(area({}, true), "session", (...args) => said.push(args[0])), null);
    assert.deepEqual(said, ["reins: no session id"]);
  });
});
