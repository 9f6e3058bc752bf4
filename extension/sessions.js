// The debugger sessions: which tabs reins is attached to, the commands in flight on each, and the
// one way a tab is let go (release). No `chrome` inside: the service worker hands in
// chrome.debugger and chrome.tabs (or anything with their promise API), so node's test runner
// drives it with hand-built fakes (tests/extension/sessions.test.mjs).
//
// Attaching is lazy, per tab, on the first command; a tab on a page reins may not attach to is
// refused before and after the attach (it may have moved meanwhile). Every way a tab is let go
// goes through release(tabId, why), with a `why` from LET_GO: the host asked, the host went away
// or the user paused, the tab moved to a refused page, Chrome detached it (the user's Cancel, the
// tab closing or replaced), the tab was closed, the user took it back.

import { Budget, CONSOLE_EVENTS, consoleEvent, noteContext } from "./console.js";
import { checkCommand, checkHistoryEntry, checkTab, eventParams, namedContext, NAVIGATING_METHODS, OWN_WORLD, BY_WORD } from "./policy.js";
import { enforce, Refusal } from "./refusal.js";
import { Worlds } from "./worlds.js";

// How long a command answered "Detached while handling command." waits for onDetach's reason.
const DETACH_REASON_WAIT_MS = 500;

// Each way a tab is let go: the code and reason its in-flight commands fail with (none: Chrome
// answers them), whether reins still holds the tab in Chrome (then it detaches), and what the host
// is told (`always`: even when reins held no session on the tab).
export const LET_GO = {
  hostAsked: () => ({ code: null, detach: true, tell: null }),
  ended: (reason) => ({ code: "target_closed", reason, detach: true, tell: null }),
  pageRefused: (message) => ({
    code: "page_refused", reason: message, detach: true, tell: { type: "detached", reason: message, code: "page_refused" },
  }),
  takenBack: () => ({
    code: "tab_not_reins", reason: "the user took the tab back", detach: true,
    tell: { type: "detached", reason: "taken back by the user", code: "tab_not_reins" },
  }),
  detachedByChrome: (reason, code) => ({ code, reason, detach: false, tell: { type: "detached", reason, code }, always: true }),
  closed: () => ({ code: "target_closed", reason: "tab closed", detach: false, tell: { type: "tab_removed" }, always: true }),
};

// The URLs of downloads a held tab's page began that the host may ask about (the newest kept).
const MAX_BEGUN = 50;
// How much earlier than the event Chrome may date the download it reports.
const BEGUN_SLACK_MS = 2000;

export class Sessions {
  // debugger: {attach, detach, sendCommand, getTargets}; tabs: {get}; switches(): the user's
  // switches in the popup, as policy.js reads them; ownership: Ownership; detachReasons:
  // DetachReasons; post(message): to the host; worldName: of reins's own world (worlds.js).
  constructor({ debugger: dbg, tabs, switches, ownership, detachReasons, post, worldName, downloads, detachReasonWaitMs = DETACH_REASON_WAIT_MS }) {
    this.dbg = dbg;
    this.downloads = downloads; // chrome.downloads
    this.tabs = tabs;
    this.switches = switches;
    this.ownership = ownership;
    this.detachReasons = detachReasons;
    this.post = post;
    this.detachReasonWaitMs = detachReasonWaitMs;
    this.held = new Map(); // tabId -> {ready: Promise (the attach), events: Set<string>, inflight: Set<reject>, probes: Set}
    this.worlds = new Worlds(worldName);
  }

  // May reins attach to the page the tab shows, with the user's switches as they are now?
  verdict(tab) {
    return checkTab(tab, this.switches());
  }

  attached() {
    return [...this.held.keys()];
  }

  has(tabId) {
    return this.held.has(tabId);
  }

  // Does the host want this event of this tab?
  subscribed(tabId, method) {
    return !!this.held.get(tabId)?.events.has(method);
  }

  ensure(tabId) {
    enforce(this.ownership.check(tabId));
    let state = this.held.get(tabId);
    if (!state) {
      state = { events: new Set(), inflight: new Set(), probes: new Set(), begun: [], contexts: new Map(), budget: new Budget() };
      state.ready = this.#attach(tabId, state);
      this.held.set(tabId, state);
    }
    return state.ready.then(() => state);
  }

  // The events the host wants of a tab. One of CONSOLE_EVENTS has the extension turn Runtime on
  // in the tab's top session, once per attachment (console.js: only those two events are ever
  // forwarded, from the page's own worlds, as text).
  async subscribe(tabId, events) {
    const state = await this.ensure(tabId);
    state.events = new Set(events);
    if (!state.runtimeOn && events.some((e) => CONSOLE_EVENTS.includes(e))) {
      state.runtimeOn = true;
      await this.send(state, { tabId }, "Runtime.enable", {}).catch((err) => {
        state.runtimeOn = false;
        throw err;
      });
    }
    return { tabId, events };
  }

  // A page reins drives may open a tab and show a dialog in it at once (window.open, then alert;
  // a javascript: popup). Chrome reports a dialog only to a session that had Page on when it
  // opened, and the popup's thread (often its opener's too) then waits for it: so a popup of a tab
  // reins is attached to is armed as Chrome creates it, before its page runs, and its dialog
  // reaches the host like any tab's. Only a tab reins may drive.
  async armPopup(tab) {
    if (!this.has(tab.openerTabId) || !this.ownership.isReins(tab.id)) return;
    const state = await this.ensure(tab.id).catch(() => null);
    if (!state) return;
    for (const method of ["Page.javascriptDialogOpening", "Page.javascriptDialogClosed"]) state.events.add(method);
    this.send(state, { tabId: tab.id }, "Page.enable", {}).catch(() => {});
  }

  async #attach(tabId, state) {
    const forget = () => this.held.get(tabId) === state && this.held.delete(tabId);
    try {
      enforce(this.verdict(await this.tabs.get(tabId)));
      await this.dbg.attach({ tabId }, "1.3").catch((err) => {
        // Attached by an earlier life of this worker: take it over.
        if (!/already attached/i.test(String(err?.message))) throw err;
      });
      // The tab may have moved while attaching; onUpdated only watches tabs already held.
      const now = this.verdict(await this.tabs.get(tabId));
      if (!now.ok || this.held.get(tabId) !== state) {
        await this.dbg.detach({ tabId }).catch(() => {});
        throw new Refusal("page_refused", now.message ?? `tab ${tabId} left while reins attached`);
      }
    } catch (err) {
      forget();
      throw err;
    }
  }

  // One CDP command of the host's, through every door: the method and its parameters
  // (allowlist.js, policy.js), the tab's owner, the attach; a navigating command also has the tab's
  // page checked first (a tab on a refused page is let go, so the command cannot lead it anywhere)
  // and a history entry its URL.
  // A command may name one execution context: reins's own world, as this extension made it in
  // this tab and session and as Chrome confirms it right before the command (worlds.js); or, for
  // Runtime.evaluate and DOM.resolveNode, the word "reins" (policy.js OWN_WORLD), which the
  // extension replaces by reins's world in the session's top frame, found or made now (reins's
  // page scripts run there).
  async command(tabId, sessionId, method, params) {
    const named = namedContext(method, params);
    const ownWorld = named && this.worlds.recorded(tabId, sessionId, named.id) ? named : null;
    const verdict = enforce(checkCommand(method, params, this.switches(), ownWorld));
    enforce(this.ownership.check(tabId));
    const state = await this.ensure(tabId);
    const target = sessionId ? { tabId, sessionId } : { tabId };
    if (ownWorld) await this.worlds.confirm(tabId, sessionId, ownWorld.id, (m, p) => this.send(state, target, m, p));
    const byWord = BY_WORD[method];
    if (byWord && verdict.params[byWord] === OWN_WORLD) {
      const { executionContextId } = await this.worlds.make(tabId, sessionId, null, (m, p) => this.send(state, target, m, p));
      verdict.params = { ...verdict.params, [byWord]: executionContextId };
    }
    if (NAVIGATING_METHODS.includes(method)) {
      const now = this.verdict(await this.tabs.get(tabId));
      if (!now.ok) {
        await this.release(tabId, LET_GO.pageRefused(now.message));
        enforce(now);
      }
      if (method === "Page.navigateToHistoryEntry") {
        const history = await this.send(state, target, "Page.getNavigationHistory", {});
        enforce(checkHistoryEntry(history, verdict.params.entryId, this.switches()));
      }
    }
    return this.send(state, target, method, verdict.params);
  }

  // reins's own world in a frame of the tab (the session's top frame unless `frameId`): its
  // executionContextId, the one context a later command may name.
  async world(tabId, sessionId, frameId) {
    enforce(this.ownership.check(tabId));
    const state = await this.ensure(tabId);
    const target = sessionId ? { tabId, sessionId } : { tabId };
    return this.worlds.make(tabId, sessionId, frameId, (m, p) => this.send(state, target, m, p));
  }

  send(state, target, method, params) {
    // release() rejects what is in flight, so a closed tab answers at once instead of hanging.
    return new Promise((resolve, reject) => {
      state.inflight.add(reject);
      this.dbg.sendCommand(target, method, params).then(resolve, (err) => this.#whyDetached(target.tabId, err).then(reject))
        .finally(() => state.inflight.delete(reject));
    });
  }

  // Chrome answers "Detached while handling command." before onDetach says why: wait a moment for
  // the reason. The user's Cancel answers detached_by_user; a tab that is still there and on a
  // refused page was let go of for that page.
  async #whyDetached(tabId, err) {
    if (!/Detached while handling/i.test(String(err?.message))) return err;
    const reason = this.ownership.stopped.has(tabId) ? "canceled_by_user" : await this.detachReasons.wait(tabId, this.detachReasonWaitMs);
    if (reason === "canceled_by_user") return new Refusal("detached_by_user", `${err.message} ${this.ownership.check(tabId).message}`);
    const tab = await this.tabs.get(tabId).catch(() => null);
    const verdict = tab ? this.verdict(tab) : { ok: true };
    return verdict.ok ? err : new Refusal("page_refused", `${err.message} ${verdict.message}`);
  }

  // An earlier life of this worker may have left tabs attached; its host is gone, so is their use.
  async dropStale() {
    const targets = await this.dbg.getTargets().catch(() => []);
    await Promise.all(targets.filter((t) => t.attached && t.tabId !== undefined).map((t) => this.dbg.detach({ tabId: t.tabId }).catch(() => {})));
  }

  // Chrome let go of the tab (chrome.debugger.onDetach): the user's Cancel (detached_by_user), the
  // tab closed or replaced (target_closed), or gone to a page reins may not attach to, as Chrome
  // itself does for a chrome:// page (page_refused: a refusal, not a close).
  detached(tabId, reason) {
    this.detachReasons.record(tabId, reason);
    if (reason === "canceled_by_user") return this.release(tabId, LET_GO.detachedByChrome(reason, "detached_by_user"));
    return this.release(tabId, this.#refusedOrClosed(tabId).then((code) => LET_GO.detachedByChrome(reason, code)));
  }

  async #refusedOrClosed(tabId) {
    const tab = await this.tabs.get(tabId).catch(() => null);
    return tab && !this.verdict(tab).ok ? "page_refused" : "target_closed";
  }

  // Lets the tab go, for a `why` of LET_GO, or a promise of one (onDetach learns the code only
  // after asking where the tab is): the session is forgotten at once, so the next command attaches
  // anew; its in-flight commands fail, Chrome lets go of the tab, and the host is told.
  async release(tabId, why) {
    const state = this.held.get(tabId);
    this.held.delete(tabId);
    this.worlds.forgetTab(tabId);
    if (typeof why?.then === "function") why = await why;
    if (!state && !why.always) return;
    if (state && why.code) {
      for (const reject of state.inflight) reject(new Refusal(why.code, `tab detached: ${why.reason}`));
      state.inflight.clear();
    }
    if (state && why.detach) await this.dbg.detach({ tabId }).catch(() => {});
    if (why.tell) this.post({ ...why.tell, tabId });
  }

  // The user's switches changed: every held tab whose page is now refused is let go.
  async recheck() {
    for (const tabId of this.attached()) {
      const tab = await this.tabs.get(tabId).catch(() => null);
      const verdict = tab ? this.verdict(tab) : { ok: true };
      if (!verdict.ok) await this.release(tabId, LET_GO.pageRefused(verdict.message));
    }
  }

  // Every navigation of a held tab, whoever started it (a link, a redirect, the user typing a
  // URL): a tab that is loading or showing a refused page is let go at once.
  updated(tabId, tab) {
    if (!this.held.has(tabId)) return;
    const verdict = this.verdict(tab);
    if (!verdict.ok) this.release(tabId, LET_GO.pageRefused(verdict.message));
  }

  // Is the tab's page paused in a debugger by someone else (DevTools)? reins keeps no standing
  // Debugger domain (with it on, V8 reports every script the page compiles, and keeps a page
  // paused after DevTools closes): the host asks only when a command takes long, and the domain
  // is on for that instant. A pause Chrome reports before the enable's answer was there before
  // (V8 says so first, measured); one after it is reins's own (the page's `debugger;` statement
  // in that instant, with reins's breakpoints on) and ends as the domain goes off (event()).
  // Events and answers reach this worker in Chrome's order, each in its own task, so `answered`
  // is set before any later event is seen.
  async pauseProbe(tabId) {
    enforce(this.ownership.check(tabId));
    const state = await this.ensure(tabId);
    const probe = { reason: null, answered: false };
    state.probes.add(probe);
    try {
      await this.send(state, { tabId }, "Debugger.enable", { maxScriptsCacheSize: 0 });
    } finally {
      probe.answered = true;
      state.probes.delete(probe);
    }
    if (probe.reason === null) await this.send(state, { tabId }, "Debugger.disable", {}).catch(() => {});
    return { paused: probe.reason !== null, reason: probe.reason };
  }

  // An event of a tab's session (chrome.debugger.onEvent): to the host if it subscribed to it,
  // with only the parameters policy.js keeps. reins never holds a paused page: the domain goes
  // off the moment the page pauses (a pause a probe hears before its answer is noted there).
  event(source, method, params) {
    if (method === "Page.javascriptDialogOpening") {
      const state = this.held.get(source.tabId);
      if (state) state.dialogs = (state.dialogs ?? 0) + 1;
    }
    if (method === "Debugger.paused") {
      this.dbg.sendCommand(source, "Debugger.disable", {}).catch(() => {});
      const probes = source.sessionId ? [] : this.held.get(source.tabId)?.probes ?? [];
      for (const probe of probes) if (!probe.answered) probe.reason = typeof params?.reason === "string" ? params.reason : "other";
    }
    if (method === "Page.downloadWillBegin" && typeof params?.url === "string") {
      const begun = this.held.get(source.tabId)?.begun;
      if (begun) {
        begun.push({ url: params.url, at: Date.now() });
        if (begun.length > MAX_BEGUN) begun.shift();
      }
    }
    // A child session gone (its frame navigated or went): its ids mean nothing any more.
    if (method === "Target.detachedFromTarget") this.worlds.forgetSession(source.tabId, params?.sessionId);
    if (typeof method === "string" && method.startsWith("Runtime.")) return this.#runtimeEvent(source, method, params);
    if (!this.subscribed(source.tabId, method)) return;
    const kept = eventParams(method, params);
    if (kept !== null) this.post({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params: kept });
  }

  // Runtime's events (on since a console subscription): the page's contexts noted, a console
  // message or uncaught exception of a page's own world forwarded as text within the tab's
  // budget (what the budget dropped is told with the next one), nothing else ever.
  #runtimeEvent(source, method, params) {
    const state = this.held.get(source.tabId);
    if (!state) return;
    const key = source.sessionId ?? "";
    if (!state.contexts.has(key)) state.contexts.set(key, new Set());
    const contexts = state.contexts.get(key);
    if (noteContext(contexts, method, params) || !this.subscribed(source.tabId, method)) return;
    const kept = consoleEvent(method, params, contexts);
    if (kept === null || !state.budget.take(Date.now())) return;
    const dropped = state.budget.tell();
    this.post({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params: dropped ? { ...kept, dropped } : kept });
  }

  // How many JavaScript dialogs the tab's pages opened while reins held it (a sequential batch
  // sends no guarded press after one opened: hitguard.js).
  dialogsOpened(tabId) {
    return this.held.get(tabId)?.dialogs ?? 0;
  }

  // A download the page of a held tab began (Page.downloadWillBegin, above), as the browser's
  // download list has it: where the file went. Only a URL that tab began: the host reads nothing
  // else of the user's downloads.
  async findDownload(tabId, url) {
    const item = await this.#begunIn(tabId, url);
    return item ? { filename: item.filename, state: item.state, bytesReceived: item.bytesReceived, totalBytes: item.totalBytes } : null;
  }

  // The profile refuses downloads in reins's tabs (`reins config downloads off`): cancelled; one
  // that already ended (a page's own data, saved in an instant) has its file deleted. Taken off
  // the browser's list either way. Chrome may list it an instant after the event: looked for again.
  async cancelDownload(tabId, url) {
    for (let tries = 0; tries < 20; tries += 1) {
      let item = await this.#begunIn(tabId, url);
      if (item) {
        if (item.state === "in_progress") await this.downloads.cancel(item.id).catch(() => {});
        item = (await this.downloads.search({ id: item.id }))[0] ?? item; // it may have ended meanwhile
        if (item.state === "complete" && item.exists) await this.downloads.removeFile(item.id).catch(() => {});
        const [now] = await this.downloads.search({ id: item.id });
        await this.downloads.erase({ id: item.id }).catch(() => {});
        return { canceled: !now || now.state === "interrupted" || !now.exists };
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { canceled: false };
  }

  // The browser's newest download of `url` that began when the tab's page began it (not the
  // user's own older download of the same URL).
  async #begunIn(tabId, url) {
    const begun = typeof url === "string" ? this.held.get(tabId)?.begun.findLast((b) => b.url === url) : null;
    if (!begun) throw new Refusal("not_found", `no download of tab ${tabId} began at that URL`);
    const startedAfter = new Date(begun.at - BEGUN_SLACK_MS).toISOString();
    const [item] = await this.downloads.search({ url, startedAfter, orderBy: ["-startTime"], limit: 1 });
    return item ?? null;
  }

  releaseAll(why) {
    for (const tabId of this.attached()) this.release(tabId, why);
  }
}
