"""What every part of the bench is handed: the run's settings, the tools, and where the results go.

Defined below the parts that use it and above the peers and the harness it holds, so a part imports
it and nothing imports a part but the launcher.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .peers import AgentBrowser, PlaywrightPeer, Reins


@dataclass
class Context:
    reps: int
    sizes: list[int]
    small_n: int
    batch_len: int
    flow_reps: int
    base: str
    reins: Reins
    ab: AgentBrowser | None
    pw: PlaywrightPeer | None
    out: list[str] = field(default_factory=list)  # the printed lines (--markdown)
    data: dict[str, Any] = field(default_factory=dict)  # the raw figures (--json)

    def say(self, text: str = "") -> None:
        print(text, flush=True)
        self.out.append(text)

    def progress(self, text: str) -> None:
        print(f"  … {text}", file=sys.stderr, flush=True)

    def url(self, path: str) -> str:
        return f"{self.base}/{path}"

    def sample_memory(self, label: str) -> None:
        """The reins host's RSS and peak now, for the memory table (several parts take samples)."""
        pid = self.reins.host_pid()
        fields = {}
        if pid:
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key in ("VmRSS", "VmHWM"):
                        fields[key] = int(value.split()[0]) / 1024
        self.data.setdefault("memory", []).append({"when": label, "pid": pid, **fields})
