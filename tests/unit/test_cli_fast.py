"""The CLI's fast path (cli/fast.py) against the click CLI, on the same command lines: for every
host command of the table, in many forms (positionals, each option, `--opt=value`, the global
options before and after, bad values, unknown options), the fast path either leaves the line to
click or sends exactly the request click sends and prints exactly what click prints, with the
same exit code — for an answer, an error answer, and a host that cannot be reached."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from click.testing import CliRunner
from reins._errors import ConnectionFailure
from reins.cli import fast, run
from reins.cli.group import main
from reins.cli.host_commands import description
from reins.cli.quirks import QUIRKS

ANSWERS: dict[str, dict[str, Any]] = {"state": {"text": '- button "Save" [ref=@save]'}}


def _sample(param: dict[str, Any]) -> list[str]:
    kind = param["type"]
    if kind == "int":
        low, high = param.get("min"), param.get("max")
        return [str(low if low is not None else (high if high is not None else 3))]
    if kind == "choice":
        return [param["choices"][-1]]
    if kind == "object":
        return ['{"a": 1}']
    if kind == "list":
        return ["a.txt", "b.txt"]
    return [f"v-{param['name']}"]


def _lines(spec: dict[str, Any]) -> list[list[str]]:
    words = list(spec["words"])
    required = [v for p in spec["arguments"] if p["required"] for v in _sample(p)]
    every = [v for p in spec["arguments"] for v in _sample(p)]
    base = words + required
    lines = [
        base,
        words + every,
        base + ["--json"],
        ["--json", "--tab", "7"] + base + ["--timeout-ms", "900"],
        ["--profile", "work"] + base + ["--tab=8", "--json"],
        base + ["--nope"],
        base + ["-h"],
        words,
        base + ["extra-one", "extra-two"],
        base + ["--timeout-ms", "-1"],
    ]
    for param in spec["options"]:
        flag = param["flag"]
        if param["type"] == "bool":
            lines += [base + [flag], base + [flag, "--json"], base + [f"{flag}=1"]]
            continue
        value = _sample(param)[0]
        lines += [base + [flag, value], base + [f"{flag}={value}"], base + [flag]]
        if param["type"] == "int":
            lines += [base + [flag, "x"], base + [flag, str((param.get("max") or 10**9) + 1)]]
        if param["type"] == "choice":
            lines.append(base + [flag, "no-such-choice"])
    if spec["options"]:
        all_options = [
            t
            for p in spec["options"]
            for t in ([p["flag"]] if p["type"] == "bool" else [p["flag"], _sample(p)[0]])
        ]
        lines.append(base + all_options + ["--json"])
    return lines


CASES = [(spec["name"], line) for spec in description() for line in _lines(spec)]


class Host:
    """What both paths send, and the one answer (or failure) they get."""

    def __init__(self, answer: dict[str, Any] | None) -> None:
        self.answer = answer
        self.sent: list[tuple[Any, ...]] = []

    def reply(self, cmd: str) -> dict[str, Any]:
        if self.answer is None:
            raise ConnectionFailure("no reins host is running", code="no_host")
        return {**self.answer, **(ANSWERS.get(cmd, {}) if self.answer.get("ok") else {})}

    def click_send(self, cmd: str, args: dict[str, Any], **kw: Any) -> dict[str, Any]:
        self.sent.append(
            (cmd, args, kw["profile"], kw["tab"], kw["timeout_ms"], kw["default_timeout_ms"])
        )
        return self.reply(cmd)

    def fast_send(
        self, cmd: str, args: dict[str, Any], opts: dict[str, Any], budget: int | None
    ) -> dict[str, Any]:
        self.sent.append(
            (cmd, args, opts.get("profile"), opts.get("tab"), opts.get("timeout_ms"), budget)
        )
        return self.reply(cmd)


ANSWER_KINDS = {
    "ok": {"ok": True, "effect": {"value": {"from": "", "to": "x"}}, "value": 2},
    "error": {"ok": False, "error": {"code": "not_found", "message": "no <b>Save</b>\u202e"}},
    "no_host": None,
}


@pytest.mark.parametrize("kind", sorted(ANSWER_KINDS))
@pytest.mark.parametrize(("name", "argv"), CASES, ids=[" ".join(a) for _, a in CASES])
def test_the_fast_path_is_the_click_cli_or_steps_aside(
    name: str,
    argv: list[str],
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("REINS_CLICK", raising=False)
    monkeypatch.delenv("REINS_PROFILE", raising=False)
    fast_host, click_host = Host(ANSWER_KINDS[kind]), Host(ANSWER_KINDS[kind])
    monkeypatch.setattr(fast, "_send", fast_host.fast_send)
    monkeypatch.setattr(run, "send", click_host.click_send)
    raised: type[BaseException] | None = None
    try:
        fast.run_fast(argv)
    except SystemExit as exc:
        code: int | None = int(exc.code or 0)
    except Exception as exc:  # a renderer that needs keys this canned answer lacks
        code, raised = -1, type(exc)
    else:
        code = None  # stepped aside: click runs it
    out = capsys.readouterr()
    if code is None:
        assert not fast_host.sent and not out.out and not out.err
        return
    result = CliRunner().invoke(main, argv)
    assert fast_host.sent == click_host.sent, argv
    if raised is not None:
        assert type(result.exception) is raised, (argv, result.output)
        return
    assert (code, out.out, out.err) == (result.exit_code, result.stdout, result.stderr), argv


def test_the_calls_agents_make_most_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    host = Host({"ok": True})
    monkeypatch.setattr(fast, "_send", host.fast_send)
    monkeypatch.delenv("REINS_CLICK", raising=False)
    common = [
        ["status"],
        ["state"],
        ["state", "--json"],
        ["click", "@e4"],
        ["click", "role=button[name='Save']", "--json"],
        ["fill", "@e2", "12.50"],
        ["type", "#q", "hello", "--index", "2"],
        ["press", "Enter"],
        ["navigate", "https://example.com/"],
        ["eval", "document.title"],
        ["choose", "@cat", "Meals"],
        ["check", "@agree"],
        ["select", "#size", "Large"],
        ["wait", "--text", "Saved"],
        ["expect", "text", "#saved", "Saved"],
        ["tab", "new", "https://example.com/"],
        ["tabs"],
        ["--json", "find", "--text", "Delete"],
    ]
    for argv in common:
        with pytest.raises(SystemExit) as done:  # --json: these answers are too bare to render
            fast.run_fast(argv if "--json" in argv else [*argv, "--json"])
        assert done.value.code == 0, argv
    assert [sent[0] for sent in host.sent] == [
        "status",
        "state",
        "state",
        "click",
        "click",
        "fill",
        "type",
        "press",
        "navigate",
        "eval",
        "choose",
        "check",
        "select",
        "wait",
        "expect_text",
        "tab_new",
        "tabs",
        "find",
    ]
    capsys.readouterr()


def test_every_cli_quirk_is_followed_or_left_to_click() -> None:
    assert set(QUIRKS) == fast.FOLLOWED | fast.LEFT_TO_CLICK
    assert not fast.FOLLOWED & fast.LEFT_TO_CLICK


def test_a_click_forced_to_javascript_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REINS_CLICK", "js")
    monkeypatch.setattr(fast, "_send", lambda *a: pytest.fail("sent"))
    assert fast.run_fast(["click", "@e1"]) is None


def test_the_fast_path_imports_no_click() -> None:
    import subprocess

    code = (
        "import sys; from reins.cli import fast; fast.parse(['click', '@e1']); "
        "print('click' in sys.modules, 'pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
