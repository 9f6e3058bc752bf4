"""reins: drive your own logged-in Chrome from a local CLI.

The public Python surface is small on purpose: the error types. Everything else is reached through the
``reins`` CLI and its JSON contract.
"""

from reins._errors import (
    ActionError,
    BrowserError,
    ConnectionFailure,
    DeadlineExceeded,
    EvaluateError,
    ReinsError,
    ResolutionError,
    UsageError,
)

__version__ = "0.1.0"

__all__ = [
    "ActionError",
    "BrowserError",
    "ConnectionFailure",
    "DeadlineExceeded",
    "EvaluateError",
    "ReinsError",
    "ResolutionError",
    "UsageError",
    "__version__",
]
