"""A real Django admin (fixtures/django) served on a free loopback port, for test_django_admin.py.

Django is configured once in the test process: the server threads and the tests' ORM reads share
one sqlite file in a temporary folder (REINS_DJANGO_DATA), so the test reads what the admin saved.
Static files come through StaticFilesHandler with DEBUG off, as LiveServerTestCase serves them.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[2] / "fixtures" / "django"
USER, PASSWORD = "admin", "reins-admin-pw"
MERCHANTS = ["Acme Office Supply", "Blue Bottle Coffee", "Corner Hardware", "Delta Airlines"]
TAGS = ["billable", "client-x", "recurring", "travel"]


@dataclass(frozen=True)
class DjangoSite:
    base: str

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"


def _setup(data: Path) -> None:
    os.environ["REINS_DJANGO_DATA"] = str(data)
    os.environ["DJANGO_SETTINGS_MODULE"] = "expense_site.settings"
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    from django.contrib.auth.models import User
    from expenses.models import Merchant, Tag

    User.objects.create_superuser(USER, "admin@example.com", PASSWORD)
    Merchant.objects.bulk_create([Merchant(name=n) for n in MERCHANTS])
    Tag.objects.bulk_create([Tag(name=n) for n in TAGS])


@contextmanager
def django_site() -> Iterator[DjangoSite]:
    """Migrate a fresh database, add the user, merchants and tags, serve the admin; stop after."""
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    with tempfile.TemporaryDirectory(prefix="rdj-") as data:
        _setup(Path(data))
        from django.contrib.staticfiles.handlers import StaticFilesHandler
        from django.core.wsgi import get_wsgi_application

        server = ThreadedWSGIServer(("127.0.0.1", 0), Quiet, allow_reuse_address=False)
        server.set_app(StaticFilesHandler(get_wsgi_application()))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield DjangoSite(f"http://127.0.0.1:{server.server_address[1]}")
        finally:
            server.shutdown()
            server.server_close()
            thread.join(5)
            from django.db import connections

            connections.close_all()
