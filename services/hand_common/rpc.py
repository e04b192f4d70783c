"""The one wrapper that makes a handler a gRPC method of any service.

``rpc(log, refuse=..., bind=...)`` wraps ``async def handler(self, request,
context)``: it binds the call's name and ``bind(request)`` to every log line
of the call, turns an exception into a refused call through ``refuse``
(``None``: not a refusal, the exception propagates), and logs one summary line
``event=rpc code duration_ms`` per call (``code``: ``OK``, the refusal's code,
``ABORTED`` when a helper already answered, ``CANCELLED``) — at info, except an OK call's,
which is at debug unless ``HAND_LOG_CALLS=all`` (decision 0048: a line per move is ~2.5 % of
a room instance's CPU at 150 act/s; the metrics count every call either way).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import grpc

from .language import language_of
from .logging import CALLS, bound_context

__all__ = ["Refused", "plain_status", "rpc"]


class _Status(NamedTuple):
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple = ()


def plain_status(code: grpc.StatusCode, details: str) -> _Status:
    """A status without a ``RuleError`` detail (``INTERNAL``: nothing to tell the caller)."""
    return _Status(code, details)


@dataclass(frozen=True)
class Refused:
    """How a call was refused: the code logged, the status sent, extra summary fields."""

    code: str
    status: Any  # a grpc.Status: code, details, trailing_metadata
    fields: Mapping[str, object] = field(default_factory=dict)


def rpc(log: Any, *, refuse: Callable[[BaseException, str], Refused | None],
        bind: Callable[[Any], Mapping[str, object]] = lambda request: {},
        name_key: str = "rpc", digits: int = 2) -> Callable:
    """The decorator; ``refuse(exc, lang)`` gets the caller's ``accept-language``."""

    def wrap(handler: Callable) -> Callable:
        name = handler.__name__

        async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
            started = time.perf_counter()
            code, fields = "OK", {}
            with bound_context(**{name_key: name}, **bind(request)):
                try:
                    return await handler(self, request, context)
                except grpc.aio.AbortError:
                    code = "ABORTED"  # already answered by a helper (e.g. a bad session token)
                    raise
                except asyncio.CancelledError:
                    code = "CANCELLED"
                    raise
                except Exception as exc:
                    refused = refuse(exc, language_of(context.invocation_metadata()))
                    if refused is None:
                        raise
                    code, fields, status = refused.code, refused.fields, refused.status
                    await context.abort(status.code, status.details, status.trailing_metadata)
                finally:
                    line = log.info if code != "OK" or CALLS["ok_at_info"] else log.debug
                    line("rpc", code=code, **fields, duration_ms=round((time.perf_counter() - started) * 1000, digits))

        call.__name__ = call.__qualname__ = name
        call.__doc__ = handler.__doc__
        return call

    return wrap
