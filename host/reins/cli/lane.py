"""The console script: a host command without arguments goes straight to the host, without click.

`reins status`, `reins tabs`, `reins back` … are most of what a script polls, and a whole process
is what it pays for each. Importing click (and the ``inspect`` it pulls in) is about a third of a
process's start-up, so a command line that is one such command word and global options only is
parsed here: the same request, the same output, the same exit code as the click group gives
(``tests/unit/test_cli.py`` compares them). Anything else — help, a misspelt option, a command
with arguments or a CLI quirk — goes to the click group in ``main.py``, which alone reports usage
errors.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

__all__ = ["main", "plain_request"]

_TABLE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "commands", "table.json")
_VALUED = {"--tab": "tab", "--timeout-ms": "timeout_ms", "--profile": "profile"}
_MAX_TIMEOUT_MS = 3_600_000  # as options.py's IntRange


def plain_request(argv: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the command's table entry, the global options) when ``argv`` is one host command without
    arguments and global options only, else None."""
    words: list[str] = []
    opts: dict[str, Any] = {}
    items = iter(argv)
    for item in items:
        if item == "--json":
            opts["json_out"] = True
            continue
        name, eq, value = item.partition("=")
        if name in _VALUED:
            if not eq:
                value = next(items, "")
            if name == "--profile":
                if not value or value.startswith("-"):
                    return None
                opts["profile"] = value
                continue
            if not value.lstrip("-").isdigit():
                return None
            number = int(value)
            if name == "--timeout-ms" and not 0 <= number <= _MAX_TIMEOUT_MS:
                return None
            opts[_VALUED[name]] = number
        elif item.startswith("-"):
            return None
        else:
            words.append(item)
    if len(words) != 1:
        return None
    with open(_TABLE, encoding="utf-8") as fh:
        commands = json.load(fh)["commands"]
    for spec in commands:
        if spec["words"] == words and not spec["arguments"] and not spec["options"] \
                and spec["name"] not in _HAS_QUIRK:
            return spec, opts
    return None


# Commands whose CLI form does more than send and print (cli/quirks.py; a unit test keeps this
# list equal to the quirks of argument-less commands).
_HAS_QUIRK: frozenset[str] = frozenset()


def _run(spec: dict[str, Any], opts: dict[str, Any]) -> int:
    from reins._errors import ReinsError
    from reins.bridge.client import request
    from reins.cli.contract import EXIT_OK, exit_code, plain
    from reins.cli.render import TEXT

    json_out = bool(opts.get("json_out"))
    try:
        answer = request(spec["name"], {}, profile=opts.get("profile"), tab=opts.get("tab"),
                         timeout_ms=opts.get("timeout_ms"), default_timeout_ms=spec["timeout_ms"])
    except ReinsError as exc:
        answer = {"ok": False, "error": exc.to_wire()}
    answer.pop("request_id", None)
    if not answer.get("ok"):
        error = answer.get("error") or {"code": "internal", "message": "no error payload"}
        if json_out:
            print(json.dumps({"ok": False, "error": error}, ensure_ascii=False), flush=True)
        else:
            print(f"error [{error.get('code')}]: {error.get('message')}", file=sys.stderr,
                  flush=True)
        return exit_code(str(error.get("code")))
    if json_out:
        print(json.dumps(answer, ensure_ascii=False), flush=True)
    else:
        human = TEXT.get(spec["name"])
        print(human(answer) if human else plain({k: v for k, v in answer.items() if k != "ok"}),
              flush=True)
    return EXIT_OK


def main() -> None:
    found = plain_request(sys.argv[1:])
    if found is not None:
        sys.exit(_run(*found))
    from reins.cli.main import main as click_main

    click_main()
