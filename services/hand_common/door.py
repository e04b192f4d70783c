"""The door: a grpc.aio server interceptor that refuses bad requests before any handler runs.

- Request bytes that do not decode (garbage, invalid UTF-8 in a string, a
  wrong wire type) → ``INVALID_ARGUMENT`` with ``ERROR_CODE_INVALID_ARGUMENT``
  and ``params.field = "(request)"``, instead of grpc's ``UNKNOWN``
  "Unexpected DecodeError": every method's request deserializer is wrapped
  so it returns a marker instead of raising, and the wrapped handler refuses
  the marker.
- Any string, bytes, repeated or map field over its documented limit
  (:mod:`hand_common.limits`) → ``INVALID_ARGUMENT`` with
  ``ERROR_CODE_LIMIT_EXCEEDED``, ``params.field`` and ``params.limit``.

One line per refusal is logged, naming the method and the field, never a
value. ``grpc.health.v1`` and server reflection pass through untouched.
``wrap_handler`` is the shared plumbing the rate limiter uses too.

    server = grpc.aio.server(interceptors=door_interceptors(config.limits, verifier))
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import structlog
from google.protobuf.message import Message

from .handler_memo import HandlerMemo
from .language import language_of
from .limits import check
from .refusal import Refusal, refusal_status

__all__ = ["MALFORMED", "DoorInterceptor", "abort_refusal", "exempt", "maybe_await", "wrap_handler"]

log = structlog.get_logger("hand_common.door")
EXEMPT_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")
Gate = Callable[[Any, grpc.aio.ServicerContext], Awaitable[None]]


class _Malformed:
    """What a guarded deserializer returns for bytes that do not decode."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<malformed request>"


MALFORMED = _Malformed()


def exempt(method: str) -> bool:
    """Health checks and reflection: never refused, counted or limited."""
    return method.startswith(EXEMPT_PREFIXES)


async def abort_refusal(context: grpc.aio.ServicerContext, refusal: Refusal) -> None:
    """Fail the call with the refusal's status (raises, as ``context.abort`` does)."""
    status = refusal_status(refusal, language_of(context.invocation_metadata()))
    await context.abort(status.code, status.details, status.trailing_metadata)


def _guard(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None

    def guarded(raw: bytes) -> Any:
        try:
            return deserialize(raw)
        except Exception:  # DecodeError, and anything else a parser raises on bad bytes
            return MALFORMED

    return guarded


async def maybe_await(result: Any) -> Any:
    return await result if inspect.isawaitable(result) else result


def wrap_handler(handler: grpc.RpcMethodHandler, gate: Gate, *, guard: bool = False,
                 on_stream: Callable[[Any, grpc.aio.ServicerContext], Any] | None = None
                 ) -> grpc.RpcMethodHandler:
    """``handler`` with ``await gate(request, context)`` run before its behaviour.

    Unary-request methods only (every method of ours); others are returned as
    they are. ``guard`` also wraps the request deserializer (see ``MALFORMED``).
    ``on_stream(request, context)``, for server-streaming methods, returns a
    context manager held for the life of the stream (the Watch stream limit).
    """
    if handler.request_streaming:
        return handler
    deserializer = _guard(handler.request_deserializer) if guard else handler.request_deserializer
    serializer = handler.response_serializer
    if not handler.response_streaming:
        inner = handler.unary_unary

        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            await gate(request, context)
            return await maybe_await(inner(request, context))

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=deserializer, response_serializer=serializer)
    inner_stream = handler.unary_stream

    async def stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await gate(request, context)
        holder = on_stream(request, context) if on_stream is not None else None
        if holder is not None:
            holder.__enter__()
        try:
            result = inner_stream(request, context)
            if hasattr(result, "__aiter__"):
                async for item in result:
                    yield item
            else:  # a handler that writes with context.write()
                await maybe_await(result)
        finally:
            if holder is not None:
                holder.__exit__(None, None, None)

    return grpc.unary_stream_rpc_method_handler(
        stream, request_deserializer=deserializer, response_serializer=serializer)


class DoorInterceptor(grpc.aio.ServerInterceptor):
    """Refuses undecodable requests and fields over their limits (see the module doc)."""

    def __init__(self) -> None:
        self._memo = HandlerMemo()

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or exempt(method):
            return handler
        return self._memo.wrapped(handler, method, _guarded, method)


def _guarded(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    async def gate(request: Any, context: grpc.aio.ServicerContext) -> None:
        try:
            if request is MALFORMED:
                raise Refusal("INVALID_ARGUMENT", "undecodable request", field="(request)")
            if isinstance(request, Message):  # a generic bytes handler has nothing to walk
                check(request)
        except Refusal as refusal:
            log.info("refused", method=method, code=refusal.code, **refusal.params)
            await abort_refusal(context, refusal)

    return wrap_handler(handler, gate, guard=True)
