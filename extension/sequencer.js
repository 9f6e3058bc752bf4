// A sequential cdp_batch: its commands in order, each after the previous answered, stopping at the
// first failure. Pure: the service worker hands it `send` (one CDP command of the batch, a promise
// of its result) and `errorOf` (the {code, message} a failure answers); nothing here touches
// `chrome`, so node's test runner drives it with hand-built fakes (tests/extension/sequencer.test.mjs).
//
// A command marked `noWait` (input events) lets the next one go without waiting for its answer:
// Chrome keeps input events in their order, and the answers are awaited before the next command
// that waits. Sent in call order: `send` is called in the batch's order, and every call takes the
// same awaits before chrome.debugger.sendCommand (Sessions.command in sessions.js).
// `answerWithinMs`: past it, the answers so far and a timeout for the command still running (its
// late answer is dropped), so the host learns which of the commands were answered.
// `stopIfThrown` (a Runtime.evaluate or callFunctionOn): when the page threw, the batch ends with
// that answer (an extension that does this says so in hello: FEATURES in background.js).
// `windowsNoted` (userfocus.js): awaited before the first press is sent (the commands before it
// run meanwhile).
// `fill` and `onlyIf` (hitguard.js): a command's parameters taken from an earlier answer, and the
// conditions it is sent under (the answers before it all in): the batch ends before a command
// whose conditions do not hold, with the answer `heldBack` says. `dialogs` (optional): how many
// JavaScript dialogs the tab has opened so far.

import { filled, guardRefuses, heldBack } from "./hitguard.js";
import { presses } from "./userfocus.js";

// One command's answer as the host reads it: {ok: true, result} or {ok: false, error}.
export function answered(sent, errorOf) {
  return sent.then(
    (result) => ({ ok: true, result }),
    (err) => ({ ok: false, error: errorOf(err) }),
  );
}

export async function sequence({ commands, answerWithinMs }, { send, errorOf, windowsNoted = null, dialogs = () => 0 }) {
  const out = [];
  const dialogsBefore = dialogs();
  let inFlight = [];
  let noted = windowsNoted;
  const limit = Number(answerWithinMs) > 0 ? Date.now() + Number(answerWithinMs) : null;
  const settle = async () => {
    const all = Promise.all(inFlight);
    inFlight = [];
    if (limit === null) return all;
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), Math.max(0, limit - Date.now()));
    });
    const answers = await Promise.race([all, late]);
    clearTimeout(timer);
    return answers ?? [{ ok: false, error: { code: "timeout", message: "no answer within the time the host gave the batch" } }];
  };
  for (const given of commands) {
    let c = given;
    if (given.fill || given.onlyIf) {
      out.push(...(await settle()));
      if (out.some((a) => !a.ok)) return out.slice(0, out.findIndex((a) => !a.ok) + 1);
      const why = guardRefuses(given.onlyIf, out, dialogs() - dialogsBefore);
      if (why !== null) return [...out, heldBack(why)];
      try {
        c = filled(given, out);
      } catch (err) {
        return [...out, { ok: false, error: errorOf(err) }];
      }
    }
    if (noted !== null && presses(c)) {
      await noted;
      noted = null;
    }
    inFlight.push(answered(send(c), errorOf));
    if (c.noWait && !c.stopIfThrown) continue;
    out.push(...(await settle()));
    const failed = out.findIndex((a) => !a.ok);
    if (failed >= 0) return out.slice(0, failed + 1);
    // A check the rest depends on: the page threw (a Runtime answer with exceptionDetails), so
    // the commands after it (input given on that check's word) are not sent.
    if (c.stopIfThrown && out[out.length - 1].result?.exceptionDetails) return out;
  }
  out.push(...(await settle()));
  const failed = out.findIndex((a) => !a.ok);
  return failed >= 0 ? out.slice(0, failed + 1) : out;
}
