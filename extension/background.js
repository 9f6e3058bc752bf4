// reins service worker: the wiring, top-level listeners and a table of the host's requests. The
// parts (a line each in docs/architecture.md) take what they need of `chrome` as arguments and
// have node tests (tests/extension/). A connected native port keeps the worker alive, so it
// connects to the host as soon as it runs and reconnects with backoff whenever the host exits.
// A stopped worker (crash, update) is started again only for an event it listens to, and runs
// this file from the top, ending in wake(): so it also listens to a 30-second alarm, browser
// start-up and install. Everything held here (the port, attached tabs) dies with the worker.
//
// Policy holds at every door: each command (sessions.command), each tab opened or sent somewhere
// (tabs.js), each navigation of an attached tab however it happened (sessions.updated: a tab on a
// refused page is let go at once, the host told). The user's Cancel on the debugging bar stops
// reins on a tab until the user hands it back.
//
// Host -> extension: {id, type, ...}; the answer is {id, ok: true, result} or {id, ok: false, error:
// {code, message, ...}} (errors.js). Unasked: {type: "hello" | "event" | "detached" | "paused" | "tab_removed"}.

import { errorOf } from "./errors.js";
import { Handoffs } from "./handoff.js";
import { DetachReasons, Ownership } from "./ownership.js";
import { HostPort, keptId } from "./port.js";
import { Refusal } from "./refusal.js";
import { answered, sequence } from "./sequencer.js";
import { LET_GO, Sessions } from "./sessions.js";
import { Tabs } from "./tabs.js";
import { aroundPresses } from "./userfocus.js";
import { worldName } from "./worlds.js";

const HOST_NAME = "dev.reins.host";
const VERSION = chrome.runtime.getManifest().version;
// What this extension does that an older one did not, said in hello: the host relies only on those.
const FEATURES = ["stopIfThrown", "ownWorld", "scriptsInWorld", "pauseProbe", "hitGuard", "handoff"];
const WAKE_ALARM = "reins-wake";

let paused = false;
let options = { allowFile: false }; // the user's switches in the popup, read by policy.js
const host = new HostPort({
  connectNative: () => chrome.runtime.connectNative(HOST_NAME),
  lastError: () => chrome.runtime.lastError?.message,
  hello: () => ({ type: "hello", version: VERSION, extensionId: chrome.runtime.id, paused, features: FEATURES, ...ids }),
  onMessage: onHostMessage,
  onDisconnect: () => {
    ownership.launched = false;
    handoffs.endAll("host_gone");
    sessions.releaseAll(LET_GO.ended("host_disconnected"));
  },
  paused: () => paused,
  setBadge: (text, color) => (chrome.action.setBadgeText({ text }), chrome.action.setBadgeBackgroundColor({ color })),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  warn: console.warn,
});
const ownership = new Ownership(chrome.storage.session);
const handoffs = new Handoffs({ action: chrome.action, setTimeout, clearTimeout, warn: console.warn });
const switches = () => options;
const tabs = new Tabs({ tabs: chrome.tabs, windows: chrome.windows, tabGroups: chrome.tabGroups, ownership, switches, warn: console.warn });
const sessions = new Sessions({
  debugger: chrome.debugger, tabs: chrome.tabs, switches, ownership, detachReasons: new DetachReasons(),
  post: (message) => host.post(message), worldName: worldName(), downloads: chrome.downloads,
});
// Random ids said in hello: this browser profile (the host names its socket after it) and this run
// of the browser (tab ids mean something only within one); port.js keptId.
const ids = { instance: null, session: null };

const started = Promise.all([
  chrome.storage.local.get(["paused", "allowFile"]).then((v) => {
    paused = !!v.paused;
    options = { allowFile: !!v.allowFile };
  }),
  sessions.dropStale(),
  ownership.load().catch((err) => console.warn("reins: could not read reins's tabs", err)),
  keptId(chrome.storage.local, "instance", console.warn).then((id) => (ids.instance = id)),
  keptId(chrome.storage.session, "session", console.warn).then((id) => (ids.session = id)),
]);

function wake() {
  started.then(() => host.wake());
}

// ---- requests from the host ------------------------------------------------------------------

async function onHostMessage(msg) {
  if (msg?.type === "host_hello") {
    // Said only by the launcher `reins launch` wrote into the profile it started.
    ownership.launched = !!msg.launched;
    return;
  }
  if (typeof msg?.id === "undefined") return;
  try {
    const result = await aroundPresses(msg, (windowsNoted) => handle(msg, windowsNoted));
    host.answer({ id: msg.id, ok: true, result });
  } catch (err) {
    host.answer({ id: msg.id, ok: false, error: errorOf(err) });
  }
}

// The requests, by type. `status` answers even while paused; the rest are refused then.
const HANDLERS = {
  cdp: (msg) => sessions.command(msg.tabId, msg.sessionId, msg.method, msg.params ?? {}),
  cdp_batch: (msg, windowsNoted) => {
    const send = (c) => sessions.command(msg.tabId, c.sessionId ?? msg.sessionId, c.method, c.params ?? {});
    const dialogs = () => sessions.dialogsOpened(msg.tabId);
    if (msg.sequential) return sequence(msg, { send, errorOf, windowsNoted, dialogs });
    return Promise.all(msg.commands.map((c) => answered(send(c), errorOf)));
  },
  subscribe: (msg) => sessions.subscribe(msg.tabId, Array.isArray(msg.events) ? msg.events : []),
  world: (msg) => sessions.world(msg.tabId, msg.sessionId, msg.frameId),
  pause_probe: (msg) => sessions.pauseProbe(msg.tabId),
  "downloads.find": (msg) => sessions.findDownload(msg.tabId, msg.url),
  "downloads.cancel": (msg) => sessions.cancelDownload(msg.tabId, msg.url),
  detach: (msg) => sessions.release(msg.tabId, LET_GO.hostAsked()).then(() => ({})),
  "tabs.list": () => tabs.list(),
  "tabs.current": () => tabs.current(),
  "tabs.create": (msg) => tabs.open(msg.url),
  "tabs.navigate": (msg) => tabs.sendTo(msg.tabId, msg.url),
  "tabs.select": (msg) => tabs.select(msg.tabId),
  "tabs.activate": (msg) => tabs.activate(msg.tabId),
  "tabs.close": (msg) => tabs.close(msg.tabId),
  handoff: (msg) => tabs.activate(msg.tabId).then(() => handoffs.ask(msg.tabId, msg.text, msg.timeoutMs)),
};

// windowsNoted: when the message presses, the promise of the user's windows noted before any
// press (userfocus.js); a press is sent only once it has settled (a sequential batch awaits it
// itself, before its first press).
async function handle(msg, windowsNoted = null) {
  if (msg.type === "status") return status();
  if (paused) throw new Refusal("paused", "reins is paused in the extension popup");
  if (windowsNoted !== null && !(msg.type === "cdp_batch" && msg.sequential)) await windowsNoted;
  if (!Object.hasOwn(HANDLERS, msg.type)) throw new Refusal("unknown_command", `unknown request type ${msg.type}`);
  return HANDLERS[msg.type](msg, windowsNoted);
}

function status() {
  return {
    version: VERSION, extensionId: chrome.runtime.id, paused, allowFile: options.allowFile, attached: sessions.attached(),
    host: host.info, launched: ownership.launched, reinsTabs: [...ownership.owned], stoppedTabs: [...ownership.stopped],
  };
}

// ---- Chrome's events ---------------------------------------------------------------------------

// Cancel on the debugging bar detaches reins from every tab it is attached to, one event each:
// each of those tabs is the user's again until they hand it back.
chrome.debugger.onDetach.addListener(({ tabId }, reason) => {
  if (reason === "canceled_by_user") {
    ownership.canceled(tabId);
    tabs.ungroup(tabId);
  }
  sessions.detached(tabId, reason);
});

chrome.debugger.onEvent.addListener((source, method, params) => sessions.event(source, method, params));
chrome.tabs.onCreated.addListener((tab) => paused || sessions.armPopup(tab));
chrome.tabs.onUpdated.addListener((tabId, _change, tab) => sessions.updated(tabId, tab));
chrome.tabs.onRemoved.addListener((tabId) => {
  ownership.closed(tabId);
  handoffs.finish(tabId, "tab_closed");
  sessions.release(tabId, LET_GO.closed());
});

// ---- the popup's switches, and waking up ------------------------------------------------------

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  if ("allowFile" in changes) {
    options = { allowFile: !!changes.allowFile.newValue };
    sessions.recheck();
  }
  if ("paused" in changes) {
    paused = !!changes.paused.newValue;
    if (paused) sessions.releaseAll(LET_GO.ended("paused"));
    host.post({ type: "paused", paused });
    host.updateBadge();
  }
});

// The popup: status, the user handing a tab to reins or taking it back, Done or Cancel on a
// handoff. Only the extension's own pages can send these (no externally_connectable, no content scripts).
const POPUP = {
  popup_status: () => ({ ...status(), connected: host.connected, handoffs: handoffs.list() }),
  popup_hand_over: (msg) => tabs.handOver(msg.tabId).then(() => ({ ok: true })),
  popup_take_back: (msg) => takeBack(msg.tabId).then(() => ({ ok: true })),
  popup_handoff: (msg) => ({ ok: handoffs.finish(msg.tabId, msg.done === true ? "done" : "cancelled") }),
};
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || !Object.hasOwn(POPUP, msg?.type)) return;
  if (msg.type !== "popup_status" && !Number.isInteger(msg.tabId)) return;
  Promise.resolve(POPUP[msg.type](msg)).then(sendResponse);
  return true;
});

async function takeBack(tabId) {
  await ownership.takeBack(tabId);
  await sessions.release(tabId, LET_GO.takenBack());
  await tabs.ungroup(tabId);
}

chrome.alarms.onAlarm.addListener(wake);
chrome.runtime.onStartup.addListener(wake);
chrome.runtime.onInstalled.addListener(wake);
chrome.alarms.get(WAKE_ALARM).then((alarm) => alarm ?? chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 }));
wake();
