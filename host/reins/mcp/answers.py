"""What a tool call sends to the host and what it answers the agent: frugal, and never over the cap.

Pure: plain requests and host answers in, MCP content blocks out. Tokens are counted as reins counts
them everywhere, ``ceil(chars / 4)``; an image counts by its base64 text, as hosts that cap tool
answers (Claude Code: 25,000 tokens) have counted it.

- An action answers its effect (what changed), as compact JSON, never the page.
- ``state`` gets a token budget when the agent names none (``Limits.state_tokens``), never more than
  the answer cap allows; its text says what it left out and how to get it.
- ``screenshot`` answers an image, re-encoded or scaled to fit the cap (``images.fit_image``); an
  annotated one is never scaled below legible labels: it is cut, and says so, instead.
- Every answer is cut to ``Limits.answer_tokens`` and says so, with the way to ask for less.
- A typed error is a tool error (``is_error``) carrying its code, message (with the next step) and
  details, in the tool's words (``ToolWords``).
"""

from __future__ import annotations

import base64
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from mcp_types import CallToolResult, ImageContent, TextContent

from reins._errors import UsageError
from reins._pagetext import json_text, quote, visible, word
from reins._pagetext import ref as ref_field
from reins.commands import answers
from reins.mcp.images import FittedImage, fit_image

__all__ = [
    "DEFAULT_ANSWER_TOKENS",
    "DEFAULT_STATE_TOKENS",
    "Limits",
    "answer_tokens",
    "error_result",
    "prepare_args",
    "tool_result",
]

# Hosts fail a tool answer above ~25,000 tokens (Claude Code's default MAX_MCP_OUTPUT_TOKENS), and
# count more than reins's chars/4 on some text: the default keeps a fifth in hand.
DEFAULT_ANSWER_TOKENS = 20_000
# What one `state` costs when the agent names no budget: the viewport of a busy page, not a whole
# catalogue page; the text says how to get the rest.
DEFAULT_STATE_TOKENS = 8_000
# Room kept for what wraps the state text (its page line, the left-out line) and a screenshot.
_WRAPPER_TOKENS = 100
_MIN_ANSWER_TOKENS = 1_000

# Answer fields an agent has no use for (where the mouse went, the host's own timings), and values
# that are the norm and say nothing (real mouse events; any other method comes with a warning).
_NOISE = frozenset({"point", "elapsed_ms"})
_NORM = {"method": "cdp"}


@dataclass(frozen=True)
class Limits:
    """The server's budgets, in tokens (chars/4)."""

    answer_tokens: int = DEFAULT_ANSWER_TOKENS
    state_tokens: int = DEFAULT_STATE_TOKENS

    def __post_init__(self) -> None:
        if self.answer_tokens < _MIN_ANSWER_TOKENS:
            raise UsageError(
                f"the answer cap is at least {_MIN_ANSWER_TOKENS:,} tokens, not "
                f"{self.answer_tokens:,}",
                hint="",
            )
        if self.state_tokens < 1:
            raise UsageError("the state budget is at least 1 token", hint="")

    @property
    def answer_chars(self) -> int:
        return self.answer_tokens * 4

    @property
    def state_cap(self) -> int:
        """The largest state budget one answer can hold."""
        return self.answer_tokens - _WRAPPER_TOKENS


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def answer_tokens(result: CallToolResult) -> int:
    """What a tool answer costs, as the cap counts it (text, and images by their base64)."""
    return sum(
        tokens(block.text)
        if isinstance(block, TextContent)
        else tokens(block.data)
        if isinstance(block, ImageContent)
        else 0
        for block in result.content
    )


def prepare_args(
    tool: str, args: dict[str, Any], limits: Limits, *, cwd: str | None = None
) -> dict[str, Any]:
    """The arguments to send for a tool call (already valid for the tool's schema).

    ``upload`` gets the server's directory ``cwd`` (files may come from it and below) and its
    relative paths made absolute against it, as the CLI does with its own; never the filesystem
    root, which would allow every file that is not hidden (an MCP host may start servers in ``/``):
    then only ``reins config upload-dirs`` count."""
    if tool == "upload":
        root = cwd if cwd and os.path.isabs(cwd) and os.path.dirname(cwd) != cwd else None
        files = [os.path.join(root, f) if root else f for f in args.get("files", [])]
        return {**args, "files": [os.path.normpath(f) for f in files], "cwd": root}
    if tool == "state" and not args.get("compare_sources"):
        asked = args.get("max_tokens")
        budget = limits.state_tokens if asked is None else asked
        # 0 asks for everything: as much as one answer holds, viewport first.
        budget = limits.state_cap if budget == 0 else min(budget, limits.state_cap)
        return {**args, "max_tokens": budget, "text_only": True}
    return args


def tool_result(tool: str, answer: dict[str, Any], limits: Limits) -> CallToolResult:
    """A successful host answer as the agent gets it."""
    body = {k: v for k, v in answer.items() if k not in ("ok", "request_id")}
    # The host's answer to a tool is its command's answer type (the table holds the host to it).
    if tool == "screenshot":
        return _screenshot(cast(answers.Screenshot, body), limits)
    if tool == "state" and "text" in body:
        text = _state_text(cast(answers.State, body), limits)
    elif tool == "find" and isinstance(body.get("matches"), list):
        text = _found_text(cast(answers.Found, body))
    else:
        text = _compact(body)
    return CallToolResult(content=[TextContent(text=_fit(text, limits, _ASK_LESS.get(tool)))])


def error_result(
    error: dict[str, Any], limits: Limits, words: Callable[[str], str] = str
) -> CallToolResult:
    """A typed error as a tool error: code, message (with the next step), details."""
    wire = {
        "code": str(error.get("code") or "internal"),
        "message": words(str(error.get("message") or "")),
        "transient": bool(error.get("transient", False)),
        **{k: v for k, v in error.items() if k not in ("code", "message", "transient")},
    }
    text = f"error {visible(wire['code'])}: {visible(wire['message'])}"
    details = {k: v for k, v in wire.items() if k not in ("code", "message")}
    text += "\n" + _compact(details)
    return CallToolResult(content=[TextContent(text=_fit(text, limits, None))], is_error=True)


# ---- text -----------------------------------------------------------------------------------


def _compact(body: dict[str, Any]) -> str:
    """One line of JSON without the noise and the empty lists."""
    kept = {
        k: v
        for k, v in body.items()
        if k not in _NOISE and v is not None and v != [] and _NORM.get(k, ...) != v
    }
    return json_text(kept, separators=(",", ":"))


# What to ask instead when an answer is cut, per tool.
_ASK_LESS = {
    "state": "pass a max_tokens budget, viewport_only, or use find",
    "find": "narrow it: text, type, tag, index or viewport_only",
    "eval": "return less (a slice, a count, the fields you need)",
    "tabs": "close tabs you no longer need",
}


def _fit(text: str, limits: Limits, ask_less: str | None) -> str:
    cap = limits.answer_chars
    if len(text) <= cap:
        return text
    note = (
        f"\n… cut: this answer was ~{tokens(text):,} tokens; reins mcp answers at most "
        f"{limits.answer_tokens:,} (--max-tokens-per-answer); " + (ask_less or "ask for less") + "."
    )
    room = cap - len(note)
    cut = text.rfind("\n", 0, room)
    if cut < room * 0.8:
        cut = room
    return text[:cut] + note


def _state_text(body: answers.State, limits: Limits) -> str:
    lines = str(body["text"]).split("\n")
    left_out = int(body.get("left_out") or 0)
    if left_out and lines and lines[-1].startswith("…"):
        # The renderer's last line speaks the CLI's words; say it with this tool's arguments.
        lines[-1] = (
            f"… {left_out:,} more element{'s' if left_out != 1 else ''} left out "
            f"(in view first, then document order); call state with a larger max_tokens "
            f"(up to {limits.state_cap:,}), viewport_only=true, or find text=…; "
            "or scroll and call state again"
        )
    head = f"page: {quote(str(body.get('title') or ''))} {quote(str(body.get('url') or ''))}"
    return "\n".join([head, *lines])


def _found_text(body: answers.Found) -> str:
    """One line a match, as `state` writes elements: @ref type "text" [flags]."""
    matches = body["matches"]
    lines = [
        f"{len(matches)} match{'es' if len(matches) != 1 else ''}"
        + (f" (by {body['stage']})" if body.get("stage") else "")
    ]
    for m in matches:
        seen = m.get("visibility") or {}
        flags = [
            flag
            for flag, on in (
                ("offscreen", seen.get("inViewport") is False),
                ("hidden", seen.get("visible") is False),
                ("obscured", seen.get("obscured") is True),
            )
            if on
        ]
        frame = m.get("frame")
        ref = m.get("ref")
        parts = [
            ref_field(str(ref)) if ref else quote(str(m.get("selector") or "")),
            word(str(m.get("role") or m.get("type"))),
            quote(str(m.get("text") or ""), 80),
        ]
        if frame and frame != "f0":
            parts.append(f"frame={word(str(frame))}")
        parts += [f"[{flag}]" for flag in flags]
        lines.append(" ".join(parts))
    return "\n".join(lines)


# ---- images ---------------------------------------------------------------------------------


def _screenshot(body: answers.Screenshot, limits: Limits) -> CallToolResult:
    png = base64.b64decode(body.get("png_base64") or "")
    labels = body.get("labels")
    label_px = _label_height(labels) if labels else None
    room = limits.answer_chars - _WRAPPER_TOKENS * 4
    fitted = fit_image(png, max_bytes=room * 3 // 4, label_px=label_px)
    data = base64.b64encode(fitted.data).decode()
    text = _image_line(fitted, len(labels) if labels is not None else None)
    return CallToolResult(
        content=[ImageContent(data=data, mime_type=fitted.mime), TextContent(text=text)]
    )


def _label_height(labels: list[dict[str, Any]]) -> int | None:
    heights = [int(b[3]) - int(b[1]) for lab in labels if len(b := lab.get("label_box") or []) == 4]
    return min(heights) if heights else None


def _image_line(fitted: FittedImage, labels: int | None) -> str:
    parts = [f"{fitted.width}x{fitted.height} {fitted.encoding}"]
    if fitted.scale < 1:
        parts.append(f"scaled to {fitted.scale:.0%} to fit the answer cap")
    if labels is not None:
        parts.append(f"{labels} ref labels")
    line = "screenshot " + ", ".join(parts)
    if fitted.cut_at is not None:
        whole = round(fitted.source_height * fitted.scale)
        line += (
            f"; only the top {fitted.cut_at:,} of {whole:,} rows (smaller would not read): "
            "for the rest, scroll and take the viewport (full_page=false)"
        )
    return line
