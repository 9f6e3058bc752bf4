"""A trace's pictures: the screenshot with the command's target marked, scaled down, as JPEG.

``trace_picture`` is pure: PNG bytes in, JPEG bytes out; ``action_target`` and ``target_box`` find
what to mark. The mark is drawn by ``observe/annotate.py`` on the full-size
image (so it lands where the element was), then the picture is scaled to at most ``MAX_WIDTH``
pixels wide: a run of a hundred steps stays a few megabytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from PIL import Image

from reins._errors import UsageError
from reins.act.locate import Resolved, resolve_for_action, resolve_target
from reins.bridge.command import Command
from reins.bridge.context import CommandContext
from reins.bridge.protocol import Request
from reins.observe.annotate import Mark, annotate
from reins.page.call import call_function

__all__ = ["MAX_WIDTH", "QUALITY", "action_target", "target_box", "trace_picture"]

MAX_WIDTH = 960
QUALITY = 72


def trace_picture(
    png: bytes,
    *,
    box: Sequence[float] | None = None,
    label: str = "",
    scale: float = 1.0,
    max_width: int = MAX_WIDTH,
) -> bytes:
    """The screenshot as a scaled JPEG, with ``box`` (CSS pixels, ``scale`` = devicePixelRatio)
    outlined and labelled when given."""
    if box is not None and len(box) == 4 and box[2] >= 0 and box[3] >= 0:
        png = annotate(png, [Mark(label[:40] or "target", *map(float, box))], scale=scale).png
    with Image.open(io.BytesIO(png)) as source:
        image = source.convert("RGB")
    if image.width > max_width:
        height = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=QUALITY, optimize=True)
    return out.getvalue()


async def action_target(ctx: CommandContext, cmd: Command[Any], request: Request) -> Resolved:
    """The element an action names (TARGET or smart-mode options), found without waiting."""
    args = cmd.args.model_validate(request.args)
    smart = args.smart() if hasattr(args, "smart") else None
    target = getattr(args, "target", None)
    frame = getattr(args, "frame", None)
    if smart:
        return await resolve_for_action(ctx, None, frame, smart)
    if not isinstance(target, str):
        raise UsageError("no target")
    return await resolve_target(ctx, target, frame=frame, settle=False)


async def target_box(ctx: CommandContext, el: Resolved) -> tuple[list[float] | None, float]:
    """The element's box in CSS pixels and the device pixel ratio, to mark it on a picture."""
    if el.session_id is not None:  # an out-of-process frame: its offset is not worth a lookup
        return None, 1.0
    found = await call_function(
        ctx, el.object_id, "traceBox", session_id=el.session_id, what="trace box"
    )
    if not isinstance(found, dict) or not isinstance(found.get("box"), list):
        return None, 1.0
    return [float(v) for v in found["box"]], float(found.get("dpr") or 1.0)
