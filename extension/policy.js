// What reins lets through, as data and pure functions: which URLs a tab driven by reins may show
// or be sent to, and which parameters of the allowlisted CDP methods are refused. No chrome.*
// here; the service worker calls these and tests/extension/ runs them under node.
//
// URLs are read the way Chrome reads them (the URL standard): leading and trailing C0 controls and
// spaces are dropped, tabs and newlines anywhere are removed, the scheme is lower-cased. So
// " chrome://settings", "chr\tome://version" and "CHROME://version" are all chrome:// pages.
// Then the policy allows by scheme, never refuses by pattern: http:, https:, about:blank, and file:
// only when the user switched it on in the popup. Everything else (chrome:, chrome-extension:,
// devtools:, view-source:, about:settings — which through chrome.debugger crashes the browser —,
// javascript:, data:, blob:, edge:, brave:, anything that does not parse) is refused, and so is
// the Chrome Web Store.

import { isAllowed, isListed } from "./allowlist.js";

export const DEFAULT_OPTIONS = Object.freeze({ allowFile: false });

const EDGE_JUNK = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const TAB_OR_NEWLINE = /[\t\n\r]/g;

const WEB_SCHEMES = Object.freeze(["http:", "https:"]);
const WEB_STORE_HOSTS = Object.freeze(["chromewebstore.google.com"]);
const WEB_STORE_PATHS = Object.freeze([{ host: "chrome.google.com", pathPrefix: "/webstore" }]);

const NEXT_STEP = "send the tab to an http(s) page with `reins navigate URL`";

/** The URL Chrome would read from `raw`, or null when it would not read one. */
export function parseUrl(raw) {
  if (typeof raw !== "string") return null;
  try {
    return new URL(raw.replace(EDGE_JUNK, "").replace(TAB_OR_NEWLINE, ""));
  } catch {
    return null;
  }
}

function isWebStore(url) {
  const host = url.hostname.replace(/\.$/, "");
  if (WEB_STORE_HOSTS.some((h) => host === h || host.endsWith(`.${h}`))) return true;
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: compare the path as written
  }
  path = path.toLowerCase();
  return WEB_STORE_PATHS.some((p) => host === p.host && path.startsWith(p.pathPrefix));
}

function refused(message) {
  return { ok: false, code: "page_refused", message };
}

/**
 * May a tab reins drives show, or be sent to, `raw`?
 * Answers {ok: true, url} with the URL as Chrome reads it (send that one, not `raw`), or
 * {ok: false, code: "page_refused", message} where the message names the next step.
 */
export function checkUrl(raw, options = DEFAULT_OPTIONS) {
  const url = parseUrl(raw);
  const shown = JSON.stringify(raw);
  if (url === null) {
    return refused(`${shown} is not a URL reins opens; give an absolute http(s) URL such as https://example.com/`);
  }
  if (WEB_SCHEMES.includes(url.protocol)) {
    if (isWebStore(url)) return refused(`reins does not drive the Chrome Web Store (${url.href}); ${NEXT_STEP}`);
    return { ok: true, url: url.href };
  }
  if (url.protocol === "about:" && url.pathname === "blank" && url.host === "") return { ok: true, url: url.href };
  if (url.protocol === "file:") {
    if (options.allowFile) return { ok: true, url: url.href };
    return refused(`file: pages are off in reins (${url.href}); the user can switch on "Allow file:// pages" in the reins popup, or serve the file over http`);
  }
  return refused(`reins does not drive ${url.protocol} pages (${shown}); ${NEXT_STEP}`);
}

/**
 * May reins drive this tab (a chrome.tabs.Tab)? Both the committed URL and the one it is loading
 * count. A tab with no URL yet (a new tab before its first commit) shows nothing and may be driven.
 */
export function checkTab(tab, options = DEFAULT_OPTIONS) {
  for (const url of [tab?.url, tab?.pendingUrl]) {
    if (typeof url !== "string" || url === "") continue;
    const verdict = checkUrl(url, options);
    if (!verdict.ok) return refused(`tab ${tab.id} shows a page reins does not drive: ${verdict.message}`);
  }
  return { ok: true };
}

// Parameters that would take an allowlisted method past "what the page itself could do":
// - an explicit execution context reaches other extensions' content-script worlds (their
//   chrome.runtime is then the agent's); the page's own world is the default everywhere, and the
//   one context that may be named is reins's own world, as worlds.js made and confirms it;
// - waitForDebuggerOnStart pauses every new frame until someone resumes it (they vanish), and a
//   target filter can widen what auto-attach reaches; reins needs neither;
// - a navigation URL goes through checkUrl, and Chrome gets the URL as checkUrl read it.
const CONTEXT_PARAMS = Object.freeze({
  "Runtime.evaluate": ["contextId", "uniqueContextId"],
  "Runtime.callFunctionOn": ["executionContextId", "uniqueContextId"],
  "DOM.resolveNode": ["executionContextId"],
});

const PARAM_RULES = Object.freeze({
  "Page.navigate": (params, options) => {
    const verdict = checkUrl(params.url, options);
    return verdict.ok ? { ok: true, params: { ...params, url: verdict.url } } : verdict;
  },
  // Files for one file input: `files` (absolute paths, no `..`) and the input as `objectId` or
  // `backendNodeId`, nothing else (no `nodeId` of a document reins did not resolve itself).
  // The extension cannot see which directories the user allows; the host checks that before it
  // sends this (docs/security.md, "File uploads").
  "DOM.setFileInputFiles": (params) => {
    if (!Object.keys(params).every((k) => ["files", "objectId", "backendNodeId"].includes(k))) {
      return blocked("DOM.setFileInputFiles takes only files and objectId or backendNodeId");
    }
    if (("objectId" in params) === ("backendNodeId" in params)) {
      return blocked("DOM.setFileInputFiles needs the input as objectId or backendNodeId (one of them)");
    }
    const files = params.files;
    if (!Array.isArray(files) || files.length === 0 || !files.every(isAbsoluteFilePath)) {
      return blocked("DOM.setFileInputFiles needs files: a non-empty list of absolute paths without ..");
    }
    return { ok: true, params };
  },
  "Target.setAutoAttach": (params) => {
    if (params.waitForDebuggerOnStart !== false) {
      return blocked("Target.setAutoAttach needs waitForDebuggerOnStart: false (paused frames would never resume)");
    }
    if ("filter" in params) return blocked("Target.setAutoAttach takes no filter in reins");
    return { ok: true, params };
  },
});

// `contextId: OWN_WORLD` on Runtime.evaluate (`executionContextId` on DOM.resolveNode): "in
// reins's own world of this session's top frame", which the extension finds or makes itself and
// puts in before the command goes (sessions.js): the id is never the request's.
export const OWN_WORLD = "reins";
export const BY_WORD = Object.freeze({ "Runtime.evaluate": "contextId", "DOM.resolveNode": "executionContextId" });

function isOwnWorld(name, params, ownWorld, method) {
  if (BY_WORD[method] === name && params[name] === OWN_WORLD) return true;
  return ownWorld !== null && name !== "uniqueContextId" && name === ownWorld.param && params[name] === ownWorld.id;
}

function isAbsoluteFilePath(path) {
  if (typeof path !== "string" || path.includes("\0")) return false;
  const absolute = path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path);
  return absolute && !path.split(/[\\/]/).includes("..");
}

function blocked(message) {
  return { ok: false, code: "cdp_blocked", message };
}

/**
 * The execution context a command names by its number ({param, id}), or null: the candidate for
 * reins's own world. (`uniqueContextId` never is: reins does not learn those.)
 */
export function namedContext(method, params) {
  if (params === null || typeof params !== "object") return null;
  const param = (CONTEXT_PARAMS[method] ?? []).find((name) => name in params && name !== "uniqueContextId");
  return param && Number.isInteger(params[param]) ? { param, id: params[param] } : null;
}

/**
 * May the host run `method` with `params`? Answers {ok: true, params} (the params to send, maybe
 * rewritten) or {ok: false, code: "cdp_blocked" | "page_refused", message}. `ownWorld`: the
 * context ({param, id}) the extension made for reins in this tab and session (worlds.js), the
 * only one a command may name; the caller still confirms it with Chrome before sending.
 */
export function checkCommand(method, params = {}, options = DEFAULT_OPTIONS, ownWorld = null) {
  if (!isListed(method)) return blocked(`${method} is not on the reins allowlist; use a reins command instead`);
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    return blocked(`${method}: params must be an object`);
  }
  if (!isAllowed(method, params)) {
    return blocked(`${method}: these parameters go past what reins allows (docs/security.md)`);
  }
  const contextParam = (CONTEXT_PARAMS[method] ?? []).find((name) => name in params && !isOwnWorld(name, params, ownWorld, method));
  if (contextParam) {
    return blocked(`${method} with ${contextParam} is refused: reins runs code only in the page's own world and its own (leave ${contextParam} out)`);
  }
  const rule = PARAM_RULES[method];
  return rule ? rule(params, options) : { ok: true, params };
}

// What the extension forwards of an event the host subscribed to (null: nothing, ever).
// Log.entryAdded may carry `args`, remote objects that could live in another extension's world
// (why Runtime.enable is refused): dropped, with anything that is not plain log text.
// The Debugger domain's events (the paused call frames, their scopes and thrown values: objects of
// the page and of content-script worlds; scriptParsed: every script's URL and hash) never leave:
// the extension's pause probe reads Debugger.paused itself (sessions.js).
const LOG_FIELDS = Object.freeze(["source", "level", "text", "category", "timestamp", "url", "lineNumber", "networkRequestId"]);

export function eventParams(method, params) {
  // Debugger's would hand out a paused page's scopes; Runtime's name every world in the tab
  // (other extensions' content scripts too): console.js forwards its own two, as text.
  if (typeof method === "string" && (method.startsWith("Debugger.") || method.startsWith("Runtime."))) return null;
  if (method !== "Log.entryAdded") return params;
  const entry = params && typeof params.entry === "object" && params.entry !== null ? params.entry : {};
  const kept = {};
  for (const key of LOG_FIELDS) if (key in entry) kept[key] = entry[key];
  return { entry: kept };
}

// The methods that (re)load the tab: before them the tab's current page is checked again, since
// an attached tab may have just arrived on a refused page.
export const NAVIGATING_METHODS = Object.freeze(["Page.navigate", "Page.reload", "Page.navigateToHistoryEntry"]);

/** May the tab go to history entry `entryId` (from Page.getNavigationHistory's answer)? */
export function checkHistoryEntry(history, entryId, options = DEFAULT_OPTIONS) {
  const entry = (history?.entries ?? []).find((e) => e.id === entryId);
  if (!entry) return { ok: false, code: "cdp_error", message: `no history entry ${entryId} in this tab; use \`reins back\` or \`reins forward\`` };
  for (const url of [entry.url, entry.userTypedURL]) {
    if (typeof url !== "string" || url === "") continue;
    const verdict = checkUrl(url, options);
    if (!verdict.ok) return refused(`that history entry is ${JSON.stringify(url)}: ${verdict.message}`);
  }
  return { ok: true };
}
