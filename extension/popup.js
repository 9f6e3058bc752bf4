// The popup only reads the worker's status and flips the user's switches, pause and file: pages
// (kept in storage.local, which the worker watches).
const $ = (id) => document.getElementById(id);

async function refresh() {
  const s = await chrome.runtime.sendMessage({ type: "popup_status" });
  $("connection").textContent = s.connected ? "connected" : "not connected";
  $("connection").className = s.connected ? "on" : "off";
  $("host-version").textContent = s.host ? `${s.host.version} (profile ${s.host.profile})` : "–";
  $("attached").textContent = s.attached.length ? s.attached.join(", ") : "none";
  $("pause").checked = s.paused;
  $("allow-file").checked = s.allowFile;
}

for (const [id, key] of [["pause", "paused"], ["allow-file", "allowFile"]]) {
  $(id).addEventListener("change", async (e) => {
    await chrome.storage.local.set({ [key]: e.target.checked });
    setTimeout(refresh, 50);
  });
}

refresh();
