// Console errors, uncaught exceptions and resource timings, kept in ring buffers on a Symbol slot
// of the window until the host drains them (evidence for `reins console`, `reins network` and
// traces). Installed once per document by the first captureTick; nothing is sent anywhere.
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

// "url:line:column" of the first stack frame outside the capture itself, or null.
export function callerOf(stack) {
  if (typeof stack !== "string") return null;
  const lines = stack.split("\n").slice(1);
  for (const line of lines) {
    if (line.includes("reinsCapture")) continue;
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

function install(win) {
  const slot = {
    since: Date.now(),
    console: { items: [], dropped: 0 },
    network: { items: [], dropped: 0 },
  };
  const note = (level, kind, text, where) => {
    pushBounded(slot.console, {
      time: Date.now(), level, kind, text: cut(text, LIMITS.text),
      source: where ? where.url : null, line: where ? where.line : null,
    }, LIMITS.console);
  };
  for (const level of ["error", "warn"]) {
    const original = win.console[level];
    if (typeof original !== "function") continue;
    win.console[level] = function reinsCapture(...args) {
      try {
        note(level, "console", messageOf(args, LIMITS.text), callerOf(new Error().stack));
      } catch (_) {
        // never let the capture break the page's own logging
      }
      return original.apply(this, args);
    };
  }
  win.addEventListener("error", (event) => {
    if (event.target !== win && !(event instanceof win.ErrorEvent)) return; // a resource: see timings
    const error = event.error;
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(event.message);
    note("error", "exception", text,
      event.filename ? { url: event.filename, line: event.lineno, column: event.colno } : null);
  }, true);
  win.addEventListener("unhandledrejection", (event) => {
    note("error", "rejection", `Unhandled rejection: ${argText(event.reason)}`,
      event.reason instanceof Error ? callerOf(event.reason.stack) : null);
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

function take(buffer) {
  const out = { items: buffer.items, dropped: buffer.dropped };
  buffer.items = [];
  buffer.dropped = 0;
  return out;
}

// Installs the capture in this document if it is not there yet; with `drain`, hands over (and
// empties) the buffers. Always says which document this is.
export function captureTick(drain) {
  let slot = window[CAPTURE];
  const installed = !slot;
  if (!slot) slot = install(window);
  const out = {
    document: performance.timeOrigin, url: location.href, title: document.title,
    installed, since: slot.since,
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
