"""Navigation that returns once the page has loaded and its DOM has settled.

A document is told apart by ``performance.timeOrigin``, unique per document and readable without
writing anything into the page. After starting a navigation the host waits until the tab shows a
new document (or, for a same-document navigation, the expected URL), then runs a settle script: it
waits for the load event and then a quiet window with no DOM mutations, bounded by the budget.
"""

from __future__ import annotations

import asyncio
from typing import Any

from reins._errors import BrowserError, DeadlineExceeded, ReinsError
from reins.bridge.context import CommandContext
from reins.bridge.deadline import HEADROOM_MS

__all__ = ["document_info", "settle", "wait_for_new_document"]

QUIET_MS = 200  # a DOM quiet this long counts as settled
SETTLE_CAP_MS = 5000  # a page that never stops mutating is taken as it is after this

_INFO = "({origin: performance.timeOrigin, url: location.href, title: document.title, readyState: document.readyState})"

_SETTLE = """new Promise((resolve) => {
  const quiet = %d, cap = %d, start = performance.now();
  let timer = null, observer = null;
  const done = () => {
    if (observer) observer.disconnect();
    clearTimeout(timer);
    resolve({origin: performance.timeOrigin, url: location.href, title: document.title,
             readyState: document.readyState, settledMs: Math.round(performance.now() - start)});
  };
  const arm = () => { clearTimeout(timer); timer = setTimeout(done, quiet); };
  const begin = () => {
    observer = new MutationObserver(() => { if (performance.now() - start > cap) done(); else arm(); });
    observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    arm();
  };
  setTimeout(done, cap);
  if (document.readyState === "complete") begin(); else addEventListener("load", begin, {once: true});
})"""


async def _evaluate(ctx: CommandContext, expression: str, *, await_promise: bool) -> dict[str, Any]:
    params: dict[str, Any] = {
        "expression": expression,
        "returnByValue": True,
        "awaitPromise": await_promise,
        "timeout": max(1, ctx.deadline.remaining_ms(headroom_ms=HEADROOM_MS)),
    }
    result = await ctx.cdp("Runtime.evaluate", params)
    if "exceptionDetails" in result:
        raise BrowserError("page script failed while waiting for the page", code="cdp_error",
                           transient=True)
    value = result.get("result", {}).get("value")
    return value if isinstance(value, dict) else {}


async def document_info(ctx: CommandContext) -> dict[str, Any]:
    return await _evaluate(ctx, _INFO, await_promise=False)


async def settle(ctx: CommandContext) -> dict[str, Any]:
    cap = min(SETTLE_CAP_MS, max(QUIET_MS, ctx.deadline.remaining_ms(headroom_ms=2 * HEADROOM_MS)))
    return await _evaluate(ctx, _SETTLE % (QUIET_MS, cap), await_promise=True)


async def wait_for_new_document(
    ctx: CommandContext, old_origin: float | None, *, expect_url: str | None = None
) -> dict[str, Any]:
    """Poll until the tab shows a document other than ``old_origin`` (or ``expect_url``), settled."""
    last_error: ReinsError | None = None
    while True:
        if ctx.deadline.remaining_ms() <= HEADROOM_MS:
            detail = f" (last: {last_error.message})" if last_error else ""
            raise DeadlineExceeded(f"the page did not finish loading in time{detail}")
        try:
            info = await document_info(ctx)
            fresh = info.get("origin") != old_origin
            if fresh or (expect_url is not None and info.get("url") == expect_url):
                return await settle(ctx)
        except ReinsError as exc:
            if not exc.transient and exc.code not in ("cdp_error",):
                raise
            last_error = exc  # the old context went away mid-call: the new one is coming
        await asyncio.sleep(0.03)
