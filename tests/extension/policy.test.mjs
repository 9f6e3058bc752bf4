// The extension's URL and parameter policy (extension/policy.js), run by node's own test runner:
//   node --test tests/extension/
// Every refused URL is tried in the spellings Chrome reads the same way (spaces and C0 controls
// around it, tabs and newlines inside it, upper case), since Chrome, not a regex, decides where a
// tab goes.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { ALLOWED_METHODS } from "../../extension/allowlist.js";
import {
  checkCommand,
  eventParams,
  checkHistoryEntry,
  checkTab,
  checkUrl,
  DEFAULT_OPTIONS,
  NAVIGATING_METHODS,
  parseUrl,
} from "../../extension/policy.js";

const OWN_ID = "hlbjhcdhfpclgnhcihccgjneokjkeibl";
const FILE_ON = Object.freeze({ allowFile: true });

const REFUSED = [
  "chrome://settings",
  "chrome://version/",
  "chrome://newtab/",
  "chrome://extensions/?id=abc",
  "chrome:settings",
  `chrome-extension://${OWN_ID}/popup.html`,
  `chrome-extension://${OWN_ID}/background.js`,
  "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/options.html",
  "chrome-untrusted://terminal/",
  "chrome-search://local-ntp/",
  "chrome-error://chromewebdata/",
  "devtools://devtools/bundled/inspector.html",
  "edge://settings",
  "brave://settings",
  "opera://settings",
  "view-source:https://example.com/",
  "view-source:chrome://settings",
  "about:settings",
  "about:extensions",
  "about:version",
  "about:flags",
  "about:newtab",
  "about:srcdoc",
  "about:blank/",
  "about://blank",
  "about:",
  "about:BLANK",
  "javascript:alert(1)",
  "javascript://example.com/%0aalert(1)",
  "data:text/html,<h1>hi</h1>",
  "data:text/html;base64,PGgxPmhpPC9oMT4=",
  "blob:https://example.com/6c1b4a8e-8ad4-4ae5-9a4b-1c2d3e4f5a6b",
  "filesystem:https://example.com/temporary/x.html",
  "file:///etc/passwd",
  "file://localhost/etc/passwd",
  "file:/etc/passwd",
  "ftp://example.com/",
  "ws://example.com/",
  "mailto:a@example.com",
  "https://chromewebstore.google.com/",
  "https://chromewebstore.google.com/detail/abc",
  "http://chromewebstore.google.com/detail/abc",
  "https://chromewebstore.google.com./detail/abc",
  "https://chromewebstore.google.com:443/detail/abc",
  "https://user@chromewebstore.google.com/detail/abc",
  "https://chrome.google.com/webstore",
  "https://chrome.google.com/webstore/detail/abc",
  "https://chrome.google.com/WebStore/detail/abc",
  "https://chrome.google.com/%77ebstore/detail/abc",
  "https://chrome.google.com./webstore/",
];

// Ways of writing the same URL that Chrome (and the URL standard) read as that URL.
const SPELLINGS = [
  (u) => u,
  (u) => ` ${u}`,
  (u) => `   ${u}   `,
  (u) => `\t${u}`,
  (u) => `${u}\n`,
  (u) => `\u0000${u}`,
  (u) => `\u001f\u0001 ${u}\u0008`,
  (u) => `\r\n${u}`,
  (u) => u.replace(":", "\t:"),
  (u) => u.slice(0, 2) + "\t" + u.slice(2),
  (u) => u.slice(0, 3) + "\n" + u.slice(3),
  (u) => u.slice(0, 1) + "\r" + u.slice(1),
  (u) => u.replace(/^[a-z-]+/, (s) => s.toUpperCase()),
  (u) => u.replace(/^[a-z-]+/, (s) => s[0].toUpperCase() + s.slice(1)),
  (u) => ` \t${u.replace(/^[a-z-]+/, (s) => s.toUpperCase())}\n `,
];

const ALLOWED = [
  "http://example.com/",
  "https://example.com/path?q=1#frag",
  "http://127.0.0.1:8000/static/page.html",
  "http://localhost:3000/",
  "https://[::1]:8443/",
  "about:blank",
  "about:blank#top",
  "https://例え.jp/",
  "https://xn--r8jz45g.jp/",
  "https://bücher.example/straße",
  "http://127.0.0.1:8000/chrome://not-a-scheme",
  "https://example.com/?next=chrome://settings",
  "https://example.com/view-source:x",
  "https://chrome.google.com/search",
  "https://notchromewebstore.google.com/",
  "https://google.com/webstore",
];

describe("refused URLs, in every spelling Chrome reads the same", () => {
  for (const url of REFUSED) {
    test(JSON.stringify(url), () => {
      for (const spell of SPELLINGS) {
        const raw = spell(url);
        const verdict = checkUrl(raw);
        assert.equal(verdict.ok, false, `allowed ${JSON.stringify(raw)}`);
        assert.equal(verdict.code, "page_refused");
        assert.match(verdict.message, /reins|file:/);
      }
    });
  }
});

describe("allowed URLs", () => {
  for (const url of ALLOWED) {
    test(JSON.stringify(url), () => {
      for (const raw of [url, ` ${url}`, `\t${url}\n`, url.replace(/^[a-z]+/, (s) => s.toUpperCase())]) {
        const verdict = checkUrl(raw);
        assert.equal(verdict.ok, true, `refused ${JSON.stringify(raw)}: ${verdict.message}`);
      }
    });
  }

  test("the answer carries the URL as Chrome reads it, which is what gets sent", () => {
    assert.equal(checkUrl(" HTTPS://Example.COM").url, "https://example.com/");
    assert.equal(checkUrl("ht\ttp://exa\nmple.com/a b").url, "http://example.com/a%20b");
    assert.equal(checkUrl("https://例え.jp/").url, "https://xn--r8jz45g.jp/");
    assert.equal(checkUrl("\u0000about:blank ").url, "about:blank");
  });
});

describe("file: pages", () => {
  const files = ["file:///etc/passwd", " FILE:///tmp/page.html", "fi\tle:///home/user/.ssh/id_ed25519", "file://localhost/etc/hosts"];

  test("are refused by default, with the switch named in the message", () => {
    for (const url of files) {
      const verdict = checkUrl(url, DEFAULT_OPTIONS);
      assert.equal(verdict.ok, false, url);
      assert.match(verdict.message, /Allow file:\/\/ pages/);
    }
    assert.equal(checkUrl("file:///etc/passwd").ok, false, "no options means the default");
    assert.equal(DEFAULT_OPTIONS.allowFile, false);
  });

  test("are allowed once the user switched them on", () => {
    for (const url of files) assert.equal(checkUrl(url, FILE_ON).ok, true, url);
  });

  test("the switch opens file: only", () => {
    for (const url of ["chrome://settings", "about:settings", "view-source:file:///etc/passwd", "data:text/html,x"]) {
      assert.equal(checkUrl(url, FILE_ON).ok, false, url);
    }
  });
});

describe("what is not a URL", () => {
  for (const raw of ["", " ", "\t\n", "example.com", "/relative/path", "//example.com/", "http://", "https://exa mple.com/", "http://[::1/", undefined, null, 42, {}, ["https://example.com/"]]) {
    test(String(JSON.stringify(raw)), () => {
      const verdict = checkUrl(raw);
      assert.equal(verdict.ok, false);
      assert.equal(verdict.code, "page_refused");
      assert.match(verdict.message, /http\(s\)/);
    });
  }

  test("parseUrl strips what Chrome strips", () => {
    assert.equal(parseUrl(" \u0000\u001fchr\tome://version\r\n ").href, "chrome://version");
    assert.equal(parseUrl("CHROME://version").protocol, "chrome:");
    assert.equal(parseUrl("not a url"), null);
  });
});

describe("tabs", () => {
  test("a tab is refused if it shows or is loading a refused page", () => {
    assert.equal(checkTab({ id: 1, url: "https://example.com/" }).ok, true);
    assert.equal(checkTab({ id: 1, url: "chrome://version/" }).ok, false);
    assert.equal(checkTab({ id: 1, url: "https://example.com/", pendingUrl: "chrome://settings/" }).ok, false);
    assert.equal(checkTab({ id: 1, url: "chrome://newtab/", pendingUrl: "https://example.com/" }).ok, false);
    assert.equal(checkTab({ id: 1, url: `chrome-extension://${OWN_ID}/popup.html` }).ok, false);
    assert.equal(checkTab({ id: 1, url: "file:///etc/passwd" }).ok, false);
    assert.equal(checkTab({ id: 1, url: "file:///etc/passwd" }, FILE_ON).ok, true);
  });

  test("a tab before its first commit shows nothing and may be driven", () => {
    assert.equal(checkTab({ id: 1, url: "" }).ok, true);
    assert.equal(checkTab({ id: 1, url: "", pendingUrl: "https://example.com/" }).ok, true);
    assert.equal(checkTab({ id: 1, url: "", pendingUrl: "chrome://settings" }).ok, false);
  });

  test("the refusal names the tab and the way out", () => {
    const verdict = checkTab({ id: 7, url: "chrome://version/" });
    assert.equal(verdict.code, "page_refused");
    assert.match(verdict.message, /tab 7/);
    assert.match(verdict.message, /reins navigate/);
  });
});

describe("CDP parameters", () => {
  test("methods off the allowlist are blocked whatever the params", () => {
    for (const method of ["Network.getCookies", "Runtime.enable", "Target.createTarget", "Page.navigate ", "", undefined]) {
      const verdict = checkCommand(method, {});
      assert.equal(verdict.ok, false);
      assert.equal(verdict.code, "cdp_blocked");
    }
  });

  test("every allowlisted method passes with ordinary params", () => {
    const ordinary = {
      "Page.navigate": { url: "https://example.com/" },
      "Page.navigateToHistoryEntry": { entryId: 3 },
      "Target.setAutoAttach": { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
      "Emulation.setFocusEmulationEnabled": { enabled: true },
      "Page.startScreencast": { format: "jpeg", quality: 0, maxWidth: 16, maxHeight: 16 },
      "DOM.setFileInputFiles": { files: ["/home/u/a.pdf"], objectId: "1.2.3" },
      "Input.setInterceptDrags": { enabled: true },
      "Input.dispatchDragEvent": { type: "drop", x: 1, y: 2, data: { items: [], dragOperationsMask: 16 } },
      "DOMDebugger.getEventListeners": { objectId: "1.2.3" },
    };
    for (const method of ALLOWED_METHODS) {
      const verdict = checkCommand(method, ordinary[method] ?? {});
      assert.equal(verdict.ok, true, `${method}: ${verdict.message}`);
    }
  });

  test("Page.navigate goes through the URL policy and sends the URL as read", () => {
    for (const spell of SPELLINGS) {
      for (const url of ["chrome://settings", `chrome-extension://${OWN_ID}/popup.html`, "about:settings", "view-source:https://a.test/", "file:///etc/passwd", "javascript:alert(1)"]) {
        const verdict = checkCommand("Page.navigate", { url: spell(url) });
        assert.equal(verdict.ok, false, JSON.stringify(spell(url)));
        assert.equal(verdict.code, "page_refused");
      }
    }
    assert.equal(checkCommand("Page.navigate", {}).ok, false);
    assert.equal(checkCommand("Page.navigate", { url: ["chrome://settings"] }).ok, false);
    const sent = checkCommand("Page.navigate", { url: " HTTP://Example.com", frameId: "F" });
    assert.deepEqual(sent.params, { url: "http://example.com/", frameId: "F" });
    assert.equal(checkCommand("Page.navigate", { url: "file:///tmp/a.html" }, FILE_ON).ok, true);
  });

  test("Target.setAutoAttach only without pausing new targets and without a filter", () => {
    const base = { autoAttach: true, flatten: true };
    for (const params of [
      { ...base, waitForDebuggerOnStart: true },
      { ...base, waitForDebuggerOnStart: 1 },
      { ...base, waitForDebuggerOnStart: "false" },
      { ...base },
      { ...base, waitForDebuggerOnStart: false, filter: [{ type: "tab" }] },
      { ...base, waitForDebuggerOnStart: false, filter: [] },
    ]) {
      const verdict = checkCommand("Target.setAutoAttach", params);
      assert.equal(verdict.ok, false, JSON.stringify(params));
      assert.equal(verdict.code, "cdp_blocked");
    }
    assert.equal(checkCommand("Target.setAutoAttach", { autoAttach: false, waitForDebuggerOnStart: false }).ok, true);
  });

  test("no explicit execution context: other extensions' worlds stay out of reach", () => {
    for (const [method, params] of [
      ["Runtime.evaluate", { expression: "chrome.runtime.id", contextId: 3 }],
      ["Runtime.evaluate", { expression: "1", uniqueContextId: "123.456" }],
      ["Runtime.evaluate", { expression: "1", contextId: undefined }],
      ["Runtime.callFunctionOn", { functionDeclaration: "() => 1", executionContextId: 3 }],
      ["Runtime.callFunctionOn", { functionDeclaration: "() => 1", uniqueContextId: "1.2" }],
      ["DOM.resolveNode", { backendNodeId: 5, executionContextId: 3 }],
    ]) {
      const verdict = checkCommand(method, params);
      assert.equal(verdict.ok, false, `${method} ${JSON.stringify(params)}`);
      assert.equal(verdict.code, "cdp_blocked");
    }
    assert.equal(checkCommand("Runtime.evaluate", { expression: "1", returnByValue: true }).ok, true);
    assert.equal(checkCommand("Runtime.callFunctionOn", { objectId: "1.1.1", functionDeclaration: "() => 1" }).ok, true);
    assert.equal(checkCommand("DOM.resolveNode", { backendNodeId: 5, objectGroup: "reins" }).ok, true);
  });

  test("params must be an object", () => {
    for (const params of [null, [], "x", 3]) assert.equal(checkCommand("Runtime.evaluate", params).ok, false);
  });

  test("the navigating methods are the ones that move the tab", () => {
    assert.deepEqual([...NAVIGATING_METHODS].sort(), ["Page.navigate", "Page.navigateToHistoryEntry", "Page.reload"]);
    for (const method of NAVIGATING_METHODS) assert.ok(ALLOWED_METHODS.includes(method), method);
  });
});

describe("history entries", () => {
  const history = {
    currentIndex: 2,
    entries: [
      { id: 1, url: "chrome://version/", userTypedURL: "chrome://version/" },
      { id: 2, url: "https://example.com/", userTypedURL: "https://example.com/" },
      { id: 3, url: "https://example.com/b", userTypedURL: "about:settings" },
      { id: 4, url: "file:///etc/passwd", userTypedURL: "" },
      { id: 5, url: "about:blank", userTypedURL: "" },
    ],
  };

  test("an entry on a refused page is refused", () => {
    for (const id of [1, 3, 4]) {
      const verdict = checkHistoryEntry(history, id);
      assert.equal(verdict.ok, false, `entry ${id}`);
      assert.equal(verdict.code, "page_refused");
    }
    assert.equal(checkHistoryEntry(history, 4, FILE_ON).ok, true);
  });

  test("an entry on an allowed page passes", () => {
    assert.equal(checkHistoryEntry(history, 2).ok, true);
    assert.equal(checkHistoryEntry(history, 5).ok, true);
  });

  test("an entry that is not in the history is not navigated to", () => {
    assert.equal(checkHistoryEntry(history, 99).ok, false);
    assert.equal(checkHistoryEntry({}, 1).ok, false);
    assert.equal(checkHistoryEntry(undefined, 1).ok, false);
  });
});

describe("methods allowed only with narrow parameters", () => {
  test("focus emulation and the frame pump pass only inside their rules", () => {
    assert.equal(checkCommand("Emulation.setFocusEmulationEnabled", { enabled: true }).ok, true);
    assert.equal(checkCommand("Emulation.setFocusEmulationEnabled", {}).code, "cdp_blocked");
    assert.equal(checkCommand("Page.startScreencast", { format: "png", maxWidth: 16, maxHeight: 16 }).code, "cdp_blocked");
    assert.equal(checkCommand("Page.startScreencast", { format: "jpeg", maxWidth: 1600, maxHeight: 900 }).code, "cdp_blocked");
  });
});

describe("native drag and drop: interception and drag events, never files", () => {
  const data = { items: [{ mimeType: "text/plain", data: "item-1" }], dragOperationsMask: 16 };
  test("the switch and text drag data pass", () => {
    assert.equal(checkCommand("Input.setInterceptDrags", { enabled: false }).ok, true);
    for (const type of ["dragEnter", "dragOver", "drop", "dragCancel"]) {
      assert.equal(checkCommand("Input.dispatchDragEvent", { type, x: 3, y: 4.5, data }).ok, true, type);
    }
  });
  test("files, other event types and extra keys are refused", () => {
    const withFiles = { ...data, files: ["/home/u/.ssh/id_rsa"] };
    assert.equal(checkCommand("Input.dispatchDragEvent", { type: "drop", x: 1, y: 1, data: withFiles }).code, "cdp_blocked");
    assert.equal(checkCommand("Input.dispatchDragEvent", { type: "drop", x: 1, y: 1, data: { ...data, files: [] } }).code, "cdp_blocked");
    assert.equal(checkCommand("Input.dispatchDragEvent", { type: "mousePressed", x: 1, y: 1, data }).code, "cdp_blocked");
    assert.equal(checkCommand("Input.dispatchDragEvent", { type: "drop", x: 1, y: 1, data, extra: 1 }).code, "cdp_blocked");
    assert.equal(checkCommand("Input.setInterceptDrags", { enabled: "yes" }).code, "cdp_blocked");
  });
});

describe("file uploads: the shape only (the host checks the directories)", () => {
  test("absolute paths and the input pass", () => {
    assert.equal(checkCommand("DOM.setFileInputFiles", { files: ["/tmp/a.txt", "/home/u/b c.pdf"], objectId: "7.1.2" }).ok, true);
    assert.equal(checkCommand("DOM.setFileInputFiles", { files: ["C:\\Users\\u\\a.txt"], backendNodeId: 12 }).ok, true);
  });

  test("anything else is blocked", () => {
    const refused = [
      { files: ["a.txt"], objectId: "1" }, // relative
      { files: ["/home/u/../../etc/passwd"], objectId: "1" },
      { files: [], objectId: "1" },
      { files: "/tmp/a.txt", objectId: "1" },
      { files: [42], objectId: "1" },
      { files: ["/tmp/a.txt"] }, // no input
      { files: ["/tmp/a.txt"], objectId: "1", backendNodeId: 2 },
      { files: ["/tmp/a.txt"], nodeId: 3 },
      { files: ["/tmp/a.txt"], objectId: "1", executionContextId: 1 },
      { files: ["/tmp/a\u0000.txt"], objectId: "1" },
    ];
    for (const params of refused) {
      assert.equal(checkCommand("DOM.setFileInputFiles", params).code, "cdp_blocked", JSON.stringify(params));
    }
  });
});

describe("events forwarded to the host", () => {
  test("a log entry keeps its text and loses its remote objects", () => {
    const params = {
      entry: {
        source: "network", level: "error", text: "Failed to load resource", url: "https://x.test/a",
        timestamp: 1, lineNumber: 3, networkRequestId: "9", category: "cors",
        args: [{ type: "object", objectId: "{\"injectedScriptId\":7,\"id\":1}" }],
        stackTrace: { callFrames: [] }, workerId: "w",
      },
    };
    const out = eventParams("Log.entryAdded", params);
    assert.deepEqual(Object.keys(out.entry).sort(),
      ["category", "level", "lineNumber", "networkRequestId", "source", "text", "timestamp", "url"]);
    assert.equal(JSON.stringify(out).includes("objectId"), false);
    assert.deepEqual(eventParams("Log.entryAdded", {}), { entry: {} });
    assert.deepEqual(eventParams("Log.entryAdded", null), { entry: {} });
  });

  test("listener detection: where listeners are, never an object group for their handlers", () => {
    assert.equal(checkCommand("DOMDebugger.getEventListeners", { objectId: "7.1.2" }).ok, true);
    assert.equal(checkCommand("DOMDebugger.getEventListeners", { objectId: "7.1.2", depth: -1, pierce: true }).ok, true);
    for (const params of [{}, { objectId: 7 }, { objectId: "7.1.2", objectGroup: "g" }, { objectId: "7.1.2", depth: "all" }]) {
      assert.equal(checkCommand("DOMDebugger.getEventListeners", params).code, "cdp_blocked", JSON.stringify(params));
    }
    for (const method of ["DOMDebugger.setEventListenerBreakpoint", "DOMDebugger.setDOMBreakpoint", "DOMDebugger.setXHRBreakpoint"]) {
      assert.equal(checkCommand(method, { eventName: "click" }).code, "cdp_blocked", method);
    }
  });

  test("no event of the Debugger domain leaves the extension", () => {
    const params = {
      reason: "other",
      callFrames: [{ callFrameId: "1", scopeChain: [{ object: { objectId: "scope-1" } }], this: { objectId: "this-1" } }],
      data: { objectId: "thrown-1" },
      hitBreakpoints: ["1:2:3"],
      asyncStackTrace: { callFrames: [] },
    };
    assert.equal(eventParams("Debugger.paused", params), null);
    assert.equal(eventParams("Debugger.resumed", { anything: 1 }), null);
    for (const method of ["Debugger.scriptParsed", "Debugger.scriptFailedToParse", "Debugger.breakpointResolved"]) {
      assert.equal(eventParams(method, { url: "https://example.com/app.js", hash: "x" }), null);
    }
  });

  test("other events pass as they are", () => {
    const params = { type: "alert", message: "hi" };
    assert.equal(eventParams("Page.javascriptDialogOpening", params), params);
  });
});
