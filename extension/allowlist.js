// The whole capability reins grants: the CDP methods the host may run through chrome.debugger.
// Anything not listed is refused here with `cdp_blocked` and never reaches Chrome. Deliberately
// absent: cookie and storage reads (Network.getCookies, Network.getAllCookies, Storage.*),
// Browser.*, Fetch.* (request interception), Debugger.* (the host cannot turn the domain on: the
// extension's own pause probe does, for an instant, sessions.js), download-behaviour changes
// (Page.setDownloadBehavior, Browser.setDownloadBehavior), and
// Runtime.enable (its console and context events hand out objects living in other extensions'
// content-script worlds: the extension turns it on itself for the page's console and forwards
// only that, as text, from the page's own worlds: console.js). Parameters of these methods that
// would reach further, and the pages a tab may be on, are checked in policy.js.

export const ALLOWED_METHODS = Object.freeze([
  // Page: navigation, history, pictures, frames, events the host subscribes to
  "Page.enable",
  "Page.navigate",
  "Page.reload",
  "Page.stopLoading",
  "Page.getNavigationHistory",
  "Page.navigateToHistoryEntry",
  "Page.captureScreenshot",
  "Page.getFrameTree",
  "Page.getLayoutMetrics",
  "Page.bringToFront",
  "Page.handleJavaScriptDialog",
  // Runtime: evaluate in the page, call functions on elements, release handles
  "Runtime.evaluate",
  "Runtime.callFunctionOn",
  "Runtime.getProperties",
  "Runtime.releaseObject",
  "Runtime.releaseObjectGroup",
  "Runtime.runIfWaitingForDebugger",
  // DOM: read, resolve, focus, geometry
  "DOM.enable",
  "DOM.getDocument",
  "DOM.describeNode",
  "DOM.resolveNode",
  "DOM.requestNode",
  "DOM.querySelector",
  "DOM.querySelectorAll",
  "DOM.performSearch",
  "DOM.getSearchResults",
  "DOM.discardSearchResults",
  "DOM.pushNodesByBackendIdsToFrontend",
  "DOM.getBoxModel",
  "DOM.getContentQuads",
  "DOM.getNodeForLocation",
  "DOM.getFrameOwner",
  "DOM.scrollIntoViewIfNeeded",
  "DOM.focus",
  // Accessibility tree
  "Accessibility.enable",
  "Accessibility.getFullAXTree",
  "Accessibility.getPartialAXTree",
  "Accessibility.queryAXTree",
  // Input as a person would give it
  "Input.dispatchMouseEvent",
  "Input.dispatchKeyEvent",
  "Input.insertText",
  // `reins drag` on native HTML5 drag and drop: Chrome hands the page's drag session over instead
  // of running it (an OS drag loop synthetic mouse input never reaches), and reins sends the drag
  // events back; only with the checked params below (never with files).
  "Input.setInterceptDrags",
  "Input.dispatchDragEvent",
  // `reins upload`: files for a file input, only in the shape policy.js checks (absolute paths and
  // the input). Which directories they may come from is the host's policy (docs/security.md).
  "DOM.setFileInputFiles",
  // Child sessions for out-of-process iframes
  "Target.setAutoAttach",
  // A hidden tab renders while reins acts on it (only with the checked params below)
  "Emulation.setFocusEmulationEnabled",
  "Page.startScreencast",
  "Page.stopScreencast",
  // Crash reports: Inspector.targetCrashed / targetReloadedAfterCrash (enable re-sends a crash)
  "Inspector.enable",
  // What Chrome itself logs about the page (failed loads, CORS/CSP refusals, uncaught errors) for
  // `reins console`/`network` and traces. Its Log.entryAdded events pass through
  // policy.js/eventParams, which drops `args` (remote objects) before they leave the extension.
  "Log.enable",
  // Detection of elements whose only sign of being clickable is a listener (jQuery-style
  // handlers bound with addEventListener, invisible to page JS). Only with the checked params
  // below (no objectGroup). Chrome still answers the handler functions as remote objects (measured);
  // the host releases them at once and reads only each listener's type (docs/security.md).
  "DOMDebugger.getEventListeners",
]);

// Methods allowed only with these exact parameters: name -> check of the params object.
export const PARAM_RULES = Object.freeze({
  // The switch and nothing else: the page of that one tab then believes it is visible and
  // focused, so it renders while hidden (docs/hidden-tabs.md).
  "Emulation.setFocusEmulationEnabled": (p) => onlyKeys(p, ["enabled"]) && typeof p.enabled === "boolean",
  // Keeps a hidden tab's frames drawn while reins works in it; thumbnails of at most 16x16 px, too
  // small to read anything from (reins never acknowledges them: Chrome sends three, then waits).
  "Page.startScreencast": (p) => onlyKeys(p, ["format", "quality", "maxWidth", "maxHeight", "everyNthFrame"])
    && p.format === "jpeg" && intIn(p.maxWidth, 1, 16) && intIn(p.maxHeight, 1, 16)
    && (p.quality === undefined || intIn(p.quality, 0, 10))
    && (p.everyNthFrame === undefined || intIn(p.everyNthFrame, 1, 60)),
  "Page.stopScreencast": (p) => onlyKeys(p, []),
  "DOMDebugger.getEventListeners": (p) => onlyKeys(p, ["objectId", "depth", "pierce"])
    && typeof p.objectId === "string" && (p.depth === undefined || Number.isInteger(p.depth))
    && (p.pierce === undefined || typeof p.pierce === "boolean"),
  "Input.setInterceptDrags": (p) => onlyKeys(p, ["enabled"]) && typeof p.enabled === "boolean",
  // A drag event at a point of this tab, carrying the data the page's own dragstart put in it
  // (as Input.dragIntercepted handed it over): text items only. `files` would drop local files into
  // the page past `reins upload`'s directory policy, so data with a `files` key is refused.
  "Input.dispatchDragEvent": (p) => onlyKeys(p, ["type", "x", "y", "data", "modifiers"])
    && DRAG_EVENT_TYPES.includes(p.type) && Number.isFinite(p.x) && Number.isFinite(p.y)
    && (p.modifiers === undefined || intIn(p.modifiers, 0, 15))
    && isDragData(p.data),
});

const DRAG_EVENT_TYPES = Object.freeze(["dragEnter", "dragOver", "drop", "dragCancel"]);
const DRAG_ITEM_KEYS = Object.freeze(["mimeType", "data", "title", "baseURL"]);

function isDragData(data) {
  return onlyKeys(data, ["items", "dragOperationsMask"])
    && intIn(data.dragOperationsMask, 0, 0xffffffff)
    && Array.isArray(data.items) && data.items.length <= 64
    && data.items.every((item) => onlyKeys(item, DRAG_ITEM_KEYS)
      && typeof item.mimeType === "string" && typeof item.data === "string"
      && DRAG_ITEM_KEYS.every((k) => item[k] === undefined || typeof item[k] === "string"));
}

const allowed = new Set(ALLOWED_METHODS);

function intIn(value, low, high) {
  return Number.isInteger(value) && value >= low && value <= high;
}

function onlyKeys(params, keys) {
  return params !== null && typeof params === "object" && !Array.isArray(params)
    && Object.keys(params).every((k) => keys.includes(k));
}

export function isListed(method) {
  return typeof method === "string" && allowed.has(method);
}

export function isAllowed(method, params = {}) {
  if (!isListed(method)) return false;
  const check = PARAM_RULES[method];
  return check === undefined || check(params);
}
