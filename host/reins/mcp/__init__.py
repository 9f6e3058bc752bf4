"""``reins mcp``: the command table as MCP tools over stdio, frugal with tokens.

The tools are the commands declared ``on_mcp`` in the table, under their wire names, with their
argument models' JSON schemas (``tools.py``); a call goes to the host over the CLI's socket
(``server.py``); the answer is an action's effect, a budgeted ``state`` or a fitted screenshot, and
never more than the answer cap (``answers.py``, ``images.py``).

This package sits above every host layer and is imported only when ``reins mcp`` runs: the CLI's
start-up path never loads it (nor the MCP SDK).
"""

from __future__ import annotations

from reins.mcp.answers import DEFAULT_ANSWER_TOKENS, DEFAULT_STATE_TOKENS, Limits
from reins.mcp.server import Settings, ToolServer, serve

__all__ = [
    "DEFAULT_ANSWER_TOKENS",
    "DEFAULT_STATE_TOKENS",
    "Limits",
    "Settings",
    "ToolServer",
    "serve",
]
