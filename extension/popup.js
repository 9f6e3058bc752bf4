// The popup only reads the worker's status and flips the pause switch (kept in storage.local,
// which the worker watches).
const $ = (id) => document.getElementById(id);

async function refresh() {
  const s = await chrome.runtime.sendMessage({ type: "popup_status" });
  $("connection").textContent = s.connected ? "connected" : "not connected";
  $("connection").className = s.connected ? "on" : "off";
  $("host-version").textContent = s.host ? `${s.host.version} (profile ${s.host.profile})` : "–";
  $("attached").textContent = s.attached.length ? s.attached.join(", ") : "none";
  $("pause").checked = s.paused;
}

$("pause").addEventListener("change", async (e) => {
  await chrome.storage.local.set({ paused: e.target.checked });
  setTimeout(refresh, 50);
});

refresh();
