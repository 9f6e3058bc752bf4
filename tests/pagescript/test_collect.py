"""The page script (host/reins/_generated/collect.js) on real Chromium, with the page as the oracle."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from reins.observe.imap import build_map
from selenium import webdriver

# Evaluates every selector of every detected element in the element's own root and reports what
# it really matches: the count, and whether the best selector's single match is the element.
CHECK_SELECTORS = r"""
const nodes = window[Symbol.for("reins.elements")];
const elements = arguments[0];
const problems = [];
for (const rec of elements) {
  const node = nodes[rec.i];
  const root = node.getRootNode();
  for (const [key, entry] of Object.entries(rec.selectors)) {
    if (entry === null) continue;
    let matches;
    if (entry.sel.startsWith("/") || entry.sel.startsWith("(")) {
      const doc = node.ownerDocument;
      const snap = doc.evaluate(entry.sel, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      matches = [];
      for (let k = 0; k < snap.snapshotLength; k++) matches.push(snap.snapshotItem(k));
    } else {
      matches = Array.from(root.querySelectorAll(entry.sel));
    }
    if (matches.length !== entry.count) {
      problems.push(`#${rec.i} ${key} ${entry.sel}: recorded ${entry.count}, real ${matches.length}`);
    }
    if (!matches.includes(node)) problems.push(`#${rec.i} ${key} ${entry.sel}: misses its element`);
    if (key === rec.best && !(matches.length === 1 && matches[0] === node)) {
      problems.push(`#${rec.i} best ${key} ${entry.sel} does not match exactly its element`);
    }
  }
  if (rec.best === null || rec.selectors[rec.best] === null) problems.push(`#${rec.i} has no best`);
}
return problems;
"""


def _expected(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    raw: str = driver.execute_script("return document.getElementById('expected').textContent")
    expected: list[dict[str, Any]] = json.loads(raw)
    return expected


def _keys(elements: list[dict[str, Any]]) -> list[str]:
    """An element's id, else its text; repeated texts numbered #1, #2 in document order."""
    plain = [e["id"] or e["text"] or e["name"] for e in elements]
    repeated = {k for k, n in Counter(plain).items() if n > 1}
    seen: Counter[str] = Counter()
    keys = []
    for key in plain:
        if key in repeated:
            seen[key] += 1
            key = f"{key}#{seen[key]}"
        keys.append(key)
    return keys


@pytest.fixture(scope="module")
def detect(driver: webdriver.Chrome, servers: dict[str, Any], collect: Any) -> dict[str, Any]:
    driver.get(f"{servers['base']}/static/detect.html?xport={servers['cross_port']}")
    for _ in range(50):  # the cross-origin frame is added by script; wait for it to load
        if driver.execute_script("return document.getElementById('xframe').dataset.loaded === '1'"):
            break
        time.sleep(0.1)
    result: dict[str, Any] = collect()
    return result


def test_detected_set_equals_expected(detect: dict[str, Any], driver: webdriver.Chrome) -> None:
    expected = _expected(driver)
    elements = detect["elements"]
    assert _keys(elements) == [e["key"] for e in expected]
    for want, got in zip(expected, elements, strict=True):
        assert got["tag"] == want["tag"], want["key"]
        assert got["role"] == want["role"], want["key"]
        assert got["type"] == want["type"], want["key"]
        assert got["frame"] == want.get("frame", "f0"), want["key"]
        assert got["shadow"] == want.get("shadow", []), want["key"]
        if "name" in want:
            assert got["name"] == want["name"], want["key"]
        if "disabled" in want:
            assert got["states"]["disabled"] is want["disabled"], want["key"]
        if "checked" in want:
            assert got["states"]["checked"] is want["checked"], want["key"]
        if "visible" in want:
            assert got["visible"] is want["visible"], want["key"]
        if "testid" in want:
            assert got["testid"] == want["testid"], want["key"]
    assert [e["i"] for e in elements] == list(range(len(elements)))
    assert detect["truncated"] is False


def test_never_detected(detect: dict[str, Any]) -> None:
    ids = {e["id"] for e in detect["elements"]}
    texts = {e["text"] for e in detect["elements"]}
    assert not ids & {"plain-div", "plain-span", "ghost", "shadow-host", "child", "top"}
    assert not texts & {"inner span", "Span inside", "me", "Anchor without href"}
    assert all(e["attributes"].get("type") != "hidden" for e in detect["elements"])


def test_korean_and_emoji_names(detect: dict[str, Any]) -> None:
    by_name = {e["name"]: e for e in detect["elements"]}
    korean = by_name["메뉴로 돌아가기"]
    emoji = by_name["🚀 Launch"]
    assert korean["text"] == "메뉴로 돌아가기"
    assert korean["selectors"]["byText"]["sel"] == "//button[contains(text(), '메뉴로 돌아가기')]"
    assert emoji["selectors"]["byText"]["sel"] == "//button[contains(text(), '🚀 Launch')]"
    assert korean["best"] == emoji["best"] == "byText"


def test_duplicate_texts_are_indexed(detect: dict[str, Any]) -> None:
    deletes = [e for e in detect["elements"] if e["text"] == "Delete"]
    assert [e["selectors"]["byText"]["sel"] for e in deletes] == [
        f"(//button[contains(text(), 'Delete')])[{k}]" for k in (1, 2, 3)
    ]
    assert all(e["selectors"]["byCSS"] == {"sel": "button.row-delete", "count": 3} for e in deletes)


def test_special_ids_are_escaped(detect: dict[str, Any]) -> None:
    dotted = next(e for e in detect["elements"] if e["id"] == "user.name:first")
    assert dotted["selectors"]["byId"] == {"sel": "#user\\.name\\:first", "count": 1}
    assert dotted["best"] == "byId"


def test_every_selector_count_is_true_and_best_is_exact(
    detect: dict[str, Any], driver: webdriver.Chrome
) -> None:
    problems = driver.execute_script(CHECK_SELECTORS, detect["elements"])
    assert problems == []
    shadow_plain = next(e for e in detect["elements"] if e["text"] == "Shadow plain")
    assert shadow_plain["best"] == "byPath"
    assert shadow_plain["selectors"]["byText"] is None  # XPath cannot see shadow roots


def test_same_origin_frame_elements_have_main_viewport_boxes(
    detect: dict[str, Any], driver: webdriver.Chrome
) -> None:
    frames = {f["id"]: f for f in detect["frames"]}
    assert frames["f1"]["status"] == "ok"
    assert frames["f1"]["parent"] == "f0"
    assert frames["f1"]["selector"] == "iframe#child"
    child_btn = next(e for e in detect["elements"] if e["id"] == "child-btn")
    assert child_btn["frame"] == "f1"
    # The page's own geometry: iframe box + border + padding + the button's box inside the frame.
    want = driver.execute_script(
        """
        const f = document.getElementById('child');
        const fr = f.getBoundingClientRect(), cs = getComputedStyle(f);
        const b = f.contentDocument.getElementById('child-btn').getBoundingClientRect();
        return [fr.left + f.clientLeft + parseFloat(cs.paddingLeft) + b.left,
                fr.top + f.clientTop + parseFloat(cs.paddingTop) + b.top, b.width, b.height];
        """
    )
    assert child_btn["box"] == pytest.approx(want, abs=0.11)
    # The point reins would click is the button itself, seen from the main frame.
    x, y, w, h = child_btn["box"]
    hit = driver.execute_script(
        "const f = document.elementFromPoint(arguments[0], arguments[1]);"
        "if (f !== document.getElementById('child')) return null;"
        "const r = f.getBoundingClientRect(), cs = getComputedStyle(f);"
        "return f.contentDocument.elementFromPoint("
        "  arguments[0] - r.left - f.clientLeft - parseFloat(cs.paddingLeft),"
        "  arguments[1] - r.top - f.clientTop - parseFloat(cs.paddingTop)).id;",
        x + w / 2,
        y + h / 2,
    )
    assert hit == "child-btn"


def test_cross_origin_frame_is_listed_without_elements(detect: dict[str, Any]) -> None:
    cross = [f for f in detect["frames"] if f["status"] == "cross_origin"]
    assert len(cross) == 1
    assert cross[0]["id"] == "f2"
    assert cross[0]["parent"] == "f0"
    assert cross[0]["url"].startswith("http://localhost:")
    assert cross[0]["selector"] == "iframe#xframe"
    assert not [e for e in detect["elements"] if e["frame"] == "f2"]


def test_visibility_states_and_store(detect: dict[str, Any], driver: webdriver.Chrome) -> None:
    by_id = {e["id"]: e for e in detect["elements"] if e["id"]}
    assert by_id["covered-btn"]["obscured"] is True
    assert by_id["save-btn"]["obscured"] is False
    assert "hidden-input" not in by_id  # display:none at that moment: never listed
    assert by_id["pw"]["value"] == "********"
    assert by_id["bio"]["value"] == "Hello"
    assert by_id["country"]["value"] == "Korea"
    assert by_id["save-btn"]["context"] == {"section": "Toolbar"}
    assert by_id["email"]["parent_role"] == "form"
    assert by_id["react-div"]["reasons"] == ["react"]
    assert by_id["svg-icon"]["reasons"] == ["onclick", "svg"]
    assert by_id["svg-icon"]["selectors"]["byCSS"] == {"sel": "svg.icon", "count": 1}
    stored = driver.execute_script(
        "return window[Symbol.for('reins.elements')].map(n => n.id || n.textContent.trim() || n.value)"
    )
    assert stored == [e["id"] or e["text"] for e in detect["elements"]]


def test_options(collect: Any, detect: dict[str, Any]) -> None:
    few = collect(maxElements=3)
    assert len(few["elements"]) == 3 and few["truncated"] is True
    # It says about how many elements of the page it never read (not the page's word: its count).
    assert few["unread"] > 0
    assert collect()["unread"] == 0
    bare = collect(withSelectors=False)
    assert bare["elements"][0]["selectors"] is None and bare["elements"][0]["best"] is None
    in_view = collect(viewportOnly=True)
    assert in_view["elements"]
    assert all(e["in_viewport"] for e in in_view["elements"])
    assert [e["i"] for e in in_view["elements"]] == list(range(len(in_view["elements"])))


def test_build_map_on_real_output(detect: dict[str, Any]) -> None:
    imap = build_map(detect)
    assert imap["statistics"]["total"] == len(detect["elements"])
    assert len(imap["indexes"]["byText"]["Delete"]) == 3
    assert imap["statistics"]["duplicates"] >= 1
    assert sum(imap["statistics"]["byType"].values()) == len(detect["elements"])
    assert set(imap["indexes"]["byType"]["button"]) >= {
        key for key, e in imap["elements"].items() if e["text"] == "Delete"
    }
    first = imap["elements"]["elem_0"]
    assert first["selectors"]["best"] == "#covered-btn"
    assert first["selectors"]["matchCounts"]["byId"] == 1


GENERATE = r"""
const n = arguments[0];
document.body.innerHTML = '';
const root = document.createElement('main');
const parts = [];
for (let k = 0; k < n; k++) {
  switch (k % 5) {
    case 0: parts.push(`<div class="row r${k % 7}"><button class="btn b${k % 11}">Button ${k}</button></div>`); break;
    case 1: parts.push(`<a href="#a${k}" class="link">Link ${k}</a>`); break;
    case 2: parts.push(`<label for="in${k}">Field ${k}</label><input id="in${k}" type="text">`); break;
    case 3: parts.push(`<select name="s${k}"><option>One</option><option>Two</option></select>`); break;
    default: parts.push(`<div class="card" onclick="void 0"><span>Card</span> ${k}</div>`);
  }
}
root.innerHTML = parts.join('');
document.body.appendChild(root);
return document.getElementsByTagName('*').length;
"""


def test_generated_page_timing(
    driver: webdriver.Chrome, servers: dict[str, Any], collect: Any
) -> None:
    driver.get(f"{servers['base']}/static/detect-child.html")
    for n in (1000, 5000, 20000):
        total_nodes = driver.execute_script(GENERATE, n)
        runs = []
        for _ in range(3):
            ms = driver.execute_script(
                "const t = performance.now();"
                f"const r = ({_bundle_with({})});"
                "return [performance.now() - t, r.elements.length];"
            )
            runs.append(ms)
        times = sorted(r[0] for r in runs)
        assert runs[0][1] == n
        print(
            f"\ncollect: {n} elements ({total_nodes} nodes): median {times[1]:.0f} ms, "
            f"runs {[round(t) for t in times]}"
        )


def _bundle_with(options: dict[str, Any]) -> str:
    bundle = Path(__file__).resolve().parents[2] / "host" / "reins" / "_generated" / "collect.js"
    return bundle.read_text(encoding="utf-8").replace("__REINS_OPTIONS__", json.dumps(options))
