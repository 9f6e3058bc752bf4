// The connection to the native host: connect, hello on every connect, post, reconnect with
// backoff whenever the host exits or cannot be started, and the toolbar badge that shows it.
// No `chrome` inside: the service worker hands in chrome.runtime.connectNative (bound to the
// host's name), a reader of chrome.runtime.lastError, the badge setter and the timer, so node's
// test runner drives it with hand-built fakes (tests/extension/port.test.mjs).
//
// A connected native port keeps an MV3 service worker alive (Chrome 105+); a host that exits
// closes the port (onDisconnect), and the worker tries again after 250 ms, doubling up to 5 s.
// Any message from the host proves it alive: the next retry starts fast again.

export const FIRST_RETRY_MS = 250;
export const LAST_RETRY_MS = 5000;
// Chrome lets an extension send the host at most 64 MiB in one message; stay under it.
export const MAX_TO_HOST = 60 * 1024 * 1024;

export class HostPort {
  // connectNative(): a chrome.runtime.Port to the host, or throws; lastError(): why the port
  // closed (chrome.runtime.lastError's message, read inside onDisconnect), if Chrome said;
  // hello(): the hello to say on each connect; onMessage(msg): each message from the host (its
  // host_hello also kept as `info`); onDisconnect(): after the port closed, before the retry; paused(): shown by the
  // badge; setBadge(text, color); setTimeout(fn, ms); warn(...args): console.warn.
  constructor({ connectNative, lastError, hello, onMessage, onDisconnect, paused, setBadge, setTimeout, warn }) {
    Object.assign(this, { connectNative, lastError, hello, onMessage, onDisconnect, paused, setBadge, setTimeout, warn });
    this.port = null;
    this.info = null; // what the host said of itself (host_hello): {version, profile, launched}
    this.retry = null; // the pending reconnect's timer
    this.backoffMs = FIRST_RETRY_MS;
  }

  get connected() {
    return this.port !== null;
  }

  // Connects unless connected or a retry is already waiting (the worker wakes for many events).
  wake() {
    if (this.port === null && this.retry === null) this.connect();
  }

  connect() {
    this.retry = null;
    let port;
    try {
      port = this.connectNative();
    } catch (err) {
      this.#retryLater(String(err));
      return;
    }
    this.port = port;
    port.onMessage.addListener((msg) => {
      this.backoffMs = FIRST_RETRY_MS;
      if (msg?.type === "host_hello") this.info = { version: msg.version, profile: msg.profile, launched: !!msg.launched };
      this.onMessage(msg);
    });
    port.onDisconnect.addListener(() => {
      const reason = this.lastError() ?? "host exited";
      this.port = null;
      this.info = null;
      this.onDisconnect();
      this.#retryLater(reason);
    });
    this.post(this.hello());
    this.updateBadge();
  }

  #retryLater(reason) {
    this.updateBadge();
    if (this.retry !== null) return;
    this.warn(`reins: host not connected (${reason}); retrying in ${this.backoffMs} ms`);
    this.retry = this.setTimeout(() => this.connect(), this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, LAST_RETRY_MS);
  }

  // To the host; while disconnected the message is dropped (the host that connects next starts
  // afresh and asks for what it needs).
  post(message) {
    if (this.port === null) return;
    try {
      this.port.postMessage(message);
    } catch (err) {
      this.warn("reins: postMessage failed", err);
    }
  }

  // An answer {id, ok, ...}; one too large for Chrome to carry is answered message_too_large
  // instead (measuring costs a serialization; it is what keeps it from closing the port).
  answer(message, maxBytes = MAX_TO_HOST) {
    const size = JSON.stringify(message).length;
    if (size > maxBytes) {
      message = { id: message.id, ok: false, error: { code: "message_too_large", message: `result of ${size} bytes exceeds ${maxBytes}` } };
    }
    this.post(message);
  }

  updateBadge() {
    const [text, color] = this.port === null ? ["off", "#888888"] : this.paused() ? ["II", "#b8860b"] : ["on", "#1a7f37"];
    this.setBadge(text, color);
  }
}

// A random id kept in a storage area (chrome.storage.local or .session), made on first use; said
// in hello. Without one (storage failing) the host names the profile as older extensions had it
// named: by start order.
export async function keptId(area, key, warn) {
  try {
    const kept = (await area.get(key))[key];
    if (kept) return kept;
    const made = crypto.randomUUID();
    await area.set({ [key]: made });
    return made;
  } catch (err) {
    warn(`reins: no ${key} id`, err);
    return null;
  }
}
