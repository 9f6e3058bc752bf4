"""The upload directory policy (act/upload.py `allowed_files`) on real files in a temp dir."""

from __future__ import annotations

import os
import time
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


# ---- the private copy Chrome reads (act/staging.py) -------------------------------------------


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return home


def test_chrome_gets_private_copies_of_the_checked_files(root: Path, tmp_path: Path) -> None:
    import stat

    from reins.act.staging import staged_copies
    from reins.act.upload import checked_files

    home = _home(tmp_path)
    checked = checked_files([str(root / "a.txt"), str(root / "sub" / "b.txt")], [str(root)])
    copies = staged_copies(checked, home)
    assert [Path(c).name for c in copies] == ["a.txt", "b.txt"]  # the page sees the names
    assert [Path(c).read_text() for c in copies] == ["a", "b"]
    for copy in map(Path, copies):
        assert copy.parent.parent == home / "uploads"
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("swap", ["file", "folder"])
def test_a_file_swapped_for_a_link_after_the_check_is_not_copied(
    root: Path, tmp_path: Path, swap: str
) -> None:
    from reins.act.staging import staged_copies
    from reins.act.upload import checked_files

    home = _home(tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "b.txt").write_text("the user's private key")
    checked = checked_files([str(root / "sub" / "b.txt")], [str(root)])
    # Between the check and the copy: the file (or its folder) becomes a link out of the root.
    if swap == "file":
        (root / "sub" / "b.txt").unlink()
        (root / "sub" / "b.txt").symlink_to(secret / "b.txt")
    else:
        (root / "sub" / "b.txt").unlink()
        (root / "sub").rmdir()
        (root / "sub").symlink_to(secret)
    with pytest.raises(ReinsError) as caught:
        staged_copies(checked, home)
    assert caught.value.code == "upload_refused"
    assert not any(p.is_file() for p in (home / "uploads").rglob("*"))


def test_old_copies_are_removed_by_a_later_upload(root: Path, tmp_path: Path) -> None:
    from reins.act.staging import KEEP_S, staged_copies
    from reins.act.upload import checked_files

    home = _home(tmp_path)
    checked = checked_files([str(root / "a.txt")], [str(root)])
    first = Path(staged_copies(checked, home)[0])
    old = time.time() - KEEP_S - 60
    os.utime(first.parent, (old, old))
    second = Path(staged_copies(checked, home)[0])
    assert not first.exists() and second.exists()
