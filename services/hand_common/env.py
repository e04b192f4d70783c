"""Environment variables, declared once where they are read, and the reader of their values.

A variable is declared once, by the package whose settings read it, as an
:class:`EnvVar`: its name, its default (the text it would hold), its meaning
and its parser. Declaring it registers it here, so the reader finds its default
by name; the settings dataclass takes the parsed default as its field default
(:func:`setting`), so no default is written twice. ``hand_common.settings_index``
gathers every service's variables for the deploy checks and the docs.

:class:`EnvReader` collects every problem instead of stopping at the first;
``check()`` raises one :class:`ConfigError` naming every bad variable, before
a service binds a port.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

__all__ = [
    "ConfigError", "EnvReader", "EnvVar", "choice", "declared", "integer", "load_or_exit", "raw",
    "number", "read_settings", "setting", "switch", "text",
]

T = TypeVar("T")
C = TypeVar("C")

Parser = Callable[["EnvReader", "EnvVar[Any]"], Any]


class ConfigError(ValueError):
    """One or more environment variables hold values a service cannot start with."""


def raw(env: EnvReader, var: EnvVar[Any]) -> str:
    """The value as written (stripped), or the default."""
    return env.raw(var)


def text(env: EnvReader, var: EnvVar[Any]) -> str:
    """The value, which may not contain whitespace."""
    return env.text(var)


def integer(low: int, high: int) -> Parser:
    """An integer from ``low`` to ``high``."""
    return lambda env, var: env.integer(var, low, high)


def number(low: float, high: float) -> Parser:
    """A number (of seconds, mostly) from ``low`` to ``high``."""
    return lambda env, var: env.number(var, low, high)


def choice(*choices: str) -> Parser:
    """One of ``choices`` (case-insensitive; lowered)."""
    return lambda env, var: env.choice(var, choices)


def switch(env: EnvReader, var: EnvVar[Any]) -> bool:
    """``on`` or ``off``, as a bool."""
    return env.choice(var, ("on", "off")) == "on"


_DECLARED: dict[str, EnvVar[Any]] = {}


@dataclass(frozen=True)
class EnvVar(Generic[T]):
    """A variable a service reads: its name, its default (as the text it would hold), its
    meaning and how its text is parsed. Constructing one declares it (a name declared twice
    with another default or meaning is an error)."""

    name: str
    default: str
    description: str
    parse: Callable[[EnvReader, EnvVar[T]], T] = field(default=cast(Any, raw), repr=False, compare=False)

    def __post_init__(self) -> None:
        known = _DECLARED.setdefault(self.name, self)
        if known != self:
            raise ValueError(f"{self.name} is declared twice, differently: {known} and {self}")

    @property
    def value(self) -> T:
        """The default, parsed: what an empty environment gives (a default that does not
        parse is a bug of its declaration: ``ConfigError``)."""
        env = EnvReader({})
        try:
            value = self.parse(env, self)
        except ValueError as error:  # the fallback to the default failed too
            env.problems.append(str(error))
        env.check(f"the default of {self.name}")
        return value


def declared(name: str) -> EnvVar[Any]:
    """The declared variable ``name``; one not declared yet is looked for among every
    service's settings (``hand_common.settings_index``). ``KeyError``: none declares it."""
    if name not in _DECLARED:
        from .settings_index import all_env_vars  # imports every settings module: they declare

        all_env_vars()
    return _DECLARED[name]


def setting(var: EnvVar[T], *, required: bool = False, repr: bool = True) -> T:  # noqa: A002
    """A settings dataclass field read from ``var`` by :func:`read_settings`; its default is
    ``var``'s parsed default (``required``: none, the field is given positionally;
    ``repr=False``: a secret, kept out of log lines)."""
    if required:
        return cast(T, field(repr=repr, metadata={"env": var}))
    return cast(T, field(default=var.value, repr=repr, metadata={"env": var}))


def read_settings(cls: type[C], env: EnvReader, **given: Any) -> C:
    """``cls`` with every :func:`setting` field read from ``env``, and the other fields (or
    overrides) from ``given``."""
    values = {f.name: env.get(f.metadata["env"]) for f in dataclasses.fields(cast(Any, cls))
              if "env" in f.metadata and f.name not in given}
    return cls(**values, **given)


class EnvReader:
    """Reads declared variables, collecting every problem instead of stopping at the first."""

    def __init__(self, environ: Mapping[str, str] | None) -> None:
        self._environ = os.environ if environ is None else environ
        self.problems: list[str] = []

    @staticmethod
    def _var(var: EnvVar[Any] | str) -> EnvVar[Any]:
        return declared(var) if isinstance(var, str) else var

    def get(self, var: EnvVar[T]) -> T:
        """``var`` parsed by its own parser."""
        return var.parse(self, var)

    def raw(self, var: EnvVar[Any] | str) -> str:
        """The variable's value, stripped, or its declared default."""
        var = self._var(var)  # KeyError: a variable nobody declares
        value = self._environ.get(var.name, "").strip()
        return value or var.default

    def fail(self, var: EnvVar[Any] | str, value: str, expected: str) -> None:
        """Record that ``var`` holds ``value`` where ``expected`` was."""
        name = var if isinstance(var, str) else var.name
        self.problems.append(f"{name}={value!r}: expected {expected}")

    def text(self, var: EnvVar[Any] | str) -> str:
        value = self.raw(var)
        if any(c.isspace() for c in value):
            self.fail(var, value, "no whitespace")
        return value

    def integer(self, var: EnvVar[Any] | str, low: int, high: int) -> int:
        var = self._var(var)
        value = self.raw(var)
        try:
            number = int(value, 10)
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            self.fail(var, value, f"an integer from {low} to {high}")
            return int(var.default)
        return number

    def number(self, var: EnvVar[Any] | str, low: float, high: float) -> float:
        var = self._var(var)
        value = self.raw(var)
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not low <= number <= high:  # also rejects nan
            self.fail(var, value, f"a number of seconds from {low:g} to {high:g}")
            return float(var.default)
        return number

    def choice(self, var: EnvVar[Any] | str, choices: tuple[str, ...]) -> str:
        var = self._var(var)
        value = self.raw(var).lower()
        if value not in choices:
            self.fail(var, value, "one of " + ", ".join(choices))
            return var.default
        return value

    def check(self, what: str) -> None:
        if self.problems:
            raise ConfigError(f"invalid {what} configuration: " + "; ".join(self.problems))


def load_or_exit(from_env: Callable[[], T]) -> T:
    """Call ``from_env()`` in a ``__main__``; on ``ConfigError`` print it and exit with status 2."""
    try:
        return from_env()
    except ConfigError as error:
        print(f"hand: {error}", file=sys.stderr)
        raise SystemExit(2) from None
