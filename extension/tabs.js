// The host's requests about tabs (tabs.*), and the "reins" tab group. No `chrome` inside: the
// service worker hands in chrome.tabs, chrome.windows and chrome.tabGroups (or anything with
// their promise API) and the policy with the user's current switches, so node's test runner
// drives it with hand-built fakes (tests/extension/tabs.test.mjs).
//
// Every door is checked here: a URL before a tab is opened or sent to it (policy.js checkUrl),
// ownership before a tab is sent somewhere, brought to the front or closed (ownership.js). In a
// browser reins launched, the tabs it opens come to the front as any new tab does; in the user's
// own they open in the background, in a group named "reins", so what the user is looking at stays
// in front and the group shows which tabs the agent drives.

import { checkTab, checkUrl } from "./policy.js";
import { enforce, Refusal } from "./refusal.js";

export const GROUP_TITLE = "reins";
// How long a navigation without the debugger may take to leave a page reins may not attach to.
const SEND_TIMEOUT_MS = 15000;
const SEND_POLL_MS = 50;

export class Tabs {
  // tabs, windows, tabGroups: chrome.tabs, chrome.windows, chrome.tabGroups; ownership:
  // Ownership; switches(): the user's switches in the popup, as policy.js reads them; warn:
  // console.warn; now, sleep(ms): the clock sendTo polls by.
  constructor({ tabs, windows, tabGroups, ownership, switches, warn, now = Date.now, sleep, sendTimeoutMs = SEND_TIMEOUT_MS }) {
    Object.assign(this, { tabs, windows, tabGroups, ownership, switches, warn, now, sendTimeoutMs });
    this.sleep = sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  // A tab as the host reads it.
  describe(t) {
    return {
      id: t.id, url: t.url ?? t.pendingUrl ?? "", title: t.title ?? "", active: !!t.active, windowId: t.windowId, opener: t.openerTabId ?? null,
      status: t.status, reins: this.ownership.isReins(t.id), stopped: this.ownership.stopped.has(t.id),
    };
  }

  async list() {
    return (await this.tabs.query({})).map((t) => this.describe(t));
  }

  // Only the host of a browser `reins launch` started asks: there the tab in front is reins's.
  async current() {
    const [tab] = await this.tabs.query({ active: true, lastFocusedWindow: true });
    const fallback = tab ?? (await this.tabs.query({ active: true }))[0];
    if (!fallback) throw new Refusal("target_closed", "no open tab");
    enforce(this.ownership.check(fallback.id));
    return this.describe(fallback);
  }

  // A tab of reins's own, in the window the user used last (or a window of its own when there is
  // none).
  async open(url) {
    url = enforce(checkUrl(url || "about:blank", this.switches())).url;
    const launched = this.ownership.launched;
    const win = await this.windows.getLastFocused({ windowTypes: ["normal"] }).catch(() => null);
    const tab = win
      ? await this.tabs.create({ url, active: launched, windowId: win.id })
      : (await this.windows.create({ url, focused: launched })).tabs[0];
    await this.ownership.opened(tab.id);
    if (!launched) await this.group(tab.id);
    return this.describe(await this.tabs.get(tab.id).catch(() => tab));
  }

  // `reins tab select ID`: hands the tab to reins, unless the user stopped reins on it.
  async select(tabId) {
    const tab = await this.tabs.get(tabId);
    enforce(this.ownership.take(tabId));
    if (this.ownership.launched) {
      await this.windows.update(tab.windowId, { focused: true }).catch(() => {});
      return this.describe(await this.tabs.update(tabId, { active: true }));
    }
    await this.group(tabId);
    return this.describe(await this.tabs.get(tabId));
  }

  // In front of the user: only a tab of reins's.
  async activate(tabId) {
    enforce(this.ownership.check(tabId));
    const tab = await this.tabs.update(tabId, { active: true });
    await this.windows.update(tab.windowId, { focused: true }).catch(() => {});
    return this.describe(tab);
  }

  // In a browser `reins launch` started, its last tab closing would end the browser, and the
  // host with it (`reins tab new` then found no host): a blank tab of reins's takes its place
  // first, and the answer names it. (The user's own browser is theirs to close.)
  async close(tabId) {
    enforce(this.ownership.check(tabId));
    let replacedBy;
    if (this.ownership.launched) {
      const all = await this.tabs.query({});
      if (all.length === 1 && all[0].id === tabId) {
        const blank = await this.tabs.create({ url: "about:blank", active: true, windowId: all[0].windowId });
        await this.ownership.opened(blank.id);
        replacedBy = blank.id;
      }
    }
    await this.tabs.remove(tabId);
    return replacedBy === undefined ? {} : { replacedBy };
  }

  // Navigation without the debugger, for a tab on a page reins may not attach to (chrome://…):
  // answers once the tab has left it, so the next command can attach.
  async sendTo(tabId, url) {
    enforce(this.ownership.check(tabId));
    url = enforce(checkUrl(url, this.switches())).url;
    await this.tabs.update(tabId, { url });
    const deadline = this.now() + this.sendTimeoutMs;
    for (;;) {
      const tab = await this.tabs.get(tabId);
      const verdict = checkTab(tab, this.switches());
      if (verdict.ok && tab.url !== "") return this.describe(tab);
      if (this.now() > deadline) throw new Refusal(verdict.ok ? "navigation_failed" : verdict.code, verdict.message ?? `tab ${tabId} did not load ${url}`);
      await this.sleep(SEND_POLL_MS);
    }
  }

  // The popup: the user hands a tab to reins.
  async handOver(tabId) {
    await this.ownership.handOver(tabId);
    if (!this.ownership.launched) await this.group(tabId);
  }

  // The "reins" group of the tab's window. A courtesy: a tab that cannot be grouped (a pinned
  // tab, a window type without groups) is reins's all the same.
  async group(tabId) {
    try {
      const tab = await this.tabs.get(tabId);
      const [group] = await this.tabGroups.query({ windowId: tab.windowId, title: GROUP_TITLE });
      if (group) {
        if (tab.groupId !== group.id) await this.tabs.group({ groupId: group.id, tabIds: [tabId] });
        return;
      }
      const groupId = await this.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
      await this.tabGroups.update(groupId, { title: GROUP_TITLE, color: "blue", collapsed: false });
    } catch (err) {
      this.warn("reins: could not group tab", tabId, err);
    }
  }

  // Out of the "reins" group (the user's Cancel, the user taking the tab back); a tab in a group
  // of the user's stays there.
  async ungroup(tabId) {
    const tab = await this.tabs.get(tabId).catch(() => null);
    if (!tab || tab.groupId === this.tabGroups.TAB_GROUP_ID_NONE) return;
    const group = await this.tabGroups.get(tab.groupId).catch(() => null);
    if (group?.title === GROUP_TITLE) await this.tabs.ungroup(tabId).catch(() => {});
  }
}
