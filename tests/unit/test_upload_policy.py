"""The upload directory policy (act/upload.py `allowed_files`) on real files in a temp dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from reins._errors import ReinsError
from reins.act.upload import allowed_files


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "work" / "sub").mkdir(parents=True)
    (tmp_path / "work" / "a.txt").write_text("a")
    (tmp_path / "work" / "sub" / "b.txt").write_text("b")
    (tmp_path / "work" / ".hidden").mkdir()
    (tmp_path / "work" / ".hidden" / "c.txt").write_text("c")
    (tmp_path / "work" / ".env").write_text("x")
    (tmp_path / "out.txt").write_text("o")
    return tmp_path / "work"


def _code(files: list[str], roots: list[str]) -> str:
    with pytest.raises(ReinsError) as caught:
        allowed_files(files, roots)
    return caught.value.code


def test_files_under_a_root_pass_as_realpaths(root: Path) -> None:
    files = [str(root / "a.txt"), str(root / "sub" / ".." / "sub" / "b.txt")]
    assert allowed_files(files, [str(root)]) == [
        os.path.realpath(root / "a.txt"),
        os.path.realpath(root / "sub" / "b.txt"),
    ]


def test_outside_relative_hidden_and_missing_are_refused(root: Path) -> None:
    roots = [str(root)]
    assert _code([str(root.parent / "out.txt")], roots) == "upload_refused"
    assert _code([str(root / ".." / "out.txt")], roots) == "upload_refused"
    assert _code(["a.txt"], roots) == "upload_refused"
    assert _code([str(root / ".env")], roots) == "upload_refused"
    assert _code([str(root / ".hidden" / "c.txt")], roots) == "upload_refused"
    assert _code([str(root / "nope.txt")], roots) == "bad_request"
    assert _code([str(root / "a.txt")], []) == "upload_refused"


def test_a_symlink_is_judged_by_where_it_leads(root: Path) -> None:
    (root / "out-link.txt").symlink_to(root.parent / "out.txt")
    (root / "plain-link.txt").symlink_to(root / ".env")
    assert _code([str(root / "out-link.txt")], [str(root)]) == "upload_refused"
    assert _code([str(root / "plain-link.txt")], [str(root)]) == "upload_refused"


def test_a_root_that_is_itself_hidden_still_allows_its_files(tmp_path: Path) -> None:
    root = tmp_path / ".config" / "proj"
    root.mkdir(parents=True)
    (root / "f.txt").write_text("f")
    assert allowed_files([str(root / "f.txt")], [str(root)]) == [os.path.realpath(root / "f.txt")]
