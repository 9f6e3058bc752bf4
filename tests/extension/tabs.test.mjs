// The host's requests about tabs and the "reins" group (extension/tabs.js), under node's own test
// runner with a hand-built chrome.tabs, chrome.windows and chrome.tabGroups: where a tab reins
// opens goes, which doors refuse what, the group, and a navigation without the debugger.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { Ownership } from "../../extension/ownership.js";
import { GROUP_TITLE, Tabs } from "../../extension/tabs.js";

const NONE = -1;
let calls; // what reins asked of Chrome that changes something, in order
let open; // tabId -> tab
let groups; // groupId -> {id, windowId, title}
let lastFocused; // the window getLastFocused answers (null: none)
let groupFails; // chrome.tabs.group throws (a pinned tab)
let onUpdate; // what a tab does after tabs.update({url}): (tab) => void
let warnings;
let clock;
let ownership;
let tabs;

function memoryStore() {
  const data = {};
  return { get: async (keys) => Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]])), set: async (v) => Object.assign(data, v) };
}

const tab = (id, more = {}) => ({ id, windowId: 1, url: "https://example.com/", title: "", active: false, status: "complete", groupId: NONE, ...more });

beforeEach(() => {
  calls = [];
  warnings = [];
  clock = 0;
  groupFails = false;
  onUpdate = () => {};
  lastFocused = { id: 1 };
  open = new Map([[5, tab(5, { active: true })], [6, tab(6, { windowId: 2 })]]);
  groups = new Map();
  let nextTab = 10;
  let nextGroup = 100;
  const chromeTabs = {
    get: async (id) => {
      if (!open.has(id)) throw new Error(`No tab with id: ${id}.`);
      return { ...open.get(id) };
    },
    query: async (q) => [...open.values()].filter((t) => !q.active || t.active),
    create: async ({ url, active, windowId }) => {
      calls.push(["tabs.create", url, { active, windowId }]);
      const t = tab(nextTab++, { url: undefined, pendingUrl: url, active, windowId });
      open.set(t.id, t);
      return { ...t };
    },
    update: async (id, props) => {
      calls.push(["tabs.update", id, props]);
      Object.assign(open.get(id), props);
      if (props.url) onUpdate(open.get(id));
      return { ...open.get(id) };
    },
    remove: async (id) => (calls.push(["tabs.remove", id]), open.delete(id)),
    group: async ({ groupId, tabIds, createProperties }) => {
      calls.push(["tabs.group", groupId ?? "new", tabIds]);
      if (groupFails) throw new Error("Tab 5 is pinned and cannot be grouped.");
      const id = groupId ?? nextGroup++;
      if (!groups.has(id)) groups.set(id, { id, windowId: createProperties.windowId, title: "" });
      for (const t of tabIds) open.get(t).groupId = id;
      return id;
    },
    ungroup: async (id) => (calls.push(["tabs.ungroup", id]), (open.get(id).groupId = NONE)),
  };
  const windows = {
    getLastFocused: async () => {
      if (!lastFocused) throw new Error("No last-focused window");
      return lastFocused;
    },
    create: async ({ url, focused }) => {
      calls.push(["windows.create", url, { focused }]);
      const t = tab(nextTab++, { url, windowId: 9 });
      open.set(t.id, t);
      return { id: 9, tabs: [{ ...t }] };
    },
    update: async (id, props) => calls.push(["windows.update", id, props]),
  };
  const tabGroups = {
    TAB_GROUP_ID_NONE: NONE,
    query: async ({ windowId, title }) => [...groups.values()].filter((g) => g.windowId === windowId && g.title === title),
    get: async (id) => groups.get(id),
    update: async (id, props) => (calls.push(["tabGroups.update", id, props]), Object.assign(groups.get(id), props)),
  };
  ownership = new Ownership(memoryStore());
  tabs = new Tabs({
    tabs: chromeTabs, windows, tabGroups, ownership, switches: () => ({ allowFile: false }),
    warn: (...args) => warnings.push(args.join(" ")),
    now: () => clock, sleep: async (ms) => (clock += ms), sendTimeoutMs: 1000,
  });
});

describe("opening a tab", () => {
  test("in the user's browser: in the background of the last window, in a new blue \"reins\" group", async () => {
    const opened = await tabs.open("https://example.org/");
    assert.deepEqual(calls, [
      ["tabs.create", "https://example.org/", { active: false, windowId: 1 }],
      ["tabs.group", "new", [10]],
      ["tabGroups.update", 100, { title: GROUP_TITLE, color: "blue", collapsed: false }],
    ]);
    assert.equal(GROUP_TITLE, "reins");
    assert.deepEqual(opened, {
      id: 10, url: "https://example.org/", title: "", active: false, windowId: 1, opener: null, status: "complete", reins: true, stopped: false,
    });
    assert.ok(ownership.isReins(10));
  });

  test("a second tab joins the window's \"reins\" group instead of making another", async () => {
    await tabs.open("https://example.org/");
    calls = [];
    await tabs.open("https://example.net/");
    assert.deepEqual(calls.slice(1), [["tabs.group", 100, [11]]]);
  });

  test("in a browser reins launched: in front, and no group", async () => {
    ownership.launched = true;
    await tabs.open("");
    assert.deepEqual(calls, [["tabs.create", "about:blank", { active: true, windowId: 1 }]]);
  });

  test("with no window to open it in, a window of its own, not focused", async () => {
    lastFocused = null;
    const opened = await tabs.open("https://example.org/");
    assert.deepEqual(calls[0], ["windows.create", "https://example.org/", { focused: false }]);
    assert.equal(opened.windowId, 9);
  });

  test("a refused URL opens nothing", async () => {
    await assert.rejects(tabs.open("chrome://settings/"), (err) => err.code === "page_refused");
    await assert.rejects(tabs.open("file:///etc/passwd"), (err) => err.code === "page_refused");
    assert.deepEqual(calls, []);
  });

  test("a tab that cannot be grouped is reins's all the same", async () => {
    groupFails = true;
    const opened = await tabs.open("https://example.org/");
    assert.equal(opened.reins, true);
    assert.match(warnings[0], /could not group tab 10/);
  });
});

describe("the tabs of the user's browser", () => {
  test("listed, each saying whether it is reins's or stopped by the user", async () => {
    await ownership.handOver(6);
    ownership.canceled(6);
    const listed = await tabs.list();
    assert.deepEqual(listed.map((t) => [t.id, t.reins, t.stopped]), [[5, false, false], [6, false, true]]);
  });

  test("the current tab is refused unless it is reins's", async () => {
    await assert.rejects(tabs.current(), (err) => err.code === "tab_not_reins");
    ownership.launched = true;
    assert.equal((await tabs.current()).id, 5);
    open.clear();
    await assert.rejects(tabs.current(), (err) => err.code === "target_closed");
  });

  test("selecting a tab hands it to reins and groups it; a tab the user stopped stays theirs", async () => {
    const selected = await tabs.select(6);
    assert.equal(selected.reins, true);
    assert.deepEqual(calls.map((c) => c[0]), ["tabs.group", "tabGroups.update"]);
    ownership.canceled(5);
    await assert.rejects(tabs.select(5), (err) => err.code === "detached_by_user");
  });

  test("selecting a tab already in the group leaves it there", async () => {
    await tabs.select(6);
    calls = [];
    await tabs.select(6);
    assert.deepEqual(calls, []);
  });

  test("in a browser reins launched, selecting brings the tab and its window to the front", async () => {
    ownership.launched = true;
    await tabs.select(6);
    assert.deepEqual(calls, [["windows.update", 2, { focused: true }], ["tabs.update", 6, { active: true }]]);
  });

  test("only a tab of reins's is brought to the front or closed", async () => {
    await assert.rejects(tabs.activate(6), (err) => err.code === "tab_not_reins");
    await assert.rejects(tabs.close(6), (err) => err.code === "tab_not_reins");
    assert.deepEqual(calls, []);
    await tabs.select(6);
    calls = [];
    assert.equal((await tabs.activate(6)).active, true);
    assert.deepEqual(await tabs.close(6), {});
    assert.deepEqual(calls, [["tabs.update", 6, { active: true }], ["windows.update", 2, { focused: true }], ["tabs.remove", 6]]);
  });

  test("in a browser reins launched, its last tab closing leaves a blank tab of reins's in its place", async () => {
    ownership.launched = true;
    open.delete(6);
    const answer = await tabs.close(5);
    assert.deepEqual(calls, [["tabs.create", "about:blank", { active: true, windowId: 1 }], ["tabs.remove", 5]]);
    assert.deepEqual(answer, { replacedBy: 10 });
    assert.ok(ownership.isReins(10));
    assert.deepEqual([...open.keys()], [10]);
  });

  test("not the last tab, or the user's own browser: the tab just closes", async () => {
    ownership.launched = true;
    assert.deepEqual(await tabs.close(5), {});
    assert.deepEqual(calls, [["tabs.remove", 5]]);
    ownership.launched = false;
    await tabs.select(6);
    calls = [];
    assert.deepEqual(await tabs.close(6), {});
    assert.deepEqual(calls, [["tabs.remove", 6]]);
  });

  test("handing over from the popup groups the tab in the user's browser, not in a launched one", async () => {
    await tabs.handOver(6);
    assert.ok(ownership.isReins(6));
    assert.deepEqual(calls.map((c) => c[0]), ["tabs.group", "tabGroups.update"]);
    calls = [];
    ownership.launched = true;
    await tabs.handOver(5);
    assert.deepEqual(calls, []);
  });

  test("ungrouping takes a tab out of the \"reins\" group only, never out of a group of the user's", async () => {
    await tabs.select(6);
    groups.set(7, { id: 7, windowId: 1, title: "work" });
    open.get(5).groupId = 7;
    calls = [];
    await tabs.ungroup(5);
    await tabs.ungroup(6);
    await tabs.ungroup(99); // closed meanwhile: nothing to do
    assert.deepEqual(calls, [["tabs.ungroup", 6]]);
  });
});

describe("sending a tab somewhere without the debugger", () => {
  test("answers once the tab shows a page reins may attach to", async () => {
    ownership.launched = true;
    open.get(5).url = "chrome://newtab/";
    let polls = 0;
    onUpdate = (t) => (t.url = "chrome://newtab/");
    const chromeGet = tabs.tabs.get;
    tabs.tabs.get = async (id) => (++polls === 3 && (open.get(5).url = "https://example.org/"), chromeGet(id));
    const sent = await tabs.sendTo(5, "https://example.org/");
    assert.equal(sent.url, "https://example.org/");
    assert.deepEqual(calls, [["tabs.update", 5, { url: "https://example.org/" }]]);
    assert.equal(clock, 100, "two polls 50 ms apart before it arrived");
  });

  test("a tab that stays on a refused page is answered with the refusal, at the deadline", async () => {
    ownership.launched = true;
    onUpdate = (t) => (t.url = "chrome://settings/");
    await assert.rejects(tabs.sendTo(5, "https://example.org/"), (err) => err.code === "page_refused");
    assert.ok(clock > 1000 && clock <= 1050);
  });

  test("a tab whose URL stays empty fails as navigation_failed", async () => {
    ownership.launched = true;
    onUpdate = (t) => (t.url = "");
    await assert.rejects(tabs.sendTo(5, "https://example.org/"), (err) => err.code === "navigation_failed" && /did not load/.test(err.message));
  });

  test("a refused URL, or a tab not reins's, is refused before the tab moves", async () => {
    await assert.rejects(tabs.sendTo(5, "https://example.org/"), (err) => err.code === "tab_not_reins");
    ownership.launched = true;
    await assert.rejects(tabs.sendTo(5, "javascript:alert(1)"), (err) => err.code === "page_refused");
    assert.deepEqual(calls, []);
  });
});
