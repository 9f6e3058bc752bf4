// A person in the loop (`reins handoff TEXT`): the agent asks the person to do one step in reins's
// tab that only a person can do — sign in with SSO, a second factor, a CAPTCHA, an approval. The
// tab comes to the front (tabs.js activate: reins's tabs only), the toolbar button's badge on that
// tab says "?", the popup opens (where Chrome lets it: the window in front) and shows the request
// with Done and Cancel; the person reopens it from the toolbar. The host's request is answered
// when the person presses one, when its time is up, when the tab closes or the host goes:
// {outcome, ms}. Nothing of what the person typed or saw passes through here: only which
// button, and when.
//
// No `chrome` inside: the worker hands in chrome.action (or a fake with its promise API), so
// node's test runner drives it (tests/extension/handoff.test.mjs).

export const BADGE = "?";
const BADGE_COLOR = "#9a6700";
// What the popup shows of the agent's words: one short sentence (its own text, never markup).
export const TEXT_MAX = 300;

export class Handoffs {
  // action: chrome.action; setTimeout/clearTimeout/now: the clock; warn: console.warn.
  constructor({ action, setTimeout, clearTimeout, now = Date.now, warn = () => {} }) {
    // Called unbound (the worker's own timers throw "Illegal invocation" called on this object).
    this.startTimer = (fn, ms) => setTimeout(fn, ms);
    this.stopTimer = (id) => clearTimeout(id);
    Object.assign(this, { action, now, warn });
    this.pending = new Map(); // tabId -> {text, since, resolve, timer}
  }

  // Ask the person; the promise settles with {outcome: "done" | "cancelled" | "timeout" |
  // "tab_closed" | "host_gone" | "replaced", ms}. A second request on the same tab replaces the first.
  ask(tabId, text, timeoutMs) {
    this.finish(tabId, "replaced");
    return new Promise((resolve) => {
      const entry = { text: String(text ?? "").slice(0, TEXT_MAX), since: this.now(), resolve };
      entry.timer = this.startTimer(() => this.finish(tabId, "timeout"), Math.max(0, timeoutMs));
      this.pending.set(tabId, entry);
      this.#badge(tabId, BADGE);
      Promise.resolve(this.action.openPopup?.()).catch(() => {}); // only where Chrome allows it now
    });
  }

  // The person pressed Done or Cancel (or the request ended otherwise): false when none was open.
  finish(tabId, outcome) {
    const entry = this.pending.get(tabId);
    if (!entry) return false;
    this.pending.delete(tabId);
    this.stopTimer(entry.timer);
    this.#badge(tabId, null);
    entry.resolve({ outcome, ms: this.now() - entry.since });
    return true;
  }

  endAll(outcome) {
    for (const tabId of [...this.pending.keys()]) this.finish(tabId, outcome);
  }

  // What the popup shows: the open requests, oldest first.
  list() {
    return [...this.pending].map(([tabId, e]) => ({ tabId, text: e.text, since: e.since }));
  }

  // null gives the tab back the button's own badge (the connection's).
  #badge(tabId, text) {
    Promise.resolve()
      .then(() => this.action.setBadgeText({ tabId, text }))
      .then(() => text && this.action.setBadgeBackgroundColor({ tabId, color: BADGE_COLOR }))
      .catch((err) => this.warn("reins: badge not set", err));
  }
}
