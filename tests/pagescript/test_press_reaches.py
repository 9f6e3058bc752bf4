"""Which hits reach a field as a person's press there would (pagescripts/src/geometry.js,
pressReaches): the field's own widget drawn around it reaches it; another control in that
widget does not, unless the page hides it from the accessibility tree and the tab order (a
chip's remove button, as Mantine's MultiSelect draws it); and such a hidden control, hit itself,
is still a cover. Hand-built DOM in real Chromium; the function is the one the host sends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from selenium import webdriver

from .conftest import FUNCTIONS

PAGE = """
<div id=box-hidden-remove><span>Urgent<button id=remove tabindex=-1 aria-hidden=true>x</button></span>
  <input id=field-a role=combobox readonly></div>
<div id=box-tabbable-remove><span>Urgent<button id=remove-b aria-hidden=true>x</button></span>
  <input id=field-b role=combobox readonly></div>
<div id=box-visible-button><button id=other tabindex=-1>Other</button>
  <input id=field-c role=combobox readonly></div>
<div id=box-button-target><span id=part>icon</span><button id=plain>Save</button></div>
"""


def _reaches(driver: webdriver.Chrome, hit: str, target: str) -> Any:
    declaration = json.loads(FUNCTIONS.read_text(encoding="utf-8"))["functions"]["pressReaches"]
    return driver.execute_script(
        f"return ({declaration})(document.getElementById(arguments[0]),"
        " document.getElementById(arguments[1]));",
        hit,
        target,
    )


@pytest.fixture
def on_page(driver: webdriver.Chrome, servers: dict[str, Any]) -> webdriver.Chrome:
    driver.get(f"{servers['base']}/static/big.html?n=0")
    driver.execute_script("document.body.innerHTML = arguments[0];", PAGE)
    return driver


@pytest.mark.parametrize(
    ("hit", "target", "reaches"),
    [
        # the wrapper around a field whose only other control is a hidden remove button
        ("box-hidden-remove", "field-a", True),
        # ... but that button, hit itself, is a cover
        ("remove", "field-a", False),
        # a remove button in the tab order is a control of its own: the wrapper is no part
        ("box-tabbable-remove", "field-b", False),
        # a button the accessibility tree shows is a control of its own
        ("box-visible-button", "field-c", False),
        # a button's cover is never its part
        ("part", "plain", False),
    ],
)
def test_what_reaches_a_field_through_its_widget(
    on_page: webdriver.Chrome, hit: str, target: str, reaches: bool
) -> None:
    assert _reaches(on_page, hit, target) is reaches
