"""What crosses the host's process boundaries, validated once at the edge.

Control socket (CLI and other local clients -> host): one JSON object per line,
``{"id", "cmd", "args", "tab", "timeout_ms"}``; the answer is one line,
``{"request_id", "ok": true, ...}`` or ``{"request_id", "ok": false, "error": {"code", "message",
"transient"}}`` (``request_id`` echoes the request's ``id``; result fields may use ``id`` freely).

Native messaging (extension -> host): answers ``{"id", "ok", "result" | "error"}`` and unasked
messages discriminated by ``type``: hello, event, detached, tab_removed, paused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reins._errors import UsageError
from reins.bridge.jsonwire import load

__all__ = [
    "EXTENSION_FEATURES",
    "HANDOFF",
    "HIT_GUARD",
    "MAX_REQUEST_BYTES",
    "STOP_IF_THROWN",
    "ExtensionAnswer",
    "ExtensionNotice",
    "Request",
    "parse_extension_message",
    "parse_request",
]

# A request line larger than this is answered `message_too_large` and skipped.
MAX_REQUEST_BYTES = 1024 * 1024


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | int
    cmd: str = Field(min_length=1, max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)
    tab: int | None = None
    timeout_ms: int | None = Field(default=None, ge=0, le=3_600_000)
    profile: str | None = None


def parse_request(line: bytes) -> Request:
    """Parse one request line. A bad one raises a typed error carrying whatever id it had."""
    try:
        raw = load(line)
    except UsageError as exc:
        raise UsageError(
            f"request is {exc.args[0]}"
            if exc.args[0].startswith("not ")
            else f"request: {exc.args[0]}"
        ) from None
    if not isinstance(raw, dict):
        raise UsageError("request must be a JSON object")
    try:
        return Request.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "request"
        raise UsageError(f"{where}: {first.get('msg')}", details=_id_of(raw)) from exc


def _id_of(raw: dict[str, Any]) -> dict[str, Any]:
    rid = raw.get("id")
    return {"request_id": rid} if isinstance(rid, str | int) else {}


def validate_args(model: type[BaseModel], args: dict[str, Any]) -> BaseModel:
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "args"
        raise UsageError(f"argument {where}: {first.get('msg')}") from exc


# ---- native messages from the extension ------------------------------------------------------


class ErrorPayload(BaseModel):
    code: str = "cdp_error"
    message: str = ""
    # For one of Chrome's errors (extension/errors.js): may trying again work, and what Chrome
    # said, as a word.
    transient: bool | None = None
    chrome: str | None = None


class ExtensionAnswer(BaseModel):
    id: int
    ok: bool
    result: Any = None
    error: ErrorPayload | None = None


# A random id the extension keeps: per browser profile (storage.local) or per browser session
# (storage.session). Older extensions send neither.
_TOKEN = r"^[A-Za-z0-9-]{1,64}$"


# What this host asks of the extension beyond the first version's protocol (Hello.features): an
# extension without one of these is older than the host (`reins doctor` says so).
# "stopIfThrown": a sequential batch ends where the page threw (an input waits on a check).
STOP_IF_THROWN = "stopIfThrown"
# "hitGuard": a sequential batch fills parameters from earlier answers (``fill``) and holds a
# command back unless Chrome's hit test reached the target (``onlyIf``): extension/hitguard.js.
HIT_GUARD = "hitGuard"
# "handoff": a step handed to the person, with the badge and the popup (extension/handoff.js).
HANDOFF = "handoff"
EXTENSION_FEATURES = (STOP_IF_THROWN, HIT_GUARD, HANDOFF)


class Hello(BaseModel):
    type: Literal["hello"]
    version: str = "?"
    extensionId: str = ""
    paused: bool = False
    # Which browser profile this is, stable across restarts: the host names its socket from it.
    instance: str | None = Field(default=None, pattern=_TOKEN)
    # Which run of the browser: tab ids mean something only within one.
    session: str | None = Field(default=None, pattern=_TOKEN)
    # What this extension does that older ones did not (FEATURES in background.js), such as
    # "stopIfThrown": a sequential batch that ends where the page threw.
    features: list[str] = Field(default_factory=list, max_length=32)


class CdpEvent(BaseModel):
    type: Literal["event"]
    tabId: int
    sessionId: str | None = None
    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class Detached(BaseModel):
    type: Literal["detached"]
    tabId: int
    reason: str = ""
    code: str = "target_closed"


class TabRemoved(BaseModel):
    type: Literal["tab_removed"]
    tabId: int


class Paused(BaseModel):
    type: Literal["paused"]
    paused: bool


class _NoticeEnvelope(BaseModel):
    notice: Annotated[
        Hello | CdpEvent | Detached | TabRemoved | Paused, Field(discriminator="type")
    ]


ExtensionNotice = Hello | CdpEvent | Detached | TabRemoved | Paused


def parse_extension_message(raw: Any) -> ExtensionAnswer | ExtensionNotice:
    if not isinstance(raw, dict):
        raise UsageError("extension message is not an object")
    try:
        if "id" in raw and "type" not in raw:
            return ExtensionAnswer.model_validate(raw)
        return _NoticeEnvelope.model_validate({"notice": raw}).notice
    except ValidationError as exc:
        raise UsageError(f"unexpected extension message: {exc.errors()[0].get('msg')}") from exc
