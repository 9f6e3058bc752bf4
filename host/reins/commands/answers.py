"""What each command answers, as types: one TypedDict a command (or a family of them), each field
``Annotated`` with what it means. The command table names them (``@command(name, Args, answers.Click)``)
and docs/commands.md is generated from them; tests/unit/test_answers_declared.py checks that every
command names one, that every field says what it means, and that the answers recorded on the
wire (tests/unit/wire) hold only declared fields.

The dispatcher adds ``ok`` to every answer (true here; an error is ``{"ok": false, "error": …}``,
docs/agent-guide.md). Handlers return them (mypy-checked); the actions' from act/answers.py types.

The shapes the actions' answers are made of (``Effect``, ``Change``, ``Dragged``, ``Scroll`` …) are
declared once, where they are written (act/answers.py, page/), and named here: docs/commands.md
calls each by the name this module gives it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from reins.act.answers import ChangeWire as Change
from reins.act.answers import DraggedWire as Dragged
from reins.act.answers import EffectWire as Effect
from reins.act.answers import MouseWire as Mouse
from reins.act.answers import MovedWire as Moved
from reins.act.answers import Place
from reins.act.answers import ScrollWire as Scroll
from reins.page.dialogs import DialogWire as JsDialog
from reins.page.downloads import DownloadWire as Download
from reins.page.remote import Shown as Evaluated

__all__ = [
    "Action",
    "Capture",
    "CdpResult",
    "Change",
    "Check",
    "Choose",
    "Click",
    "Console",
    "ConsoleEntry",
    "DialogState",
    "Download",
    "Drag",
    "Dragged",
    "Effect",
    "Evaluated",
    "Expectation",
    "Fill",
    "Found",
    "Frame",
    "HandedOff",
    "Handoff",
    "JsDialog",
    "Map",
    "Mouse",
    "Moved",
    "Network",
    "Option",
    "Page",
    "Place",
    "Pong",
    "Press",
    "Recovered",
    "RequestEntry",
    "Screenshot",
    "Scroll",
    "Select",
    "State",
    "Stats",
    "Status",
    "Tab",
    "TabChosen",
    "TabClosed",
    "TabOpened",
    "Tabs",
    "TraceStarted",
    "TraceStopped",
    "Upload",
    "UploadedFile",
    "Wait",
]

# ---- the parts answers share ---------------------------------------------------------------------


class _Recovered(TypedDict):
    via: Annotated[str, "identity, locator or reidentified_after_navigation"]
    confidence: Annotated[float, "how sure reins is that it is the same element (0..1)"]


class Recovered(_Recovered, total=False):
    """How a ref whose element was gone was recovered."""

    ref: Annotated[str, "the ref of the latest observation it stands for"]


class Frame(TypedDict, total=False):
    """The frame --frame named, as the browser names it."""

    id: Annotated[str, "Chrome's frame id"]
    url: Annotated[str, "its URL (query values hidden)"]
    origin: Annotated[str, "its origin, when it has its own"]


class _Acted(TypedDict):
    effect: Annotated[Effect, "what the action changed, or what the tab did instead"]
    warnings: Annotated[
        list[str],
        "no_effect, effect_unknown, dialog_open, press_not_seen, js_click_fallback, "
        "tab_closed_during_action, detached_during_action, download_refused … (agent-guide.md)",
    ]


class Action(_Acted, total=False):
    """An action on an element: its effect and warnings, and which element it was about."""

    ref: Annotated[str, "the element's ref, when it was named by one"]
    recovered: Annotated[Recovered, "the ref's element was gone: what stood in for it"]
    frame: Annotated[Frame, "with --frame: the frame the input went to"]


class Click(Action, total=False):
    method: Annotated[str, "cdp (mouse events), js (--mode js) or js_fallback (no box: click())"]
    point: Annotated[list[float], "where the mouse pressed, viewport CSS pixels"]


class Fill(Action, total=False):
    value: Annotated[str, "the text the field kept, read back"]
    expected: Annotated[str, "type: the text meant, when the field kept less (`not_all_kept`)"]


class Press(Action, total=False):
    keys: Annotated[str, "the keys pressed, as given"]


class Option(TypedDict):
    """An option of a native select."""

    value: Annotated[str, "its value"]
    label: Annotated[str, "its label"]


class Select(Action, total=False):
    selected: Annotated[list[Option], "the options chosen, read back"]


class Choose(Select, total=False):
    kind: Annotated[str, "the widget: native, trigger (a dropdown) or combobox"]
    chose: Annotated[str, "the option's label chosen"]
    shows: Annotated[str, "what the widget shows now"]
    already: Annotated[
        bool, "true: the option was chosen and shown before, and was not pressed again"
    ]


class UploadedFile(TypedDict):
    """A file the input holds now."""

    name: Annotated[str, "its name"]
    size: Annotated[int, "its size in bytes"]
    type: Annotated[str, "its MIME type"]


class Upload(Action, total=False):
    files: Annotated[list[UploadedFile], "the files the input holds, read back"]


class Drag(Action, total=False):
    drag: Annotated[Dragged, "the drag"]


class Check(Click, total=False):
    checked: Annotated[bool, "the state it has now (already so: `already_checked`, …)"]


class Wait(TypedDict, total=False):
    """What was waited for, as it held."""

    waited_for: Annotated[str, "idle, text, url, target or gone"]
    origin: Annotated[float, "idle: the document's time origin (which document it is)"]
    url: Annotated[str, "idle: the page's URL; url: the URL that matched"]
    title: Annotated[str, "idle: the page's title"]
    readyState: Annotated[str, "idle: the document's readyState"]
    settledMs: Annotated[int, "idle: how long it took to go quiet"]
    text: Annotated[str, "text: the text that appeared"]
    ref: Annotated[str | None, "target: its ref"]


# ---- the page and its tabs ------------------------------------------------------------------------


class Page(TypedDict):
    """The page once loaded and settled."""

    url: Annotated[str | None, "its URL"]
    title: Annotated[str | None, "its title"]
    settled_ms: Annotated[int | None, "how long it took to go quiet"]


class Tab(TypedDict, total=False):
    """A tab of the browser."""

    id: Annotated[int, "its id (--tab ID)"]
    url: Annotated[str, "its URL"]
    title: Annotated[str, "its title"]
    active: Annotated[bool, "the one shown in its window"]
    reins: Annotated[bool, "reins may drive it (it opened it, or it was handed over)"]
    stopped: Annotated[bool, "the user pressed Cancel on the debugging bar"]
    crashed: Annotated[bool, "its page crashed: `reins reload`"]


class Tabs(TypedDict):
    tabs: Annotated[list[Tab], "the browser's tabs"]
    current: Annotated[int | None, "the tab commands use"]


class TabOpened(TypedDict):
    id: Annotated[int, "the new tab's id, now the one commands use"]
    url: Annotated[str | None, "its URL"]
    title: Annotated[str, "its title"]


class TabChosen(TypedDict):
    tab: Annotated[Tab, "the tab, now the one commands use"]


class TabClosed(TypedDict, total=False):
    closed: Annotated[int, "the tab closed"]
    replaced_by: Annotated[int, "a launched browser's last tab: the blank one that replaced it"]


class DialogState(TypedDict, total=False):
    """`dialog` (the open one) or `dialog accept|dismiss` (the one answered)."""

    dialog: Annotated[JsDialog | None, "the open dialog (None: none)"]
    handled: Annotated[JsDialog, "the dialog answered"]
    accepted: Annotated[bool, "it was accepted (else dismissed)"]


class Status(TypedDict, total=False):
    """reins itself: the host, the extension and the current tab."""

    host: Annotated[dict[str, Any], "version, pid, profile, home, allocator"]
    connected: Annotated[bool, "the extension is connected"]
    paused: Annotated[bool, "the user paused reins in the popup"]
    launched: Annotated[bool, "the browser is one `reins launch` started"]
    extension: Annotated[dict[str, Any] | None, "the extension's hello: version, features …"]
    tab: Annotated[Tab | None, "the tab commands use"]
    attached_tabs: Annotated[list[int], "the tabs the debugger is attached to"]
    error: Annotated[dict[str, Any], "what failed while reading the rest"]


class CdpResult(TypedDict):
    result: Annotated[dict[str, Any], "what Chrome answered, as it answered it"]


class Stats(TypedDict):
    stats: Annotated[dict[str, Any], "the host's counters, and pending_requests"]


class Pong(TypedDict):
    pong: Annotated[bool, "the host answers"]
    connected: Annotated[bool, "the extension is connected"]


# ---- observing --------------------------------------------------------------------------------


class State(TypedDict, total=False):
    """The page's interactive elements (`--compare-sources`: each source's, side by side)."""

    url: Annotated[str, "the page's URL"]
    title: Annotated[str, "its title"]
    source: Annotated[str, "where the elements came from: dom or ax"]
    text: Annotated[str, 'one line an element: @ref role "name" value [flags]']
    refs: Annotated[list[dict[str, Any]], "the elements as data: ref, role, name, value …"]
    frames: Annotated[list[dict[str, Any]], "the page's frames"]
    shown: Annotated[int, "elements listed"]
    left_out: Annotated[int, "elements left out to stay within --max-tokens"]
    frame_sections: Annotated[int, "frames listed in sections of their own"]
    scrollable: Annotated[list[dict[str, Any]], "what scrolls: the page and scrolling elements"]
    approx_tokens: Annotated[int, "about how many tokens the text is"]
    truncated: Annotated[bool, "the page has more elements than were read"]
    unread: Annotated[int, "about how many were never read"]
    ax_coverage: Annotated[dict[str, Any] | None, "ax: how many candidates Chrome was asked of"]
    elapsed_ms: Annotated[int, "how long the observation took"]
    diff: Annotated[dict[str, Any], "--diff: full (and why), or added, removed, changed"]
    sources: Annotated[dict[str, Any], "--compare-sources: each source's view"]
    default_source: Annotated[str, "--compare-sources: the source `state` uses by default"]


class Map(TypedDict):
    map: Annotated[dict[str, Any], "the interaction map: every element with its selectors"]


class Found(TypedDict):
    matches: Annotated[
        list[dict[str, Any]], "ref, id, type, tag, role, text, selector, position, visibility"
    ]
    stage: Annotated[str, "how they were found: type, tag, regenerate, or text (no ref)"]


class Screenshot(TypedDict, total=False):
    format: Annotated[str, "png"]
    masked: Annotated[int, "--mask: boxes painted over"]
    mask_notes: Annotated[list[str], "--mask: what could not be masked"]
    labels: Annotated[list[dict[str, Any]], "--labels: each ref's box and its label's box"]
    png_base64: Annotated[str, "the picture (the CLI writes it to a file)"]
    bytes: Annotated[int, "its size"]


class Capture(TypedDict):
    """How the page's evidence is captured (console and network answer it)."""

    capturing_since: Annotated[str | None, "since when the page's evidence is captured"]
    started_now: Annotated[bool, "this command switched the capture on"]
    dropped: Annotated[int, "entries dropped for room"]
    document: Annotated[str | None, "the document the entries are of"]


class _When(TypedDict, total=False):
    time: Annotated[int, "when it happened, epoch ms"]
    at: Annotated[str | None, "when it happened, ISO 8601"]
    step: Annotated[int, "while a trace runs: the step it happened during"]
    document: Annotated[str | None, "the document it belongs to"]


class ConsoleEntry(_When, total=False):
    """A console line, uncaught exception or unhandled rejection."""

    level: Annotated[str, "error or warn"]
    kind: Annotated[str, "console, exception or rejection"]
    text: Annotated[str, "what was logged (at most 2000 characters)"]
    source: Annotated[str | None, "the script's URL"]
    line: Annotated[int | None, "its line"]


class RequestEntry(_When, total=False):
    """A request of the page, from resource timing (never headers, bodies or cookies)."""

    method: Annotated[str | None, "its method, when known"]
    url: Annotated[str, "its URL, query values hidden"]
    type: Annotated[str, "what asked for it: fetch, xmlhttprequest, script, img …"]
    status: Annotated[int | None, "its status (0: a network error or an opaque answer)"]
    duration_ms: Annotated[int, "how long it took"]
    transfer_size: Annotated[int | None, "bytes over the network"]
    failed: Annotated[bool | None, "it failed (>= 400 or no answer); None: cannot be known"]


class Console(Capture):
    entries: Annotated[list[ConsoleEntry], "what the page logged, oldest first"]


class Network(Capture):
    requests: Annotated[list[RequestEntry], "the page's requests, oldest first"]


class Expectation(TypedDict, total=False):
    """The expectation, as it held."""

    expectation: Annotated[str, "what was expected: value, text, checked, url, no-errors …"]
    expected: Annotated[Any, "what it was to be"]
    seen: Annotated[Any, "what the page showed"]
    since: Annotated[str | None, "no-errors: since when"]
    requests: Annotated[list[RequestEntry], "request: the requests that matched"]
    warnings: Annotated[list[str], "capture_started_now: earlier entries were not captured"]


# ---- traces and handoffs ----------------------------------------------------------------------


class TraceStarted(TypedDict):
    dir: Annotated[str, "the trace's directory"]
    name: Annotated[str, "its name"]
    screenshots: Annotated[bool, "pictures are taken before and after each action"]
    max_mb: Annotated[int, "the most it keeps on disk"]
    file: Annotated[str, "the trace file"]


class TraceStopped(TypedDict, total=False):
    dir: Annotated[str, "the trace's directory"]
    name: Annotated[str, "its name"]
    steps: Annotated[int, "the steps that ran"]
    recorded: Annotated[int, "the steps on disk"]
    bytes: Annotated[int, "its size on disk"]
    capped: Annotated[bool, "it reached its size cap: later pictures were left out"]
    complete: Annotated[bool, "every write succeeded"]
    report: Annotated[str, "the command that makes its report"]
    warnings: Annotated[list[str], "trace_incomplete when a write failed"]
    lost: Annotated[dict[str, Any], "what was lost: failed writes, unfinished steps"]


class Handoff(TypedDict):
    text: Annotated[str, "what the person was asked to do"]
    outcome: Annotated[Literal["done"], "the person pressed Done"]
    person_ms: Annotated[int, "how long the person took"]


class HandedOff(TypedDict):
    handoff: Annotated[Handoff, "the handoff"]
