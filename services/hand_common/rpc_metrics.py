"""Every RPC of every service, measured at the one edge they share.

``MetricsInterceptor`` is the first of ``edge_interceptors`` (``hand_common.serving``),
so it sees every call a native gRPC server or the browser bridge (``hand_web``,
which runs the same interceptors) accepts, refusals by the rate limiter and
the door included; health checks and reflection are not counted. Per call:

- ``hand_rpc_server_requests_total{service, method, transport, code, error_code}``
- ``hand_rpc_server_duration_seconds{service, method, transport, code}`` (unary calls)
- ``hand_rpc_server_streams_open{service, method, transport}`` (Watch)

``transport``: ``grpc`` (native), ``connect`` or ``grpc-web`` (the browser
protocol, told apart by the request's content type). ``code``: the gRPC
status name; ``error_code``: the ``hand.v1.RuleError`` code of a refusal
(``LIMIT_EXCEEDED``, ``NOT_YOUR_TURN`` …), empty when none. With tracing on,
each call is also a SERVER span, a child of the caller's ``traceparent``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
from google.rpc import status_pb2
from opentelemetry.trace import SpanKind

from hand.v1 import errors_pb2

from .door import exempt
from .metrics import FAST_BUCKETS, counter, gauge, histogram
from .handler_memo import HandlerMemo
from .tracing import enabled as tracing_enabled, extract, start_span

__all__ = ["REQUESTS", "DURATION", "STREAMS_OPEN", "MetricsInterceptor", "transport_of"]

REQUESTS = counter("hand_rpc_server_requests", "RPCs answered, by outcome",
                   ["service", "method", "transport", "code", "error_code"])
DURATION = histogram("hand_rpc_server_duration_seconds",
                     "Time from a unary RPC's arrival to its answer (or refusal)",
                     ["service", "method", "transport", "code"], buckets=FAST_BUCKETS)
STREAMS_OPEN = gauge("hand_rpc_server_streams_open", "Server streams (Watch) open now",
                     ["service", "method", "transport"])
DETAILS_KEY = "grpc-status-details-bin"
_RULE_ERROR = errors_pb2.RuleError.DESCRIPTOR.full_name


def transport_of(metadata: Any) -> str:
    """``grpc``, ``connect`` or ``grpc-web``, from the call's (HTTP) headers: native gRPC's
    metadata carries no content type, a browser call's headers do."""
    for key, value in metadata or ():
        if key == "content-type":
            return "grpc-web" if str(value).startswith("application/grpc-web") else "connect"
    return "grpc"


def _error_code(trailers: Any) -> str:
    for key, value in trailers or ():
        if key == DETAILS_KEY:
            try:
                status = status_pb2.Status.FromString(value)
            except Exception:  # not ours to judge: the code is still counted
                return ""
            for detail in status.details:
                if detail.type_url.endswith(_RULE_ERROR):
                    error = errors_pb2.RuleError.FromString(detail.value)
                    name = errors_pb2.ErrorCode.Name(error.code) if error.code in \
                        errors_pb2.ErrorCode.values() else "UNKNOWN"
                    return name.removeprefix("ERROR_CODE_")
    return ""


def _name(code: Any) -> str:
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):
        return next((c.name for c in grpc.StatusCode if c.value[0] == code), "UNKNOWN")
    return getattr(code, "name", None) or str(code).upper()


def outcome(exc: BaseException | None, context: Any) -> tuple[str, str]:
    """``(code, error_code)`` of a finished call: ``exc`` is what the handler raised."""
    if exc is None:
        return "OK", ""
    if isinstance(exc, (asyncio.CancelledError, GeneratorExit)):  # the caller went away
        return "CANCELLED", ""
    if isinstance(exc, grpc.aio.AbortError):
        browser = getattr(exc, "code", None)  # hand_web's BrowserAbort: code and trailers on it
        if browser is not None and not callable(browser):
            return _name(browser), _error_code(getattr(exc, "trailing_metadata", ()))
        try:
            return _name(context.code()), _error_code(context.trailing_metadata())
        except Exception:  # a context without them
            return "UNKNOWN", ""
    return "UNKNOWN", ""  # what grpc answers for an unexpected exception


class _Labels:
    """The children of one method and transport, cached (a dict look-up per call)."""

    __slots__ = ("service", "method", "transport", "_requests", "_duration", "streams")

    def __init__(self, path: str, transport: str) -> None:
        self.service, _, self.method = path.lstrip("/").partition("/")
        self.transport = transport
        self._requests: dict[tuple[str, str], Any] = {}
        self._duration: dict[str, Any] = {}
        self.streams = STREAMS_OPEN.labels(self.service, self.method, transport)

    def done(self, code: str, error_code: str, seconds: float | None) -> None:
        counter = self._requests.get((code, error_code))
        if counter is None:
            counter = self._requests[(code, error_code)] = REQUESTS.labels(
                self.service, self.method, self.transport, code, error_code)
        counter.inc()
        if seconds is not None:
            histogram = self._duration.get(code)
            if histogram is None:
                histogram = self._duration[code] = DURATION.labels(
                    self.service, self.method, self.transport, code)
            histogram.observe(seconds)


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """Counts, times and (with tracing on) traces every call; see the module doc."""

    def __init__(self) -> None:
        self._labels: dict[tuple[str, str], _Labels] = {}
        self._memo = HandlerMemo()

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or exempt(method) or handler.request_streaming:
            return handler
        key = (method, transport_of(handler_call_details.invocation_metadata))
        labels = self._labels.get(key)
        if labels is None:
            labels = self._labels[key] = _Labels(*key)
        return self._memo.wrapped(handler, key, _measured, labels, method)


def _span(method: str, labels: _Labels, context: Any, current: bool) -> Any:
    """The call's SERVER span (a child of the caller's ``traceparent``); a no-op while
    tracing is off, without reading the call's metadata."""
    if not tracing_enabled():
        return start_span(method)
    return start_span(method.lstrip("/"), context=extract(context.invocation_metadata()), kind=SpanKind.SERVER,
                      current=current, **{"rpc.system": "grpc", "rpc.service": labels.service,
                                          "rpc.method": labels.method, "hand.transport": labels.transport})


def _measured(handler: grpc.RpcMethodHandler, labels: _Labels, method: str) -> grpc.RpcMethodHandler:
    deserializer, serializer = handler.request_deserializer, handler.response_serializer
    if not handler.response_streaming:
        inner = handler.unary_unary

        async def unary(request: Any, context: Any) -> Any:
            started, failure = time.perf_counter(), None
            try:
                with _span(method, labels, context, True):
                    result = inner(request, context)
                    return await result if asyncio.iscoroutine(result) else result
            except BaseException as exc:
                failure = exc
                raise
            finally:
                labels.done(*outcome(failure, context), time.perf_counter() - started)

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=deserializer, response_serializer=serializer)
    inner_stream = handler.unary_stream

    async def stream(request: Any, context: Any) -> Any:
        failure = None
        labels.streams.inc()
        try:
            with _span(method, labels, context, False):
                result = inner_stream(request, context)
                if hasattr(result, "__aiter__"):
                    async for item in result:
                        yield item
                elif asyncio.iscoroutine(result):
                    await result
        except BaseException as exc:
            failure = exc
            raise
        finally:
            labels.streams.dec()
            labels.done(*outcome(failure, context), None)

    return grpc.unary_stream_rpc_method_handler(
        stream, request_deserializer=deserializer, response_serializer=serializer)
