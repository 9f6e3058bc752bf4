// The page's console errors and warnings and its uncaught exceptions, from Chrome's Runtime domain:
// nothing of reins runs in the page's world for them (before, a hook there wrapped console.error,
// which a page could see). The host never turns Runtime on (allowlist.js refuses Runtime.enable,
// whose events name every world in the tab, other extensions' content scripts among them): the
// extension does, for a tab whose host subscribed to one of CONSOLE_EVENTS, and forwards only
// those two events, only from a page's own world (a frame's default context), cut down to text:
// never an object id, never another world's message. Pure: sessions.js keeps the contexts and
// the per-tab budget and sends what `consoleEvent` answers; node's test runner drives it with
// hand-built events (tests/extension/console.test.mjs).
//
// Checked on this machine's Chromium (2026-12-05): with Runtime on, a page's `console.debug` of
// an Error whose `stack` is a getter, and of an object with a getter, runs neither getter (the
// old way to tell an inspector is listening); the page's console functions stay its own.

export const CONSOLE_EVENTS = Object.freeze(["Runtime.consoleAPICalled", "Runtime.exceptionThrown"]);

// What is kept of one message and of one argument, how many arguments, and how many events a tab
// may forward a second (the rest counted as dropped, told with the next one forwarded).
export const LIMITS = Object.freeze({ text: 2000, arg: 500, args: 10, url: 2048, perSecond: 100 });

// consoleAPICalled types kept, by the level the host files them under.
const LEVELS = Object.freeze({ error: "error", assert: "error", warning: "warn" });

function cut(text, max) {
  const s = String(text);
  return s.length > max ? s.slice(0, max) + "…" : s;
}

// The page's default contexts (one per frame of the page) of a tab's session, by id: updated from
// Runtime's context events. Answers whether the event changed them (it is then not forwarded).
export function noteContext(contexts, method, params) {
  if (method === "Runtime.executionContextCreated") {
    const context = params?.context;
    if (Number.isInteger(context?.id) && context.auxData?.isDefault === true) contexts.add(context.id);
    return true;
  }
  if (method === "Runtime.executionContextDestroyed") {
    contexts.delete(params?.executionContextId);
    return true;
  }
  if (method === "Runtime.executionContextsCleared") {
    contexts.clear();
    return true;
  }
  return false;
}

// One preview property (or entry) as text: `name: value`.
function previewProperty(p) {
  const value = p?.type === "string" ? JSON.stringify(cut(p.value ?? "", 80)) : cut(p?.value ?? p?.type ?? "", 80);
  return p?.name !== undefined && !/^\d+$/.test(p.name) ? `${cut(p.name, 40)}: ${value}` : value;
}

// One console argument (a RemoteObject) as text: a primitive's value, an object's preview or its
// description (an Error's is its message and stack).
export function argText(arg) {
  if (!arg || typeof arg !== "object") return "";
  if (arg.type === "string") return cut(arg.value ?? "", LIMITS.arg);
  if (arg.type === "undefined") return "undefined";
  if (arg.subtype === "null") return "null";
  if ("unserializableValue" in arg) return cut(arg.unserializableValue, LIMITS.arg);
  if (arg.type === "number" || arg.type === "boolean") return String(arg.value);
  const preview = arg.preview;
  if (preview && Array.isArray(preview.properties) && arg.subtype !== "error") {
    const inner = preview.properties.slice(0, 10).map(previewProperty).join(", ") + (preview.overflow ? ", …" : "");
    return cut(arg.subtype === "array" ? `[${inner}]` : `{${inner}}`, LIMITS.arg);
  }
  return cut(arg.description ?? arg.className ?? arg.type ?? "", LIMITS.arg);
}

// Where a message came from: the first frame of its stack with a URL.
function sourceOf(stackTrace) {
  const frame = (stackTrace?.callFrames ?? []).find((f) => typeof f?.url === "string" && f.url !== "");
  return frame ? { source: cut(frame.url, LIMITS.url), line: Number.isInteger(frame.lineNumber) ? frame.lineNumber + 1 : null } : { source: null, line: null };
}

// What the extension forwards of a console event of a page's world: {time, level, kind, text,
// source, line}; null for anything else (another world, a level the host does not keep).
export function consoleEvent(method, params, contexts) {
  if (method === "Runtime.consoleAPICalled") {
    const level = LEVELS[params?.type];
    if (!level || !contexts.has(params.executionContextId)) return null;
    const args = Array.isArray(params.args) ? params.args.slice(0, LIMITS.args) : [];
    const text = cut(args.map(argText).join(" ") || (params.type === "assert" ? "Assertion failed" : ""), LIMITS.text);
    return { time: Math.round(Number(params.timestamp) || Date.now()), level, kind: "console", text, ...sourceOf(params.stackTrace) };
  }
  if (method === "Runtime.exceptionThrown") {
    const details = params?.exceptionDetails;
    if (!details || !contexts.has(details.executionContextId)) return null;
    // What was thrown, by its first line (an Error's description goes on with its stack).
    const thrown = details.exception ? argText(details.exception).split("\n")[0] : "";
    const said = typeof details.text === "string" ? details.text : "Uncaught";
    const kind = /in promise/i.test(said) ? "rejection" : "exception";
    const text = cut(kind === "rejection" ? `Unhandled rejection: ${thrown}` : thrown || said, LIMITS.text);
    const at = details.url ? { source: cut(details.url, LIMITS.url), line: Number.isInteger(details.lineNumber) ? details.lineNumber + 1 : null } : sourceOf(details.stackTrace);
    return { time: Math.round(Number(params.timestamp) || Date.now()), level: "error", kind, text, ...at };
  }
  return null;
}

// A tab's forwarding budget: `take(now)` answers whether one more event may go this second.
export class Budget {
  constructor(perSecond = LIMITS.perSecond) {
    this.perSecond = perSecond;
    this.second = -1;
    this.used = 0;
    this.dropped = 0;
  }

  take(now) {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.used = 0;
    }
    if (this.used >= this.perSecond) {
      this.dropped += 1;
      return false;
    }
    this.used += 1;
    return true;
  }

  // The count dropped since it was last told (then zero).
  tell() {
    const dropped = this.dropped;
    this.dropped = 0;
    return dropped;
  }
}
