// reins service worker: policy and transport only.
//
// Lifetime: a connected native port keeps an MV3 service worker alive (Chrome 105+), so the worker
// connects to the host as soon as it runs and reconnects with backoff whenever the host exits
// (port.js).
// When the worker itself is stopped (crash, update, a debugger closing it), Chrome starts it again
// only for an event it listens to, and then runs this file from the top, which ends in wake():
// so besides tab events it listens to a 30-second alarm (the shortest period Chrome allows),
// browser start-up and install. Listeners are registered at the top level, where Chrome requires
// them to be. Everything held here (the port, attached tabs) dies with the worker; the host it
// starts is a fresh one.
//
// What may run is decided by allowlist.js (methods) and policy.js (parameters, URLs). This file
// applies that at every door: before each command, before a tab is opened or sent somewhere, and
// after every navigation of an attached tab (however it happened): a tab that lands on a refused
// page is detached at once and the host told ({type: "detached", code: "page_refused"}).
//
// Which tabs reins may drive is ownership.js: in the user's own browser only its own tabs (opened by
// reins, or handed over), each refused otherwise before anything attaches; the tabs reins opens
// there go in the background, into a tab group named "reins", so the user's view stays theirs. The
// user's Cancel on the debugging bar stops reins on those tabs until the user hands them back.
//
// Host -> extension: {id, type, ...}; the answer is {id, ok: true, result} or
// {id, ok: false, error: {code, message}}. Extension -> host, unasked: {type: "hello" | "event" |
// "detached" | "paused" | "tab_removed", ...}.

import { DetachReasons, Ownership } from "./ownership.js";
import { HostPort } from "./port.js";
import { checkCommand, checkHistoryEntry, checkTab, checkUrl, eventParams, NAVIGATING_METHODS } from "./policy.js";
import { enforce, Refusal } from "./refusal.js";
import { answered, sequence } from "./sequencer.js";
import { LET_GO, Sessions } from "./sessions.js";
import { aroundPresses } from "./userfocus.js";

const HOST_NAME = "dev.reins.host";
const VERSION = chrome.runtime.getManifest().version;
// What this extension does that an older one did not, announced in hello: the host uses a
// feature only when the extension it talks to said it has it.
const FEATURES = ["stopIfThrown"];
// Chrome lets an extension send the host at most 64 MiB in one message; stay under it.
const MAX_TO_HOST = 60 * 1024 * 1024;
const WAKE_ALARM = "reins-wake";
const NAVIGATE_TIMEOUT_MS = 15000;
const GROUP_TITLE = "reins";

let hostInfo = null;
let paused = false;
let options = { allowFile: false }; // the user's switches in the popup, read by policy.js
const host = new HostPort({
  connectNative: () => chrome.runtime.connectNative(HOST_NAME),
  lastError: () => chrome.runtime.lastError?.message,
  hello: () => ({ type: "hello", version: VERSION, extensionId: chrome.runtime.id, paused, features: FEATURES, ...ids }),
  onMessage: onHostMessage,
  onDisconnect: () => {
    hostInfo = null;
    ownership.launched = false;
    sessions.releaseAll(LET_GO.ended("host_disconnected"));
  },
  paused: () => paused,
  setBadge: (text, color) => {
    chrome.action.setBadgeText({ text });
    chrome.action.setBadgeBackgroundColor({ color });
  },
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  warn: (...args) => console.warn(...args),
});
const post = (message) => host.post(message);
const ownership = new Ownership(chrome.storage.session);
const sessions = new Sessions({
  debugger: chrome.debugger, tabs: chrome.tabs, verdict: (tab) => checkTab(tab, options), ownership,
  detachReasons: new DetachReasons(), post,
});
// Random ids said in hello: this browser profile (the host names its socket after it) and this run
// of the browser (tab ids mean something only within one).
const ids = { instance: null, session: null };

// ---- waking up and the connection to the host ------------------------------------------------

const started = Promise.all([
  chrome.storage.local.get(["paused", "allowFile"]).then((v) => {
    paused = !!v.paused;
    options = { allowFile: !!v.allowFile };
  }),
  sessions.dropStale(),
  ownership.load().catch((err) => console.warn("reins: could not read reins's tabs", err)),
  keptId(chrome.storage.local, "instance").then((id) => (ids.instance = id)),
  keptId(chrome.storage.session, "session").then((id) => (ids.session = id)),
]);

// A random id kept in a storage area, made on first use. Without one (storage failing) the host
// names the profile as older extensions had it named: by start order.
async function keptId(area, key) {
  try {
    const kept = (await area.get(key))[key];
    if (kept) return kept;
    const made = crypto.randomUUID();
    await area.set({ [key]: made });
    return made;
  } catch (err) {
    console.warn(`reins: no ${key} id`, err);
    return null;
  }
}

function wake() {
  started.then(() => host.wake());
}

// ---- requests from the host ------------------------------------------------------------------

async function onHostMessage(msg) {
  if (msg?.type === "host_hello") {
    hostInfo = { version: msg.version, profile: msg.profile, launched: !!msg.launched };
    // Said by the launcher `reins launch` wrote into the profile it started; the user's own
    // browser's launcher never says it.
    ownership.launched = !!msg.launched;
    return;
  }
  if (typeof msg?.id === "undefined") return;
  try {
    const result = await aroundPresses(msg, (windowsNoted) => handle(msg, windowsNoted));
    answer(msg.id, { id: msg.id, ok: true, result });
  } catch (err) {
    answer(msg.id, { id: msg.id, ok: false, error: errorOf(err) });
  }
}

function answer(id, message) {
  // Measuring costs a serialization; it is what keeps an oversized result from closing the port.
  const size = JSON.stringify(message).length;
  if (size > MAX_TO_HOST) {
    message = { id, ok: false, error: { code: "message_too_large", message: `result of ${size} bytes exceeds ${MAX_TO_HOST}` } };
  }
  post(message);
}

function errorOf(err) {
  return { code: err instanceof Refusal ? err.code : classify(err), message: String(err?.message ?? err) };
}

function classify(err) {
  const text = String(err?.message ?? err);
  if (/No tab with id|No target with given id|Detached while handling|target closed/i.test(text)) return "target_closed";
  if (/Cannot access|Cannot attach to this target/i.test(text)) return "page_refused";
  return "cdp_error";
}

// windowsNoted: when the message presses, the promise of the user's windows noted before any
// press (userfocus.js); a press is sent only once it has settled.
async function handle(msg, windowsNoted = null) {
  if (msg.type === "status") return status();
  if (paused) throw new Refusal("paused", "reins is paused in the extension popup");
  if (windowsNoted !== null && !(msg.type === "cdp_batch" && msg.sequential)) await windowsNoted;
  switch (msg.type) {
    case "cdp":
      return cdp(msg.tabId, msg.sessionId, msg.method, msg.params ?? {});
    case "cdp_batch": {
      const sendCommand = (c) => cdp(msg.tabId, c.sessionId ?? msg.sessionId, c.method, c.params ?? {});
      if (msg.sequential) return sequence(msg, { send: sendCommand, errorOf, windowsNoted });
      return Promise.all(msg.commands.map((c) => answered(sendCommand(c), errorOf)));
    }
    case "subscribe":
      (await sessions.ensure(msg.tabId)).events = new Set(msg.events);
      return { tabId: msg.tabId, events: msg.events };
    case "detach":
      await sessions.release(msg.tabId, LET_GO.hostAsked());
      return {};
    case "tabs.list":
      return (await chrome.tabs.query({})).map(describeTab);
    case "tabs.current": {
      // Only the host of a browser `reins launch` started asks: there the tab in front is reins's.
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
      const fallback = tab ?? (await chrome.tabs.query({ active: true }))[0];
      if (!fallback) throw new Refusal("target_closed", "no open tab");
      enforce(ownership.check(fallback.id));
      return describeTab(fallback);
    }
    case "tabs.create":
      return describeTab(await openTab(enforce(checkUrl(msg.url || "about:blank", options)).url));
    case "tabs.navigate":
      enforce(ownership.check(msg.tabId));
      return describeTab(await sendTab(msg.tabId, enforce(checkUrl(msg.url, options)).url));
    case "tabs.select":
      return describeTab(await selectTab(msg.tabId));
    case "tabs.activate": {
      // In front of the user: only a tab of reins's.
      enforce(ownership.check(msg.tabId));
      const tab = await chrome.tabs.update(msg.tabId, { active: true });
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      return describeTab(tab);
    }
    case "tabs.close":
      enforce(ownership.check(msg.tabId));
      await chrome.tabs.remove(msg.tabId);
      return {};
    default:
      throw new Refusal("unknown_command", `unknown request type ${msg.type}`);
  }
}

function describeTab(t) {
  return {
    id: t.id, url: t.url ?? t.pendingUrl ?? "", title: t.title ?? "", active: !!t.active, windowId: t.windowId,
    status: t.status, reins: ownership.isReins(t.id), stopped: ownership.stopped.has(t.id),
  };
}

function status() {
  return {
    version: VERSION, extensionId: chrome.runtime.id, paused, allowFile: options.allowFile, attached: sessions.attached(),
    host: hostInfo, launched: ownership.launched, reinsTabs: [...ownership.owned], stoppedTabs: [...ownership.stopped],
  };
}

// ---- tabs --------------------------------------------------------------------------------------

// A tab of reins's own. In a browser reins launched it comes to the front as any new tab does; in
// the user's own it opens in the background of the window the user used last (or a window of its
// own when there is none), in the "reins" group, so what the user is looking at stays in front.
async function openTab(url) {
  const launched = ownership.launched;
  const win = await chrome.windows.getLastFocused({ windowTypes: ["normal"] }).catch(() => null);
  const tab = win
    ? await chrome.tabs.create({ url, active: launched, windowId: win.id })
    : (await chrome.windows.create({ url, focused: launched })).tabs[0];
  await ownership.opened(tab.id);
  if (!launched) await groupTab(tab.id);
  return chrome.tabs.get(tab.id).catch(() => tab);
}

// `reins tab select ID`: hands the tab to reins, unless the user stopped reins on it.
async function selectTab(tabId) {
  const tab = await chrome.tabs.get(tabId);
  enforce(ownership.take(tabId));
  if (ownership.launched) {
    await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
    return chrome.tabs.update(tabId, { active: true });
  }
  await groupTab(tabId);
  return chrome.tabs.get(tabId);
}

// The "reins" group of the tab's window shows the user which tabs the agent drives. A courtesy:
// a tab that cannot be grouped (a pinned tab, a window type without groups) is reins's all the same.
async function groupTab(tabId) {
  try {
    const tab = await chrome.tabs.get(tabId);
    const [group] = await chrome.tabGroups.query({ windowId: tab.windowId, title: GROUP_TITLE });
    if (group) {
      if (tab.groupId !== group.id) await chrome.tabs.group({ groupId: group.id, tabIds: [tabId] });
      return;
    }
    const groupId = await chrome.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
    await chrome.tabGroups.update(groupId, { title: GROUP_TITLE, color: "blue", collapsed: false });
  } catch (err) {
    console.warn("reins: could not group tab", tabId, err);
  }
}

async function ungroupTab(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab || tab.groupId === chrome.tabGroups.TAB_GROUP_ID_NONE) return;
  const group = await chrome.tabGroups.get(tab.groupId).catch(() => null);
  if (group?.title === GROUP_TITLE) await chrome.tabs.ungroup(tabId).catch(() => {});
}

// Navigation without the debugger, for a tab on a page reins may not attach to (chrome://…):
// answers once the tab has left it, so the next command can attach.
async function sendTab(tabId, url) {
  await chrome.tabs.update(tabId, { url });
  const deadline = Date.now() + NAVIGATE_TIMEOUT_MS;
  for (;;) {
    const tab = await chrome.tabs.get(tabId);
    const verdict = checkTab(tab, options);
    if (verdict.ok && tab.url !== "") return tab;
    if (Date.now() > deadline) throw new Refusal(verdict.ok ? "navigation_failed" : verdict.code, verdict.message ?? `tab ${tabId} did not load ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---- chrome.debugger ---------------------------------------------------------------------------

async function cdp(tabId, sessionId, method, params) {
  const verdict = enforce(checkCommand(method, params, options));
  enforce(ownership.check(tabId));
  const state = await sessions.ensure(tabId);
  const target = sessionId ? { tabId, sessionId } : { tabId };
  if (NAVIGATING_METHODS.includes(method)) {
    const now = checkTab(await chrome.tabs.get(tabId), options);
    if (!now.ok) {
      await sessions.release(tabId, LET_GO.pageRefused(now.message));
      enforce(now);
    }
    if (method === "Page.navigateToHistoryEntry") {
      const history = await sessions.send(state, target, "Page.getNavigationHistory", {});
      enforce(checkHistoryEntry(history, verdict.params.entryId, options));
    }
  }
  return sessions.send(state, target, method, verdict.params);
}

async function recheckAttached() {
  for (const tabId of sessions.attached()) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    const verdict = tab ? checkTab(tab, options) : { ok: true };
    if (!verdict.ok) await sessions.release(tabId, LET_GO.pageRefused(verdict.message));
  }
}

// Cancel on the debugging bar detaches reins from every tab it is attached to, one event each:
// each of those tabs is the user's again until they hand it back.
chrome.debugger.onDetach.addListener(({ tabId }, reason) => {
  if (reason === "canceled_by_user") {
    ownership.canceled(tabId);
    ungroupTab(tabId);
  }
  sessions.detached(tabId, reason);
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  // reins never holds a paused page: while its session has the Debugger domain on, V8 keeps the
  // page paused after DevTools closes (and pauses on exceptions DevTools asked for). So the domain
  // goes off the moment the page pauses; the host looks again on its next command (page/pause.py).
  if (method === "Debugger.paused") chrome.debugger.sendCommand(source, "Debugger.disable", {}).catch(() => {});
  if (!sessions.subscribed(source.tabId, method)) return;
  const kept = eventParams(method, params);
  if (kept === null) return;
  post({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params: kept });
});

// Every navigation of an attached tab, whoever started it (a link, a redirect, the user typing a
// URL): a tab that is loading or showing a refused page is let go at once.
chrome.tabs.onUpdated.addListener((tabId, _change, tab) => {
  if (!sessions.has(tabId)) return;
  const verdict = checkTab(tab, options);
  if (!verdict.ok) sessions.release(tabId, LET_GO.pageRefused(verdict.message));
});

chrome.tabs.onRemoved.addListener((tabId) => {
  ownership.closed(tabId);
  sessions.release(tabId, LET_GO.closed());
});

// ---- the popup's switches, and waking up ------------------------------------------------------

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  if ("allowFile" in changes) {
    options = { allowFile: !!changes.allowFile.newValue };
    recheckAttached();
  }
  if ("paused" in changes) {
    paused = !!changes.paused.newValue;
    if (paused) sessions.releaseAll(LET_GO.ended("paused"));
    post({ type: "paused", paused });
    host.updateBadge();
  }
});

// The popup: status, and the user handing a tab to reins or taking it back. Only the extension's
// own pages can send these (no externally_connectable, no content scripts).
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return;
  if (msg?.type === "popup_status") sendResponse({ ...status(), connected: host.connected });
  if (msg?.type === "popup_hand_over" && Number.isInteger(msg.tabId)) {
    ownership.handOver(msg.tabId).then(() => ownership.launched || groupTab(msg.tabId)).then(() => sendResponse({ ok: true }));
    return true;
  }
  if (msg?.type === "popup_take_back" && Number.isInteger(msg.tabId)) {
    takeBack(msg.tabId).then(() => sendResponse({ ok: true }));
    return true;
  }
});

async function takeBack(tabId) {
  await ownership.takeBack(tabId);
  await sessions.release(tabId, LET_GO.takenBack());
  await ungroupTab(tabId);
}

chrome.alarms.onAlarm.addListener(wake);
chrome.runtime.onStartup.addListener(wake);
chrome.runtime.onInstalled.addListener(wake);
chrome.alarms.get(WAKE_ALARM).then((alarm) => alarm ?? chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 }));
wake();
