"""structlog set-up shared by every service.

- ``merge_contextvars`` runs first, so ``room_id`` / ``match_id`` / ``seat`` /
  ``seq`` bound for a request or a message appear on every line it logs.
- JSON lines when the stream is not a terminal (or ``HAND_LOG_FORMAT=json``),
  the pretty console renderer in a terminal (or ``HAND_LOG_FORMAT=console``).
- ``trace_id`` and ``span_id`` of the current span when tracing is on
  (``hand_common.tracing.add_trace_ids``).
- ISO-8601 UTC timestamps and the level name on every line.
- Standard-library loggers (grpc, aiokafka, asyncio) are routed through the
  same processors, so a container's output is one format.
- Bounded and secret-free: every string value is cut to ``MAX_VALUE``
  characters (a traceback to ``MAX_TRACEBACK``), containers to
  ``MAX_ITEMS`` items, a value whose key names a secret (``token``,
  ``secret``, ``password``, ``authorization``, ``private_key``, ``signing_key``) is replaced by
  ``[redacted]``, and tracebacks never show frame locals (structlog's JSON
  traceback shows them by default: a seat token reached the room log so).

The engine never logs: it returns events. Call ``configure_logging`` once,
in a service's ``__main__``.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import structlog
import structlog.tracebacks
from structlog.typing import Processor

from hand_common.config import LogConfig
from hand_common.tracing import add_trace_ids

__all__ = ["GAME_KEYS", "MAX_VALUE", "bind_game", "bound_context", "bound_values", "configure_logging",
           "game_context", "renders_json"]

GAME_KEYS = ("room_id", "match_id", "seat", "seq")
MAX_VALUE = 512
MAX_TRACEBACK = 16_384
MAX_ITEMS = 64
SECRET_WORDS = ("token", "secret", "password", "authorization", "private_key", "signing_key")
_TRACEBACK_KEYS = ("exception", "stack")

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}


def renders_json(config: LogConfig, stream: TextIO) -> bool:
    """Whether lines are JSON: forced by the config, else whenever ``stream`` is not a terminal."""
    if config.format != "auto":
        return config.format == "json"
    isatty = getattr(stream, "isatty", None)
    return not (isatty is not None and isatty())


def _cut(value: Any, limit: int, depth: int = 0) -> Any:
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}…[+{len(value) - limit} chars]"
    if isinstance(value, bytes):
        return _cut(value[:limit].decode("utf-8", "replace"), limit) if len(value) > limit else value
    if depth > 6:
        return "[nested too deep]"
    if isinstance(value, dict):
        items = list(value.items())
        out = {str(k)[:64]: _cut(v, limit, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            out["…"] = f"+{len(items) - MAX_ITEMS} items"
        return out
    if isinstance(value, (list, tuple)):
        out_list = [_cut(v, limit, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            out_list.append(f"…+{len(value) - MAX_ITEMS} items")
        return out_list
    return value


@functools.lru_cache(maxsize=1024)  # a line's keys come from a small set: looked at once each
def _secret(key: str) -> bool:
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS) and lowered != "event"


#: values nothing needs cutting in (most of a line's: ids, codes, counts, durations)
_PLAIN = frozenset({int, float, bool, type(None)})


def bound_values(_logger: Any, _name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """Processor: cut long values, redact secrets (see the module doc)."""
    for key, value in event_dict.items():  # values replaced in place: the keys stay as they are
        if _secret(key):
            if value not in (None, ""):
                event_dict[key] = "[redacted]"
        elif type(value) in _PLAIN or (type(value) is str and len(value) <= MAX_VALUE):
            continue
        else:
            event_dict[key] = _cut(value, MAX_TRACEBACK if key in _TRACEBACK_KEYS else MAX_VALUE)
    return event_dict


def _shared_processors() -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        add_trace_ids,  # trace_id / span_id of the current span (tracing on only)
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]


#: whether a call that ended OK logs its ``rpc`` line at info (``HAND_LOG_CALLS``; hand_common.rpc)
CALLS = {"ok_at_info": False}


def configure_logging(config: LogConfig, stream: TextIO | None = None) -> None:
    """Configure structlog and the standard ``logging`` root for this process.

    ``stream`` defaults to ``sys.stderr``. Calling it again replaces the
    previous configuration (tests do this).
    """
    CALLS["ok_at_info"] = config.calls == "all"
    stream = sys.stderr if stream is None else stream
    level = _LEVELS[config.level]
    as_json = renders_json(config, stream)
    renderer: Processor
    if as_json:
        renderer = structlog.processors.JSONRenderer()
        format_exc: list[Processor] = [structlog.processors.ExceptionRenderer(
            structlog.tracebacks.ExceptionDictTransformer(show_locals=False)), bound_values]
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=_colors(stream), exception_formatter=structlog.dev.plain_traceback)
        format_exc = [structlog.processors.format_exc_info, bound_values]

    structlog.configure(
        processors=[
            *_shared_processors(),
            *format_exc,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        context_class=dict,
        # one write a line (PrintLogger writes the line and its newline apart: two syscalls on stderr)
        logger_factory=structlog.WriteLoggerFactory(file=stream),
        # Not cached: structlog.testing.capture_logs() must see loggers that
        # modules created at import time.
        cache_logger_on_first_use=False,
    )

    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            *_shared_processors(),
            structlog.stdlib.add_logger_name,
            structlog.stdlib.ExtraAdder(),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *format_exc,
            renderer,
        ],
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_hand_handler", False):
            root.removeHandler(old)
    handler._hand_handler = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)


def _colors(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def _game_values(
    room_id: str | None, match_id: str | None, seat: int | None, seq: int | None
) -> dict[str, Any]:
    values = {"room_id": room_id, "match_id": match_id, "seat": seat, "seq": seq}
    return {key: value for key, value in values.items() if value is not None}


def bind_game(
    *,
    room_id: str | None = None,
    match_id: str | None = None,
    seat: int | None = None,
    seq: int | None = None,
) -> None:
    """Bind the given game identifiers to the current context (``None`` ones are left alone).

    Use at the start of a request or message handler; ``game_context`` is
    the scoped form.
    """
    structlog.contextvars.bind_contextvars(**_game_values(room_id, match_id, seat, seq))


@contextmanager
def game_context(
    *,
    room_id: str | None = None,
    match_id: str | None = None,
    seat: int | None = None,
    seq: int | None = None,
) -> Iterator[None]:
    """Bind game identifiers for the ``with`` block, restoring the previous values after it."""
    with bound_context(**_game_values(room_id, match_id, seat, seq)):
        yield


class bound_context:
    """``with bound_context(room_id=…):`` binds log values for the block and restores each
    key's previous value after it — structlog's ``bound_contextvars`` without its cost:
    that one reads every context variable of the task on the way in (to save the old
    values) and is a generator-based context manager; this one keeps the ``Token`` of each
    variable it sets and resets it (three keys: 5.0–5.4 µs → 2.1 µs, timeit; every call
    and every command of a room instance binds its values so). A block left in another
    context than it was entered in (an async generator closed by the collector's
    finalizer) restores the old value by setting it instead."""

    __slots__ = ("_values", "_tokens")

    def __init__(self, **values: Any) -> None:
        self._values = values

    def __enter__(self) -> None:
        self._tokens = structlog.contextvars.bind_contextvars(**self._values)

    def __exit__(self, *exc: object) -> None:
        for token in self._tokens.values():
            try:
                token.var.reset(token)
            except ValueError:  # another context: restore the value itself
                token.var.set(Ellipsis if token.old_value is token.MISSING else token.old_value)
