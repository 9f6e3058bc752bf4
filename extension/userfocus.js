// The user's windows stay as the user left them while reins presses the mouse in a tab.
//
// A mouse press (or touch start) sent through chrome.debugger makes Chrome focus the tab's
// native view. A background tab's view is detached, so nothing happens; but when the tab is the
// front tab of a minimized window, or of a window behind the user's other application, Chrome
// activates that window: un-minimizes it, raises it and takes the keyboard (measured under X11,
// docs/hidden-tabs.md). So around a batch that presses, note how the user had the windows and put
// them back: minimize it again, hand the focus back to the user's other Chrome window, or lower it
// behind the application the user was in (where the keyboard then goes is the window manager's
// call). Focus emulation (allowlist.js) lets the hidden tab render; this keeps a press from
// showing it.

// Runs one host message, keeping the user's windows when it presses in a tab. `run` gets a
// promise of the windows as they were (null when nothing presses): the note is taken while the
// message's first commands run, and whoever sends a press awaits it first (sequence() in
// sequencer.js), so the note is still of the windows before any press.
export function aroundPresses(msg, run) {
  const commands = msg.type === "cdp" ? [msg] : msg.type === "cdp_batch" ? msg.commands ?? [] : [];
  return typeof msg.tabId === "number" && commands.some(presses) ? keepUserWindows(msg.tabId, run) : run(null);
}

// Does this command press (and so may raise the tab's window)?
export function presses(c) {
  return (c.method === "Input.dispatchMouseEvent" && c.params?.type === "mousePressed")
    || (c.method === "Input.dispatchTouchEvent" && c.params?.type === "touchStart");
}

async function keepUserWindows(tabId, run) {
  const noted = windowsBefore(tabId).catch(() => null);
  try {
    return await run(noted);
  } finally {
    const before = await noted;
    if (before) await restore(before).catch((err) => console.warn("reins: could not restore the window", err));
  }
}

async function windowsBefore(tabId) {
  const tab = await chrome.tabs.get(tabId);
  if (!tab.active) return null; // its view is detached: a press raises nothing
  const win = await chrome.windows.get(tab.windowId);
  if (win.state !== "minimized" && win.focused) return null; // the user is looking at it
  const focused = (await chrome.windows.getAll()).find((w) => w.focused && w.id !== win.id);
  return { windowId: win.id, minimized: win.state === "minimized", focusedWindowId: focused?.id ?? null };
}

async function restore({ windowId, minimized, focusedWindowId }) {
  if (minimized) await chrome.windows.update(windowId, { state: "minimized" });
  else if (focusedWindowId !== null) await chrome.windows.update(focusedWindowId, { focused: true });
  else await chrome.windows.update(windowId, { focused: false }); // back behind the user's application
}
