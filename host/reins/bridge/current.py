"""The tab commands run in when none is named: picked by the agent, remembered, never replaced.

The agent picks it (`reins tab new`, `reins tab select`); it is kept per profile in
``REINS_HOME/tabs/PROFILE.json`` with the browser session it belongs to (tab ids mean something only
within one run of the browser), so a host restart keeps it and a browser restart forgets it. When it
is gone, commands answer ``tab_closed`` until the agent picks another: reins never moves to some
other tab by itself (that other tab is usually the one the user is looking at). Only a browser that
``reins launch`` started, where every tab is reins's, begins from the tab it shows.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from reins._errors import BrowserError
from reins._paths import ensure_private_dir, write_private

__all__ = ["CurrentTab"]

log = logging.getLogger("reins.host")


@dataclass
class CurrentTab:
    """The current tab of one profile, and what became of it."""

    path: Path | None = None
    session: str | None = None
    tab: int | None = None
    # The current tab closed (or reins was taken off it): its id, until the agent picks another.
    gone: int | None = None
    # Loaded from the file: the extension has not yet confirmed the tab still exists.
    unconfirmed: bool = False

    @classmethod
    def load(cls, path: Path, session: str | None, *, launched: bool) -> CurrentTab:
        """What the last host of this profile left. A tab from another browser session is gone
        (in a launched browser, where any tab will do, it is simply forgotten)."""
        current = cls(path, session)
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return current
        if not isinstance(saved, dict):
            return current
        tab, gone = (
            v if isinstance(v, int) else None for v in (saved.get("tab"), saved.get("gone"))
        )
        if session is not None and saved.get("session") == session:
            current.tab, current.gone, current.unconfirmed = tab, gone, tab is not None
        elif not launched:
            current.gone = tab if tab is not None else gone
        return current

    def require(self) -> int | None:
        """The current tab; None when there is none and none was lost (the caller decides what
        that means). Raises ``tab_closed`` while the one the agent picked is gone."""
        if self.tab is not None:
            return self.tab
        if self.gone is not None:
            raise BrowserError(
                f"tab {self.gone}, the one commands used, is closed", code="tab_closed"
            )
        return None

    def choose(self, tab_id: int) -> None:
        self.tab, self.gone, self.unconfirmed = tab_id, None, False
        self._save()

    def confirmed(self) -> None:
        self.unconfirmed = False

    def lost(self, tab_id: int) -> None:
        """The tab closed: commands answer ``tab_closed`` until the agent picks another."""
        if self.tab != tab_id:
            return
        self.tab, self.gone, self.unconfirmed = None, tab_id, False
        self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        body = {"tab": self.tab, "gone": self.gone, "session": self.session}
        try:
            ensure_private_dir(self.path.parent, root=self.path.parent.parent)
            write_private(self.path, (json.dumps(body) + "\n").encode())
        except OSError:
            log.exception("could not remember the current tab in %s", self.path)
