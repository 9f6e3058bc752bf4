"""Downloads are an action's effect (issue 46): a click that downloads answers the file's name and
folder as the browser saved it, not `navigation_started`; with the profile's setting off, a
download a reins tab begins is cancelled and the answer says `refused`. The oracle is the file
system (the file is there, or not) and the page's log of its clicks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Browser

pytestmark = pytest.mark.browser


def _download_dir(browser: Browser) -> Path:
    return browser.user_data.parent / "downloads"


def _settle(folder: Path, name: str, within: float = 5.0) -> Path:
    """The downloaded file once Chrome has renamed it from its partial name."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if (folder / name).is_file():
            return folder / name
        time.sleep(0.05)
    raise AssertionError(f"{name} not in {folder}: {sorted(p.name for p in folder.glob('*'))}")


@pytest.mark.parametrize(
    ("target", "name", "content"),
    [
        ("#static-link", "statement.csv", "2026-11-30,17.50"),
        ("#export", "export-2026-12.csv", "2026-12-01,42.00"),
        # A plain link the browser turns into a download: no `downloadRequest` in the page.
        ("#plain-link", "download-data.csv", "2026-11-30,17.50"),
    ],
)
def test_a_click_that_downloads_answers_the_file_and_its_folder(
    browser: Browser, page: Any, target: str, name: str, content: str
) -> None:
    tab = str(page("static/download.html")[0])
    body = browser.ok("click", target, "--tab", tab)
    downloads = body["effect"].get("downloads")
    assert downloads and len(downloads) == 1, body
    got = downloads[0]
    assert got["file"] == name and got["state"] == "completed", got
    assert Path(got["folder"]).resolve() == _download_dir(browser).resolve(), got
    assert "navigation_started" not in body["effect"] and "no_effect" not in body["warnings"]
    assert content in _settle(Path(got["folder"]), name).read_text()


def test_downloads_off_refuses_the_download(browser: Browser, page: Any) -> None:
    tab = str(page("static/download.html")[0])
    browser.ok("config", "downloads", "off")
    try:
        before = {p.name for p in _download_dir(browser).glob("*")}
        body = browser.ok("click", "#export", "--tab", tab)
        assert body["effect"]["downloads"][0]["state"] == "refused", body
        assert "download_refused" in body["warnings"]
        time.sleep(1.0)  # a download that was not cancelled would have landed by now
        after = {p.name for p in _download_dir(browser).glob("*")}
        assert after == before, after - before
        assert browser.js("return window.__log") == ["export"]
    finally:
        browser.ok("config", "downloads", "on")
