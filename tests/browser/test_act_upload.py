"""`reins upload` on fixtures/static/upload.html, in real Chromium: a plain file input, a drop
zone's hidden input, an "Attach" button's hidden input; and the directory policy. The page is
the oracle: `input.files` and the change events it saw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser
from .support import run_cli


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 fake" * 10)
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / ".secrets").mkdir()
    (tmp_path / ".secrets" / "key.txt").write_text("hunter2")
    (tmp_path / ".env").write_text("TOKEN=1")
    return tmp_path


def _upload(browser: Browser, cwd: Path, *args: str) -> tuple[int, dict[str, Any]]:
    run = run_cli(browser.home, "upload", *args, cwd=cwd)
    return run.code, run.json()


def _files(browser: Browser, css: str) -> list[list[Any]]:
    return list(
        browser.js(
            "return Array.from(document.querySelector(arguments[0]).files)"
            ".map(f => [f.name, f.size])",
            css,
        )
    )


def test_upload_to_a_file_input_answers_what_the_page_received(
    browser: Browser, page: Any, workdir: Path
) -> None:
    tab = str(page("static/upload.html")[0])
    code, body = _upload(browser, workdir, "#docs", "report.pdf", "notes.txt", "--tab", tab)
    assert code == 0, body
    assert [(f["name"], f["size"]) for f in body["files"]] == [
        ("report.pdf", 130),
        ("notes.txt", 6),
    ]
    assert _files(browser, "#docs") == [["report.pdf", 130], ["notes.txt", 6]]
    assert browser.js("return window.__changes") == ["docs:report.pdf,notes.txt"]


@pytest.mark.parametrize(
    ("target", "input_css"),
    [("#zone", "#zone-input"), ("#attach", "#attach-input"), ("text=Documents", "#docs")],
)
def test_upload_finds_the_input_behind_a_drop_zone_button_or_label(
    browser: Browser, page: Any, workdir: Path, target: str, input_css: str
) -> None:
    tab = str(page("static/upload.html")[0])
    code, body = _upload(browser, workdir, target, "notes.txt", "--tab", tab)
    assert code == 0, body
    assert [f["name"] for f in body["files"]] == ["notes.txt"]
    assert _files(browser, input_css) == [["notes.txt", 6]]


@pytest.mark.parametrize("path", [".env", ".secrets/key.txt", "/etc/hostname", "../outside.txt"])
def test_upload_refuses_files_outside_the_allowed_dirs_or_hidden(
    browser: Browser, page: Any, workdir: Path, path: str
) -> None:
    (workdir.parent / "outside.txt").write_text("x")
    tab = str(page("static/upload.html")[0])
    code, body = _upload(browser, workdir, "#docs", path, "--tab", tab)
    assert code == 1 and body["error"]["code"] == "upload_refused", body
    assert "upload-dirs add" in body["error"]["message"]
    assert _files(browser, "#docs") == []


def test_upload_refuses_a_symlink_that_leads_out(
    browser: Browser, page: Any, workdir: Path, tmp_path_factory: Any
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "private.txt"
    elsewhere.write_text("private")
    (workdir / "link.txt").symlink_to(elsewhere)
    tab = str(page("static/upload.html")[0])
    code, body = _upload(browser, workdir, "#docs", "link.txt", "--tab", tab)
    assert code == 1 and body["error"]["code"] == "upload_refused"
    assert _files(browser, "#docs") == []


def test_upload_dirs_added_with_config_are_allowed(
    browser: Browser, page: Any, workdir: Path, tmp_path_factory: Any
) -> None:
    shared = tmp_path_factory.mktemp("shared")
    (shared / "invoice.pdf").write_bytes(b"1234")
    tab = str(page("static/upload.html")[0])
    code, body = _upload(browser, workdir, "#docs", str(shared / "invoice.pdf"), "--tab", tab)
    assert code == 1 and body["error"]["code"] == "upload_refused"
    added = run_cli(browser.home, "config", "upload-dirs", "add", str(shared), cwd=workdir)
    assert added.code == 0, added.stderr
    try:
        code, body = _upload(browser, workdir, "#docs", str(shared / "invoice.pdf"), "--tab", tab)
        assert code == 0, body
        assert _files(browser, "#docs") == [["invoice.pdf", 4]]
    finally:
        run_cli(browser.home, "config", "upload-dirs", "remove", str(shared), cwd=workdir)


def test_upload_of_two_files_to_a_single_input_is_refused(
    browser: Browser, page: Any, workdir: Path
) -> None:
    tab = str(page("static/upload.html")[0])
    code, body = _upload(browser, workdir, "#zone", "notes.txt", "report.pdf", "--tab", tab)
    assert code != 0 and body["error"]["code"] == "bad_request"
    assert _files(browser, "#zone-input") == []


def test_raw_cdp_cannot_skip_the_directory_policy(
    browser: Browser, page: Any, workdir: Path
) -> None:
    tab = str(page("static/upload.html")[0])
    code, body = browser.cli(
        "cdp",
        "DOM.setFileInputFiles",
        '{"files": ["/etc/hostname"], "backendNodeId": 1}',
        "--tab",
        tab,
    )
    assert code == 1 and body["error"]["code"] == "cdp_blocked"
    assert "reins upload" in body["error"]["message"]
