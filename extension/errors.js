// The error an answer carries: {code, message}. A Refusal of the extension's own has its code;
// anything else thrown is one of Chrome's errors, classified here by its message, once.

import { Refusal } from "./refusal.js";

// Chrome's words, first match wins, and the code the host knows them by.
export const CHROME_ERRORS = [
  { words: /No tab with id|No target with given id|Detached while handling|target closed/i, code: "target_closed" },
  { words: /Cannot access|Cannot attach to this target/i, code: "page_refused" },
];

export function errorOf(err) {
  const message = String(err?.message ?? err);
  if (err instanceof Refusal) return { code: err.code, message };
  const known = CHROME_ERRORS.find((e) => e.words.test(message));
  return { code: known?.code ?? "cdp_error", message };
}
