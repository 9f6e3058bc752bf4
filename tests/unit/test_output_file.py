"""`reins screenshot -o F` and `reins map -o F` never write through a link and write F whole or
not at all: the writer on its own in tmp_path, and the commands through click with a hand-built
host answer (`run.send` replaced)."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from reins._errors import UsageError
from reins.cli import main, output_file, run
from reins.cli.output_file import check_output_path, write_output

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
VICTIM = b"the victim's own file\n"


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ---- the writer ----------------------------------------------------------------------------------


def test_a_new_file_is_written_whole_and_private(tmp_path: Path) -> None:
    target = tmp_path / "shot.png"
    write_output(str(target), PNG)
    assert target.read_bytes() == PNG
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 & ~_umask()
    assert _leftovers(tmp_path) == []


def test_an_existing_file_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "map.json"
    target.write_bytes(b"x" * 100_000)
    write_output(str(target), b"{}")
    assert target.read_bytes() == b"{}"


def test_a_relative_path_is_written_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_output("plain.png", PNG)
    assert (tmp_path / "plain.png").read_bytes() == PNG


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlink_at_the_path_is_refused_and_its_target_kept(
    tmp_path: Path, dangling: bool
) -> None:
    victim = tmp_path / "victim.txt"
    if not dangling:
        victim.write_bytes(VICTIM)
    link = tmp_path / "shot.png"
    link.symlink_to(victim)
    with pytest.raises(UsageError) as caught:
        check_output_path(str(link))
    assert caught.value.code == "bad_request" and "symbolic link" in caught.value.message
    with pytest.raises(UsageError, match="symbolic link"):
        write_output(str(link), PNG)
    assert link.is_symlink()
    if dangling:
        assert not victim.exists()
    else:
        assert victim.read_bytes() == VICTIM
    assert _leftovers(tmp_path) == []


def test_a_directory_or_a_fifo_at_the_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for name, what in (("dir", "a directory"), ("fifo", "not a regular file")):
        with pytest.raises(UsageError, match=what):
            check_output_path(str(tmp_path / name))
        with pytest.raises(UsageError, match=what):
            write_output(str(tmp_path / name), PNG)
    with pytest.raises(UsageError, match="a directory"):
        write_output(str(tmp_path) + "/", PNG)
    assert (tmp_path / "dir").is_dir() and list((tmp_path / "dir").iterdir()) == []
    assert _leftovers(tmp_path) == []


def test_a_link_planted_after_the_check_is_replaced_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: the path is checked, then a link appears before the rename. The rename replaces
    the link itself; the file it points at is untouched."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    target = tmp_path / "shot.png"
    real_replace = os.replace

    def plant_then_replace(src: Any, dst: Any, **kw: Any) -> None:
        os.symlink(victim, dst, dir_fd=kw.get("dst_dir_fd"))
        real_replace(src, dst, **kw)

    monkeypatch.setattr(output_file.os, "replace", plant_then_replace)
    write_output(str(target), PNG)
    assert victim.read_bytes() == VICTIM
    assert not target.is_symlink() and target.read_bytes() == PNG


@pytest.mark.parametrize("fails", ["write", "fsync", "replace"])
def test_a_failed_write_leaves_no_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    real_write = os.write

    def half_then_full(fd: int, data: Any) -> int:
        if len(data) < len(PNG):
            raise OSError(28, "No space left on device")
        return real_write(fd, data[: len(data) // 2])

    def no_space(*args: Any, **kw: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output_file.os, fails, half_then_full if fails == "write" else no_space)
    fresh, kept = tmp_path / "fresh.png", tmp_path / "kept.png"
    kept.write_bytes(VICTIM)
    for target in (fresh, kept):
        with pytest.raises(UsageError, match="No space left on device") as caught:
            write_output(str(target), PNG)
        assert caught.value.code == "bad_request"
    assert not fresh.exists()
    assert kept.read_bytes() == VICTIM
    assert _leftovers(tmp_path) == []


def test_a_missing_directory_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write"):
        write_output(str(tmp_path / "absent" / "shot.png"), PNG)


def test_a_planted_temporary_name_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Temporary names are random and opened O_EXCL: a name taken (or a link in its place) is
    skipped, never written through."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    draws = iter([b"\x00" * 6, b"\x01" * 6])
    monkeypatch.setattr(output_file.os, "urandom", lambda n: next(draws))
    (tmp_path / f".shot.png.{'00' * 6}.tmp").symlink_to(victim)
    write_output(str(tmp_path / "shot.png"), PNG)
    assert victim.read_bytes() == VICTIM
    assert (tmp_path / "shot.png").read_bytes() == PNG


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---- the commands --------------------------------------------------------------------------------

ANSWERS: dict[str, dict[str, Any]] = {
    "map": {"map": {"elements": {"e1": {"role": "button", "name": "Save"}}}},
    "screenshot": {"png_base64": base64.b64encode(PNG).decode(), "bytes": len(PNG)},
    "state": {"url": "https://a.test/", "sources": {"dom": {"elements": 3}}},
}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The commands the CLI sends, answered by a hand-built host instead of a real one."""
    calls: list[str] = []

    def answer(cmd: str, args: dict[str, Any], **_: Any) -> dict[str, Any]:
        calls.append(cmd)
        return {"ok": True, **ANSWERS[cmd]}

    monkeypatch.setattr(run, "send", answer)
    monkeypatch.chdir(tmp_path)
    return calls


def invoke(argv: list[str]) -> Result:
    return CliRunner().invoke(main, argv, catch_exceptions=False)


@pytest.mark.parametrize("command", ["screenshot", "map"])
@pytest.mark.parametrize("json_out", [False, True])
def test_a_symlinked_output_fails_the_command_and_keeps_the_victim(
    sent: list[str], tmp_path: Path, command: str, json_out: bool
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    (tmp_path / "out").symlink_to(victim)
    result = invoke([command, "-o", "out", *(["--json"] if json_out else [])])
    assert result.exit_code == 2
    if json_out:
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "bad_request" and "symbolic link" in error["message"]
    else:
        assert result.stderr.startswith("error [bad_request]: out is a symbolic link")
    assert victim.read_bytes() == VICTIM
    assert sent == []  # refused before the browser was asked


@pytest.mark.parametrize("command", ["screenshot", "map"])
def test_a_directory_output_fails_the_command(
    sent: list[str], tmp_path: Path, command: str
) -> None:
    (tmp_path / "out").mkdir()
    result = invoke([command, "-o", "out", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "bad_request"
    assert sent == []


def test_the_commands_write_their_files_whole(sent: list[str], tmp_path: Path) -> None:
    result = invoke(["screenshot", "-o", "shot.png"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"wrote shot.png ({len(PNG)} bytes, 0 labels)"
    assert (tmp_path / "shot.png").read_bytes() == PNG
    result = invoke(["map", "-o", "map.json", "--json"])
    assert json.loads(result.stdout) == {"ok": True, "written": "map.json"}
    assert json.loads((tmp_path / "map.json").read_text()) == ANSWERS["map"]["map"]
    assert sent == ["screenshot", "map"]
    assert _leftovers(tmp_path) == []


def test_a_link_planted_while_the_browser_answers_is_not_followed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The check before the request passes; the link appears while the host works. The write
    checks again and refuses."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)

    def answer(cmd: str, args: dict[str, Any], **_: Any) -> dict[str, Any]:
        (tmp_path / "shot.png").symlink_to(victim)
        return {"ok": True, **ANSWERS[cmd]}

    monkeypatch.setattr(run, "send", answer)
    monkeypatch.chdir(tmp_path)
    result = invoke(["screenshot", "-o", "shot.png", "--json"])
    assert result.exit_code == 2
    assert "symbolic link" in json.loads(result.stdout)["error"]["message"]
    assert victim.read_bytes() == VICTIM


# ---- state --compare-sources --record FILE: appended, never through a link ----------------------


def test_state_record_appends_lines_to_a_private_file(sent: list[str], tmp_path: Path) -> None:
    for _ in range(2):
        result = invoke(["state", "--compare-sources", "--record", "figures.jsonl", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["sources"] == ANSWERS["state"]["sources"]
    lines = (tmp_path / "figures.jsonl").read_text().splitlines()
    assert [json.loads(line)["sources"] for line in lines] == [ANSWERS["state"]["sources"]] * 2
    assert stat.S_IMODE((tmp_path / "figures.jsonl").stat().st_mode) == 0o600 & ~_umask()


@pytest.mark.parametrize("json_out", [False, True])
def test_state_record_refuses_a_link_and_keeps_its_target(
    sent: list[str], tmp_path: Path, json_out: bool
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    (tmp_path / "figures.jsonl").symlink_to(victim)
    argv = ["state", "--compare-sources", "--record", "figures.jsonl"]
    result = invoke(argv + (["--json"] if json_out else []))
    assert result.exit_code == 2
    assert victim.read_bytes() == VICTIM
    assert sent == []  # refused before the browser was asked
    # one answer: the error, not the state and then an error
    out = result.stdout.strip().splitlines()
    assert (len(out) == 1 and json.loads(out[0])["ok"] is False) if json_out else out == []


def test_a_link_planted_before_the_append_is_not_followed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    target = tmp_path / "figures.jsonl"
    monkeypatch.setattr(output_file, "check_output_path", lambda path: target.symlink_to(victim))
    with pytest.raises(UsageError, match="symbolic link"):
        output_file.append_output(str(target), b"x\n")
    assert victim.read_bytes() == VICTIM
