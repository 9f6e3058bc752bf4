"""Actionability: is the element ready for a person's input, and where to give it.

One page call (``probe``, pagescripts/src/actions.js) scrolls the element into view (the
same-origin frames holding it first) and checks that it is attached, visible with a non-empty box,
stable (the same box at two moments a frame apart: two consecutive animation frames, or the
latest observation of that very node and now, when it is in view where it was seen), enabled
(and editable, for typing), and receiving events: the point is the visible middle of the first of its per-line boxes (its content
quads, page-side ``getClientRects``) whose hit test lands on it or inside it, carried through the
offsets and CSS scale of same-origin frames; else `obscured` naming what covers it (never the page
root). Every failure a later look may find gone — disabled, read-only, moving, hidden, covered —
is retried until the budget ends, and the last one is the answer; a retry after `obscured` scrolls
the element to the next alignment (end, center, start: a fixed header covers one end of the
viewport). Out-of-process frames: the point is moved by the frame owner's content box.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from reins._errors import ReinsError, ResolutionError
from reins.act.handles import Probe, ProbeOptions
from reins.act.locate import Resolved
from reins.bridge.context import CommandContext
from reins.page.call import call_function, evaluate
from reins.page.frames import frame_sessions
from reins.page.poll import poll_until
from reins.page.visibility import require_rendering

__all__ = [
    "CLICK_PROBE",
    "FIELD_PROBE",
    "HOVER_PROBE",
    "Point",
    "actionable_point",
    "frame_owner",
    "frame_point",
    "probe_options",
]


# What a later probe may find different: anything else ends the wait at once.
_NOT_READY_YET = frozenset({"not_visible", "not_stable", "obscured", "disabled", "not_editable"})

# How many scroll alignments a retry after `obscured` cycles through (ALIGNMENTS in actions.js).
_ALIGNMENTS = 4


@dataclass
class Point:
    x: float
    y: float
    # The probe left its second look (stable) to the press's batch (act/guarded.py, steady).
    deferred: bool = False


async def frame_owner(ctx: CommandContext, el: Resolved) -> int:
    """The backend node id of the iframe holding an element of an out-of-process frame (looked
    up once per resolved element)."""
    if el.frame_owner is None:
        fs = await frame_sessions(ctx)
        frame_id = next((f for f, s in fs.sessions.items() if s == el.session_id), None)
        if frame_id is None:
            raise ReinsError("the element's frame is gone", code="frame_unreachable")
        owner = await ctx.cdp("DOM.getFrameOwner", {"frameId": frame_id})
        el.frame_owner = int(owner["backendNodeId"])
    return el.frame_owner


async def _in_main_viewport(ctx: CommandContext, el: Resolved, x: float, y: float) -> Point:
    """A point of an out-of-process frame's viewport (``x``, ``y``) where the main viewport
    shows it: through the frame owner's content quad as the browser lays it out, transforms
    included (scaled, turned), over the frame's own viewport size."""
    if el.session_id is None:
        return Point(x, y)
    model = await ctx.cdp("DOM.getBoxModel", {"backendNodeId": await frame_owner(ctx, el)})
    quad = [float(v) for v in ((model.get("model") or {}).get("content") or [0.0] * 8)]
    if len(quad) < 8:
        return Point(quad[0] + x, quad[1] + y) if len(quad) >= 2 else Point(x, y)
    size = await evaluate(ctx, "[innerWidth, innerHeight]", session_id=el.session_id)
    width, height = (float(size[0]), float(size[1])) if isinstance(size, list) else (0.0, 0.0)
    if width <= 0 or height <= 0:
        return Point(quad[0] + x, quad[1] + y)
    return Point(*frame_point(quad, width, height, x, y))


def frame_point(
    quad: list[float], width: float, height: float, x: float, y: float
) -> tuple[float, float]:
    """(x, y) of a frame's viewport (``width`` × ``height`` CSS px) mapped into the quad the
    frame's content box is drawn in: top-left, top-right, bottom-right, bottom-left (pure; an
    affine transform maps the box's edges onto the quad's)."""
    u, v = x / width, y / height
    return (
        quad[0] + u * (quad[2] - quad[0]) + v * (quad[6] - quad[0]),
        quad[1] + u * (quad[3] - quad[1]) + v * (quad[7] - quad[1]),
    )


def probe_options(
    align: int, seen: list[float] | None, *, defer: bool, stable: bool
) -> ProbeOptions:
    """What ``actionable_point`` asks the probe (pure): to scroll into view at the ``align``-th
    alignment, the box last seen, whether the second look of stable is left to the press
    (``defer``) and whether stable is asked at all. A lookup that probes for the action
    (handles.py find_one) asks the same, for the same probe."""
    return {"scroll": True, "align": align, "seen": seen, "defer": defer, "stable": stable}


# The first probe a CSS/XPath lookup takes for its action (act/handles.py find_one), asked as
# the action's own first probe asks it: a click of the top document leaves its second look of
# stable to the press; a hover takes both looks; fill and type ask none.
CLICK_PROBE = probe_options(0, None, defer=True, stable=True)
HOVER_PROBE = probe_options(0, None, defer=False, stable=True)
FIELD_PROBE = probe_options(0, None, defer=False, stable=False)


async def actionable_point(
    ctx: CommandContext,
    el: Resolved,
    *,
    need_enabled: bool = True,
    need_editable: bool = False,
    first_probe: Probe | None = None,
    defer_stable: bool = False,
    need_stable: bool = True,
) -> Point | None:
    """Scroll into view and run the checks until they pass or the budget ends. ``first_probe``:
    the first probe's answer, taken already (with a ref's lookup: ``Resolved.probed``).
    ``defer_stable``: a probe that would wait a frame for its second look leaves it to the
    press's batch instead (the Point says ``deferred``; the caller's press must check it:
    act/guarded.py, ``steady``). ``need_stable`` False: an action that presses no point (fill,
    type, select: Playwright's rules for them check no stability either) waits no frame for it.

    Returns None when the element has no usable point (no box); raises the last failure (obscured,
    not_visible, not_stable, disabled, not_editable) when the budget runs out.
    """
    require_rendering(ctx)
    covered = 0  # obscured answers so far: which alignment the next scroll uses
    taken = first_probe

    async def ready() -> Point | None:
        nonlocal covered, taken
        if el.session_id is not None:  # an out-of-process frame: bring the frame into view first
            try:
                await _scroll_frame_owner(ctx, el)
            except ReinsError:
                pass
        probe: Any
        asked = probe_options(
            covered % _ALIGNMENTS,
            el.seen_box,
            defer=defer_stable and el.session_id is None,
            stable=need_stable,
        )
        if taken is not None and el.probed_with not in (None, asked):
            taken = None  # the lookup's probe was asked otherwise than this action asks
        if taken is not None and covered == 0:  # taken with the lookup (refs.py, find_one)
            probe, taken = taken, None
        else:
            probe = await call_function(
                ctx,
                el.object_id,
                "probe",
                asked,
                session_id=el.session_id,
                await_promise=True,
                what="actionability",
            )
        if not isinstance(probe, dict) or probe.get("state") == "detached":
            raise ResolutionError("the element left the page", code="ref_stale", transient=True)
        if need_enabled and probe.get("disabled"):
            raise ResolutionError(
                "the element is disabled (it stayed so while reins waited)", code="disabled"
            )
        if need_editable and probe.get("readonly"):
            raise ResolutionError(
                "the field is read-only",
                code="not_editable",
                hint="do what makes it editable first, or fill another field",
            )
        if not probe.get("visible"):
            if probe.get("zeroBox"):
                # Displayed but without a box: no point to press. The caller may use el.click().
                return None
            raise ResolutionError(
                "the element is not visible (no box, hidden or display:none)",
                code="not_visible",
                transient=True,
            )
        if need_stable and not probe.get("stable"):
            raise ResolutionError("the element is moving", code="not_stable", transient=True)
        if probe.get("offscreen"):
            raise ResolutionError(
                "the element could not be scrolled into view", code="not_visible", transient=True
            )
        if probe.get("noHit"):
            covered += 1
            raise ResolutionError(
                "the element does not receive pointer events at its point (nothing covers it:"
                " pointer-events: none on it or an ancestor, or a container clips it)",
                code="obscured",
                transient=True,
                hint="use a target that takes the click (its parent or a child), or `reins state`"
                " to see what the page offers",
            )
        if probe.get("cover"):
            covered += 1
            raise ResolutionError(
                f"the element is covered by {probe['cover']}",
                code="obscured",
                transient=True,
                details={"covered_by": probe["cover"]},
            )
        point = await _in_main_viewport(ctx, el, float(probe["x"]), float(probe["y"]))
        return replace(point, deferred=probe.get("deferred") is True)

    # The budget running out mid-probe answers why we were waiting, not that time ran out.
    return await poll_until(
        ctx.deadline,
        ready,
        interval=0.1,
        reserve_s=0.15,
        retry=lambda exc: exc.code in _NOT_READY_YET,
        explain_timeout=True,
    )


async def _scroll_frame_owner(ctx: CommandContext, el: Resolved) -> None:
    await ctx.cdp("DOM.scrollIntoViewIfNeeded", {"backendNodeId": await frame_owner(ctx, el)})
