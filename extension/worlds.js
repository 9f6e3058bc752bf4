// reins's own world: an isolated world the extension creates in each frame reins reads, where
// the page's built-ins, getters and globals are not the page's to replace (../shared/PLATFORM.md,
// "Isolated worlds"). No `chrome` inside: the caller hands in `send(method, params)` on the
// frame's session, so node's test runner drives it with a hand-built Chrome.
//
// The host asks for the world ({type: "world"}) and gets its executionContextId; a command may then
// name that context, and only that one (policy.js checkCommand, sessions.js command). An id is
// reins's only while three things hold: the extension made it itself, in this tab and this
// session (ids are per session, and restart at 1 in a new renderer process), and Chrome still
// answers the same id for the same frame and name now. The last is asked of Chrome right before
// the command goes (Page.createIsolatedWorld is get-or-create, 0.4 ms): after a reload or a
// navigation the id may name another world (a new process counts from 1 again), which is refused
// as "context gone" and the host asks again. `uniqueContextId` is never accepted: Chrome tells it
// only through Runtime.enable's events, which reins does not turn on (they hand out other
// extensions' worlds and make an agent visible to the page).
//
// The world's name is random per life of the service worker: a page cannot name a world at all,
// but another extension with `debugger` could create a world of a known name first and leave its
// own functions there for reins to call (same frame and name: the same world).

import { Refusal } from "./refusal.js";

export function worldName(randomValues = (a) => crypto.getRandomValues(a)) {
  const bytes = randomValues(new Uint8Array(16));
  return `reins-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

const sessionKey = (sessionId) => sessionId ?? "";

export class Worlds {
  constructor(name) {
    this.name = name;
    this.made = new Map(); // tabId -> sessionKey -> executionContextId -> frameId
    this.tops = new Map(); // "tabId/sessionKey" -> the session's top frame id
  }

  // reins's world in `frameId` (default: the session's top frame), made or found by Chrome.
  // The session's top frame is asked of Chrome once and kept (its id lives as long as the target).
  async make(tabId, sessionId, frameId, send) {
    const top = frameId === undefined || frameId === null;
    const key = `${tabId}/${sessionKey(sessionId)}`;
    if (top) frameId = this.tops.get(key) ?? (await send("Page.getFrameTree", {}))?.frameTree?.frame?.id;
    if (typeof frameId !== "string" || frameId === "") throw new Refusal("bad_request", "world: frameId must be a frame id string");
    let made;
    try {
      made = await send("Page.createIsolatedWorld", this.#params(frameId));
    } catch (err) {
      if (!top || !this.tops.has(key)) throw err;
      this.tops.delete(key); // a top frame kept from before: ask Chrome once more
      return this.make(tabId, sessionId, null, send);
    }
    if (top) this.tops.set(key, frameId);
    const { executionContextId } = made;
    if (!Number.isInteger(executionContextId)) throw new Refusal("cdp_error", "world: Chrome gave no execution context");
    this.#contexts(tabId, sessionId, true).set(executionContextId, frameId);
    return { executionContextId, frameId };
  }

  // Did the extension make this context for reins, in this tab and session? (The record only.)
  recorded(tabId, sessionId, contextId) {
    return Number.isInteger(contextId) && !!this.#contexts(tabId, sessionId)?.has(contextId);
  }

  // A recorded context that is still reins's world now, by Chrome's word; else it is forgotten
  // and the refusal says the document changed (the host asks for the world again).
  async confirm(tabId, sessionId, contextId, send) {
    const contexts = this.#contexts(tabId, sessionId);
    const frameId = contexts?.get(contextId);
    if (frameId === undefined) throw new Refusal("cdp_blocked", `execution context ${contextId} is not reins's own world in this tab`);
    const now = await send("Page.createIsolatedWorld", this.#params(frameId)).catch(() => null);
    if (this.#contexts(tabId, sessionId) !== contexts) contexts.clear(); // let go meanwhile
    if (now?.executionContextId === contextId && contexts.has(contextId)) return;
    contexts.delete(contextId);
    throw new Refusal("cdp_error", `execution context ${contextId}: reins's world there is gone (the document changed); ask for the world again`, {
      transient: true, chrome: "context_gone",
    });
  }

  forgetTab(tabId) {
    this.made.delete(tabId);
    for (const key of this.tops.keys()) if (key.startsWith(`${tabId}/`)) this.tops.delete(key);
  }

  forgetSession(tabId, sessionId) {
    this.made.get(tabId)?.delete(sessionKey(sessionId));
    this.tops.delete(`${tabId}/${sessionKey(sessionId)}`);
  }

  #params(frameId) {
    return { frameId, worldName: this.name, grantUniveralAccess: false };
  }

  #contexts(tabId, sessionId, create = false) {
    let bySession = this.made.get(tabId);
    if (!bySession && create) this.made.set(tabId, (bySession = new Map()));
    let contexts = bySession?.get(sessionKey(sessionId));
    if (!contexts && create) bySession.set(sessionKey(sessionId), (contexts = new Map()));
    return contexts;
  }
}
