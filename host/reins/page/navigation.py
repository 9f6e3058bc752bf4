"""Navigation that returns once the page has loaded and its DOM has settled.

A document is told apart by ``performance.timeOrigin``, unique per document and readable without
writing anything into the page. After starting a navigation the host waits until the tab shows a
new document (or, for a same-document navigation, the expected URL), then runs the page's
``settle``: it waits for the load event and then a quiet window with no DOM mutations, bounded by
the budget.
"""

from __future__ import annotations

from typing import Any

from reins._errors import BrowserError, DeadlineExceeded, EvaluateError, ReinsError
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS
from reins.page.call import evaluate, page_call
from reins.page.poll import NotYet, poll_until

__all__ = ["document_info", "settle", "wait_for_new_document"]

QUIET_MS = 200  # a DOM quiet this long counts as settled
SETTLE_CAP_MS = 5000  # a page that never stops mutating is taken as it is after this


async def _document_call(
    ctx: CommandContext, expression: str, *, await_promise: bool, what: str
) -> dict[str, Any]:
    try:
        value = await evaluate(ctx, expression, await_promise=await_promise, what=what)
    except EvaluateError as exc:
        # While a navigation is under way, a script that throws is the old document going away
        # under it: transient, so the waiter tries again in the new document.
        raise BrowserError(
            "page script failed while waiting for the page", code="cdp_error", transient=True
        ) from exc
    return value if isinstance(value, dict) else {}


async def document_info(ctx: CommandContext) -> dict[str, Any]:
    return await _document_call(
        ctx, page_call("documentInfo"), await_promise=False, what="document info"
    )


async def settle(ctx: CommandContext) -> dict[str, Any]:
    cap = min(SETTLE_CAP_MS, max(QUIET_MS, ctx.deadline.remaining_ms(headroom_ms=2 * HEADROOM_MS)))
    return await _document_call(
        ctx, page_call("settle", QUIET_MS, cap), await_promise=True, what="settle"
    )


async def wait_for_new_document(
    ctx: CommandContext, old_origin: float | None, *, expect_url: str | None = None
) -> dict[str, Any]:
    """Poll until the tab shows a document other than ``old_origin`` (or ``expect_url``), settled."""
    last_error: ReinsError | None = None

    async def settled_new_document() -> dict[str, Any]:
        nonlocal last_error
        try:
            info = await document_info(ctx)
            if info.get("origin") != old_origin or (
                expect_url is not None and info.get("url") == expect_url
            ):
                return await settle(ctx)
        except ReinsError as exc:
            # The old context went away mid-call (destroyed, or its script failed): the new one is
            # coming. Only a failure that is neither transient nor a CDP error ends the wait.
            if not exc.transient and exc.code != "cdp_error":
                raise
            last_error = exc
        raise NotYet("the old document is still shown")

    def gave_up(_: ReinsError) -> ReinsError:
        detail = f" (last: {last_error.message})" if last_error else ""
        return DeadlineExceeded(f"the page did not finish loading in time{detail}")

    return await poll_until(
        ctx.deadline,
        settled_new_document,
        interval=0.03,
        reserve_s=HEADROOM_MS / 1000,
        gave_up=gave_up,
    )
