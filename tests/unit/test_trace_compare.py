"""A run beside its baseline, from hand-built traces: steps paired as a diff pairs lines, what
counts as a difference (and what is noise), the first divergence, and the report's section with
nothing a page said turned into markup."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from PIL import Image
from reins.cli import main
from reins.trace.compare import compare_runs, effect_summary
from reins.trace.run import RunView, Step, read_run

HOSTILE = "<script>window.pwned=1</script>"


def _step(n: int, cli: str, *, ok: bool = True, **extra: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": "step",
        "step": n,
        "t": 1000.0 + n,
        "cmd": cli.split()[1],
        "cli": cli,
        "ok": ok,
        "duration_ms": 10 * n,
        "url": "https://app.test/expenses",
        "console": [],
        "network": [],
    }
    if not ok:
        line["error"] = {"code": "not_found", "message": "no such element"}
    line.update(extra)
    return line


def _run(*steps: dict[str, Any], name: str = "expense") -> RunView:
    start = {"type": "start", "name": name, "t": 1000.0, "time": "2026-12-05T10:00:00"}
    return read_run([start, *steps, {"type": "stop", "t": 1100.0, "steps": len(steps)}])


FLOW = [
    "reins navigate https://app.test/",
    "reins fill label=Merchant Blue",
    "reins click role=button[name=Save]",
    "reins expect text role=status Saved",
]


def _good() -> RunView:
    return _run(
        _step(
            1,
            FLOW[0],
            effect={"navigated": True, "url": {"from": "", "to": "https://app.test/?s=1"}},
        ),
        _step(2, FLOW[1], effect={"value": {"from": "", "to": "Blue"}, "dom_changed_in_target": 5}),
        _step(3, FLOW[2], effect={"url": {"from": "a", "to": "https://app.test/saved?id=1"}}),
        _step(4, FLOW[3]),
    )


def test_the_same_run_again_differs_nowhere_though_its_noise_changed() -> None:
    again = _run(
        # Another session id in the query, other DOM counts, focus, times: not the app's behaviour.
        _step(
            1,
            FLOW[0],
            effect={"navigated": True, "url": {"from": "", "to": "https://app.test/?s=2"}},
        ),
        _step(
            2,
            FLOW[1],
            effect={
                "value": {"from": "", "to": "Blue"},
                "dom_changed_in_target": 9,
                "focus": {"from": None, "to": "input"},
            },
            duration_ms=900,
        ),
        _step(3, FLOW[2], effect={"url": {"from": "b", "to": "https://app.test/saved?id=2"}}),
        _step(4, FLOW[3]),
    )
    cmp = compare_runs(_good(), again)
    assert [p.differs for p in cmp.pairs] == [False] * 4
    assert cmp.first is None
    assert cmp.summary()["differing"] == 0


def test_the_first_divergence_is_the_step_that_failed_now() -> None:
    now = _run(
        _step(1, FLOW[0]),
        _step(2, FLOW[1], effect={"value": {"from": "", "to": "Blue"}}),
        _step(3, FLOW[2], ok=False),
    )
    cmp = compare_runs(_good(), now)
    first = cmp.first
    assert first is not None and first.then is not None and first.now is not None
    assert (first.then.number, first.now.number) == (1, 1), "step 1 lost its navigation"
    assert "effect then: url: /; now: none" in first.differences
    third = cmp.pairs[2]
    assert "passed then, failed (not_found) now" in third.differences
    assert cmp.pairs[3].now is None and "not run now" in cmp.pairs[3].differences[0]
    assert cmp.summary()["first_divergence"]["command"] == FLOW[0]


def test_an_added_step_shifts_nothing_after_it() -> None:
    added = "reins click role=button[name=Dismiss]"
    now = _run(
        _step(1, FLOW[0], effect={"url": {"from": "", "to": "https://app.test/"}}),
        _step(2, added),
        _step(3, FLOW[1], effect={"value": {"from": "", "to": "Blue"}}),
        _step(4, FLOW[2], effect={"url": {"from": "", "to": "https://app.test/saved"}}),
        _step(5, FLOW[3]),
    )
    cmp = compare_runs(_good(), now)
    assert [(p.then and p.then.number, p.now and p.now.number) for p in cmp.pairs] == [
        (1, 1),
        (None, 2),
        (2, 3),
        (3, 4),
        (4, 5),
    ]
    assert cmp.differing == 1 and cmp.first is cmp.pairs[1]
    assert cmp.pairs[1].differences == ("a step the baseline does not have",)


def test_another_value_committed_and_new_console_errors_and_failed_requests() -> None:
    now = _run(
        _step(1, FLOW[0], effect={"url": {"from": "", "to": "https://app.test/"}}),
        _step(
            2,
            FLOW[1],
            effect={"value": {"from": "", "to": "Blu"}},
            console=[
                {"level": "error", "text": f"TypeError {HOSTILE}"},
                {"level": "log", "text": "x"},
            ],
            network=[{"url": "https://app.test/api/save?token=…", "status": 500, "failed": True}],
        ),
        _step(3, FLOW[2], effect={"url": {"from": "", "to": "https://app.test/saved"}}),
        _step(4, FLOW[3]),
    )
    diffs = compare_runs(_good(), now).pairs[1].differences
    assert 'effect then: value: "Blue"; now: value: "Blu"' in diffs
    assert f"new console error: TypeError {HOSTILE}" in diffs
    assert "new failed request: https://app.test/api/save (500)" in diffs
    assert len(diffs) == 3


def test_an_error_the_baseline_had_too_is_not_new() -> None:
    error = [{"level": "error", "text": "favicon missing"}]
    then = _run(_step(1, FLOW[0], console=error))
    now = _run(_step(1, FLOW[0], console=error))
    assert compare_runs(then, now).first is None


def test_effect_summary_reads_only_what_it_knows() -> None:
    step = Step.of(
        _step(
            1,
            FLOW[1],
            effect={
                "checked": {"from": False, "to": True},
                "tab_closed": True,
                "downloads": [{"file": "a.csv"}],
                "shown": ["dialog"],
                "url": "not a change",
            },
        )
    )
    assert effect_summary(step) == ["checked: true", "tab closed", "downloads: 1"]


def _jpeg(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (20, 10), colour).save(out, format="JPEG")
    return out.getvalue()


def _written(folder: Path, *steps: dict[str, Any]) -> Path:
    (folder / "shots").mkdir(parents=True)
    start = {"type": "start", "name": "expense", "t": 1000.0, "screenshots": True}
    lines = [start, *steps, {"type": "stop", "t": 1100.0, "steps": len(steps)}]
    (folder / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def test_reins_report_sets_the_run_beside_its_baseline(tmp_path: Path) -> None:
    shots = {"before": "shots/0002-before.jpg", "after": "shots/0002-after.jpg"}
    then = _written(tmp_path / "good", _step(1, FLOW[0]), _step(2, FLOW[2], shots=shots))
    now = _written(
        tmp_path / "now",
        _step(1, FLOW[0]),
        _step(2, FLOW[2], ok=False, shots=shots, console=[{"level": "error", "text": HOSTILE}]),
    )
    for folder, colour in ((then, (0, 200, 0)), (now, (200, 0, 0))):
        (folder / "shots" / "0002-before.jpg").write_bytes(_jpeg(colour))
        (folder / "shots" / "0002-after.jpg").write_bytes(_jpeg(colour))
    result = CliRunner().invoke(main, ["report", str(now), "--baseline", str(then), "--json"])
    assert result.exit_code == 0, result.output
    said = json.loads(result.output)
    assert said["baseline"]["differing"] == 1
    assert said["baseline"]["first_divergence"]["step_now"] == 2
    page = (now / "report.html").read_text()
    assert "Compared with the baseline" in page and 'id="first-divergence"' in page
    assert HOSTILE not in page and "&lt;script&gt;" in page
    # The failure's and the timeline's two pictures, and both runs' of the differing step.
    assert page.count("data:image/jpeg;base64,") == 2 + 2 + 4
    assert "baseline, step 2, after" in page and "now, step 2, after" in page

    result = CliRunner().invoke(
        main, ["report", str(now), "--baseline", str(then), "--format", "md"]
    )
    text = (now / "report.md").read_text()
    assert "### Compared with the baseline" in text and "**First divergence**" in text
    assert "<script>" not in text
