"""Django's admin (installed from PyPI; the project is fixtures/django), driven as a new user drives
it: the login form, then an Add expense page with the admin's own widgets — the select2
autocomplete of `autocomplete_fields`, the calendar and clock popups of a date and a time field,
the two lists of `filter_horizontal`, and an inline's "Add another" row. Each step is one or two
reins commands on what `reins state` lists. The oracle is Django's database, read through the ORM.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest

from ._act_support import eventually
from ._django_site import PASSWORD, USER, DjangoSite, django_site
from .conftest import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def admin_site() -> Iterator[DjangoSite]:
    with django_site() as site:
        yield site


@pytest.fixture(scope="module")
def signed_in(browser: Browser, admin_site: DjangoSite) -> Iterator[str]:
    """A tab that logged in through the admin's login form (reins fill, fill, click): its id."""
    tab = str(browser.ok("tab", "new", admin_site.url("admin/login/?next=/admin/"))["id"])
    browser.ok("fill", "#id_username", USER, "--tab", tab)
    browser.ok("fill", "#id_password", PASSWORD, "--tab", tab)
    browser.ok("click", 'role=button[name="Log in"]', "--tab", tab)
    yield tab
    browser.cli("tab", "close", tab)


def _expenses() -> Any:
    from expenses.models import Expense

    return Expense.objects


def _path(browser: Browser, tab: str) -> str:
    return str(browser.ok("eval", "location.pathname", "--tab", tab)["value"])


def _open_add_page(browser: Browser, admin_site: DjangoSite, tab: str) -> None:
    browser.ok("navigate", admin_site.url("admin/expenses/expense/add/"), "--tab", tab)


def test_the_login_form_signs_the_user_in(browser: Browser, signed_in: str) -> None:
    from django.contrib.auth.models import User

    assert User.objects.get(username=USER).last_login is not None
    assert _path(browser, signed_in) == "/admin/"


def test_add_an_expense_through_every_admin_widget(
    browser: Browser, admin_site: DjangoSite, signed_in: str
) -> None:
    tab = signed_in
    _open_add_page(browser, admin_site, tab)
    # autocomplete_fields: select2's combobox (the <select> itself is hidden behind it).
    body = browser.ok("choose", "role=combobox", "Blue Bottle", "--tab", tab)
    assert (body["chose"], body["shows"]) == ("Blue Bottle Coffee", "Blue Bottle Coffee"), body
    # The calendar popup: its icon, the previous month, the 15th.
    browser.ok("click", "#calendarlink0", "--tab", tab)
    browser.ok("click", 'role=link[name="<"]', "--tab", tab)
    browser.ok("click", 'role=link[name="15"]', "--tab", tab)
    # The clock popup: its icon, then one of the times it offers.
    browser.ok("click", "#clocklink0", "--tab", tab)
    browser.ok("click", 'role=link[name="6 a.m."]', "--tab", tab)
    # filter_horizontal: select in "Available", press the Choose arrow; a double-click moves too.
    browser.ok("select", "#id_tags_from", "travel", "--tab", tab)
    browser.ok("click", 'role=button[name="Choose selected tags"]', "--tab", tab)
    browser.ok("dblclick", "text=billable", "--tab", tab)
    browser.ok("dblclick", 'role=option[name="client-x"]', "--tab", tab)
    # The inline: a new row, filled.
    browser.ok("click", 'role=button[name="Add another Expense line"]', "--tab", tab)
    browser.ok("fill", "#id_lines-0-description", "Flat white", "--tab", tab)
    browser.ok("fill", "#id_lines-0-amount", "4.50", "--tab", tab)
    body = browser.ok("click", 'role=button[name="Save"]', "--tab", tab)
    assert body["effect"].get("navigated"), body
    assert _path(browser, tab) == "/admin/expenses/expense/"

    expense = _expenses().get(merchant__name="Blue Bottle Coffee")
    first = datetime.date.today().replace(day=1)
    last_month = (first - datetime.timedelta(days=1)).replace(day=15)
    assert expense.date == last_month
    assert expense.time == datetime.time(6, 0)
    assert sorted(t.name for t in expense.tags.all()) == ["billable", "client-x", "travel"]
    lines = [(line.description, str(line.amount)) for line in expense.lines.all()]
    assert lines == [("Flat white", "4.50")]


def test_a_merchant_added_through_the_admin_popup_is_chosen(
    browser: Browser, admin_site: DjangoSite, signed_in: str
) -> None:
    """ "Add another merchant" opens the merchant form in a popup window; saved there, the popup
    hands the new merchant to the select2 of the page that opened it and closes itself."""
    tab = signed_in
    _open_add_page(browser, admin_site, tab)
    before = {t["id"] for t in browser.ok("tabs")["tabs"]}
    browser.ok("click", 'role=link[name="Add another merchant"]', "--tab", tab)
    popups = eventually(
        lambda: [t for t in browser.ok("tabs")["tabs"] if t["id"] not in before],
        lambda found: len(found) == 1,
    )
    assert len(popups) == 1 and "_popup=1" in popups[0]["url"], popups
    popup = str(popups[0]["id"])
    try:
        browser.ok("fill", 'role=textbox[name="Name:"]', "Eastside Bakery", "--tab", popup)
        browser.ok("click", 'role=button[name="Save"]', "--tab", popup)
        # The answer comes as the popup's response page arrives; its script then hands the
        # merchant over and closes the window.
        left = eventually(
            lambda: [t for t in browser.ok("tabs")["tabs"] if str(t["id"]) == popup],
            lambda found: found == [],
        )
        assert left == [], "the popup did not close itself"
    finally:
        browser.cli("tab", "close", popup)
    browser.ok("fill", "#id_date", "2026-03-14", "--tab", tab)
    browser.ok("fill", "#id_time", "09:30:00", "--tab", tab)
    body = browser.ok("click", 'role=button[name="Save"]', "--tab", tab)
    assert body["effect"].get("navigated"), body

    expense = _expenses().get(merchant__name="Eastside Bakery")
    assert (expense.date, expense.time) == (datetime.date(2026, 3, 14), datetime.time(9, 30))
    assert list(expense.tags.all()) == [] and list(expense.lines.all()) == []


def test_choose_on_the_select_that_select2_hides(
    browser: Browser, admin_site: DjangoSite, signed_in: str
) -> None:
    """The label names the <select> select2 hides (1 px, clipped) under the combobox it draws
    right after it: choose drives that combobox. Before, it answered `obscured` (covered by
    span.select2-selection) once its whole budget ran out."""
    tab = signed_in
    _open_add_page(browser, admin_site, tab)
    code, body = browser.cli(
        "choose", "#id_merchant", "Corner", "--tab", tab, "--timeout-ms", "3000"
    )
    assert code == 0 and body.get("shows") == "Corner Hardware", body
    # What the form will post: the select's own value, which select2 set.
    browser.switch_to("/admin/expenses/expense/add/")
    chosen = browser.js(
        "const s = document.querySelector('#id_merchant');"
        "return [...s.selectedOptions].map((o) => o.textContent.trim())"
    )
    assert chosen == ["Corner Hardware"], chosen
