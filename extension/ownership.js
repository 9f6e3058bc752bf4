// Which tabs reins may drive, and what the user's Cancel means. No chrome.* calls here: the
// service worker passes in where the sets are kept (chrome.storage.session), and
// tests/extension/ runs this under node.
//
// In the user's own browser reins drives only its own tabs: those it opened (`reins tab new`) and
// those handed over (the popup's "Let reins use this tab", or `reins tab select ID`). A tab that a
// page opens is not among them: Chrome's openerTabId names the tab that was active then, not the
// page that opened it, so it cannot tell an agent's link from the user's. In a browser `reins launch` started (the host says so in host_hello) every
// tab is reins's. In both, a tab the user stopped reins on (Cancel on the "started debugging this
// browser" bar) stays refused until the user hands it back in the popup; the agent cannot.
//
// The sets live in chrome.storage.session: they survive a restart of this worker and end with the
// browser session, like the tab ids in them.

const OWNED_KEY = "reinsTabs";
const STOPPED_KEY = "stoppedTabs";

export class Ownership {
  /** store: {get(keys) -> Promise<object>, set(object) -> Promise} (chrome.storage.session). */
  constructor(store) {
    this.store = store;
    this.launched = false;
    this.owned = new Set();
    this.stopped = new Set();
    this.loaded = Promise.resolve();
  }

  load() {
    this.loaded = this.store.get([OWNED_KEY, STOPPED_KEY]).then((saved) => {
      // Merged, not replaced: what happened while loading is kept.
      for (const id of saved[OWNED_KEY] ?? []) this.owned.add(id);
      for (const id of saved[STOPPED_KEY] ?? []) this.stopped.add(id);
    });
    return this.loaded;
  }

  /** May reins drive this tab? {ok: true} or {ok: false, code, message}; the host adds the next
   * step for the code. */
  check(tabId) {
    if (this.stopped.has(tabId)) {
      return { ok: false, code: "detached_by_user", message: `the user stopped reins on tab ${tabId} (Cancel on the debugging bar)` };
    }
    if (this.launched || this.owned.has(tabId)) return { ok: true };
    return { ok: false, code: "tab_not_reins", message: `tab ${tabId} is the user's, not reins's` };
  }

  isReins(tabId) {
    return this.check(tabId).ok;
  }

  /** The agent opened the tab. */
  opened(tabId) {
    this.owned.add(tabId);
    return this.save();
  }

  /** The agent asks for the tab (`reins tab select`): refused when the user stopped reins there. */
  take(tabId) {
    if (this.stopped.has(tabId)) return this.check(tabId);
    this.owned.add(tabId);
    this.save();
    return { ok: true };
  }

  /** The user hands the tab over in the popup: this also undoes their Cancel. */
  handOver(tabId) {
    this.stopped.delete(tabId);
    this.owned.add(tabId);
    return this.save();
  }

  /** The user takes the tab back in the popup. */
  takeBack(tabId) {
    this.owned.delete(tabId);
    return this.save();
  }

  /** The user pressed Cancel while reins was attached to the tab. Synchronous on purpose: a
   * command that failed an instant earlier asks `stopped` right after. */
  canceled(tabId) {
    this.stopped.add(tabId);
    this.owned.delete(tabId);
    return this.save();
  }

  closed(tabId) {
    const wasOwned = this.owned.delete(tabId);
    const wasStopped = this.stopped.delete(tabId);
    return wasOwned || wasStopped ? this.save() : Promise.resolve();
  }

  // After loading: a save before it would overwrite what an earlier life of the worker kept.
  save() {
    return this.loaded
      .then(() => this.store.set({ [OWNED_KEY]: [...this.owned], [STOPPED_KEY]: [...this.stopped] }))
      .catch(() => {});
  }
}

// Chrome answers a command in flight with "Detached while handling command." before
// chrome.debugger.onDetach says why. Whoever got that answer asks here, and waits a moment for
// the reason.
export class DetachReasons {
  constructor({ keepMs = 2000 } = {}) {
    this.keepMs = keepMs;
    this.recent = new Map(); // tabId -> {reason, at}
    this.waiting = new Map(); // tabId -> Set<resolve>
  }

  record(tabId, reason, now = Date.now()) {
    for (const [id, seen] of this.recent) if (now - seen.at > this.keepMs) this.recent.delete(id);
    this.recent.set(tabId, { reason, at: now });
    for (const resolve of this.waiting.get(tabId) ?? []) resolve(reason);
    this.waiting.delete(tabId);
  }

  /** The reason the tab was detached: one seen in the last moments, or the next within waitMs;
   * null if none comes. */
  wait(tabId, waitMs, now = Date.now()) {
    const seen = this.recent.get(tabId);
    if (seen && now - seen.at <= this.keepMs) return Promise.resolve(seen.reason);
    return new Promise((resolve) => {
      const waiters = this.waiting.get(tabId) ?? new Set();
      this.waiting.set(tabId, waiters);
      const done = (reason) => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve(reason);
      };
      const timer = setTimeout(() => done(null), waitMs);
      waiters.add(done);
    });
  }
}
