// reins service worker: policy and transport only.
//
// Lifetime: a connected native port keeps an MV3 service worker alive (Chrome 105+), so the worker
// connects to the host at start and reconnects with backoff whenever the host exits. The host
// holds all logic; this file decides whether a command may run (allowlist.js) and runs it.
//
// Host -> extension: {id, type, ...}; the answer is {id, ok: true, result} or
// {id, ok: false, error: {code, message}}. Extension -> host, unasked: {type: "hello" | "event" |
// "detached" | "paused" | "tab_removed", ...}.

import { isAllowed, isRefusedUrl } from "./allowlist.js";
import { aroundPresses } from "./userfocus.js";

const HOST_NAME = "dev.reins.host";
const VERSION = chrome.runtime.getManifest().version;
// Chrome lets an extension send the host at most 64 MiB in one message; stay under it.
const MAX_TO_HOST = 60 * 1024 * 1024;

let port = null;
let hostInfo = null;
let paused = false;
let backoffMs = 250;
let reconnectTimer = null;
// tabId -> {events: Set<string>, inflight: Set<reject>}
const tabs = new Map();

class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// ---- connection to the host ----------------------------------------------------------------

function connect() {
  reconnectTimer = null;
  try {
    port = chrome.runtime.connectNative(HOST_NAME);
  } catch (err) {
    scheduleReconnect(String(err));
    return;
  }
  port.onMessage.addListener(onHostMessage);
  port.onDisconnect.addListener(() => {
    const reason = chrome.runtime.lastError?.message ?? "host exited";
    port = null;
    hostInfo = null;
    detachAll("host_disconnected");
    scheduleReconnect(reason);
  });
  post({ type: "hello", version: VERSION, extensionId: chrome.runtime.id, paused });
  updateBadge();
}

function scheduleReconnect(reason) {
  updateBadge();
  if (reconnectTimer !== null) return;
  console.warn(`reins: host not connected (${reason}); retrying in ${backoffMs} ms`);
  reconnectTimer = setTimeout(connect, backoffMs);
  backoffMs = Math.min(backoffMs * 2, 5000);
}

function post(message) {
  if (port === null) return;
  try {
    port.postMessage(message);
  } catch (err) {
    console.warn("reins: postMessage failed", err);
  }
}

function updateBadge() {
  const [text, color] = port === null ? ["off", "#888888"] : paused ? ["II", "#b8860b"] : ["on", "#1a7f37"];
  chrome.action.setBadgeText({ text });
  chrome.action.setBadgeBackgroundColor({ color });
}

// ---- requests from the host ------------------------------------------------------------------

async function onHostMessage(msg) {
  backoffMs = 250; // the host is alive: the next reconnect starts fast again
  if (msg?.type === "host_hello") {
    hostInfo = { version: msg.version, profile: msg.profile };
    return;
  }
  if (typeof msg?.id === "undefined") return;
  try {
    const result = await aroundPresses(msg, () => handle(msg));
    answer(msg.id, { id: msg.id, ok: true, result });
  } catch (err) {
    const code = err instanceof Refusal ? err.code : classify(err);
    answer(msg.id, { id: msg.id, ok: false, error: { code, message: String(err?.message ?? err) } });
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

function classify(err) {
  const text = String(err?.message ?? err);
  if (/No tab with id|No target with given id|Detached while handling|target closed/i.test(text)) return "target_closed";
  if (/Cannot access|Cannot attach to this target/i.test(text)) return "page_refused";
  return "cdp_error";
}

async function handle(msg) {
  if (msg.type === "status") return status();
  if (paused) throw new Refusal("paused", "reins is paused in the extension popup");
  switch (msg.type) {
    case "cdp":
      return cdp(msg.tabId, msg.sessionId, msg.method, msg.params ?? {});
    case "cdp_batch":
      if (msg.sequential) return cdpSequence(msg);
      return Promise.all(
        msg.commands.map((c) =>
          cdp(msg.tabId, c.sessionId ?? msg.sessionId, c.method, c.params ?? {}).then(
            (result) => ({ ok: true, result }),
            (err) => ({ ok: false, error: { code: err instanceof Refusal ? err.code : classify(err), message: String(err?.message ?? err) } }),
          ),
        ),
      );
    case "subscribe":
      (await ensureAttached(msg.tabId)).events = new Set(msg.events);
      return { tabId: msg.tabId, events: msg.events };
    case "detach":
      await detach(msg.tabId);
      return {};
    case "tabs.list":
      return (await chrome.tabs.query({})).map(describeTab);
    case "tabs.current": {
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
      const fallback = tab ?? (await chrome.tabs.query({ active: true }))[0];
      if (!fallback) throw new Refusal("target_closed", "no open tab");
      return describeTab(fallback);
    }
    case "tabs.create":
      if (msg.url && isRefusedUrl(msg.url)) throw new Refusal("page_refused", `reins does not open ${msg.url}`);
      return describeTab(await chrome.tabs.create({ url: msg.url || "about:blank", active: msg.active !== false }));
    case "tabs.activate": {
      const tab = await chrome.tabs.update(msg.tabId, { active: true });
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      return describeTab(tab);
    }
    case "tabs.close":
      await chrome.tabs.remove(msg.tabId);
      return {};
    default:
      throw new Refusal("unknown_command", `unknown request type ${msg.type}`);
  }
}

// In order, each after the previous answered (input events); stops at the first failure.
async function cdpSequence(msg) {
  const out = [];
  for (const c of msg.commands) {
    try {
      out.push({ ok: true, result: await cdp(msg.tabId, c.sessionId ?? msg.sessionId, c.method, c.params ?? {}) });
    } catch (err) {
      out.push({ ok: false, error: { code: err instanceof Refusal ? err.code : classify(err), message: String(err?.message ?? err) } });
      break;
    }
  }
  return out;
}

function describeTab(t) {
  return { id: t.id, url: t.url ?? t.pendingUrl ?? "", title: t.title ?? "", active: !!t.active, windowId: t.windowId, status: t.status };
}

function status() {
  return { version: VERSION, extensionId: chrome.runtime.id, paused, attached: [...tabs.keys()], host: hostInfo };
}

// ---- chrome.debugger ---------------------------------------------------------------------------

async function ensureAttached(tabId) {
  let state = tabs.get(tabId);
  if (state) return state;
  const tab = await chrome.tabs.get(tabId);
  if (isRefusedUrl(tab.url || tab.pendingUrl)) throw new Refusal("page_refused", `reins does not drive ${tab.url}`);
  state = { events: new Set(), inflight: new Set() };
  tabs.set(tabId, state);
  try {
    await chrome.debugger.attach({ tabId }, "1.3");
  } catch (err) {
    tabs.delete(tabId);
    if (!/already attached/i.test(String(err?.message))) throw err;
    // Attached by an earlier life of this worker: take it over.
    tabs.set(tabId, state);
  }
  return state;
}

async function cdp(tabId, sessionId, method, params) {
  if (!isAllowed(method, params)) throw new Refusal("cdp_blocked", `${method} is not on the reins allowlist`);
  if (method === "Page.navigate" && isRefusedUrl(params.url)) throw new Refusal("page_refused", `reins does not open ${params.url}`);
  const state = await ensureAttached(tabId);
  const target = sessionId ? { tabId, sessionId } : { tabId };
  // onDetach rejects what is in flight, so a closed tab answers at once instead of hanging.
  return new Promise((resolve, reject) => {
    state.inflight.add(reject);
    chrome.debugger.sendCommand(target, method, params).then(resolve, reject).finally(() => state.inflight.delete(reject));
  });
}

async function detach(tabId) {
  if (!tabs.has(tabId)) return;
  tabs.delete(tabId);
  await chrome.debugger.detach({ tabId }).catch(() => {});
}

function detachAll(reason) {
  for (const tabId of [...tabs.keys()]) {
    failInflight(tabId, "target_closed", reason);
    detach(tabId);
  }
}

function failInflight(tabId, code, reason) {
  const state = tabs.get(tabId);
  if (!state) return;
  for (const reject of state.inflight) reject(new Refusal(code, `tab ${tabId} detached: ${reason}`));
  state.inflight.clear();
}

chrome.debugger.onDetach.addListener((source, reason) => {
  const code = reason === "canceled_by_user" ? "detached_by_user" : "target_closed";
  failInflight(source.tabId, code, reason);
  tabs.delete(source.tabId);
  post({ type: "detached", tabId: source.tabId, reason, code });
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  const state = tabs.get(source.tabId);
  if (!state || !state.events.has(method)) return;
  post({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params });
});

chrome.tabs.onRemoved.addListener((tabId) => {
  failInflight(tabId, "target_closed", "tab closed");
  tabs.delete(tabId);
  post({ type: "tab_removed", tabId });
});

// ---- pause switch and popup ------------------------------------------------------------------

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !("paused" in changes)) return;
  paused = !!changes.paused.newValue;
  if (paused) detachAll("paused");
  post({ type: "paused", paused });
  updateBadge();
});

chrome.runtime.onMessage.addListener((msg, _sender, sendResponse) => {
  if (msg?.type === "popup_status") sendResponse({ ...status(), connected: port !== null });
});

chrome.storage.local.get("paused").then((v) => {
  paused = !!v.paused;
  connect();
});
