"""HTML built so that text can only ever be text: every ``str`` is escaped when it is placed.

A report shows what pages said (URLs, titles, console messages, error texts), and a page is
hostile: ``<script>`` in a console message must reach the reader as those eight characters. So
there is no template to forget an escape in: ``el(tag, attrs, *children)`` escapes every string
child and every attribute value, and only ``Markup`` (made here, by ``el`` and ``raw`` over the
report's own constant CSS) passes through as it is. Tag and attribute names are checked to be
plain words, and no page string is ever put in an ``href`` or ``src``.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reins._errors import ReinsError
from reins._pagetext import visible_lines

__all__ = ["Markup", "el", "esc", "join", "picture", "raw"]

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_VOID = frozenset({"meta", "img", "br", "hr", "col"})


class Markup(str):
    """HTML this module made: placed as it is."""

    __slots__ = ()


def esc(value: Any) -> Markup:
    if isinstance(value, Markup):
        return value
    # Controls, bidi overrides and zero-width characters shown as escapes, not obeyed.
    return Markup(html.escape(visible_lines(str(value)), quote=True))


def raw(trusted: str) -> Markup:
    """The report's own constant markup (its stylesheet): never anything read from a trace."""
    return Markup(trusted)


Child = Any  # str, Markup, number, None (skipped), or an iterable of these


def _children(items: Iterable[Child]) -> Iterable[Markup]:
    for item in items:
        if item is None or item is False:
            continue
        if isinstance(item, str | int | float):
            yield esc(item)
        else:
            yield from _children(item)


def join(*children: Child) -> Markup:
    return Markup("".join(_children(children)))


def el(tag: str, attrs: dict[str, Any] | None = None, *children: Child) -> Markup:
    """``<tag attrs>children</tag>``, everything escaped but ``Markup``."""
    if not _NAME.match(tag):
        raise ReinsError(f"not a tag name: {tag!r}", code="internal")
    parts = [tag]
    for name, value in (attrs or {}).items():
        name = name.rstrip("_").replace("_", "-")
        if not _NAME.match(name):
            raise ReinsError(f"not an attribute name: {name!r}", code="internal")
        if value is None or value is False:
            continue
        parts.append(name if value is True else f'{name}="{esc(value)}"')
    opening = f"<{' '.join(parts)}>"
    if tag in _VOID:
        return Markup(opening)
    return Markup(f"{opening}{join(*children)}</{tag}>")


def picture(directory: Path, path: str | None, caption: str) -> Markup | None:
    """A trace's picture (``path``: a name ``run.picture_path`` let through) embedded as a data:
    URI of its bytes, or a caption that says it is missing."""
    if path is None:
        return None
    try:
        data = (directory / path).read_bytes()
    except OSError:
        return el("figure", None, el("figcaption", None, f"{caption}: picture missing ({path})"))
    uri = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
    return el(
        "figure",
        None,
        el("img", {"src": raw(uri), "alt": f"{caption} ({path})"}),
        el("figcaption", None, caption),
    )
