// Console errors, uncaught exceptions and resource timings, kept in ring buffers in reins's own
// world until the host drains them (evidence for `reins console`, `reins network` and traces).
// Installed once per document by the first captureTick (reins's world: the buffers, the resource
// timings); what only the page's world sees (its console calls; its uncaught exceptions and
// rejections, which Chrome dispatches to that world's listeners only) is noted by captureHook,
// run there once, which keeps nothing on the page's window and hands each entry over as a DOM
// event of a random name that reins's world listens for. Nothing is sent anywhere.
//
// What it cannot see: anything logged before it was installed (the first reins command on a
// document after the capture was switched on), messages Chrome itself prints (CORS, CSP, "Failed
// to load resource"), other frames' consoles, and request methods (resource timing has none).
// Failed requests show up as resource timings with responseStatus 0 (network error) or >= 400.

import { frameOffset, toTop } from "./geometry.js";
import { CAPTURE } from "./symbols.js";

export const LIMITS = Object.freeze({ console: 200, network: 300, text: 2000, url: 2048 });

// Appends to a bounded buffer; counts what had to be dropped to make room.
export function pushBounded(buffer, item, limit) {
  buffer.items.push(item);
  if (buffer.items.length > limit) {
    buffer.items.splice(0, buffer.items.length - limit);
    buffer.dropped++;
  }
}

function cut(text, max) {
  return text.length > max ? text.slice(0, max) + "…" : text;
}

// One console argument as text: strings as they are, errors by name and message, the rest as
// JSON when it can be, else its type.
export function argText(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value === undefined) return "undefined";
  if (typeof value === "function") return `function ${value.name || "(anonymous)"}`;
  if (typeof value === "symbol" || typeof value === "bigint") return String(value);
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch (_) {
    // cyclic or hostile: fall through
  }
  return Object.prototype.toString.call(value);
}

export function messageOf(args, max) {
  return cut(Array.from(args, argText).join(" "), max);
}

// "url:line:column" of the first stack frame with a page URL, or null (the capture's own frames,
// evaluated by reins, have none).
export function callerOf(stack) {
  if (typeof stack !== "string") return null;
  const lines = stack.split("\n").slice(1);
  for (const line of lines) {
    const m = /\(?((?:https?|file):\/\/[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
    if (m) return { url: m[1], line: Number(m[2]), column: Number(m[3]) };
  }
  return null;
}

// A resource timing entry as the host keeps it (the host strips the URL's query).
export function resourceRecord(entry, origin) {
  return {
    time: Math.round(origin + entry.startTime),
    url: entry.name,
    type: entry.initiatorType || entry.entryType,
    status: typeof entry.responseStatus === "number" ? entry.responseStatus : null,
    duration_ms: Math.round(entry.duration),
    transfer_size: typeof entry.transferSize === "number" ? entry.transferSize : null,
  };
}

// The largest entry the page's hook may hand over (its text is cut to LIMITS.text page-side; a
// page that lies about its own console cannot make reins read more).
const MAX_HANDED = 3 * LIMITS.text + 1024;

function install(win) {
  const slot = {
    since: Date.now(),
    console: { items: [], dropped: 0 },
    network: { items: [], dropped: 0 },
    hook: `reins-${crypto.randomUUID()}`,
  };
  win.document.addEventListener(slot.hook, (event) => {
    const handed = event.detail;
    if (typeof handed !== "string" || handed.length > MAX_HANDED) return;
    let entry;
    try {
      entry = JSON.parse(handed);
    } catch (_) {
      return;
    }
    if (!entry || typeof entry !== "object") return;
    if (entry.kind === "hooked") {
      slot.hooked = true; // the page's hook is in place: not asked for again in this document
      return;
    }
    const text = typeof entry.text === "string" ? cut(entry.text, LIMITS.text) : "";
    const level = entry.level === "warn" ? "warn" : "error";
    const kind = ["console", "exception", "rejection"].includes(entry.kind) ? entry.kind : "console";
    const source = typeof entry.source === "string" ? cut(entry.source, LIMITS.url) : null;
    const line = Number.isInteger(entry.line) ? entry.line : null;
    pushBounded(slot.console, { time: Date.now(), level, kind, text, source, line }, LIMITS.console);
  });
  const origin = win.performance.timeOrigin;
  const navigation = win.performance.getEntriesByType("navigation")[0];
  if (navigation) pushBounded(slot.network, resourceRecord(navigation, origin), LIMITS.network);
  try {
    const observer = new win.PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        pushBounded(slot.network, resourceRecord(entry, origin), LIMITS.network);
      }
    });
    observer.observe({ type: "resource", buffered: true });
    slot.observer = observer;
  } catch (_) {
    slot.noTimings = true;
  }
  win[CAPTURE] = slot;
  return slot;
}

// In the page's world, once per document: its console's errors and warnings, its uncaught
// exceptions and unhandled rejections, each handed to reins's world as a `hook` event on the
// document (a JSON string). Keeps nothing on the window; the built-ins it uses are taken now.
export function captureHook(hook) {
  const doc = document;
  const stringify = JSON.stringify;
  const Custom = CustomEvent;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const hand = (level, kind, text, where) => {
    try {
      const entry = { level, kind, text: cut(text, LIMITS.text), source: where ? where.url : null, line: where ? where.line : null };
      dispatch.call(doc, new Custom(hook, { detail: stringify(entry) }));
    } catch (_) {
      // never let the capture break the page's own logging
    }
  };
  for (const level of ["error", "warn"]) {
    const original = console[level];
    if (typeof original !== "function") continue;
    // Named as the function it replaces (a page reading console.error.name sees "error").
    console[level] = {
      [level](...args) {
        try {
          hand(level, "console", messageOf(args, LIMITS.text), callerOf(new Error().stack));
        } catch (_) {
          // as above
        }
        return original.apply(this, args);
      },
    }[level];
  }
  window.addEventListener("error", (event) => {
    if (event.target !== window && !(event instanceof ErrorEvent)) return; // a resource: see timings
    const error = event.error;
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(event.message);
    hand("error", "exception", text,
      event.filename ? { url: event.filename, line: event.lineno, column: event.colno } : null);
  }, true);
  window.addEventListener("unhandledrejection", (event) => {
    hand("error", "rejection", `Unhandled rejection: ${argText(event.reason)}`,
      event.reason instanceof Error ? callerOf(event.reason.stack) : null);
  });
  dispatch.call(doc, new Custom(hook, { detail: stringify({ kind: "hooked" }) }));
  return true;
}

function take(buffer) {
  const out = { items: buffer.items, dropped: buffer.dropped };
  buffer.items = [];
  buffer.dropped = 0;
  return out;
}

// In reins's world: installs the capture in this document if it is not there yet; `hook` names
// the event captureHook hands entries over by, until that hook said it is in place (the host
// runs it next in the page's world); with
// `drain`, hands over (and empties) the buffers. Always says which document this is.
export function captureTick(drain) {
  let slot = window[CAPTURE];
  const installed = !slot;
  if (!slot) slot = install(window);
  const out = {
    document: performance.timeOrigin, url: location.href, title: document.title,
    installed, since: slot.since, hook: slot.hooked ? null : slot.hook,
  };
  if (drain) {
    if (slot.observer) {
      for (const entry of slot.observer.takeRecords()) {
        pushBounded(slot.network, resourceRecord(entry, performance.timeOrigin), LIMITS.network);
      }
    }
    out.console = take(slot.console);
    out.network = take(slot.network);
  }
  return out;
}

// The box of an element in the top window's viewport (same-origin frames added up), after
// bringing it into view, for marking it on a trace's screenshot.
export function traceBox(el) {
  if (typeof el.scrollIntoViewIfNeeded === "function") el.scrollIntoViewIfNeeded(true);
  else el.scrollIntoView({ block: "center", inline: "nearest" });
  const r = el.getBoundingClientRect();
  const box = toTop(frameOffset(el.ownerDocument.defaultView), [r.x, r.y, r.width, r.height]);
  return { box, dpr: window.devicePixelRatio || 1 };
}
