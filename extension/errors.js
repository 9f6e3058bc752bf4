// The error an answer carries: {code, message} and, for one of Chrome's errors this table knows,
// `transient` (trying again may work) and `chrome` (what Chrome said, as a word the host reads
// where the code alone does not decide: the script stopped at its timeout, the document gone).
// A Refusal of the extension's own has its code. Chrome's errors are classified here, once, by
// their message: the host trusts the code and never reads Chrome's words (tests/unit/
// test_chrome_errors.py fails if they come back there).

import { Refusal } from "./refusal.js";

// Chrome's words, first match wins: the code the host knows them by, and what they mean.
export const CHROME_ERRORS = [
  // The tab or its target is gone (closed, replaced, or the debugger let go while a command ran).
  { words: /No tab with id|No target with given id|Detached while handling|Target closed/i, code: "target_closed" },
  // A page reins may not attach to or script (chrome://, another extension's pages).
  { words: /Cannot access|Cannot attach to this target|chrome-extension:\/\/|chrome:\/\//i, code: "page_refused" },
  // V8 stopped a Runtime.evaluate at its `timeout`.
  { words: /Execution was terminated/i, code: "timeout", transient: true, chrome: "script_terminated" },
  // A backend node id of a document that is gone, or of a node removed from it.
  { words: /No node with given id|Could not find node/i, code: "ref_stale", transient: true, chrome: "node_gone" },
  // The execution context (the document) went away while the call ran: a navigation.
  { words: /Cannot find context|context was destroyed/i, code: "cdp_error", transient: true, chrome: "context_gone" },
  // A remote object of a document that is gone (its context went with it).
  { words: /Could not find object/i, code: "cdp_error", chrome: "object_gone" },
  // Started already (a screencast this host's previous life left running on the tab).
  { words: /already active/i, code: "cdp_error", chrome: "already_active" },
  // DOM.getNodeForLocation at a point with nothing of the document under it (off the page).
  { words: /No node found at given location/i, code: "cdp_error", chrome: "no_node_at_point" },
  // CDP's bare -32603, which is how an awaited Runtime.evaluate stopped at its timeout answers.
  { words: /Internal error/i, code: "cdp_error", chrome: "internal_error" },
];

export function errorOf(err) {
  const message = String(err?.message ?? err);
  if (err instanceof Refusal) return { ...err.extra, code: err.code, message };
  const known = CHROME_ERRORS.find((e) => e.words.test(message));
  if (!known) return { code: "cdp_error", message };
  const { words, ...meaning } = known;
  return { ...meaning, message };
}
