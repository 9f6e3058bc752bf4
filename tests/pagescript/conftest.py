"""Fixtures for page-script tests: headless Chromium through selenium (no extension, no host).

Two HTTP servers serve ``fixtures/``: the main one as 127.0.0.1 and a second one, on another port,
reached as ``localhost`` so that frames loaded from it are cross-origin.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
BUNDLE = REPO / "host" / "reins" / "_generated" / "collect.js"
FUNCTIONS = REPO / "host" / "reins" / "_generated" / "functions.json"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(host: str) -> tuple[http.server.ThreadingHTTPServer, int]:
    handler = functools.partial(_QuietHandler, directory=str(FIXTURES))
    server = http.server.ThreadingHTTPServer((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Any]]:
    main, main_port = _serve("127.0.0.1")
    cross, cross_port = _serve("127.0.0.1")
    try:
        yield {
            "base": f"http://127.0.0.1:{main_port}",
            "cross_port": cross_port,
        }
    finally:
        for server in (main, cross):
            server.shutdown()
            server.server_close()


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    try:
        yield browser
    finally:
        browser.quit()


Collect = Callable[..., dict[str, Any]]


@pytest.fixture(scope="module")
def collect(driver: webdriver.Chrome) -> Collect:
    """Run the committed bundle the way the host does: the page world's hints, then the options
    substituted and the collection evaluated (here in the page's world, which has no lies)."""
    bundle = BUNDLE.read_text(encoding="utf-8")

    hints = json.loads(FUNCTIONS.read_text(encoding="utf-8"))["functions"]["handlerHints"]

    def run(**options: Any) -> dict[str, Any]:
        if options.get("install") is not True and "hints" not in options:
            # What the host hands the collection from the page's world (observe/listeners.py).
            options["hints"] = driver.execute_script(f"return ({hints})();")
        source = bundle.replace("__REINS_OPTIONS__", json.dumps(options))
        result: dict[str, Any] = driver.execute_script(f"return ({source});")
        return result

    return run
