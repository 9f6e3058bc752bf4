"""The action commands' answers on the wire, as the current host code writes them.

Each scenario runs one request through the real dispatcher against the one fake Chrome
(tests/unit/fakes.py): the page's answers come from the fake's tables, everything else is the
host's own code. ``tests/unit/test_wire.py`` checks that each answer is, byte for byte, the JSON
file of its name in this folder; ``python -m tests.unit.wire.record`` writes the files again
(only when an answer is meant to change: a review then sees the difference).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from reins.bridge.context import Host
from reins.bridge.protocol import HIT_GUARD, STOP_IF_THROWN
from reins.observe.registry import Registry
from reins.observe.sent import SentRecords
from reins.observe.store import ObserveState, SeenAt

from tests.unit.fakes import TAB, Call, Fail, FakeChrome, OpensDialog, Thrown, dispatch, make_host

__all__ = ["SCENARIOS", "WIRE", "answer_of", "wire_text"]

WIRE = Path(__file__).resolve().parent

URL = "https://shop.test/cart"
RECORD = {
    "tag": "button",
    "role": "button",
    "name": "Save",
    "id": "save",
    "sibling_index": 0,
    "connected": True,
    "box": [10, 20, 100, 30],
}
FIELD = {**RECORD, "tag": "input", "role": "textbox", "name": "Email", "id": "email"}
BEFORE = {"url": URL, "value": None, "focus": None, "document": "doc-1", "top": True}
NODE = {"node": {"backendNodeId": 5, "nodeName": "BUTTON"}}
HIT = {"backendNodeId": 5, "frameId": "F"}
READY = {"state": "ok", "visible": True, "stable": True, "x": 60.4, "y": 35}
GONE = {"code": "cdp_error", "message": "Cannot find context", "chrome": "context_gone"}
CLOSED = {"code": "target_closed", "message": "No tab with given id"}


def _states(after: Any, before: dict[str, Any] = BEFORE) -> Callable[[Call], Any]:
    """readState: ``before`` for the read before, ``after`` (a value, a Fail) after."""

    def read(call: Call) -> Any:
        args = call.params.get("arguments") or []
        phase = next((a.get("value") for a in args if a.get("value") in ("before", "after")), None)
        return before if phase == "before" else after

    return read


def _page(**functions: Any) -> dict[str, Any]:
    """A page with one element ``#save`` ready for input, and ``functions`` over it."""
    return {
        "findMatches": {"count": 1},
        "describeElement": RECORD,
        "probe": READY,
        "documentUrl": URL,
        "documentIdentity": ["doc-1", URL],
        **functions,
    }


def _cdp(**methods: Any) -> dict[str, Any]:
    return {
        "DOM.describeNode": NODE,
        "DOM.getNodeForLocation": HIT,
        "Page.getLayoutMetrics": {"cssLayoutViewport": {"pageX": 0, "pageY": 0}},
        **methods,
    }


def _observed() -> tuple[Registry, str]:
    registry = Registry()
    [ref] = registry.observe([RECORD], now=0.0, document_id="doc-1")
    return registry, ref


REF = _observed()[1]


def _with_ref(host: Host) -> None:
    """The tab's latest observation showed ``RECORD`` as ``REF`` (its node still there)."""
    state = host.tab(TAB).part(ObserveState)
    state.registry, ref = _observed()
    state.registry_url = URL
    state.seen = SeenAt("doc-1", {"main": "g1"}, {ref: (None, 0)})
    sent = host.tab(TAB).part(SentRecords)
    sent.gen, sent.records = "g1", [RECORD]


@dataclass(frozen=True)
class Scenario:
    cmd: str
    args: dict[str, Any]
    functions: dict[str, Any]
    cdp: dict[str, Any] = field(default_factory=_cdp)
    features: tuple[str, ...] = ()
    seed: Callable[[Host], None] | None = None
    timeout_ms: int = 3_000
    files: tuple[str, ...] = ()  # made in a home of its own; "{home}" in args names it


ALERT = {"type": "alert", "message": "Saved!", "url": URL, "frameId": "F"}


def _pressing_opens(dialog: dict[str, Any]) -> Callable[[Call], Any]:
    """Input.dispatchMouseEvent: a press opens ``dialog`` (a move does not)."""

    def mouse(call: Call) -> Any:
        return OpensDialog(dialog) if call.params.get("type") == "mousePressed" else {}

    return mouse


def _typed(text: str) -> dict[str, Any]:
    """The read after a fill or type that left ``text`` in the field."""
    return {**BEFORE, "value": text, "focus": "input#email", "connected": True, "field": text}


def _by_ref(checked: Any, *features: str) -> Scenario:
    """A click on ``REF``, its lookup's check (pressSame) answering ``checked``."""
    page = _page(readState=_states(AFTER), readHeld=AFTER, pressSame=checked)
    return Scenario(
        "click", {"target": REF}, page, features=(STOP_IF_THROWN, *features), seed=_with_ref
    )


def _field(cmd: str, text: str, *, original: str, kept: str) -> Scenario:
    """``cmd`` (fill or type) of ``text`` into a field holding ``original`` that keeps ``kept``."""
    return Scenario(
        cmd,
        {"target": "#email", "value": text},
        _page(
            describeElement=FIELD,
            readState=_states(_typed(kept)),
            enterField={"ok": True, "original": original},
            fieldValue=kept,
        ),
    )


@dataclass
class _Flips:
    """checkedState: ``checked`` at the first read, the other way from then on (the click)."""

    kind: str
    checked: bool
    reads: int = 0

    def __call__(self, call: Call) -> Any:
        self.reads += 1
        return {"kind": self.kind, "checked": self.checked if self.reads == 1 else not self.checked}


@dataclass
class _InTurn:
    """A page function answering ``answers`` in turn, the last from then on."""

    answers: tuple[Any, ...]
    reads: int = 0

    def __call__(self, call: Call) -> Any:
        self.reads += 1
        return self.answers[min(self.reads, len(self.answers)) - 1]


AFTER = {**BEFORE, "focus": "button#save", "connected": True, "counts": {"elsewhere": 2}}
# Where a wheel over the list lands, and what the list shows (pagescripts/src/scroll.js).
LOOK = {
    "x": 60,
    "y": 200,
    "height": 400,
    "scroller": "div#list",
    "scroll_top": 0,
    "max": 2000,
    "at_end": False,
    "at_top": True,
    "rows": [],
    "seen": [[0, 400]],
}
LOOKED = {**LOOK, "scroll_top": 320, "at_top": False, "seen": [[0, 720]]}


def _choose(kind: str, shows: str) -> dict[str, Any]:
    """A page whose dropdown (``kind``: trigger or combobox) offers Banana and shows ``shows``."""
    return _page(
        readState=_states(AFTER),
        chooseKind=kind,
        findOption={"index": 1, "label": "Banana"},
        triggerShows=shows,
        prepareField={"ok": True},
    )


SCENARIOS: dict[str, Scenario] = {
    "click": Scenario("click", {"target": "#save"}, _page(readState=_states(AFTER))),
    "click_no_effect": Scenario(
        "click", {"target": "#save"}, _page(readState=_states({**BEFORE, "connected": True}))
    ),
    "click_guarded": Scenario(
        "click", {"target": "#save"}, _page(readState=_states(AFTER)), features=(HIT_GUARD,)
    ),
    "click_navigated": Scenario(
        "click",
        {"target": "#save"},
        _page(readState=_states(Fail(GONE)), documentIdentity=["doc-2", URL + "/done"]),
    ),
    "click_unknown": Scenario(
        "click", {"target": "#save"}, _page(readState=_states(Fail(GONE | {"chrome": None})))
    ),
    "click_js_fallback": Scenario(
        "click",
        {"target": "#save"},
        _page(readState=_states(AFTER), probe={**READY, "visible": False, "zeroBox": True}),
    ),
    "click_js_forced": Scenario(
        "click", {"target": "#save", "mode": "js"}, _page(readState=_states(AFTER))
    ),
    "click_disabled": Scenario(
        "click", {"target": "#save"}, _page(probe={**READY, "disabled": True})
    ),
    "click_by_ref": _by_ref({"record": RECORD, "probe": READY, "before": BEFORE}),
    "click_by_ref_guarded": _by_ref(
        {"record": RECORD, "probe": READY, "before": BEFORE}, HIT_GUARD
    ),
    "click_by_ref_refused": _by_ref(
        Thrown(json.dumps({"record": RECORD, "probe": READY, "why": "covered"}))
    ),
    "click_press_not_seen": Scenario(
        "click",
        {"target": "#save"},
        _page(readState=_states({**AFTER, "receipt": {"seen": False}})),
        features=(HIT_GUARD,),
    ),
    "click_press_intercepted": Scenario(
        "click",
        {"target": "#save"},
        _page(readState=_states({**AFTER, "receipt": {"seen": True, "elsewhere": ["div#veil"]}})),
        features=(HIT_GUARD,),
    ),
    "click_tab_closed": Scenario(
        "click",
        {"target": "#save"},
        _page(readState=_states(Fail(CLOSED))),
    ),
    "click_opens_dialog": Scenario(
        "click",
        {"target": "#save"},
        _page(readState=_states(AFTER)),
        cdp=_cdp(**{"Input.dispatchMouseEvent": _pressing_opens(ALERT)}),
    ),
    "dblclick": Scenario("dblclick", {"target": "#save"}, _page(readState=_states(AFTER))),
    "hover": Scenario("hover", {"target": "#save"}, _page(readState=_states(AFTER))),
    "fill": _field("fill", "a@b.c", original="old", kept="a@b.c"),
    "fill_mismatch": _field("fill", "a@b.c", original="", kept="A@B.C"),
    "type": _field("type", "xy", original="ab", kept="abxy"),
    "type_not_all_kept": _field("type", "x1", original="", kept="1"),
    "check": Scenario(
        "check",
        {"target": "#save"},
        _page(readState=_states(AFTER), checkedState=_Flips("checkbox", False)),
    ),
    "check_already": Scenario(
        "check", {"target": "#save"}, _page(checkedState={"kind": "checkbox", "checked": True})
    ),
    "uncheck": Scenario(
        "uncheck",
        {"target": "#save"},
        _page(readState=_states(AFTER), checkedState=_Flips("switch", True)),
    ),
    "select": Scenario(
        "select",
        {"target": "#save", "values": ["b"]},
        _page(
            readState=_states({**AFTER, "value": "b"}),
            selectOptions={"selected": [{"value": "b", "label": "Bee"}]},
        ),
    ),
    "select_mismatch": Scenario(
        "select",
        {"target": "#save", "values": ["z"]},
        _page(
            readState=_states(AFTER),
            selectOptions={
                "error": "select_mismatch",
                "message": "no option z",
                "options": ["a", "b"],
                "selected": [],
            },
        ),
    ),
    "press": Scenario("press", {"keys": "Enter"}, _page()),
    "press_on_target": Scenario(
        "press", {"keys": "Control+A", "target": "#save"}, _page(readState=_states(AFTER))
    ),
    "scroll_to": Scenario(
        "scroll",
        {"target": "#save", "to": "bottom"},
        _page(
            scrollOn={
                "scroller": "div#list",
                "before": 0,
                "after": 900,
                "max": 900,
                "at_end": True,
                "at_top": False,
            }
        ),
    ),
    "drag": Scenario(
        "drag",
        {"source": "#save", "dest": "#save", "position": "5,6"},
        _page(
            readState=_states(AFTER),
            viewportBox=[100, 200, 50, 40],
            dragBefore={"place": {"index": 0}, "key": "k"},
            dragAfter={"index": 2},
        ),
    ),
    "scroll_by": Scenario(
        "scroll",
        {"target": "#save", "by": 300},
        _page(
            scrollOn={
                "scroller": "page",
                "before": 100,
                "after": 400,
                "max": 5000,
                "at_end": False,
                "at_top": False,
            }
        ),
    ),
    # An XPath TARGET in view in the list at the first look; one rendered below its box (at 520
    # px of its content), centred by one wheel turn.
    "scroll_until": Scenario(
        "scroll",
        {"until": "xpath=//*[@id='save']", "target": "#list"},
        _page(rowsShown={**LOOK, "holds": True}, shownInScrollerOf=True, wheelPoint=LOOK),
    ),
    "scroll_until_wheeled": Scenario(
        "scroll",
        {"until": "xpath=//*[@id='save']", "target": "#list"},
        _page(
            rowsShown={**LOOK, "holds": False, "target_at": 520},
            rowsAfterFrames={**LOOKED, "holds": True, "target_at": 520},
            shownInScrollerOf=True,
            wheelPoint=LOOKED,
        ),
    ),
    "choose": Scenario(
        "choose", {"target": "#save", "option": "banana"}, _choose("trigger", "Fruit: Banana")
    ),
    "choose_combobox": Scenario(
        "choose", {"target": "#save", "option": "Ban"}, _choose("combobox", "Banana")
    ),
    "choose_mismatch": Scenario(
        "choose",
        {"target": "#save", "option": "banana"},
        _choose("trigger", "Apple"),
        timeout_ms=1_000,
    ),
    "choose_native": Scenario(
        "choose",
        {"target": "#save", "option": "b"},
        _page(
            readState=_states({**AFTER, "value": "b"}),
            chooseKind="native",
            selectOptions={"selected": [{"value": "b", "label": "Bee"}]},
        ),
    ),
    "upload": Scenario(
        "upload",
        {"target": "#save", "files": ["{home}/report.txt"], "cwd": "{home}"},
        _page(
            readState=_states(AFTER),
            fileInputInfo={"multiple": False, "disabled": False},
            fileList=[{"name": "report.txt", "size": 5, "type": "text/plain"}],
        ),
        files=("report.txt",),
    ),
    "drag_not_moved": Scenario(
        "drag",
        {"source": "#save", "dest": "#save"},
        _page(
            readState=_states(AFTER),
            viewportBox=[100, 200, 50, 40],
            dragBefore={"place": {"index": 0}, "key": "k"},
            dragAfter={"index": 0},
        ),
    ),
    "mouse_move": Scenario("mouse_move", {"x": 10, "y": 20, "steps": 2}, _page()),
    "mouse_down": Scenario("mouse_down", {}, _page()),
    "mouse_up": Scenario("mouse_up", {"button": "right"}, _page()),
    "mouse_wheel": Scenario("mouse_wheel", {"dx": 0, "dy": 120}, _page()),
    "wait_text": Scenario("wait", {"text": "Saved"}, _page()),
    "wait_url": Scenario("wait", {"url": "*/cart"}, _page()),
    "wait_target": Scenario("wait", {"target": "#save"}, _page()),
    "wait_gone": Scenario("wait", {"gone": "#save"}, _page(findMatches={"count": 0})),
    "wait_idle": Scenario("wait", {"idle": True}, _page(settle={"settled": True, "quiet_ms": 120})),
    "eval": Scenario(
        "eval",
        {"expression": "1 + 1"},
        _page(),
        cdp=_cdp(**{"Runtime.evaluate": {"result": {"type": "number", "value": 2}}}),
    ),
    "eval_object": Scenario(
        "eval",
        {"expression": "({a: [1, 'x']})"},
        _page(),
        cdp=_cdp(
            **{
                "Runtime.evaluate": {
                    "result": {"type": "object", "value": {"a": [1, "x"]}, "objectId": "o-1"}
                }
            }
        ),
    ),
}


def answer_of(name: str) -> dict[str, Any]:
    """Scenario ``name`` run once: the answer the control socket would write (no request id)."""
    s = SCENARIOS[name]
    functions = {
        k: replace(v) if isinstance(v, (_Flips, _InTurn)) else v for k, v in s.functions.items()
    }  # a page with a state of its own starts afresh
    chrome = FakeChrome(cdp=dict(s.cdp), functions=functions, features=s.features)

    async def run(home: Path | None) -> dict[str, Any]:
        host = make_host(chrome, home)
        if s.seed is not None:
            s.seed(host)
        args = s.args
        if home is not None:
            args = {k: _at_home(v, str(home)) for k, v in args.items()}
        return await dispatch(chrome, s.cmd, args, host=host, timeout_ms=s.timeout_ms)

    if not s.files:
        return asyncio.run(run(None))
    with tempfile.TemporaryDirectory() as made:
        home = Path(made).resolve()
        for name in s.files:
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text("hello", encoding="utf-8")
        return asyncio.run(run(home))


def _at_home(value: Any, home: str) -> Any:
    if isinstance(value, str):
        return value.replace("{home}", home)
    if isinstance(value, list):
        return [_at_home(v, home) for v in value]
    return value


def wire_text(answer: dict[str, Any]) -> str:
    """An answer as its recorded file holds it: the JSON the socket writes, one key a line."""
    return json.dumps(answer, indent=2, ensure_ascii=False) + "\n"
