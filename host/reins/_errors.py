"""The reins error hierarchy: one root, a stable snake_case ``code`` on every error.

    ReinsError                      code, message (says what to do next), transient
    ├── UsageError                  bad_request, unknown_command, invalid_selector, message_too_large,
    │                               unsafe_home, no_browser, platform_unsupported, snap_confined
    │                               (install)
    ├── ConnectionFailure           not_connected, no_host, host_unresponsive, ambiguous_profile
    │                               (CLI exit code 3)
    ├── BrowserError                cdp_blocked, cdp_error, paused, target_closed, detached_by_user,
    │                               page_refused, tab_unresponsive, tab_crashed, frame_unreachable,
    │                               navigation_failed, dialog_open, tab_hidden, browser_unresponsive,
    │                               page_paused, page_answer_invalid,
    │                               tab_closed, no_tab, tab_not_reins   (which tab reins may use)
    ├── ResolutionError             not_found, ambiguous, ref_stale, obscured, disabled, not_visible,
    │                               not_editable, not_stable, target_is_frame, focus_elsewhere,
    │                               press_intercepted
    ├── ActionError                 fill_mismatch, select_mismatch, choose_mismatch, check_failed,
    │                               upload_refused, focus_in_frame, unverified, handoff_cancelled
    ├── EvaluateError               eval_exception, evaluate_disabled
    ├── ExpectationFailure          expectation_failed
    └── DeadlineExceeded            timeout

Foreign errors (CDP error objects, OS errors) are translated in one place, ``from_cdp_error`` /
``from_os_error`` below, so nothing untyped reaches a caller. Chrome's error messages are
classified by the extension (extension/errors.js); the host trusts its code.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ActionError",
    "BrowserError",
    "ConnectionFailure",
    "DeadlineExceeded",
    "EvaluateError",
    "ExpectationFailure",
    "ReinsError",
    "ResolutionError",
    "UsageError",
    "error_from_wire",
    "from_cdp_error",
    "from_os_error",
]

# The next step each code suggests when the raiser gives no better one.
_NEXT_STEP: dict[str, str] = {
    "bad_request": "check the request shape against `reins --help`",
    "unknown_command": "run `reins --help` for the command list",
    "invalid_selector": "fix the selector syntax (CSS, //xpath, role=..., text=..., @ref)",
    "unsafe_home": "make REINS_HOME a directory of your own with mode 0700, or point REINS_HOME elsewhere",
    "no_browser": "start the browser once (it makes its folder then) and run `reins install` again",
    "platform_unsupported": "see docs/install.md for what this desktop supports",
    "snap_confined": "use a build of the browser that is not a Snap (a .deb or .rpm, the Flatpak, or Chrome for Testing), start it once and run `reins install` again",
    "message_too_large": "ask for less (a smaller --max-tokens, a target instead of the page)",
    "not_connected": "start the browser with `reins launch`, or open Chrome with the reins extension; then `reins doctor`",
    "no_host": "start the browser with `reins launch`, or open Chrome with the reins extension; then `reins doctor`",
    "host_unresponsive": "the reins host is hung: end its process (the extension starts a new host within seconds), then `reins status`",
    "ambiguous_profile": "pass --profile NAME",
    "cdp_blocked": "this CDP method is not on the extension's allowlist (extension/allowlist.js)",
    "cdp_error": "check the method's parameters against the DevTools protocol",
    "paused": "resume reins from the extension's popup",
    "target_closed": "the tab is gone: `reins tabs`, then `reins tab select ID` or `reins tab new URL`",
    "detached_by_user": "Cancel stops reins on the tab: it stays off it until the user hands it back in the reins popup (Let reins use this tab); `reins tab select` cannot override that, ask the user",
    "tab_closed": "`reins tabs`, then `reins tab select ID` or `reins tab new URL`",
    "no_tab": "`reins tab new URL` opens one; `reins tabs`, then `reins tab select ID` takes one the user gave you",
    "tab_not_reins": "`reins tab new URL` opens one of reins's own; `reins tab select ID` takes this one over (only if the user wants you in it)",
    "navigation_failed": "check the URL and that the site is reachable from this browser",
    "page_refused": "reins drives only http(s) pages and about:blank (not chrome://, other about: pages, extension pages, the Web Store, javascript:/data:, or file: unless allowed in the extension's popup); `reins navigate URL` leads the tab out",
    "dialog_open": "answer it: `reins dialog accept [TEXT]` or `reins dialog dismiss`",
    "tab_unresponsive": "the page's main thread is blocked: `reins tab close` it and open the page again in a new tab",
    "tab_crashed": "the tab's page crashed: `reins reload` brings it back (or `reins navigate URL`); other tabs are not affected",
    "browser_unresponsive": "the browser does not answer (frozen or overloaded): wait and run `reins status` again; if it stays so, restart the browser (`reins shutdown` and `reins launch` for a launched one)",
    "frame_unreachable": "the frame cannot be reached; open its URL in a tab of its own",
    "page_answer_invalid": "the document answered reins's own page script in a form reins cannot read (changing under it, or one reins cannot script): retry; if it keeps happening, `reins reload` the tab",
    "tab_hidden": "`reins tab show` brings the tab to the front",
    "page_paused": "the page is paused in DevTools' debugger: ask the user to resume it there (or close DevTools), then retry; or work in another tab (`reins tab new URL`)",
    "not_found": "take a new snapshot with `reins state` and use a ref from it",
    "ambiguous": "make the target unique (a ref from `reins state`, or --index N)",
    "ref_stale": "take a new snapshot with `reins state` and use the new ref",
    "obscured": "close what covers the element (dialog, overlay), or wait and retry",
    "disabled": "do what enables it first (actions wait for it within --timeout-ms)",
    "not_visible": "scroll or open the container that shows the element, then retry",
    "not_editable": "target an input, textarea or contenteditable element",
    "not_stable": "the element is moving (animation); wait and retry",
    "focus_elsewhere": "the page moved keyboard focus away from the target (`focused` says where) and no key was sent from there on: look with `reins state`; if focus went into another site's frame, the page is steering your input, do not retry blindly",
    "press_intercepted": "the page put something else under the pointer as the press arrived (`received_by` says what): reins stopped the events there, but do not press again blindly; `reins state` and look at what changed",
    "target_is_frame": "target an element inside the frame: a ref from its frame section of `reins state`, or CSS/XPath with --frame CSS-OF-THE-IFRAME",
    "fill_mismatch": "the page changed the value: read the kept value and adapt the input",
    "select_mismatch": "pick one of the options the select offers",
    "choose_mismatch": "the widget does not show the choice: open it again (`reins click`), `reins state` to see its options, and pick one it offers",
    "upload_refused": "reins attaches files only from the directories the user allows (the directory `reins` runs in and below, no hidden folders); move the file there, or the user adds a directory with `reins config upload-dirs add DIR`",
    "check_failed": "the control did not change state; inspect it with `reins state`",
    "unverified": "the page's world and the browser's accessibility tree disagree on what the control holds (`read` and `accessibility` say what each saw): do not count it as committed; read it again with `reins state` or `reins expect value`, and look at what the page shows",
    "handoff_cancelled": "the person pressed Cancel on the handoff (or another handoff on the tab replaced it): ask them what to do instead, or stop the run",
    "focus_in_frame": "the action was given, then the page put keyboard focus into a frame the target does not contain (`frame` says which): keys sent now would go there; look with `reins state`, and if it is another site's frame, the page is steering your input",
    "eval_exception": "fix the script; the message and location say where it threw",
    "evaluate_disabled": "evaluate is switched off for this profile (`reins config evaluate on`)",
    "expectation_failed": "the page does not show what was expected: look at `seen`, then `reins state` or `reins screenshot`, and `reins console --errors` for what the page logged",
    "timeout": "retry with a larger --timeout-ms, or check the page with `reins state`",
    "internal": "this is a reins bug: run `reins doctor` and report it with the host log",
}


class ReinsError(Exception):
    """Root of every error reins raises on purpose."""

    code: str = "internal"
    transient: bool = False
    # What Chrome said, when the error is one of Chrome's the extension classified
    # (extension/errors.js: "context_gone", "script_terminated", ...); never on the wire.
    chrome: str | None = None

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        transient: bool | None = None,
        hint: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        if code is not None:
            self.code = code
        if transient is not None:
            self.transient = transient
        self.hint = hint if hint is not None else _NEXT_STEP.get(self.code, "")
        self.details: dict[str, Any] = dict(details or {})
        super().__init__(message)

    @property
    def message(self) -> str:
        text = str(self.args[0]) if self.args else self.code
        return f"{text}; {self.hint}" if self.hint and self.hint not in text else text

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "transient": self.transient,
        }
        out.update(self.details)
        return out


class UsageError(ReinsError):
    code = "bad_request"


class ConnectionFailure(ReinsError):
    code = "not_connected"


class BrowserError(ReinsError):
    code = "cdp_error"


class ResolutionError(ReinsError):
    code = "not_found"


class ActionError(ReinsError):
    code = "check_failed"


class EvaluateError(ReinsError):
    code = "eval_exception"


class ExpectationFailure(ReinsError):
    """An expectation (`reins expect`) that did not hold within its budget; ``details`` carry
    ``expected`` and ``seen``."""

    code = "expectation_failed"


class DeadlineExceeded(ReinsError):
    code = "timeout"
    transient = True


_CLASS_BY_CODE: dict[str, type[ReinsError]] = {}
for _cls, _codes in (
    (
        UsageError,
        (
            "bad_request",
            "unknown_command",
            "invalid_selector",
            "message_too_large",
            "unsafe_home",
            "no_browser",
            "platform_unsupported",
            "snap_confined",
        ),
    ),
    (ConnectionFailure, ("not_connected", "no_host", "host_unresponsive", "ambiguous_profile")),
    (
        BrowserError,
        (
            "cdp_blocked",
            "cdp_error",
            "paused",
            "target_closed",
            "detached_by_user",
            "page_refused",
            "tab_unresponsive",
            "tab_crashed",
            "frame_unreachable",
            "navigation_failed",
            "dialog_open",
            "tab_hidden",
            "browser_unresponsive",
            "page_paused",
            "page_answer_invalid",
        ),
    ),
    (
        ResolutionError,
        (
            "not_found",
            "ambiguous",
            "ref_stale",
            "obscured",
            "disabled",
            "not_visible",
            "not_editable",
            "not_stable",
            "target_is_frame",
            "focus_elsewhere",
            "press_intercepted",
        ),
    ),
    (
        ActionError,
        (
            "fill_mismatch",
            "select_mismatch",
            "choose_mismatch",
            "check_failed",
            "upload_refused",
            "focus_in_frame",
            "unverified",
            "handoff_cancelled",
        ),
    ),
    (BrowserError, ("tab_closed", "no_tab", "tab_not_reins")),
    (EvaluateError, ("eval_exception", "evaluate_disabled")),
    (ExpectationFailure, ("expectation_failed",)),
    (DeadlineExceeded, ("timeout",)),
):
    for _code in _codes:
        _CLASS_BY_CODE[_code] = _cls

KNOWN_CODES: frozenset[str] = frozenset(_CLASS_BY_CODE) | {"internal"}


def error_from_wire(payload: dict[str, Any]) -> ReinsError:
    """Rebuild a typed error from its wire form (``{"code", "message", "transient", ...}``)."""
    code = str(payload.get("code") or "internal")
    cls = _CLASS_BY_CODE.get(code, ReinsError)
    details = {k: v for k, v in payload.items() if k not in ("code", "message", "transient")}
    return cls(
        str(payload.get("message") or code),
        code=code,
        transient=bool(payload.get("transient", cls.transient)),
        hint="",
        details=details,
    )


# What Chrome said, as extension/errors.js names it (an error's ``chrome``), where the host says
# it in its own words instead of passing Chrome's on.
_IN_OUR_WORDS: dict[str, str] = {
    "script_terminated": "the script ran past its budget and was stopped",
    "node_gone": "the node is gone from the page",
    "context_gone": "the page navigated while the call ran",
}


def from_cdp_error(method: str, error: dict[str, Any]) -> ReinsError:
    """Translate an error the extension answered for a CDP call. The extension classified
    Chrome's message once (extension/errors.js): its ``code`` is trusted, and its ``chrome`` (what
    Chrome said, as a word) is kept on the error as ``chrome`` for the callers the code alone does
    not decide for. No text of Chrome's is read here; a code this host does not know is a
    ``cdp_error``."""
    code = str(error.get("code") or "cdp_error")
    message = str(error.get("message") or "CDP call failed")
    chrome = error.get("chrome")
    chrome = chrome if isinstance(chrome, str) else None
    cls = _CLASS_BY_CODE.get(code)
    if cls is None:
        code, cls = "cdp_error", BrowserError
    if chrome in _IN_OUR_WORDS:
        message = f"{method}: {_IN_OUR_WORDS[chrome]}"
    elif code == "cdp_error":
        message = f"{method}: {message}"
    transient = error.get("transient")
    exc = cls(message, code=code, transient=cls.transient if transient is None else bool(transient))
    exc.chrome = chrome
    return exc


def from_os_error(exc: OSError, what: str) -> ReinsError:
    """Translate an OS error met while reaching the host."""
    return ConnectionFailure(f"{what}: {exc.strerror or exc}", code="no_host")
