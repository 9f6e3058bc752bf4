// Resource timings, kept in a ring buffer in reins's own world until the host drains them
// (evidence for `reins network` and traces). Installed once per document by the first
// captureTick. The page's console and uncaught errors come from Chrome instead (the extension's
// console.js, Runtime's events): nothing of reins runs in the page's world for them.
//
// What it cannot see: request methods (resource timing has none), and other frames' requests.
// Failed requests show up as resource timings with responseStatus 0 (network error) or >= 400.

import { frameOffset, toTop } from "./geometry.js";
import { CAPTURE } from "./symbols.js";

export const LIMITS = /* @__PURE__ */ Object.freeze({ network: 300 }); // pure: dropped where unused

// Appends to a bounded buffer; counts what had to be dropped to make room.
export function pushBounded(buffer, item, limit) {
  buffer.items.push(item);
  if (buffer.items.length > limit) {
    buffer.items.splice(0, buffer.items.length - limit);
    buffer.dropped++;
  }
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
  const slot = { since: Date.now(), network: { items: [], dropped: 0 } };
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

// In reins's world: installs the capture in this document if it is not there yet; with `drain`,
// hands over (and empties) the timings' buffer. Always says which document this is.
export function captureTick(drain) {
  let slot = window[CAPTURE];
  const installed = !slot;
  if (!slot) slot = install(window);
  const out = { document: performance.timeOrigin, url: location.href, title: document.title, installed, since: slot.since };
  if (drain) {
    if (slot.observer) {
      for (const entry of slot.observer.takeRecords()) {
        pushBounded(slot.network, resourceRecord(entry, performance.timeOrigin), LIMITS.network);
      }
    }
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
