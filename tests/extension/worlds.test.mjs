// reins's own world (extension/worlds.js through sessions.js) on a hand-built Chrome: the one
// execution context a command may name is the world the extension itself made for reins in that
// tab and session, while Chrome still says it is; every other explicit context stays refused and
// never reaches Chrome — an id the host merely sent, the page's, another extension's, another
// tab's or session's, one from before a navigation (even where Chrome reused the number) or from
// before the tab was let go.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { errorOf } from "../../extension/errors.js";
import { DetachReasons, Ownership } from "../../extension/ownership.js";
import { checkCommand, namedContext } from "../../extension/policy.js";
import { LET_GO, Sessions } from "../../extension/sessions.js";
import { worldName } from "../../extension/worlds.js";

const NAME = "reins-0123456789abcdef0123456789abcdef";
const OTHER_EXTENSION = 2; // a content-script world Chrome made in each new document, before reins's

let chrome; // the hand-built Chrome: one renderer per (tab, session), its contexts by id
let sent; // what reached Chrome: [target, method, params]
let sessions;

function memoryStore() {
  const data = {};
  return { get: async (keys) => Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]])), set: async (v) => Object.assign(data, v) };
}

// A renderer: ids count from 1 in each new document (as in a new process), the main world first,
// then another extension's world, then whatever createIsolatedWorld asks for (get-or-create).
function renderer(frameId) {
  return { frameId, next: 3, worlds: new Map([["<main>", 1], ["other-extension", OTHER_EXTENSION]]) };
}

class FakeChrome {
  constructor() {
    this.renderers = new Map([["7/", renderer("F7")], ["7/child", renderer("C7")], ["8/", renderer("F8")]]);
  }

  at(target) {
    return this.renderers.get(`${target.tabId}/${target.sessionId ?? ""}`);
  }

  // A navigation: a new document in a new process, ids from 1 again — so reins's old number may
  // now name another world.
  navigate(tabId, sessionId = "") {
    const r = this.renderers.get(`${tabId}/${sessionId}`);
    this.renderers.set(`${tabId}/${sessionId}`, renderer(r.frameId));
  }

  async sendCommand(target, method, params) {
    sent.push([target, method, params]);
    const r = this.at(target);
    if (!r) throw new Error("No target with given id found");
    if (method === "Page.getFrameTree") return { frameTree: { frame: { id: r.frameId } } };
    if (method === "Page.createIsolatedWorld") {
      if (params.frameId !== r.frameId) throw new Error("No frame for given id found");
      if (!r.worlds.has(params.worldName)) r.worlds.set(params.worldName, r.next++);
      return { executionContextId: r.worlds.get(params.worldName) };
    }
    const id = params.contextId ?? params.executionContextId;
    if (id !== undefined) {
      const world = [...r.worlds].find(([, v]) => v === id)?.[0];
      if (!world) throw new Error("Cannot find context with specified id");
      return { ranIn: world };
    }
    return { ranIn: "<main>" };
  }
}

beforeEach(() => {
  sent = [];
  chrome = new FakeChrome();
  const ownership = new Ownership(memoryStore());
  ownership.launched = true;
  sessions = new Sessions({
    debugger: {
      attach: async () => {},
      detach: async () => {},
      sendCommand: (target, method, params) => chrome.sendCommand(target, method, params),
      getTargets: async () => [],
    },
    tabs: { get: async (tabId) => ({ id: tabId, url: "https://example.com/" }) },
    switches: () => ({ allowFile: false }),
    ownership,
    detachReasons: new DetachReasons(),
    post: () => {},
    worldName: NAME,
  });
});

const evaluate = (tabId, contextId, sessionId) => sessions.command(tabId, sessionId, "Runtime.evaluate", { expression: "1", contextId });
const reached = (id) => sent.some(([, m, p]) => m !== "Page.createIsolatedWorld" && (p?.contextId === id || p?.executionContextId === id));

async function refused(promise, code) {
  const err = await promise.then(() => null, (e) => e);
  assert.ok(err, "the command was let through");
  assert.equal(errorOf(err).code, code, err.message);
  return errorOf(err);
}

describe("reins's own world", () => {
  test("is made in the session's top frame, under reins's name, without universal access", async () => {
    const world = await sessions.world(7);
    assert.deepEqual(world, { executionContextId: 3, frameId: "F7" });
    assert.deepEqual(sent.at(-1), [{ tabId: 7 }, "Page.createIsolatedWorld", { frameId: "F7", worldName: NAME, grantUniveralAccess: false }]);
    assert.deepEqual(await sessions.world(7, undefined, "F7"), world, "get-or-create: the same world again");
  });

  test("a context the extension made passes, in each method that takes one", async () => {
    const { executionContextId: id } = await sessions.world(7);
    assert.deepEqual(await evaluate(7, id), { ranIn: NAME });
    assert.deepEqual(await sessions.command(7, undefined, "Runtime.callFunctionOn", { functionDeclaration: "function () {}", executionContextId: id }), { ranIn: NAME });
    assert.deepEqual(await sessions.command(7, undefined, "DOM.resolveNode", { backendNodeId: 5, executionContextId: id }), { ranIn: NAME });
    // Chrome was asked right before each whether the number is still reins's world there.
    const asked = sent.map(([, m]) => m);
    assert.deepEqual(asked.slice(-2), ["Page.createIsolatedWorld", "DOM.resolveNode"]);
  });

  test("an id that merely came in a request is refused and never reaches Chrome", async () => {
    await sessions.world(7);
    for (const id of [1, OTHER_EXTENSION, 4, 99]) {
      const error = await refused(evaluate(7, id), "cdp_blocked");
      assert.match(error.message, /contextId is refused/);
      await refused(sessions.command(7, undefined, "DOM.resolveNode", { backendNodeId: 5, executionContextId: id }), "cdp_blocked");
      assert.equal(reached(id), false, `context ${id} reached Chrome`);
    }
  });

  test("uniqueContextId is never accepted, not even next to reins's own id", async () => {
    const { executionContextId: id } = await sessions.world(7);
    await refused(sessions.command(7, undefined, "Runtime.evaluate", { expression: "1", uniqueContextId: "1.2" }), "cdp_blocked");
    await refused(sessions.command(7, undefined, "Runtime.evaluate", { expression: "1", contextId: id, uniqueContextId: "1.2" }), "cdp_blocked");
    await refused(sessions.command(7, undefined, "Runtime.callFunctionOn", { functionDeclaration: "f", executionContextId: id, uniqueContextId: "1.2" }), "cdp_blocked");
    assert.equal(sent.filter(([, m]) => m.startsWith("Runtime.")).length, 0);
  });

  test("the id as another type is refused", async () => {
    const { executionContextId: id } = await sessions.world(7);
    await refused(evaluate(7, String(id)), "cdp_blocked");
    await refused(sessions.command(7, undefined, "Runtime.evaluate", { expression: "1", contextId: id + 0.5 }), "cdp_blocked");
  });

  test("after the tab navigates, the old id is refused even where Chrome reused the number", async () => {
    const { executionContextId: old } = await sessions.world(7);
    chrome.navigate(7);
    // In the new document a third extension's world took the number; reins's world comes after.
    const now = chrome.at({ tabId: 7 });
    now.worlds.set("third-extension", old);
    now.next = old + 1;
    const error = await refused(evaluate(7, old), "cdp_error");
    assert.equal(error.chrome, "context_gone");
    assert.equal(error.transient, true);
    assert.ok(!sent.some(([, m, p]) => m === "Runtime.evaluate"), "the evaluate reached Chrome");
    // Forgotten: the same number is refused as never made, without asking Chrome again.
    await refused(evaluate(7, old), "cdp_blocked");
    const fresh = await sessions.world(7);
    assert.notEqual(fresh.executionContextId, old);
    assert.deepEqual(await evaluate(7, fresh.executionContextId), { ranIn: NAME });
  });

  test("after the session is let go, its ids are refused", async () => {
    const { executionContextId: id } = await sessions.world(7);
    await sessions.release(7, LET_GO.hostAsked());
    await refused(evaluate(7, id), "cdp_blocked");
    await sessions.world(7);
    await sessions.detached(7, "target_closed");
    await refused(evaluate(7, id), "cdp_blocked");
    assert.equal(reached(id), false);
  });

  test("other tabs' and other sessions' ids are refused", async () => {
    const { executionContextId: in8 } = await sessions.world(8);
    const { executionContextId: inChild } = await sessions.world(7, "child");
    await sessions.world(7);
    const before = sent.length;
    await refused(evaluate(7, in8 + 10), "cdp_blocked");
    // The same number made for tab 8 is no licence in tab 7, nor the child's in the tab session.
    await refused(sessions.command(7, "child", "Runtime.evaluate", { expression: "1", contextId: 99 }), "cdp_blocked");
    assert.equal(in8, 3);
    assert.equal(inChild, 3);
    chrome.at({ tabId: 7 }).worlds.delete(NAME); // tab 7's top frame: no reins world of number 3 now
    sessions.worlds.forgetSession(7); // ...and the extension never made one there
    await refused(evaluate(7, 3), "cdp_blocked");
    assert.equal(sent.slice(before).filter(([, m]) => m === "Runtime.evaluate").length, 0);
    assert.deepEqual(await evaluate(8, in8), { ranIn: NAME });
    assert.deepEqual(await sessions.command(7, "child", "Runtime.evaluate", { expression: "1", contextId: inChild }), { ranIn: NAME });
  });

  test("a child session's ids go with the session", async () => {
    const { executionContextId: id } = await sessions.world(7, "child");
    sessions.event({ tabId: 7 }, "Target.detachedFromTarget", { sessionId: "child" });
    await refused(sessions.command(7, "child", "Runtime.evaluate", { expression: "1", contextId: id }), "cdp_blocked");
  });

  test("a frame the session does not have gets no world", async () => {
    await assert.rejects(sessions.world(7, undefined, "not-a-frame"), /No frame/);
    await assert.rejects(sessions.world(7, undefined, 5), (err) => errorOf(err).code === "bad_request");
  });

  test('contextId "reins": the extension puts in reins\'s world of the session\'s top frame', async () => {
    assert.deepEqual(await evaluate(7, "reins"), { ranIn: NAME });
    assert.deepEqual(await evaluate(7, "reins", "child"), { ranIn: NAME });
    const ran = sent.filter(([, m]) => m === "Runtime.evaluate").map(([t, , p]) => [t.sessionId ?? "", p.contextId]);
    assert.deepEqual(ran, [["", 3], ["child", 3]], "Chrome got the number of reins's world, never the word");
    // The top frame is asked of Chrome once per session, then kept.
    await evaluate(7, "reins");
    assert.equal(sent.filter(([t, m]) => m === "Page.getFrameTree" && t.sessionId === undefined).length, 1);
    // A new document (ids from 1 again, another world on reins's old number): still reins's.
    chrome.navigate(7);
    const now = chrome.at({ tabId: 7 });
    now.worlds.set("third-extension", 3);
    now.next = 4;
    assert.deepEqual(await evaluate(7, "reins"), { ranIn: NAME });
    // A top frame that went away (a kept id Chrome no longer knows): asked again, once.
    chrome.renderers.set("7/", renderer("F7b"));
    assert.deepEqual(await evaluate(7, "reins"), { ranIn: NAME });
  });

  test('"reins" is a word for Runtime.evaluate and DOM.resolveNode only; other words are refused', async () => {
    await refused(evaluate(7, "other"), "cdp_blocked");
    await refused(sessions.command(7, undefined, "Runtime.callFunctionOn", { functionDeclaration: "f", executionContextId: "reins" }), "cdp_blocked");
    await refused(sessions.command(7, undefined, "Runtime.evaluate", { expression: "1", contextId: "reins", uniqueContextId: "1.2" }), "cdp_blocked");
    assert.equal(sent.filter(([, m]) => m.startsWith("Runtime.") || m === "DOM.resolveNode").length, 0);
    // DOM.resolveNode takes the word as executionContextId: a node handed into reins's world.
    assert.deepEqual(await sessions.command(7, undefined, "DOM.resolveNode", { backendNodeId: 5, executionContextId: "reins" }), { ranIn: NAME });
  });

  test("only a tab that is reins's gets a world", async () => {
    sessions.ownership.launched = false;
    await assert.rejects(sessions.world(7), (err) => errorOf(err).code === "tab_not_reins");
    assert.equal(sent.length, 0);
  });
});

describe("the world's name and the policy's part", () => {
  test("the name is random per worker life, not a constant another extension could make first", () => {
    const a = worldName();
    const b = worldName();
    assert.match(a, /^reins-[0-9a-f]{32}$/);
    assert.notEqual(a, b);
  });

  test("checkCommand lets through only the context it is told is reins's, by that parameter", () => {
    const own = { param: "contextId", id: 3 };
    assert.equal(checkCommand("Runtime.evaluate", { expression: "1", contextId: 3 }, undefined, own).ok, true);
    assert.equal(checkCommand("Runtime.evaluate", { expression: "1", contextId: 4 }, undefined, own).ok, false);
    assert.equal(checkCommand("Runtime.evaluate", { expression: "1", contextId: 3 }).ok, false);
    assert.equal(checkCommand("Runtime.callFunctionOn", { functionDeclaration: "f", executionContextId: 3 }, undefined, own).ok, false);
    assert.equal(checkCommand("Runtime.evaluate", { expression: "1", uniqueContextId: 3 }, undefined, { param: "uniqueContextId", id: 3 }).ok, false);
    assert.deepEqual(namedContext("Runtime.evaluate", { contextId: 3 }), own);
    assert.equal(namedContext("Runtime.evaluate", { uniqueContextId: "1.2" }), null);
    assert.equal(namedContext("Runtime.evaluate", { contextId: "3" }), null);
    assert.equal(namedContext("Page.navigate", { contextId: 3 }), null);
  });
});
