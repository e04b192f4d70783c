"""A fast ``dataclasses.replace`` for the engine's frozen state records.

``dataclasses.replace`` re-runs ``__init__`` through field introspection and
dominates move application time; state records have no ``__post_init__``, so
copying the instance dict is equivalent.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def evolve(obj: T, **changes: Any) -> T:
    new = object.__new__(type(obj))
    d = new.__dict__
    d.update(obj.__dict__)
    for key in changes:
        if key not in d:
            raise TypeError(f"{type(obj).__name__} has no field {key!r}")
    d.update(changes)
    return new
