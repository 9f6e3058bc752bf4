// The sequential cdp_batch (extension/sequencer.js), under node's own test runner with a hand-built
// `send`: each command is a promise the test answers when it chooses, so the order in which
// commands go out, what waits for what, where the batch stops and what it answers are seen
// without a browser. The answer-within limit runs on node's mock clock.

import assert from "node:assert/strict";
import { afterEach, describe, mock, test } from "node:test";

import { answered, sequence } from "../../extension/sequencer.js";

// A CDP that answers only when the test says: sent[i].ok(result) / sent[i].fail(error).
function fakeCdp() {
  const sent = [];
  const send = (c) => new Promise((resolve, reject) => sent.push({ method: c.method, command: c, ok: resolve, fail: reject }));
  return { sent, send, methods: () => sent.map((s) => s.method) };
}

// A stand-in for errors.js's errorOf: the code and the message.
const errorOf = (err) => ({ code: err.code ?? "cdp_error", message: err.message });

// Lets every promise callback that can run, run (the sequencer's awaits, the fake's answers).
const settled = () => new Promise((resolve) => setImmediate(resolve));

// The batch's answer once it has one; "pending" while it has none.
function watch(promise) {
  const seen = { answer: "pending" };
  promise.then((answer) => (seen.answer = answer));
  return seen;
}

const cmd = (method, more = {}) => ({ method, params: {}, ...more });

describe("answered: one command's answer as the host reads it", () => {
  test("a result is {ok: true, result}, a failure {ok: false, error: errorOf(err)}", async () => {
    assert.deepEqual(await answered(Promise.resolve({ value: 1 }), errorOf), { ok: true, result: { value: 1 } });
    const err = Object.assign(new Error("No target with given id"), { code: "target_closed" });
    assert.deepEqual(await answered(Promise.reject(err), errorOf), {
      ok: false, error: { code: "target_closed", message: "No target with given id" },
    });
  });
});

describe("a sequential batch", () => {
  test("sends each command only after the previous one answered, and answers in order", async () => {
    const cdp = fakeCdp();
    const commands = [cmd("A"), cmd("B"), cmd("C")];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf }));
    await settled();
    assert.deepEqual(cdp.methods(), ["A"]);
    assert.equal(cdp.sent[0].command, commands[0]); // the command itself goes to send
    cdp.sent[0].ok({ a: 1 });
    await settled();
    assert.deepEqual(cdp.methods(), ["A", "B"]);
    cdp.sent[1].ok({ b: 2 });
    await settled();
    assert.deepEqual(cdp.methods(), ["A", "B", "C"]);
    assert.equal(batch.answer, "pending");
    cdp.sent[2].ok({});
    await settled();
    assert.deepEqual(batch.answer, [
      { ok: true, result: { a: 1 } }, { ok: true, result: { b: 2 } }, { ok: true, result: {} },
    ]);
  });

  test("an empty batch answers an empty list", async () => {
    assert.deepEqual(await sequence({ commands: [] }, { send: fakeCdp().send, errorOf }), []);
  });

  test("stops at the first failure: its answer is the last, the commands after it are not sent", async () => {
    const cdp = fakeCdp();
    const batch = watch(sequence({ commands: [cmd("A"), cmd("B"), cmd("C")] }, { send: cdp.send, errorOf }));
    await settled();
    cdp.sent[0].ok({});
    await settled();
    cdp.sent[1].fail(new Error("Node is detached from document"));
    await settled();
    assert.deepEqual(batch.answer, [
      { ok: true, result: {} },
      { ok: false, error: { code: "cdp_error", message: "Node is detached from document" } },
    ]);
    assert.deepEqual(cdp.methods(), ["A", "B"]);
  });

  test("noWait commands go out at once; their answers are awaited before the next command that waits", async () => {
    const cdp = fakeCdp();
    const commands = [cmd("move", { noWait: true }), cmd("press", { noWait: true }), cmd("release"), cmd("after")];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf }));
    await settled();
    assert.deepEqual(cdp.methods(), ["move", "press", "release"]);
    // Answered out of order: "after" waits for all three, and the answers keep the batch's order.
    cdp.sent[2].ok({ n: 3 });
    cdp.sent[1].ok({ n: 2 });
    await settled();
    assert.deepEqual(cdp.methods(), ["move", "press", "release"]);
    cdp.sent[0].ok({ n: 1 });
    await settled();
    assert.deepEqual(cdp.methods(), ["move", "press", "release", "after"]);
    cdp.sent[3].ok({ n: 4 });
    await settled();
    assert.deepEqual(batch.answer.map((a) => a.result.n), [1, 2, 3, 4]);
  });

  test("a failed noWait command cuts the batch at it, though the ones after it answered", async () => {
    const cdp = fakeCdp();
    const commands = [cmd("move", { noWait: true }), cmd("press", { noWait: true }), cmd("release"), cmd("after")];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf }));
    await settled();
    cdp.sent[0].fail(new Error("boom"));
    cdp.sent[1].ok({});
    cdp.sent[2].ok({});
    await settled();
    assert.deepEqual(batch.answer, [{ ok: false, error: { code: "cdp_error", message: "boom" } }]);
    assert.deepEqual(cdp.methods(), ["move", "press", "release"]);
  });

  test("noWait commands at the end are answered before the batch is, and cut at a failure", async () => {
    const cdp = fakeCdp();
    const commands = [cmd("A"), cmd("B", { noWait: true }), cmd("C", { noWait: true })];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf }));
    await settled();
    cdp.sent[0].ok({});
    await settled();
    assert.deepEqual(cdp.methods(), ["A", "B", "C"]);
    cdp.sent[1].fail(new Error("late failure"));
    await settled();
    assert.equal(batch.answer, "pending"); // C is still out
    cdp.sent[2].ok({});
    await settled();
    assert.deepEqual(batch.answer, [{ ok: true, result: {} }, { ok: false, error: { code: "cdp_error", message: "late failure" } }]);
  });
});

describe("stopIfThrown: a check the rest depends on", () => {
  const click = () => [
    cmd("Runtime.callFunctionOn", { stopIfThrown: true }),
    cmd("Input.dispatchMouseEvent", { noWait: true }),
    cmd("Input.dispatchMouseEvent"),
  ];

  test("the page threw: the batch ends with the check's answer, nothing after it is sent", async () => {
    const cdp = fakeCdp();
    const batch = watch(sequence({ commands: click() }, { send: cdp.send, errorOf }));
    await settled();
    const threw = { result: { type: "object" }, exceptionDetails: { text: "Uncaught" } };
    cdp.sent[0].ok(threw);
    await settled();
    assert.deepEqual(batch.answer, [{ ok: true, result: threw }]);
    assert.deepEqual(cdp.methods(), ["Runtime.callFunctionOn"]);
  });

  test("the page did not throw: the rest is sent", async () => {
    const cdp = fakeCdp();
    const batch = watch(sequence({ commands: click() }, { send: cdp.send, errorOf }));
    await settled();
    cdp.sent[0].ok({ result: { value: true } });
    await settled();
    assert.equal(cdp.sent.length, 3);
    cdp.sent[1].ok({});
    cdp.sent[2].ok({});
    await settled();
    assert.equal(batch.answer.length, 3);
  });

  test("without stopIfThrown a thrown page is an answer like any other: the batch goes on", async () => {
    const cdp = fakeCdp();
    const commands = [cmd("Runtime.evaluate"), cmd("B")];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf }));
    await settled();
    cdp.sent[0].ok({ exceptionDetails: { text: "Uncaught" } });
    await settled();
    assert.deepEqual(cdp.methods(), ["Runtime.evaluate", "B"]);
    cdp.sent[1].ok({});
    await settled();
    assert.equal(batch.answer.length, 2);
  });

  test("a check marked noWait still waits: what comes after it goes on its word", async () => {
    const cdp = fakeCdp();
    const commands = [cmd("Runtime.callFunctionOn", { stopIfThrown: true, noWait: true }), cmd("Input.dispatchMouseEvent")];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf }));
    await settled();
    assert.deepEqual(cdp.methods(), ["Runtime.callFunctionOn"]);
    cdp.sent[0].ok({ exceptionDetails: { text: "Uncaught" } });
    await settled();
    assert.equal(batch.answer.length, 1);
    assert.equal(cdp.sent.length, 1);
  });
});

describe("answerWithinMs: the time the host gave the batch", () => {
  afterEach(() => mock.timers.reset());
  const timeout = { ok: false, error: { code: "timeout", message: "no answer within the time the host gave the batch" } };

  test("past it, the answers so far and a timeout for the command still out; the rest is not sent", async () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    const cdp = fakeCdp();
    const batch = watch(sequence({ commands: [cmd("A"), cmd("B"), cmd("C")], answerWithinMs: 100 }, { send: cdp.send, errorOf }));
    await settled();
    mock.timers.tick(60);
    cdp.sent[0].ok({ a: 1 });
    await settled();
    assert.deepEqual(cdp.methods(), ["A", "B"]);
    // The limit counts from the batch's start (t=0), not from B's sending (t=60).
    mock.timers.tick(39);
    await settled();
    assert.equal(batch.answer, "pending");
    mock.timers.tick(1);
    await settled();
    assert.deepEqual(batch.answer, [{ ok: true, result: { a: 1 } }, timeout]);
    // B's late answer is dropped, and C never goes out.
    cdp.sent[1].ok({ b: 2 });
    await settled();
    assert.deepEqual(batch.answer, [{ ok: true, result: { a: 1 } }, timeout]);
    assert.deepEqual(cdp.methods(), ["A", "B"]);
  });

  test("noWait commands out at the deadline are one timeout, answered or not", async () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    const cdp = fakeCdp();
    const commands = [cmd("A"), cmd("move", { noWait: true }), cmd("release")];
    const batch = watch(sequence({ commands, answerWithinMs: 50 }, { send: cdp.send, errorOf }));
    await settled();
    cdp.sent[0].ok({});
    await settled();
    cdp.sent[1].ok({}); // answered, but "release" is not: the group has no answer in time
    mock.timers.tick(50);
    await settled();
    assert.deepEqual(batch.answer, [{ ok: true, result: {} }, timeout]);
  });

  test("answered in time, the batch answers in full", async () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    const cdp = fakeCdp();
    const batch = watch(sequence({ commands: [cmd("A"), cmd("B")], answerWithinMs: 100 }, { send: cdp.send, errorOf }));
    await settled();
    mock.timers.tick(50);
    cdp.sent[0].ok({});
    await settled();
    mock.timers.tick(49);
    cdp.sent[1].ok({});
    await settled();
    assert.deepEqual(batch.answer, [{ ok: true, result: {} }, { ok: true, result: {} }]);
  });

  for (const answerWithinMs of [undefined, 0, -5, "soon"]) {
    test(`without a positive limit (${answerWithinMs}) the batch waits as long as its commands take`, async () => {
      mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
      const cdp = fakeCdp();
      const batch = watch(sequence({ commands: [cmd("A")], answerWithinMs }, { send: cdp.send, errorOf }));
      await settled();
      mock.timers.tick(24 * 3600 * 1000);
      await settled();
      assert.equal(batch.answer, "pending");
      cdp.sent[0].ok({ a: 1 });
      await settled();
      assert.deepEqual(batch.answer, [{ ok: true, result: { a: 1 } }]);
    });
  }
});

describe("windowsNoted: no press before the user's windows are noted", () => {
  const press = (type) => cmd("Input.dispatchMouseEvent", { params: { type }, noWait: true });

  test("the commands before the first press run meanwhile; the press waits for the note", async () => {
    const cdp = fakeCdp();
    let noteTaken;
    const windowsNoted = new Promise((resolve) => (noteTaken = resolve));
    const commands = [cmd("Runtime.callFunctionOn", { stopIfThrown: true }), press("mouseMoved"), press("mousePressed"), cmd("Input.dispatchMouseEvent", { params: { type: "mouseReleased" } })];
    const batch = watch(sequence({ commands }, { send: cdp.send, errorOf, windowsNoted }));
    await settled();
    cdp.sent[0].ok({ result: { value: true } });
    await settled();
    assert.deepEqual(cdp.sent.map((s) => s.command.params.type), [undefined, "mouseMoved"]);
    noteTaken(null);
    await settled();
    assert.deepEqual(cdp.sent.map((s) => s.command.params.type), [undefined, "mouseMoved", "mousePressed", "mouseReleased"]);
    for (const s of cdp.sent.slice(1)) s.ok({});
    await settled();
    assert.equal(batch.answer.length, 4);
  });

  test("a batch that does not press never waits for the note", async () => {
    const cdp = fakeCdp();
    const never = new Promise(() => {});
    const batch = watch(sequence({ commands: [cmd("A"), press("mouseMoved")] }, { send: cdp.send, errorOf, windowsNoted: never }));
    await settled();
    cdp.sent[0].ok({});
    await settled();
    cdp.sent[1].ok({});
    await settled();
    assert.equal(batch.answer.length, 2);
  });
});
