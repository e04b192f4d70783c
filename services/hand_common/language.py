"""The caller's language: ``ar`` or ``en``, from an ``accept-language`` value (default ``en``)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "language", "language_of"]

LANGUAGES = ("en", "ar")
DEFAULT_LANGUAGE = "en"
_MAX_HEADER = 256  # longer values are cut before parsing: bounded work for any header


def language(accept_language: str | None) -> str:
    """The best of ``LANGUAGES`` for an ``accept-language`` value (``ar-SA,en;q=0.8``)."""
    best, best_q = DEFAULT_LANGUAGE, 0.0
    for item in (accept_language or "")[:_MAX_HEADER].split(","):
        tag, _, rest = item.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        q = 1.0
        if rest.strip().startswith("q="):
            try:
                q = float(rest.strip()[2:])
            except ValueError:
                q = 0.0
        if primary in LANGUAGES and q > best_q:
            best, best_q = primary, q
    return best


def language_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The language of gRPC invocation metadata (its ``accept-language`` entry)."""
    for key, value in metadata or ():
        if key == "accept-language":
            return language(value if isinstance(value, str) else value.decode("latin-1"))
    return DEFAULT_LANGUAGE
