"""Pickling of the registry's slots dataclasses by their fields, in one call per object.

A dataclass with ``slots=True`` pickles through ``dataclasses._dataclass_getstate`` and
``_dataclass_setstate``, which call ``fields()`` and ``getattr`` / ``object.__setattr__`` one
field at a time: about 30 µs per registry entry with its identity, locator and bounds, so
compacting a registry of 20,000 entries (``store.left_big_document``) held the event loop
for over a second. ``by_fields`` makes such a class pickle as ``(cls, (field values...))``:
one ``attrgetter`` call to save, the class's own ``__init__`` to load.

Only for classes whose ``__init__`` takes every field positionally, in order, and does nothing
else (no ``__post_init__``, no ``init=False`` fields): what a plain ``@dataclass`` makes.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, TypeVar

from reins._errors import ReinsError

__all__ = ["by_fields"]

T = TypeVar("T", bound=type)


def by_fields(cls: T) -> T:
    """Give the dataclass ``cls`` a ``__reduce__`` that saves its field values as one tuple.

    Applied above ``@dataclass``. Raises ``ReinsError`` (``internal``: a reins bug, at import)
    for a class it would pickle wrongly."""
    if not dataclasses.is_dataclass(cls):
        raise ReinsError(f"{cls.__name__} is not a dataclass")
    names = tuple(f.name for f in dataclasses.fields(cls))
    if any(not f.init for f in dataclasses.fields(cls)) or hasattr(cls, "__post_init__"):
        raise ReinsError(f"{cls.__name__}.__init__ does more than set its fields")
    if not names:
        raise ReinsError(f"{cls.__name__} has no fields")
    get = operator.attrgetter(*names)
    single = len(names) == 1

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        values = get(self)
        return (type(self), (values,) if single else values)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls
