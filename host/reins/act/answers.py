"""What an action answers, as types: the effect it had — what changed between the reads before
and after it, or what the tab did instead — its warnings, its own fields and the element it was
about, each written by one ``to_wire()`` with the keys the CLI, MCP and check files read (pure).

When the read after an action does not answer, what the tab did instead is one of a tagged
union (``Instead``): it navigated (to a URL, when known), closed, was let go of by Chrome while
still open, or it is not known why. The effect is another (``Effect``): the changes seen, a
navigation, a closed or let-go tab, a JavaScript dialog the action opened, or unknown.

An action's own field may be a type too (``Dragged``); the answers that have no effect read
around them are their own types (``Scrolled``, ``ScrolledUntil``, ``MouseAt``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from reins.act.handles import Recovery, StateRead
from reins.page.dialogs import DialogWire
from reins.page.downloads import DownloadWire

__all__ = [
    "ActionAnswer",
    "Change",
    "Changed",
    "Detached",
    "DialogShown",
    "Dragged",
    "Effect",
    "Instead",
    "MouseAt",
    "Navigated",
    "Place",
    "Scrolled",
    "ScrolledUntil",
    "StateValue",
    "TabClosed",
    "Unknown",
    "Wire",
    "changes_between",
]

# What ``to_wire()`` writes: the answer as JSON for the CLI, MCP and check files (the boundary out
# of the host; its keys are pinned by tests/unit/test_wire.py).
Wire = dict[str, Any]
# A state an action may change, as the page read it: a field's value, checked (true, false or
# "mixed"), the selected options' labels, expanded, the focused element's label, the URL.
StateValue = str | bool | list[str] | None


@dataclass(frozen=True)
class Change:
    """One state the action changed (``value``, ``checked``, ``focus``, ``url`` …)."""

    before: StateValue
    after: StateValue

    def to_wire(self) -> Wire:
        return {"from": self.before, "to": self.after}


def changes_between(before: StateRead, after: StateRead) -> tuple[tuple[str, Change], ...]:
    """The states an action may change that differ between two reads, in the wire's order."""
    pairs: tuple[tuple[str, StateValue, StateValue], ...] = (
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

    def to_wire(self) -> Wire:
        out: Wire = {"navigated": True}
        if self.url is not None:
            out["url"] = Change(self.came_from, self.url).to_wire()
        return out


@dataclass(frozen=True)
class TabClosed:
    """The tab went away during the action."""

    kind: Literal["tab_closed"] = "tab_closed"

    def to_wire(self) -> Wire:
        return {"tab_closed": True}


@dataclass(frozen=True)
class Detached:
    """Chrome let go of the tab during the action, which is still open (the next command
    attaches again): a link that handed its URL to another application."""

    kind: Literal["detached"] = "detached"

    def to_wire(self) -> Wire:
        return {"detached": True, "tab_open": True}


@dataclass(frozen=True)
class Unknown:
    """What the action did is not known (``reason``: why; None when nothing was read before)."""

    reason: str | None = None
    kind: Literal["unknown"] = "unknown"

    def to_wire(self) -> Wire:
        return (
            {"unknown": True} if self.reason is None else {"unknown": True, "reason": self.reason}
        )


# What the tab did when the read after the action did not answer.
Instead = Navigated | TabClosed | Detached | Unknown


@dataclass(frozen=True)
class Changed:
    """What the two state reads around the action differ in, in the order the wire lists them."""

    changes: tuple[tuple[str, Change], ...] = ()
    target_detached: bool = False
    shown: tuple[str, ...] = ()
    navigation_started: str | None = None
    dom_changed_in_target: int = 0
    dom_changed_elsewhere: int = 0
    kind: Literal["changed"] = "changed"

    @property
    def nothing(self) -> bool:
        return not self.to_wire()

    def to_wire(self) -> Wire:
        out: Wire = {key: change.to_wire() for key, change in self.changes}
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

    def to_wire(self) -> Wire:
        return {"dialog": self.dialog}


Effect = Changed | Navigated | TabClosed | Detached | Unknown | DialogShown


@dataclass(frozen=True)
class ActionAnswer:
    """An action's answer: its effect (with the downloads it started), its warnings, its own
    fields in the order it gives them (``method``, ``point``, ``value`` …), and which element it
    was about (the ref, how a stale ref was recovered, the frame --frame named)."""

    effect: Effect
    warnings: tuple[str, ...] = ()
    downloads: tuple[DownloadWire, ...] = ()
    fields: tuple[tuple[str, Any], ...] = ()
    recovered: Recovery | None = None
    ref: str | None = None
    frame: dict[str, str] | None = None

    def has(self, name: str) -> bool:
        """Does the action give field ``name``?"""
        return any(key == name for key, _ in self.fields)

    def field(self, name: str) -> Any:
        """The action's field ``name`` (None when it gives none)."""
        return next((value for key, value in self.fields if key == name), None)

    def with_field(self, name: str, value: Any) -> ActionAnswer:
        """The same answer with field ``name`` set to ``value`` (in its place if it was given,
        else last)."""
        if self.has(name):
            fields = tuple((key, value if key == name else old) for key, old in self.fields)
        else:
            fields = (*self.fields, (name, value))
        return replace(self, fields=fields)

    def to_wire(self) -> Wire:
        effect = self.effect.to_wire()
        if self.downloads:
            effect["downloads"] = list(self.downloads)
        out: Wire = {"effect": effect, "warnings": list(self.warnings)}
        out.update((k, v.to_wire() if isinstance(v, Dragged) else v) for k, v in self.fields)
        if self.recovered:
            out["recovered"] = self.recovered
        if self.ref:
            out["ref"] = self.ref
        if self.frame:
            out["frame"] = self.frame  # --frame: where the input went, by the browser's word
        return out


class Place(TypedDict):
    """Where an element sits, as the page reads it: its container's label and its index among
    the container's children of its kind (pagescripts/src/drag.js)."""

    parent: str | None
    index: int


@dataclass(frozen=True)
class Dragged:
    """Where a drag pressed (``start``) and released (``end``), whether it went on as the
    browser's own drag and drop (``native``), and where the source sat before and after it
    (``moved``: None when its place, as the page reads it, did not change)."""

    start: tuple[float, float]
    end: tuple[int, int]
    native: bool
    moved: tuple[Place, Place | None] | None

    def to_wire(self) -> Wire:
        moved = None if self.moved is None else {"from": self.moved[0], "to": self.moved[1]}
        return {
            "from": list(self.start),
            "to": list(self.end),
            "native": self.native,
            "moved": moved,
        }


@dataclass(frozen=True)
class Scrolled:
    """`scroll --by/--to`: what scrolled (``page`` or the element's label), its scrollTop before
    and after, its largest scrollTop, and whether it is at its end or its top now."""

    scroller: str
    before: float
    after: float
    max: float
    at_end: bool
    at_top: bool

    def to_wire(self) -> Wire:
        return {
            "scroller": self.scroller,
            "before": self.before,
            "after": self.after,
            "max": self.max,
            "at_end": self.at_end,
            "at_top": self.at_top,
        }


@dataclass(frozen=True)
class ScrolledUntil:
    """`scroll --until`: the target found in view (its ref, when it has one), the scroller
    wheeled over, its scrollTop before and after, and the wheel turns and sweep steps it took."""

    ref: str | None
    scroller: str
    before: float
    after: float
    max: float
    at_end: bool
    wheels: int
    sweep_steps: int

    def to_wire(self) -> Wire:
        return {
            "found": True,
            "ref": self.ref,
            "scroller": self.scroller,
            "before": self.before,
            "after": self.after,
            "max": self.max,
            "at_end": self.at_end,
            "wheels": self.wheels,
            "sweep_steps": self.sweep_steps,
        }


@dataclass(frozen=True)
class MouseAt:
    """`reins mouse …`: where the mouse is (viewport CSS pixels), with the buttons it holds
    (a bit mask: 1 left, 2 right, 4 middle) or the wheel turn it made."""

    x: float
    y: float
    buttons: int | None = None
    wheel: tuple[int, int] | None = None

    def to_wire(self) -> Wire:
        out: Wire = {"mouse": [self.x, self.y]}
        if self.buttons is not None:
            out["buttons"] = self.buttons
        if self.wheel is not None:
            out["wheel"] = list(self.wheel)
        return out
