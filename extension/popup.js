// The popup reads the worker's status and carries the user's decisions: pause, file: pages (kept in
// storage.local, which the worker watches), and whether reins may use the tab in front — "Let reins
// use this tab" hands it over (and undoes a Cancel on the debugging bar), "Take this tab back"
// ends it. `popup.html?tab=ID` shows tab ID instead of the one in front. A handoff the agent asked
// for (handoff.js) is shown first, this tab's or the oldest, with Done (focused) and Cancel.
const $ = (id) => document.getElementById(id);

async function thisTab() {
  const asked = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isInteger(asked) && asked > 0) return asked;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

function describe(s, tabId) {
  if (tabId === null) return ["no tab", null];
  if (s.stoppedTabs.includes(tabId)) return ["stopped: you pressed Cancel while reins drove it", "hand-over"];
  if (s.launched) return ["reins's (every tab is, in a browser `reins launch` started)", null];
  if (s.reinsTabs.includes(tabId)) return ["reins's: the agent may drive it", "take-back"];
  return ["yours: reins does not touch it", "hand-over"];
}

async function refresh() {
  const s = await chrome.runtime.sendMessage({ type: "popup_status" });
  const tabId = await thisTab();
  $("connection").textContent = s.connected ? "connected" : "not connected";
  $("connection").className = s.connected ? "on" : "off";
  $("host-version").textContent = s.host ? `${s.host.version} (profile ${s.host.profile})` : "–";
  const [text, action] = describe(s, tabId);
  $("this-tab").textContent = text;
  $("hand-over").hidden = action !== "hand-over";
  $("take-back").hidden = action !== "take-back";
  $("attached").textContent = s.attached.length ? s.attached.join(", ") : "none";
  $("pause").checked = s.paused;
  $("allow-file").checked = s.allowFile;
  showHandoff(s.handoffs ?? [], tabId);
}

let handoffTab = null;

function showHandoff(open, tabId) {
  const asked = open.find((h) => h.tabId === tabId) ?? open[0];
  $("handoff").hidden = !asked;
  if (!asked || asked.tabId === handoffTab) return;
  handoffTab = asked.tabId;
  $("handoff-text").textContent = asked.text; // the agent's words, as text
  $("handoff-tab").textContent = asked.tabId === tabId ? "this tab" : `tab ${asked.tabId}`;
  $("handoff-done").focus();
}

for (const [id, done] of [["handoff-done", true], ["handoff-cancel", false]]) {
  $(id).addEventListener("click", async () => {
    await chrome.runtime.sendMessage({ type: "popup_handoff", tabId: handoffTab, done });
    handoffTab = null;
    refresh();
  });
}

for (const [id, key] of [["pause", "paused"], ["allow-file", "allowFile"]]) {
  $(id).addEventListener("change", async (e) => {
    await chrome.storage.local.set({ [key]: e.target.checked });
    setTimeout(refresh, 50);
  });
}

for (const [id, type] of [["hand-over", "popup_hand_over"], ["take-back", "popup_take_back"]]) {
  $(id).addEventListener("click", async () => {
    await chrome.runtime.sendMessage({ type, tabId: await thisTab() });
    refresh();
  });
}

refresh();
