// The debugger sessions (extension/sessions.js), under node's own test runner with a hand-built
// chrome.debugger and chrome.tabs: attaching, commands in flight, and every way a tab is let go
// through the one release() — the host asking, the host gone or the user pausing, a refused page,
// the user taking the tab back, Chrome detaching it (the user's Cancel, the tab closed or
// replaced), the tab closed; and a worker restart (a tab still attached from its earlier life).

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { DetachReasons, Ownership } from "../../extension/ownership.js";
import { checkTab } from "../../extension/policy.js";
import { Refusal } from "../../extension/refusal.js";
import { LET_GO, Sessions } from "../../extension/sessions.js";

let calls; // what reins asked of Chrome, in order
let pages; // tabId -> the URL the tab shows (a tab missing here is closed)
let posted; // what the host was told
let answers; // pending sendCommand answers: {method, ok, fail}
let attachError; // what chrome.debugger.attach throws, if anything
let onAttach; // runs while Chrome attaches (a tab that moves meanwhile)
let detachHangs; // Chrome slow to let go: chrome.debugger.detach never answers
let ownership;
let reasons;
let sessions;

const settled = () => new Promise((resolve) => setImmediate(resolve));

function memoryStore() {
  const data = {};
  return { get: async (keys) => Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]])), set: async (v) => Object.assign(data, v) };
}

beforeEach(() => {
  calls = [];
  posted = [];
  answers = [];
  attachError = null;
  onAttach = () => {};
  detachHangs = false;
  pages = new Map([[7, "https://example.com/"], [8, "https://example.org/"]]);
  const dbg = {
    attach: async (target, version) => {
      calls.push(["attach", target.tabId, version]);
      onAttach();
      if (attachError) throw attachError;
    },
    detach: (target) => (calls.push(["detach", target.tabId]), detachHangs ? new Promise(() => {}) : Promise.resolve()),
    sendCommand: (target, method) => new Promise((ok, fail) => answers.push({ target, method, ok, fail })),
    getTargets: async () => [
      { type: "page", tabId: 7, attached: true },
      { type: "page", tabId: 8, attached: false },
      { type: "worker", attached: true },
    ],
  };
  const tabs = {
    get: async (tabId) => {
      if (!pages.has(tabId)) throw new Error(`No tab with id: ${tabId}.`);
      return { id: tabId, url: pages.get(tabId) };
    },
  };
  ownership = new Ownership(memoryStore());
  ownership.launched = true; // every tab is reins's, unless the user stopped it
  reasons = new DetachReasons();
  sessions = new Sessions({
    debugger: dbg, tabs, switches: () => ({ allowFile: false }), ownership, detachReasons: reasons,
    post: (message) => posted.push(message), detachReasonWaitMs: 20,
  });
});

// A command sent on the tab's session, still waiting for Chrome; `outcome` says how it ended.
async function inFlight(tabId) {
  const state = await sessions.ensure(tabId);
  const seen = { outcome: "pending" };
  sessions.send(state, { tabId }, "Runtime.evaluate", {}).then(
    (result) => (seen.outcome = { result }),
    (err) => (seen.outcome = { code: err.code, message: err.message, err }),
  );
  return seen;
}

describe("attaching", () => {
  test("the first command attaches, once, however many ask at the same time", async () => {
    const [a, b] = await Promise.all([sessions.ensure(7), sessions.ensure(7)]);
    assert.equal(a, b);
    assert.deepEqual(calls, [["attach", 7, "1.3"]]);
    assert.deepEqual(sessions.attached(), [7]);
    assert.ok(sessions.has(7));
  });

  test("a tab that is not reins's, or that the user stopped, is refused before anything attaches", async () => {
    ownership.launched = false;
    await assert.rejects(async () => sessions.ensure(7), (err) => err instanceof Refusal && err.code === "tab_not_reins");
    ownership.launched = true;
    ownership.canceled(8);
    await assert.rejects(async () => sessions.ensure(8), (err) => err.code === "detached_by_user");
    assert.deepEqual(calls, []);
    assert.deepEqual(sessions.attached(), []);
  });

  test("a tab on a page reins does not drive is refused before anything attaches", async () => {
    pages.set(7, "chrome://settings/");
    await assert.rejects(sessions.ensure(7), (err) => err.code === "page_refused");
    assert.deepEqual(calls, []);
    assert.ok(!sessions.has(7));
  });

  test("a tab that moved to a refused page while reins attached is let go and refused", async () => {
    onAttach = () => pages.set(7, "chrome://settings/");
    await assert.rejects(sessions.ensure(7), (err) => err.code === "page_refused" && /chrome:\/\/settings/.test(err.message));
    assert.deepEqual(calls, [["attach", 7, "1.3"], ["detach", 7]]);
    assert.ok(!sessions.has(7));
  });

  test("a tab released while reins attached is not kept", async () => {
    onAttach = () => sessions.release(7, LET_GO.hostAsked());
    await assert.rejects(sessions.ensure(7), (err) => err.code === "page_refused" && /left while reins attached/.test(err.message));
    assert.ok(!sessions.has(7));
  });

  test("Chrome's refusal to attach is the answer, and nothing is kept", async () => {
    attachError = new Error("Cannot access a chrome-extension:// URL of different extension");
    await assert.rejects(sessions.ensure(7), /Cannot access/);
    assert.ok(!sessions.has(7));
  });
});

describe("a worker restart", () => {
  test("a tab still attached from the worker's earlier life is taken over", async () => {
    attachError = new Error("Another debugger is already attached to the tab with id: 7.");
    await sessions.ensure(7);
    assert.deepEqual(sessions.attached(), [7]);
  });

  test("at start, the tabs an earlier life left attached are let go, and only those", async () => {
    await sessions.dropStale();
    assert.deepEqual(calls, [["detach", 7]]);
  });
});

describe("release: every way a tab is let go", () => {
  test("a refused page: in-flight commands fail page_refused, Chrome lets go, the host is told once", async () => {
    const cmd = await inFlight(7);
    await sessions.release(7, LET_GO.pageRefused("tab 7 shows a page reins does not drive"));
    await settled();
    assert.deepEqual([cmd.outcome.code, cmd.outcome.message], ["page_refused", "tab detached: tab 7 shows a page reins does not drive"]);
    assert.deepEqual(calls, [["attach", 7, "1.3"], ["detach", 7]]);
    assert.deepEqual(posted, [{ type: "detached", tabId: 7, reason: "tab 7 shows a page reins does not drive", code: "page_refused" }]);
    assert.ok(!sessions.has(7));
    await sessions.release(7, LET_GO.pageRefused("again")); // no longer held: nothing more
    assert.equal(posted.length, 1);
  });

  test("in-flight commands answer at once, even while Chrome is slow to let go", async () => {
    const cmd = await inFlight(7);
    detachHangs = true;
    sessions.release(7, LET_GO.pageRefused("refused"));
    await settled();
    assert.equal(cmd.outcome.code, "page_refused");
    assert.deepEqual(calls.at(-1), ["detach", 7]);
  });

  test("the user took the tab back: tab_not_reins, Chrome lets go, the host is told", async () => {
    const cmd = await inFlight(7);
    await sessions.release(7, LET_GO.takenBack());
    await settled();
    assert.deepEqual([cmd.outcome.code, cmd.outcome.message], ["tab_not_reins", "tab detached: the user took the tab back"]);
    assert.deepEqual(calls.at(-1), ["detach", 7]);
    assert.deepEqual(posted, [{ type: "detached", tabId: 7, reason: "taken back by the user", code: "tab_not_reins" }]);
    await sessions.release(8, LET_GO.takenBack()); // never attached: the host hears nothing
    assert.equal(posted.length, 1);
  });

  test("the host asked: Chrome lets go, in-flight commands are Chrome's to answer, nothing is told", async () => {
    const cmd = await inFlight(7);
    await sessions.release(7, LET_GO.hostAsked());
    await settled();
    assert.equal(cmd.outcome, "pending");
    assert.deepEqual(calls.at(-1), ["detach", 7]);
    assert.deepEqual(posted, []);
    await sessions.release(8, LET_GO.hostAsked());
    assert.deepEqual(calls.at(-1), ["detach", 7]); // tab 8 was never attached
  });

  test("the host gone or the user pausing: every tab let go, in-flight commands fail target_closed", async () => {
    const seven = await inFlight(7);
    const eight = await inFlight(8);
    sessions.releaseAll(LET_GO.ended("host_disconnected"));
    assert.deepEqual(sessions.attached(), []); // forgotten at once
    await settled();
    assert.deepEqual([seven.outcome.code, seven.outcome.message], ["target_closed", "tab detached: host_disconnected"]);
    assert.equal(eight.outcome.code, "target_closed");
    assert.deepEqual(calls.filter((c) => c[0] === "detach").map((c) => c[1]).sort(), [7, 8]);
    assert.deepEqual(posted, []);
  });

  test("the tab closed: target_closed, nothing to detach, the host told tab_removed even for a tab never attached", async () => {
    const cmd = await inFlight(7);
    pages.delete(7);
    sessions.release(7, LET_GO.closed());
    assert.deepEqual(posted, [{ type: "tab_removed", tabId: 7 }]); // at once, not after a round trip
    await settled();
    assert.deepEqual([cmd.outcome.code, cmd.outcome.message], ["target_closed", "tab detached: tab closed"]);
    assert.ok(!calls.some((c) => c[0] === "detach"));
    await sessions.release(8, LET_GO.closed());
    assert.deepEqual(posted.at(-1), { type: "tab_removed", tabId: 8 });
  });

  test("after a release the next command attaches anew", async () => {
    await sessions.ensure(7);
    await sessions.release(7, LET_GO.pageRefused("refused"));
    await sessions.ensure(7);
    assert.deepEqual(calls, [["attach", 7, "1.3"], ["detach", 7], ["attach", 7, "1.3"]]);
  });
});

describe("Chrome detached the tab (onDetach)", () => {
  test("the user's Cancel: detached_by_user, the host told at once", async () => {
    const cmd = await inFlight(7);
    sessions.detached(7, "canceled_by_user");
    assert.ok(!sessions.has(7));
    assert.equal(posted.length, 1); // in the listener's own turn, as Chrome's other events wait
    await settled();
    assert.deepEqual([cmd.outcome.code, cmd.outcome.message], ["detached_by_user", "tab detached: canceled_by_user"]);
    assert.deepEqual(posted, [{ type: "detached", tabId: 7, reason: "canceled_by_user", code: "detached_by_user" }]);
    assert.ok(!calls.some((c) => c[0] === "detach")); // Chrome has already let go
  });

  test("the tab closed or replaced: target_closed; the session forgotten before the tab is asked about", async () => {
    const cmd = await inFlight(7);
    pages.delete(7);
    const done = sessions.detached(7, "target_closed");
    assert.ok(!sessions.has(7)); // the next command attaches anew
    assert.equal(cmd.outcome, "pending");
    await done;
    await settled();
    assert.equal(cmd.outcome.code, "target_closed");
    assert.deepEqual(posted, [{ type: "detached", tabId: 7, reason: "target_closed", code: "target_closed" }]);
  });

  test("the tab is still there on a page reins drives: target_closed", async () => {
    await inFlight(7);
    await sessions.detached(7, "target_closed");
    assert.equal(posted[0].code, "target_closed");
  });

  test("the tab went to a chrome:// page: a refusal, not a close", async () => {
    const cmd = await inFlight(7);
    pages.set(7, "chrome://settings/");
    await sessions.detached(7, "target_closed");
    await settled();
    assert.equal(cmd.outcome.code, "page_refused");
    assert.deepEqual(posted, [{ type: "detached", tabId: 7, reason: "target_closed", code: "page_refused" }]);
  });

  test("the host is told even of a tab reins held no session on", async () => {
    await sessions.detached(8, "canceled_by_user");
    assert.deepEqual(posted, [{ type: "detached", tabId: 8, reason: "canceled_by_user", code: "detached_by_user" }]);
  });
});

describe("a command Chrome answered 'Detached while handling command.'", () => {
  const detachedWhileHandling = () => new Error("Detached while handling command.");

  test("after the user's Cancel: detached_by_user, with what the user did", async () => {
    const cmd = await inFlight(7);
    answers[0].fail(detachedWhileHandling());
    reasons.record(7, "canceled_by_user"); // onDetach comes after Chrome's answer
    ownership.canceled(7);
    await settled();
    assert.equal(cmd.outcome.code, "detached_by_user");
    assert.match(cmd.outcome.message, /^Detached while handling command\. the user stopped reins on tab 7/);
  });

  test("the reason Chrome gives afterwards is what it answers, for a session reins already let go", async () => {
    sessions.detachReasonWaitMs = 5_000; // longer than the test: only the reason ends the wait
    const cmd = await inFlight(7);
    await sessions.release(7, LET_GO.hostAsked()); // in-flight commands are Chrome's to answer
    answers[0].fail(detachedWhileHandling());
    await settled();
    assert.equal(cmd.outcome, "pending");
    sessions.detached(7, "canceled_by_user");
    await settled();
    assert.equal(cmd.outcome.code, "detached_by_user");
  });

  test("on a tab the user already stopped: detached_by_user without waiting for the reason", async () => {
    const cmd = await inFlight(7);
    ownership.canceled(7);
    answers[0].fail(detachedWhileHandling());
    await settled();
    assert.equal(cmd.outcome.code, "detached_by_user");
  });

  test("the tab now on a refused page: page_refused", async () => {
    const cmd = await inFlight(7);
    pages.set(7, "chrome://settings/");
    answers[0].fail(detachedWhileHandling());
    await new Promise((resolve) => setTimeout(resolve, 40)); // no reason comes within the wait
    assert.equal(cmd.outcome.code, "page_refused");
  });

  test("otherwise Chrome's own error, and any other error as it is", async () => {
    const closed = await inFlight(7);
    const err = detachedWhileHandling();
    answers[0].fail(err);
    const other = await inFlight(7);
    const otherErr = new Error("Could not find node with given id");
    answers[1].fail(otherErr);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(closed.outcome.err, err);
    assert.equal(other.outcome.err, otherErr);
  });

  test("an answer goes back as Chrome gave it, and the command is no longer in flight", async () => {
    const cmd = await inFlight(7);
    answers[0].ok({ result: { value: 1 } });
    await settled();
    assert.deepEqual(cmd.outcome, { result: { result: { value: 1 } } });
    assert.equal((await sessions.ensure(7)).inflight.size, 0);
    await sessions.release(7, LET_GO.pageRefused("refused")); // nothing left to fail
    assert.deepEqual(cmd.outcome, { result: { result: { value: 1 } } });
  });
});

describe("events", () => {
  test("only the events the host subscribed to, only for tabs reins holds", async () => {
    (await sessions.ensure(7)).events = new Set(["Page.loadEventFired"]);
    assert.ok(sessions.subscribed(7, "Page.loadEventFired"));
    assert.ok(!sessions.subscribed(7, "Network.requestWillBeSent"));
    assert.ok(!sessions.subscribed(8, "Page.loadEventFired"));
    await sessions.release(7, LET_GO.hostAsked());
    assert.ok(!sessions.subscribed(7, "Page.loadEventFired"));
  });
});

describe("a command of the host's, through every door (command)", () => {
  // Answers each command Chrome was sent so far with {answered: method}, history with one entry.
  async function answerAll(history = { currentIndex: 0, entries: [{ id: 1, url: "https://example.com/" }] }) {
    for (let i = 0; i < 5; i++) {
      await settled();
      for (const a of answers.splice(0)) a.ok(a.method === "Page.getNavigationHistory" ? history : { answered: a.method });
    }
  }

  test("a method the allowlist refuses is refused before anything attaches", async () => {
    await assert.rejects(sessions.command(7, undefined, "Storage.getCookies", {}), (err) => err.code === "cdp_blocked");
    assert.deepEqual(calls, []);
  });

  test("an allowed command attaches, goes to the tab or its child session, and answers Chrome's result", async () => {
    const top = sessions.command(7, undefined, "Runtime.evaluate", { expression: "1" });
    const child = sessions.command(7, "S1", "DOM.getDocument", {});
    await answerAll();
    assert.deepEqual(await top, { answered: "Runtime.evaluate" });
    assert.deepEqual(await child, { answered: "DOM.getDocument" });
    assert.deepEqual(calls, [["attach", 7, "1.3"]]);
  });

  test("a navigating command on a tab that moved to a refused page lets the tab go and is refused", async () => {
    await sessions.ensure(7);
    pages.set(7, "chrome://settings/");
    await assert.rejects(sessions.command(7, undefined, "Page.reload", {}), (err) => err.code === "page_refused");
    assert.deepEqual(answers.map((a) => a.method), []);
    assert.ok(!sessions.has(7));
    assert.equal(posted[0].code, "page_refused");
  });

  test("a history entry is checked for its URL before the tab goes there", async () => {
    const refused = { currentIndex: 1, entries: [{ id: 3, url: "chrome://settings/" }, { id: 4, url: "https://example.com/" }] };
    const going = sessions.command(7, undefined, "Page.navigateToHistoryEntry", { entryId: 3 });
    const seen = assert.rejects(going, (err) => err.code === "page_refused");
    await answerAll(refused);
    await seen;
    assert.deepEqual(calls.filter((c) => c[0] === "attach").length, 1);
    const sent = [];
    const ok = sessions.command(7, undefined, "Page.navigateToHistoryEntry", { entryId: 4 });
    for (let i = 0; i < 5; i++) {
      await settled();
      for (const a of answers.splice(0)) (sent.push(a.method), a.ok(a.method === "Page.getNavigationHistory" ? refused : {}));
    }
    await ok;
    assert.deepEqual(sent, ["Page.getNavigationHistory", "Page.navigateToHistoryEntry"]);
  });
});

describe("a held tab navigating, and the user's switches changing", () => {
  test("updated: a held tab on a refused page is let go; a tab reins does not hold is left alone", async () => {
    await sessions.ensure(7);
    sessions.updated(7, { id: 7, url: "https://example.com/next" });
    assert.ok(sessions.has(7));
    sessions.updated(8, { id: 8, url: "chrome://settings/" });
    sessions.updated(7, { id: 7, url: "chrome://settings/" });
    await settled();
    assert.ok(!sessions.has(7));
    assert.deepEqual(posted.map((m) => [m.tabId, m.code]), [[7, "page_refused"]]);
  });

  test("recheck: a held file: tab is let go once the user switches file access off", async () => {
    let switches = { allowFile: true };
    sessions.switches = () => switches;
    pages.set(7, "file:///tmp/a.html");
    await sessions.ensure(7);
    await sessions.ensure(8);
    await sessions.recheck();
    assert.deepEqual(sessions.attached(), [7, 8]);
    switches = { allowFile: false };
    await sessions.recheck();
    assert.deepEqual(sessions.attached(), [8]);
  });
});

describe("event: Chrome's events of a session", () => {
  test("a paused page has the Debugger domain switched off at once, subscribed or not", async () => {
    sessions.event({ tabId: 7 }, "Debugger.paused", {});
    assert.deepEqual(answers.map((a) => [a.target.tabId, a.method]), [[7, "Debugger.disable"]]);
    assert.deepEqual(posted, []);
  });

  test("a paused page is not told to the host even when it subscribed", async () => {
    (await sessions.ensure(7)).events = new Set(["Debugger.paused"]);
    sessions.event({ tabId: 7 }, "Debugger.paused", { reason: "other", callFrames: [] });
    assert.deepEqual(posted, []);
  });

  test("a subscribed event goes to the host with the session it came from", async () => {
    (await sessions.ensure(7)).events = new Set(["Page.loadEventFired"]);
    sessions.event({ tabId: 7, sessionId: "S1" }, "Page.loadEventFired", { timestamp: 1 });
    sessions.event({ tabId: 7 }, "Page.frameNavigated", {});
    sessions.event({ tabId: 8 }, "Page.loadEventFired", {});
    assert.deepEqual(posted, [{ type: "event", tabId: 7, sessionId: "S1", method: "Page.loadEventFired", params: { timestamp: 1 } }]);
  });
});

describe("the page's console (console.js): Runtime turned on by the extension itself", () => {
  const created = (id, isDefault) => ({ context: { id, origin: "x", name: "", auxData: { isDefault, frameId: "F" } } });

  test("a console subscription turns Runtime on once; others do not", async () => {
    const first = sessions.subscribe(7, ["Log.entryAdded"]);
    await first;
    assert.deepEqual(answers.map((a) => a.method), []);
    const second = sessions.subscribe(7, ["Log.entryAdded", "Runtime.consoleAPICalled", "Runtime.exceptionThrown"]);
    await settled();
    assert.deepEqual(answers.map((a) => a.method), ["Runtime.enable"]);
    answers[0].ok({});
    await second;
    await sessions.subscribe(7, ["Runtime.consoleAPICalled"]);
    assert.deepEqual(answers.map((a) => a.method), ["Runtime.enable"]);
  });

  test("forwards a page world's error as text, never a context event or another world's message", async () => {
    const subscribed = sessions.subscribe(7, ["Runtime.consoleAPICalled", "Runtime.executionContextCreated"]);
    await settled();
    answers[0].ok({});
    await subscribed;
    sessions.event({ tabId: 7 }, "Runtime.executionContextCreated", created(1, true));
    sessions.event({ tabId: 7 }, "Runtime.executionContextCreated", created(2, false));
    const error = (executionContextId) => ({ type: "error", executionContextId, timestamp: 9, args: [{ type: "object", objectId: "o-1", description: "Error: x" }] });
    sessions.event({ tabId: 7 }, "Runtime.consoleAPICalled", error(2));
    sessions.event({ tabId: 7 }, "Runtime.consoleAPICalled", error(1));
    sessions.event({ tabId: 7, sessionId: "S1" }, "Runtime.consoleAPICalled", error(1)); // another session's context 1: unknown
    assert.deepEqual(posted, [{ type: "event", tabId: 7, sessionId: undefined, method: "Runtime.consoleAPICalled",
      params: { time: 9, level: "error", kind: "console", text: "Error: x", source: null, line: null } }]);
  });
});

describe("dialogsOpened: what a guarded press looks at (hitguard.js)", () => {
  test("counts the dialogs a held tab's pages opened, subscribed or not, and none for others", async () => {
    await sessions.ensure(7);
    assert.equal(sessions.dialogsOpened(7), 0);
    sessions.event({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "alert", message: "x" });
    sessions.event({ tabId: 7, sessionId: "S1" }, "Page.javascriptDialogOpening", { type: "confirm" });
    sessions.event({ tabId: 7 }, "Page.javascriptDialogClosed", {});
    sessions.event({ tabId: 8 }, "Page.javascriptDialogOpening", {});
    assert.equal(sessions.dialogsOpened(7), 2);
    assert.equal(sessions.dialogsOpened(8), 0);
  });
});

describe("a popup of a tab reins drives", () => {
  test("is armed as Chrome creates it: attached, Page on, its dialog events forwarded", async () => {
    await inFlight(7);
    answers.length = 0;
    calls.length = 0;
    pages.set(9, "https://example.com/popup");
    await sessions.armPopup({ id: 9, openerTabId: 7 });
    await settled();
    assert.deepEqual(calls, [["attach", 9, "1.3"]]);
    assert.deepEqual(answers.map((a) => [a.target.tabId, a.method]), [[9, "Page.enable"]]);
    assert.equal(sessions.subscribed(9, "Page.javascriptDialogOpening"), true);
    assert.equal(sessions.subscribed(9, "Page.javascriptDialogClosed"), true);
  });

  test("is left alone when reins is not attached to its opener, or may not drive it", async () => {
    pages.set(9, "https://example.com/popup");
    await sessions.armPopup({ id: 9, openerTabId: 8 }); // no session on 8
    await sessions.armPopup({ id: 9 }); // opened by nobody reins holds
    await inFlight(7);
    calls.length = 0;
    ownership.launched = false; // the user's own profile: tab 9 is the user's
    await sessions.armPopup({ id: 9, openerTabId: 7 });
    await settled();
    assert.deepEqual(calls, []);
    assert.equal(sessions.has(9), false);
  });
});

describe("pauseProbe: is the page paused by someone else?", () => {
  // Answers the next pending command with `method`, after `before` ran (events Chrome sends first).
  async function answer(method, before = () => {}) {
    await settled();
    const pending = answers.find((a) => a.method === method);
    assert.ok(pending, `${method} was sent`);
    answers.splice(answers.indexOf(pending), 1);
    before();
    pending.ok({});
    await settled();
  }

  test("a pause reported before the enable's answer is someone else's: paused, domain left to the event", async () => {
    const probed = sessions.pauseProbe(7);
    await answer("Debugger.enable", () => sessions.event({ tabId: 7 }, "Debugger.paused", { reason: "other" }));
    assert.deepEqual(await probed, { paused: true, reason: "other" });
    const sent = answers.map((a) => a.method);
    assert.deepEqual(sent, ["Debugger.disable"]); // the event's, once
  });

  test("no pause: not paused, and the domain goes off again at once", async () => {
    const probed = sessions.pauseProbe(7);
    await answer("Debugger.enable");
    await answer("Debugger.disable");
    assert.deepEqual(await probed, { paused: false, reason: null });
    assert.deepEqual(answers, []);
  });

  test("a pause after the enable's answer is reins's own (the page's debugger; statement)", async () => {
    const probed = sessions.pauseProbe(7);
    await answer("Debugger.enable");
    sessions.event({ tabId: 7 }, "Debugger.paused", { reason: "other" });
    const disables = answers.filter((a) => a.method === "Debugger.disable");
    for (const d of disables) d.ok({});
    answers.length = 0;
    assert.deepEqual(await probed, { paused: false, reason: null });
  });

  test("a child session's pause is not the page's", async () => {
    const probed = sessions.pauseProbe(7);
    await answer("Debugger.enable", () => sessions.event({ tabId: 7, sessionId: "S1" }, "Debugger.paused", {}));
    for (const a of answers.splice(0)) a.ok({});
    assert.deepEqual(await probed, { paused: false, reason: null });
  });

  test("only a tab reins may drive", async () => {
    await ownership.canceled(7);
    await assert.rejects(sessions.pauseProbe(7), (err) => err instanceof Refusal);
    assert.equal(answers.length, 0);
  });
});

describe("downloads: only what a reins tab began", () => {
  let items; // the browser's download list
  let removed;
  const downloadsApi = () => ({
    search: async (q) => items.filter((i) => (q.id === undefined || i.id === q.id) && (q.url === undefined || i.url === q.url)
      && (q.startedAfter === undefined || i.startTime > q.startedAfter)),
    cancel: async (id) => (items.find((i) => i.id === id).state = "interrupted"),
    removeFile: async (id) => (removed.push(id), (items.find((i) => i.id === id).exists = false)),
    erase: async ({ id }) => (items = items.filter((i) => i.id !== id)),
  });

  beforeEach(() => {
    removed = [];
    const now = new Date().toISOString();
    items = [
      { id: 1, url: "https://example.com/a.csv", filename: "/home/u/Downloads/a.csv", state: "complete", exists: true, startTime: "2020-01-01T00:00:00.000Z" },
      { id: 2, url: "https://example.com/a.csv", filename: "/home/u/Downloads/a (1).csv", state: "complete", exists: true, startTime: now, bytesReceived: 9, totalBytes: 9 },
    ];
    sessions.downloads = downloadsApi();
  });

  test("a URL the tab did not begin is refused: the user's own downloads stay unread", async () => {
    await sessions.ensure(7);
    await assert.rejects(sessions.findDownload(7, "https://example.com/a.csv"), (err) => err.code === "not_found");
    await assert.rejects(sessions.cancelDownload(7, "https://example.com/a.csv"), (err) => err.code === "not_found");
    assert.equal(items.length, 2);
  });

  test("the download the tab began, not the user's older one of the same URL", async () => {
    await sessions.ensure(7);
    sessions.event({ tabId: 7 }, "Page.downloadWillBegin", { url: "https://example.com/a.csv", guid: "g" });
    assert.deepEqual(await sessions.findDownload(7, "https://example.com/a.csv"), {
      filename: "/home/u/Downloads/a (1).csv", state: "complete", bytesReceived: 9, totalBytes: 9,
    });
    await assert.rejects(sessions.findDownload(8, "https://example.com/a.csv"), (err) => err.code === "not_found");
  });

  test("refused: one that ended has its file deleted, and only that one", async () => {
    await sessions.ensure(7);
    sessions.event({ tabId: 7 }, "Page.downloadWillBegin", { url: "https://example.com/a.csv", guid: "g" });
    assert.deepEqual(await sessions.cancelDownload(7, "https://example.com/a.csv"), { canceled: true });
    assert.deepEqual(removed, [2]);
    assert.deepEqual(items.map((i) => i.id), [1]);
  });

  test("refused: one still coming is cancelled", async () => {
    await sessions.ensure(7);
    items[1].state = "in_progress";
    sessions.event({ tabId: 7 }, "Page.downloadWillBegin", { url: "https://example.com/a.csv", guid: "g" });
    assert.deepEqual(await sessions.cancelDownload(7, "https://example.com/a.csv"), { canceled: true });
    assert.deepEqual(removed, []);
  });
});
