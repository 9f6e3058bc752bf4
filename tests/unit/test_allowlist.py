"""The extension's policy, read from the real files: the CDP allowlist, refused URLs, the manifest.

extension/allowlist.js and extension/policy.js are imported with node, so the assertions run
against the very functions the service worker calls (tests/extension/ has the policy's own tests).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from reins._paths import EXTENSION_ID

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "extension"
NODE = shutil.which("node") or ("/usr/bin/node" if Path("/usr/bin/node").exists() else None)

REFUSED_METHODS = [
    "Network.getCookies",
    "Network.getAllCookies",
    "Network.setCookie",
    "Network.clearBrowserCookies",
    "Storage.getCookies",
    "Storage.setCookies",
    "Storage.clearCookies",
    "Storage.clearDataForOrigin",
    "Storage.getUsageAndQuota",
    "Browser.close",
    "Browser.getVersion",
    "Browser.setDownloadBehavior",
    "Browser.grantPermissions",
    "Fetch.enable",
    "Fetch.continueRequest",
    "Fetch.fulfillRequest",
    "Debugger.setBreakpointByUrl",
    "Debugger.setBreakpoint",
    "Debugger.pause",
    "Debugger.resume",
    "Debugger.stepOver",
    "Debugger.evaluateOnCallFrame",
    "Debugger.getScriptSource",
    "Debugger.setPauseOnExceptions",
    "Debugger.setSkipAllPauses",
    "Debugger.setScriptSource",
    "Page.setDownloadBehavior",
    "Runtime.terminateExecution",
    "Runtime.enable",  # its events hand out objects of other extensions' content-script worlds
    "Target.createTarget",
    "Target.attachToTarget",
    "Target.setDiscoverTargets",
    "",
    "page.navigate",
    "Page.navigate ",
    "Page.*",
    "*",
]
REFUSED_PREFIXES = ("Storage.", "Browser.", "Fetch.")

NEEDED_METHODS = [
    "Page.enable",
    "Page.navigate",
    "Page.reload",
    "Page.getNavigationHistory",
    "Page.navigateToHistoryEntry",
    "Page.captureScreenshot",
    "Page.getFrameTree",
    "Runtime.evaluate",
    "Runtime.callFunctionOn",
    "Runtime.releaseObjectGroup",
    "DOM.getDocument",
    "DOM.describeNode",
    "DOM.resolveNode",
    "DOM.getBoxModel",
    "DOM.getContentQuads",
    "DOM.scrollIntoViewIfNeeded",
    "DOM.focus",
    "Accessibility.getFullAXTree",
    "Accessibility.getPartialAXTree",
    "Accessibility.queryAXTree",
    "Input.dispatchMouseEvent",
    "Input.dispatchKeyEvent",
    "Input.insertText",
    "Target.setAutoAttach",
    "Inspector.enable",  # tab_crashed: re-sends the crash of a tab reins had not listened to
    "Log.enable",  # Chrome's log of the page for console/network evidence (docs/security.md)
]

REFUSED_URLS = [
    "chrome://settings",
    "CHROME://extensions/",
    "chrome://newtab/",
    "chrome-extension://hlbjhcdhfpclgnhcihccgjneokjkeibl/popup.html",
    "chrome-untrusted://terminal/",
    "devtools://devtools/bundled/inspector.html",
    "edge://settings",
    "brave://settings",
    "view-source:https://example.com/",
    "https://chromewebstore.google.com/detail/abc",
    "https://chromewebstore.google.com/",
    "https://chrome.google.com/webstore/detail/abc",
    "https://chrome.google.com/webstore",
    " chrome-extension://hlbjhcdhfpclgnhcihccgjneokjkeibl/popup.html",
    "chr\tome://version",
    "about:settings",
    "file:///tmp/page.html",  # until the user switches file: pages on in the popup
    "javascript:alert(1)",
]
ALLOWED_URLS = [
    "http://example.com/",
    "https://example.com/path?q=1",
    "about:blank",
    "http://127.0.0.1:8000/chrome://not-a-scheme",
    "https://example.com/?next=chrome://settings",
    "https://chrome.google.com/search",
    "https://notchromewebstore.google.com/",
]

# Methods allowed only with checked parameters: parameters each accepts, then (method, params,
# allowed?) cases at the edges.
VALID_PARAMS: dict[str, dict[str, Any]] = {
    "Emulation.setFocusEmulationEnabled": {"enabled": True},
    "Page.startScreencast": {"format": "jpeg", "quality": 0, "maxWidth": 16, "maxHeight": 16},
    "Page.stopScreencast": {},
    "DOMDebugger.getEventListeners": {"objectId": "1.2.3"},
    "Input.setInterceptDrags": {"enabled": True},
    "Input.dispatchDragEvent": {
        "type": "dragEnter",
        "x": 10,
        "y": 20.5,
        "data": {"items": [{"mimeType": "text/plain", "data": "item-1"}], "dragOperationsMask": 17},
    },
}
_DRAG = VALID_PARAMS["Input.dispatchDragEvent"]
_TEXT = {"mimeType": "text/plain", "data": "x"}
_SHOT = {"format": "jpeg", "maxWidth": 16, "maxHeight": 16}
PARAM_CASES: list[tuple[str, Any, bool]] = [
    ("Emulation.setFocusEmulationEnabled", {"enabled": True}, True),
    ("Emulation.setFocusEmulationEnabled", {"enabled": False}, True),
    ("Emulation.setFocusEmulationEnabled", {}, False),
    ("Emulation.setFocusEmulationEnabled", {"enabled": "true"}, False),
    ("Emulation.setFocusEmulationEnabled", {"enabled": 1}, False),
    ("Emulation.setFocusEmulationEnabled", {"enabled": True, "extra": 1}, False),
    ("Emulation.setFocusEmulationEnabled", None, False),
    ("Emulation.setFocusEmulationEnabled", [True], False),
    ("Page.startScreencast", _SHOT, True),
    ("Page.startScreencast", {**_SHOT, "quality": 10, "everyNthFrame": 1}, True),
    ("Page.startScreencast", {**_SHOT, "maxWidth": 17}, False),
    ("Page.startScreencast", {**_SHOT, "maxHeight": 1600}, False),
    ("Page.startScreencast", {"format": "jpeg", "maxWidth": 16}, False),
    ("Page.startScreencast", {**_SHOT, "format": "png"}, False),
    ("Page.startScreencast", {**_SHOT, "quality": 80}, False),
    ("Page.startScreencast", {**_SHOT, "maxWidth": 8.5}, False),
    ("Page.startScreencast", {**_SHOT, "everyNthFrame": 0}, False),
    ("Page.startScreencast", {**_SHOT, "extra": True}, False),
    ("Page.startScreencast", {}, False),
    ("Page.stopScreencast", {}, True),
    ("Page.stopScreencast", {"x": 1}, False),
    ("Page.screencastFrameAck", {"sessionId": 1}, False),
    ("Input.setInterceptDrags", {"enabled": False}, True),
    ("Input.setInterceptDrags", {}, False),
    ("Input.setInterceptDrags", {"enabled": 1}, False),
    ("Input.dispatchDragEvent", _DRAG, True),
    ("Input.dispatchDragEvent", {**_DRAG, "type": "drop", "modifiers": 8}, True),
    (
        "Input.dispatchDragEvent",
        {**_DRAG, "type": "dragCancel", "data": {"items": [], "dragOperationsMask": 0}},
        True,
    ),
    ("Input.dispatchDragEvent", {**_DRAG, "data": {"dragOperationsMask": 0}}, False),
    # Files in a drop would attach local files past `reins upload`'s directory policy.
    (
        "Input.dispatchDragEvent",
        {**_DRAG, "data": {**_DRAG["data"], "files": ["/etc/passwd"]}},
        False,
    ),
    ("Input.dispatchDragEvent", {**_DRAG, "data": {**_DRAG["data"], "files": []}}, False),
    ("Input.dispatchDragEvent", {**_DRAG, "type": "mouseMoved"}, False),
    ("Input.dispatchDragEvent", {**_DRAG, "x": "10"}, False),
    ("Input.dispatchDragEvent", {**_DRAG, "modifiers": 16}, False),
    ("Input.dispatchDragEvent", {**_DRAG, "extra": 1}, False),
    ("Input.dispatchDragEvent", {"type": "drop", "x": 1, "y": 1}, False),
    (
        "Input.dispatchDragEvent",
        {**_DRAG, "data": {"items": [{**_TEXT, "x": 1}], "dragOperationsMask": 1}},
        False,
    ),
    (
        "Input.dispatchDragEvent",
        {
            **_DRAG,
            "data": {"items": [{"mimeType": "text/plain", "data": 5}], "dragOperationsMask": 1},
        },
        False,
    ),
    (
        "Input.dispatchDragEvent",
        {**_DRAG, "data": {"items": [_TEXT] * 65, "dragOperationsMask": 1}},
        False,
    ),
    ("Emulation.setDeviceMetricsOverride", {"width": 1, "height": 1}, False),
    ("Emulation.setUserAgentOverride", {"userAgent": "x"}, False),
    ("Emulation.setGeolocationOverride", {"latitude": 0, "longitude": 0}, False),
    # The host cannot turn the Debugger domain on at all: the extension's pause probe does.
    ("Debugger.enable", {"maxScriptsCacheSize": 0}, False),
    ("Debugger.setBreakpointsActive", {"active": False}, False),
    ("Debugger.disable", {}, False),
    # Where listeners are, never an object group to keep their handlers in.
    ("DOMDebugger.getEventListeners", {"objectId": "1.2.3", "depth": 1, "pierce": False}, True),
    ("DOMDebugger.getEventListeners", {"objectId": "1.2.3", "objectGroup": "g"}, False),
    ("DOMDebugger.getEventListeners", {}, False),
    ("DOMDebugger.getEventListeners", {"objectId": 5}, False),
    ("DOMDebugger.setEventListenerBreakpoint", {"eventName": "click"}, False),
]

_PROBE = """
Promise.all([import(process.argv[1]), import(process.argv[2])]).then(([m, p]) => {
  const input = JSON.parse(process.argv[3]);
  const ruled = (x) => x in m.PARAM_RULES;
  console.log(JSON.stringify({
    methods: m.ALLOWED_METHODS,
    frozen: Object.isFrozen(m.ALLOWED_METHODS) && Object.isFrozen(m.PARAM_RULES),
    ruled: Object.keys(m.PARAM_RULES),
    // A method with a parameter rule is checked with parameters that pass it.
    allowed: Object.fromEntries(input.methods.map((x) => [x, m.isAllowed(x, ruled(x) ? input.valid[x] : undefined)])),
    bare: Object.fromEntries(input.methods.map((x) => [x, m.isAllowed(x)])),
    params: input.params.map(([x, p]) => m.isAllowed(x, p)),
    // What the service worker runs: the policy's verdict on the same cases.
    policyParams: input.params.map(([x, q]) => p.checkCommand(x, q ?? {}).ok),
    refused: Object.fromEntries(input.urls.map((u) => [u, !p.checkUrl(u).ok])),
    nonString: [m.isAllowed(undefined), m.isAllowed(null), m.isAllowed(["Page.navigate"]),
                !p.checkUrl(undefined).ok, !p.checkUrl(null).ok],
  }));
});
"""


@pytest.fixture(scope="module")
def policy() -> dict[str, Any]:
    if NODE is None:
        pytest.skip("node is not installed")
    source_methods = re.findall(
        r'"([A-Za-z]+\.[A-Za-z]+)"', (EXTENSION / "allowlist.js").read_text()
    )
    query = {
        "methods": sorted(set(REFUSED_METHODS + NEEDED_METHODS + source_methods)),
        "urls": REFUSED_URLS + ALLOWED_URLS,
        "params": [[m, p] for m, p, _ in PARAM_CASES],
        "valid": VALID_PARAMS,
    }
    done = subprocess.run(
        # Node reads the extension's .js files as ES modules by their syntax (there is no
        # package.json): on by default since node 20.19 and 22.7, behind this flag before.
        [
            NODE,
            "--experimental-detect-module",
            "--input-type=module",
            "-e",
            _PROBE,
            (EXTENSION / "allowlist.js").as_uri(),
            (EXTENSION / "policy.js").as_uri(),
            json.dumps(query),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_allowlist_is_a_frozen_list_of_strings(policy: dict[str, Any]) -> None:
    methods = policy["methods"]
    assert policy["frozen"] is True
    assert methods and all(isinstance(m, str) for m in methods)
    assert len(methods) == len(set(methods)), "duplicate entries"


def test_every_entry_is_a_concrete_domain_method(policy: dict[str, Any]) -> None:
    for method in policy["methods"]:
        assert "*" not in method, f"wildcard entry {method!r}"
        assert re.fullmatch(r"[A-Z][A-Za-z]+\.[a-z][A-Za-z]+", method), method


@pytest.mark.parametrize("method", REFUSED_METHODS)
def test_refused_methods_are_not_allowed(policy: dict[str, Any], method: str) -> None:
    assert policy["allowed"][method] is False
    assert method not in policy["methods"]


def test_no_debugger_method_is_the_hosts(policy: dict[str, Any]) -> None:
    """The extension's pause probe turns the domain on for an instant; the host cannot."""
    assert [m for m in policy["methods"] if m.startswith("Debugger.")] == []


def test_no_method_of_a_refused_domain_is_listed(policy: dict[str, Any]) -> None:
    offenders = [m for m in policy["methods"] if m.startswith(REFUSED_PREFIXES)]
    assert offenders == []
    cookie_or_download = [
        m for m in policy["methods"] if "cookie" in m.lower() or "download" in m.lower()
    ]
    assert cookie_or_download == []


@pytest.mark.parametrize("method", NEEDED_METHODS)
def test_needed_methods_are_allowed(policy: dict[str, Any], method: str) -> None:
    assert policy["allowed"][method] is True


def test_is_allowed_agrees_with_the_list(policy: dict[str, Any]) -> None:
    for method in policy["methods"]:
        assert policy["allowed"][method] is True


def test_parameter_rules_cover_listed_methods_only(policy: dict[str, Any]) -> None:
    assert sorted(policy["ruled"]) == sorted(VALID_PARAMS)
    assert set(policy["ruled"]) <= set(policy["methods"])
    # Emulation and screencasts are allowed only where a rule narrows them to checked parameters.
    narrowed = [
        m
        for m in policy["methods"]
        if m.startswith(("Emulation.", "Debugger.")) or "creencast" in m
    ]
    assert narrowed and set(narrowed) <= set(policy["ruled"])


def test_a_ruled_method_needs_parameters_that_pass(policy: dict[str, Any]) -> None:
    for method in policy["ruled"]:
        if VALID_PARAMS[method]:
            assert policy["bare"][method] is False
    unruled = [m for m in policy["methods"] if m not in policy["ruled"]]
    assert all(policy["bare"][m] is True for m in unruled)


@pytest.mark.parametrize("case", range(len(PARAM_CASES)))
def test_parameter_rules(policy: dict[str, Any], case: int) -> None:
    method, params, allowed = PARAM_CASES[case]
    assert policy["params"][case] is allowed, (method, params)
    if isinstance(params, dict):  # what the service worker checks agrees
        assert policy["policyParams"][case] is allowed, (method, params)


def test_non_strings_are_not_allowed_methods_and_are_refused_urls(policy: dict[str, Any]) -> None:
    assert policy["nonString"] == [False, False, False, True, True]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_refused_urls(policy: dict[str, Any], url: str) -> None:
    assert policy["refused"][url] is True


@pytest.mark.parametrize("url", ALLOWED_URLS)
def test_allowed_urls(policy: dict[str, Any], url: str) -> None:
    assert policy["refused"][url] is False


# ---- the manifest ----------------------------------------------------------------------------


def _extension_id_from_key(key: str) -> str:
    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def test_manifest_key_gives_the_extension_id_the_host_allows() -> None:
    manifest = json.loads((EXTENSION / "manifest.json").read_text())
    assert manifest.get("key"), "without a key the unpacked extension's id changes per machine"
    assert _extension_id_from_key(manifest["key"]) == EXTENSION_ID
    assert re.fullmatch(r"[a-p]{32}", EXTENSION_ID)


def test_manifest_permissions_are_exactly_the_seven() -> None:
    manifest = json.loads((EXTENSION / "manifest.json").read_text())
    assert manifest["manifest_version"] == 3
    # alarms: wakes a stopped service worker so it reconnects to the host by itself.
    # tabGroups: the "reins" group shows the user which of their tabs the agent drives.
    # downloads: where a download a reins tab began went, and refusing it (sessions.js: only
    # a URL that tab began is looked up).
    assert sorted(manifest["permissions"]) == sorted(
        ["debugger", "nativeMessaging", "tabs", "tabGroups", "storage", "alarms", "downloads"]
    )
    assert "host_permissions" not in manifest
    assert "optional_permissions" not in manifest
    assert "content_scripts" not in manifest
    assert "externally_connectable" not in manifest
