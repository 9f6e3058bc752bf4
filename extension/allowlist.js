// The whole capability reins grants: the CDP methods the host may run through chrome.debugger.
// Anything not listed is refused here with `cdp_blocked` and never reaches Chrome. Deliberately
// absent: cookie and storage reads (Network.getCookies, Network.getAllCookies, Storage.*),
// Browser.*, Fetch.* (request interception), Debugger.*, download-behaviour changes
// (Page.setDownloadBehavior, Browser.setDownloadBehavior), file uploads (DOM.setFileInputFiles), and
// Runtime.enable (its console and context events hand out objects living in other extensions'
// content-script worlds; reins never needs them). Parameters of these methods that would reach
// further, and the pages a tab may be on, are checked in policy.js.

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
  // Child sessions for out-of-process iframes
  "Target.setAutoAttach",
  // What Chrome itself logs about the page (failed loads, CORS/CSP refusals, uncaught errors) for
  // `reins console`/`network` and traces. Its Log.entryAdded events pass through
  // policy.js/eventParams, which drops `args` (remote objects) before they leave the extension.
  "Log.enable",
]);

const allowed = new Set(ALLOWED_METHODS);

export function isAllowed(method) {
  return typeof method === "string" && allowed.has(method);
}
