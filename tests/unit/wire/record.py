"""Write the recorded wire answers again: ``python -m tests.unit.wire.record [NAME …]``.

Run it only when an answer is meant to change (the difference is then the review's to see);
``tests/unit/test_wire.py`` fails on any answer that differs from its file."""

from __future__ import annotations

import sys

from tests.unit.wire.scenarios import SCENARIOS, WIRE, answer_of, wire_text


def main(names: list[str]) -> int:
    unknown = sorted(set(names) - set(SCENARIOS))
    if unknown:
        print(f"no scenario {', '.join(unknown)}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    for name in names or list(SCENARIOS):
        path = WIRE / f"{name}.json"
        text = wire_text(answer_of(name))
        changed = not path.exists() or path.read_text(encoding="utf-8") != text
        path.write_text(text, encoding="utf-8")
        print(f"{'written' if changed else 'same   '} {path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
