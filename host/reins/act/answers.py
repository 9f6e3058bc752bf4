"""What an action answers, as types: the effect it had — what changed between the reads before
and after it, or what the tab did instead — its warnings, its own fields and the element it was
about, each written by one ``to_wire()`` with the keys the CLI, MCP and check files read (pure).

When the read after an action does not answer, what the tab did instead is one of a tagged
union (``Instead``): it navigated (to a URL, when known), closed, was let go of by Chrome while
still open, or it is not known why. The effect is another (``Effect``): the changes seen, a
navigation, a closed or let-go tab, a JavaScript dialog the action opened, or unknown.

An action's own field may be a type too (``Dragged``); the answers that have no effect read
around them are their own types (``Scrolled``, ``MouseAt``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Generic, Literal, TypedDict, TypeVar

from reins.act.handles import FrameNamed, Recovery, StateRead
from reins.page.dialogs import DialogWire
from reins.page.downloads import DownloadWire

__all__ = [
    "ActionAnswer",
    "ActedWire",
    "AboutWire",
    "Change",
    "ChangeWire",
    "Changed",
    "Detached",
    "DialogShown",
    "Dragged",
    "DraggedWire",
    "Effect",
    "EffectWire",
    "Fields",
    "Found",
    "Instead",
    "MouseAt",
    "MouseWire",
    "Navigated",
    "Place",
    "ScrollWire",
    "Scrolled",
    "StateValue",
    "TabClosed",
    "Unknown",
    "changes_between",
]

# What ``to_wire()`` writes is the answer as JSON for the CLI, MCP and check files: the TypedDicts
# below, each field ``Annotated`` with what it means. They are declared here only: the command
# table's answer types (commands/answers.py) are made of them and name them for docs/commands.md;
# their keys are pinned by tests/unit/test_wire.py.

# A state an action may change, as the page read it: a field's value, checked (true, false or
# "mixed"), the selected options' labels, expanded, the focused element's label, the URL.
StateValue = str | bool | list[str] | None


@dataclass(frozen=True)
class Change:
    """One state the action changed (``value``, ``checked``, ``focus``, ``url`` …)."""

    before: StateValue
    after: StateValue

    def to_wire(self) -> ChangeWire:
        return {"from": self.before, "to": self.after}


ChangeWire = TypedDict(
    "ChangeWire",
    {
        "from": Annotated[StateValue, "the state read before the action"],
        "to": Annotated[StateValue, "the state read after it"],
    },
)
ChangeWire.__doc__ = "A state the action changed: what it was before and after."
# The states an action may change, by their names on the wire.
ChangeKey = Literal["value", "checked", "selected", "expanded", "focus", "url"]


class EffectWire(TypedDict, total=False):
    """What an action changed, read before and after it in the page, or what the tab did instead
    (then one of navigated, tab_closed, detached, unknown, dialog). Empty: nothing changed (the
    warning `no_effect`)."""

    value: Annotated[ChangeWire, "the field's value (a password's masked)"]
    checked: Annotated[ChangeWire, "checked: true, false or mixed"]
    selected: Annotated[ChangeWire, "a select's chosen options' labels"]
    expanded: Annotated[ChangeWire, "aria-expanded"]
    focus: Annotated[ChangeWire, "the focused element's label"]
    url: Annotated[ChangeWire, "the page's URL"]
    target_detached: Annotated[bool, "the element left the page"]
    shown: Annotated[list[str], "hidden elements near it that are shown now"]
    navigation_started: Annotated[str, "a navigation began to this URL, not arrived yet"]
    dom_changed_in_target: Annotated[int, "DOM changes in or under the element"]
    dom_changed_elsewhere: Annotated[int, "DOM changes elsewhere in its document"]
    navigated: Annotated[bool, "the tab shows another document (``url``: from, to)"]
    tab_closed: Annotated[bool, "the tab went away"]
    detached: Annotated[bool, "Chrome let go of the tab, still open (``tab_open``)"]
    tab_open: Annotated[bool, "with ``detached``: the tab is still there"]
    unknown: Annotated[bool, "what the action did is not known"]
    reason: Annotated[str, "with ``unknown``: why"]
    dialog: Annotated[DialogWire, "the action opened a JavaScript dialog"]
    downloads: Annotated[list[DownloadWire], "downloads the action started"]


def changes_between(before: StateRead, after: StateRead) -> tuple[tuple[ChangeKey, Change], ...]:
    """The states an action may change that differ between two reads, in the wire's order."""
    pairs: tuple[tuple[ChangeKey, StateValue, StateValue], ...] = (
        ("value", before.get("value"), after.get("value")),
        ("checked", before.get("checked"), after.get("checked")),
        ("selected", before.get("selected"), after.get("selected")),
        ("expanded", before.get("expanded"), after.get("expanded")),
        ("focus", before.get("focus"), after.get("focus")),
        ("url", before.get("url"), after.get("url")),
    )
    return tuple((key, Change(old, new)) for key, old, new in pairs if old != new)


@dataclass(frozen=True)
class Navigated:
    """The tab shows another document (``url``: its URL, None while not known; ``came_from``:
    the URL the action started on, in the effect)."""

    url: str | None
    came_from: str | None = None
    kind: Literal["navigated"] = "navigated"

    def to_wire(self) -> EffectWire:
        out: EffectWire = {"navigated": True}
        if self.url is not None:
            out["url"] = Change(self.came_from, self.url).to_wire()
        return out


@dataclass(frozen=True)
class TabClosed:
    """The tab went away during the action."""

    kind: Literal["tab_closed"] = "tab_closed"

    def to_wire(self) -> EffectWire:
        return {"tab_closed": True}


@dataclass(frozen=True)
class Detached:
    """Chrome let go of the tab during the action, which is still open (the next command
    attaches again): a link that handed its URL to another application."""

    kind: Literal["detached"] = "detached"

    def to_wire(self) -> EffectWire:
        return {"detached": True, "tab_open": True}


@dataclass(frozen=True)
class Unknown:
    """What the action did is not known (``reason``: why; None when nothing was read before)."""

    reason: str | None = None
    kind: Literal["unknown"] = "unknown"

    def to_wire(self) -> EffectWire:
        return (
            {"unknown": True} if self.reason is None else {"unknown": True, "reason": self.reason}
        )


# What the tab did when the read after the action did not answer.
Instead = Navigated | TabClosed | Detached | Unknown


@dataclass(frozen=True)
class Changed:
    """What the two state reads around the action differ in, in the order the wire lists them."""

    changes: tuple[tuple[ChangeKey, Change], ...] = ()
    target_detached: bool = False
    shown: tuple[str, ...] = ()
    navigation_started: str | None = None
    dom_changed_in_target: int = 0
    dom_changed_elsewhere: int = 0
    kind: Literal["changed"] = "changed"

    @property
    def nothing(self) -> bool:
        return not self.to_wire()

    def to_wire(self) -> EffectWire:
        out: EffectWire = {}
        for key, change in self.changes:
            out[key] = change.to_wire()
        if self.target_detached:
            out["target_detached"] = True
        if self.shown:
            out["shown"] = list(self.shown)
        if self.navigation_started is not None:
            out["navigation_started"] = self.navigation_started
        if self.dom_changed_in_target:
            out["dom_changed_in_target"] = self.dom_changed_in_target
        if self.dom_changed_elsewhere:
            out["dom_changed_elsewhere"] = self.dom_changed_elsewhere
        return out


@dataclass(frozen=True)
class DialogShown:
    """The action opened a JavaScript dialog (the page waits for it: `reins dialog`)."""

    dialog: DialogWire
    kind: Literal["dialog"] = "dialog"

    def to_wire(self) -> EffectWire:
        return {"dialog": self.dialog}


Effect = Changed | Navigated | TabClosed | Detached | Unknown | DialogShown


class Fields(TypedDict, total=False):
    """An action's own answer fields (each action's TypedDict extends this one), in the order it
    gives them: its warnings join the answer's; the others follow them on the wire."""

    warnings: list[str]


# The TypedDict of an action's own fields (``PressFields``, ``FillFields`` …); an answer is read
# only, so an answer of a narrower one is an answer of a wider one (``ChooseFields``, a union).
F = TypeVar("F", bound=Fields, covariant=True)
G = TypeVar("G", bound=Fields)


class ActedWire(TypedDict):
    """What every action answers first: its effect and its warnings."""

    effect: EffectWire
    warnings: list[str]


class AboutWire(TypedDict, total=False):
    """What an action answers last: which element it was about."""

    recovered: Recovery
    ref: str
    frame: FrameNamed  # --frame: where the input went, by the browser's word


@dataclass(frozen=True)
class ActionAnswer(Generic[F]):
    """An action's answer: its effect (with the downloads it started), its warnings, its own
    fields (``F``: ``method``, ``point``, ``value`` …; None when the action gave none, as when it
    opened a dialog), and which element it was about (the ref, how a stale ref was recovered,
    the frame --frame named).

    The wire is ``{**acted(), **(fields or {}), **about()}``, written where the command's answer type is
    known (its handler), so that mypy holds it to that type; ``to_wire()`` writes the same for a
    reader that does not know the command."""

    effect: Effect
    warnings: tuple[str, ...] = ()
    downloads: tuple[DownloadWire, ...] = ()
    fields: F | None = None
    recovered: Recovery | None = None
    ref: str | None = None
    frame: FrameNamed | None = None

    def with_fields(self, fields: G) -> ActionAnswer[G]:
        """The same answer with other own fields."""
        return ActionAnswer(
            self.effect, self.warnings, self.downloads, fields, self.recovered, self.ref, self.frame
        )

    def acted(self) -> ActedWire:
        effect = self.effect.to_wire()
        if self.downloads:
            effect["downloads"] = list(self.downloads)
        return {"effect": effect, "warnings": list(self.warnings)}

    def about(self) -> AboutWire:
        out: AboutWire = {}
        if self.recovered:
            out["recovered"] = self.recovered
        if self.ref:
            out["ref"] = self.ref
        if self.frame:
            out["frame"] = self.frame
        return out

    def to_wire(self) -> dict[str, object]:
        return {**self.acted(), **(self.fields or {}), **self.about()}


class Place(TypedDict):
    """Where an element sits, as the page reads it: its container's label and its index among
    the container's children of its kind (pagescripts/src/drag.js)."""

    parent: Annotated[str | None, "its container's label"]
    index: Annotated[int, "its index among the container's children of its kind"]


MovedWire = TypedDict(
    "MovedWire",
    {
        "from": Annotated[Place, "the source's place before"],
        "to": Annotated[Place | None, "its place after (None: nowhere)"],
    },
)
DraggedWire = TypedDict(
    "DraggedWire",
    {
        "from": Annotated[list[float], "where the drag pressed, viewport CSS pixels"],
        "to": Annotated[list[int], "where it released"],
        "native": Annotated[bool, "it went on as the browser's own drag and drop"],
        "moved": Annotated[
            MovedWire | None, "where the source sat (None: its place did not change)"
        ],
    },
)
MovedWire.__doc__ = "Where the drag's source sat before and after it, as the page reads it."
DraggedWire.__doc__ = "A drag: where it pressed and released, and where its source went."


@dataclass(frozen=True)
class Dragged:
    """Where a drag pressed (``start``) and released (``end``), whether it went on as the
    browser's own drag and drop (``native``), and where the source sat before and after it
    (``moved``: None when its place, as the page reads it, did not change)."""

    start: tuple[float, float]
    end: tuple[int, int]
    native: bool
    moved: tuple[Place, Place | None] | None

    def to_wire(self) -> DraggedWire:
        moved: MovedWire | None = (
            None if self.moved is None else {"from": self.moved[0], "to": self.moved[1]}
        )
        return {
            "from": list(self.start),
            "to": list(self.end),
            "native": self.native,
            "moved": moved,
        }


class ScrollWire(TypedDict, total=False):
    """`scroll --by/--to` (scroller … at_top) or `scroll --until` (found … sweep_steps)."""

    found: Annotated[bool, "--until: the target is in view"]
    ref: Annotated[str | None, "--until: the target's ref, when it has one"]
    scroller: Annotated[str, "what scrolled: page or the element's label"]
    before: Annotated[float, "its scrollTop before"]
    after: Annotated[float, "its scrollTop after"]
    max: Annotated[float, "its largest scrollTop"]
    at_end: Annotated[bool, "it is at its end now"]
    at_top: Annotated[bool, "it is at its top now"]
    wheels: Annotated[int, "--until: wheel turns made"]
    sweep_steps: Annotated[int, "--until: steps of the page's sweep of the list"]


@dataclass(frozen=True)
class Found:
    """`scroll --until`: the target it wheeled into view (its ref, when it has one), with the
    wheel turns and the steps of the page's sweep of the list it took."""

    ref: str | None
    wheels: int
    sweep_steps: int


@dataclass(frozen=True)
class Scrolled:
    """A scroll: what scrolled (``page`` or the element's label), its scrollTop before and
    after, its largest scrollTop and whether it is at its end now; then, after `scroll --by/--to`,
    whether it is at its top (``at_top``), or after `scroll --until`, the target ``found``."""

    scroller: str
    before: float
    after: float
    max: float
    at_end: bool
    at_top: bool | None = None
    found: Found | None = None

    def to_wire(self) -> ScrollWire:
        out: ScrollWire = {} if self.found is None else {"found": True, "ref": self.found.ref}
        out["scroller"] = self.scroller
        out["before"] = self.before
        out["after"] = self.after
        out["max"] = self.max
        out["at_end"] = self.at_end
        if self.at_top is not None:
            out["at_top"] = self.at_top
        if self.found is not None:
            out["wheels"] = self.found.wheels
            out["sweep_steps"] = self.found.sweep_steps
        return out


class MouseWire(TypedDict, total=False):
    """`reins mouse …`: where the mouse is now."""

    mouse: Annotated[list[float], "x, y in viewport CSS pixels"]
    buttons: Annotated[int, "the buttons held: 1 left, 2 right, 4 middle"]
    wheel: Annotated[list[int], "the wheel turn made: dx, dy"]


@dataclass(frozen=True)
class MouseAt:
    """`reins mouse …`: where the mouse is (viewport CSS pixels), with the buttons it holds
    (a bit mask: 1 left, 2 right, 4 middle) or the wheel turn it made."""

    x: float
    y: float
    buttons: int | None = None
    wheel: tuple[int, int] | None = None

    def to_wire(self) -> MouseWire:
        out: MouseWire = {"mouse": [self.x, self.y]}
        if self.buttons is not None:
            out["buttons"] = self.buttons
        if self.wheel is not None:
            out["wheel"] = list(self.wheel)
        return out
