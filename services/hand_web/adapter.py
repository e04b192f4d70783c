"""Expose an existing grpc.aio servicer over Connect and gRPC-Web (``connectrpc``).

One implementation per RPC, two transports: the native gRPC server calls the
servicer's methods with a ``grpc.aio.ServicerContext``; this adapter calls the
very same methods with ``BrowserContext``, which implements the part of the
context the servicers use (``invocation_metadata`` for ``accept-language``,
``abort`` with the ``grpc-status-details-bin`` trailer, ``peer``). An abort
becomes a ``ConnectError`` with the same code, message and details, so a
refusal carries its ``hand.v1.RuleError`` (stable code, ar/en message) on
every transport: in the Connect error JSON and in the gRPC-Web trailers.

Endpoints are built from the service descriptor, so no Connect code
generator is needed (the generated ``*_pb2`` classes are enough). The
service's own ``grpc.aio.ServerInterceptor`` instances (the edge: the door's
field limits and undecodable-request refusals, the rate limits and stream
caps, ``hand_common.serving.edge_interceptors``) wrap every browser call
too, sharing their state (token buckets, stream counts) with native gRPC.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, NamedTuple

import grpc
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

from hand_common.door import MALFORMED, maybe_await

__all__ = ["BrowserAbort", "BrowserContext", "ServiceApp", "aborted", "method_info"]

STATUS_DETAILS_KEY = "grpc-status-details-bin"


class BrowserAbort(ConnectError, grpc.aio.AbortError):
    """``context.abort`` on a browser call: a ``ConnectError`` for connectrpc, and a gRPC
    ``AbortError`` for the handlers' own wrappers (``hand_common.rpc``), which let an answered
    call through as they do on native gRPC instead of taking it for a fault (INTERNAL)."""


def aborted(code: grpc.StatusCode, details: str = "", trailing_metadata: Sequence[tuple[str, Any]] = ()
            ) -> ConnectError:
    """The ``ConnectError`` that a grpc ``context.abort(code, details, trailers)`` stands for."""
    extra: list[ErrorDetail] = []
    for key, value in trailing_metadata or ():
        if key == STATUS_DETAILS_KEY:
            status = status_pb2.Status.FromString(value)
            extra = [ErrorDetail(WireAny(type_url=d.type_url, value=d.value)) for d in status.details]
            details = details or status.message
    error = BrowserAbort(Code[code.name], details, details=extra)
    error.trailing_metadata = tuple(trailing_metadata or ())  # the edge's metrics read the RuleError code
    return error


class BrowserContext:
    """The subset of ``grpc.aio.ServicerContext`` the project's servicers use."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: RequestContext) -> None:
        self._ctx = ctx

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple((k.lower(), v) for k, v in self._ctx.request_headers.allitems())

    def peer(self) -> str:
        """The client as grpc names it (``ipv4:host:port``), so per-peer limits key alike."""
        host, _, port = (self._ctx.client_address or "").rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Sequence[tuple[str, Any]] = ()) -> None:
        raise aborted(code, details, trailing_metadata)


def method_info(service: ServiceDescriptor, name: str) -> MethodInfo:
    """connectrpc's description of one method (for endpoints, and for clients in tests and benches)."""
    m = service.methods_by_name[name]
    return MethodInfo(
        name=m.name, service_name=service.full_name,
        input=message_factory.GetMessageClass(m.input_type),
        output=message_factory.GetMessageClass(m.output_type),
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if m.server_streaming else StreamType.UNARY)


class _CallDetails(NamedTuple):
    """``grpc.HandlerCallDetails`` for the interceptors."""

    method: str
    invocation_metadata: tuple[tuple[str, str], ...]


class _Guarded:
    """A codec whose undecodable requests become ``MALFORMED`` (the door refuses them, as on gRPC)."""

    def __init__(self, codec) -> None:
        self._codec = codec

    def name(self) -> str:
        return self._codec.name()

    def encode(self, message) -> bytes:
        return self._codec.encode(message)

    def decode(self, data, message_class):
        try:
            return self._codec.decode(data, message_class)
        except Exception:  # DecodeError, a JSON ParseError, anything a parser raises on bad bytes
            return MALFORMED


class _Method:
    """One RPC: the servicer's method behind the service's interceptors, called per request."""

    def __init__(self, path: str, handler, server_streaming: bool, interceptors: Sequence[Any]) -> None:
        self.path, self.interceptors = path, tuple(interceptors)
        self.streaming = server_streaming
        make = grpc.unary_stream_rpc_method_handler if server_streaming else grpc.unary_unary_rpc_method_handler
        self.base = make(handler)

    async def _handler(self, context: BrowserContext):
        details = _CallDetails(self.path, context.invocation_metadata())

        async def chain(i: int, d: _CallDetails):
            if i == len(self.interceptors):
                return self.base
            return await self.interceptors[i].intercept_service(lambda dd: chain(i + 1, dd), d)

        return await chain(0, details)

    async def unary(self, request, ctx: RequestContext):
        context = BrowserContext(ctx)
        handler = await self._handler(context)
        if request is MALFORMED and handler is self.base:  # no door in front of this servicer
            raise ConnectError(Code.INVALID_ARGUMENT, "undecodable request")
        return await maybe_await(handler.unary_unary(request, context))

    async def stream(self, request, ctx: RequestContext) -> AsyncIterator[Any]:
        context = BrowserContext(ctx)
        handler = await self._handler(context)
        if request is MALFORMED and handler is self.base:
            raise ConnectError(Code.INVALID_ARGUMENT, "undecodable request")
        stream = handler.unary_stream(request, context)
        try:
            async for message in stream:
                yield message
        finally:
            await stream.aclose()


def _endpoints(servicer: object, service: ServiceDescriptor, interceptors: Sequence[Any]) -> dict[str, Endpoint]:
    out: dict[str, Endpoint] = {}
    for m in service.methods:
        if m.client_streaming:
            continue  # none in hand.v1; connectrpc would need a request stream adapter
        info = method_info(service, m.name)
        path = f"/{service.full_name}/{m.name}"
        method = _Method(path, getattr(servicer, m.name), m.server_streaming, interceptors)
        out[path] = (Endpoint.server_stream(info, method.stream) if m.server_streaming
                     else Endpoint.unary(info, method.unary))
    return out


class ServiceApp(ConnectASGIApplication):
    """One gRPC service (its servicer object, behind its server's interceptors) as a Connect /
    gRPC-Web ASGI application."""

    def __init__(self, servicer: object, service: ServiceDescriptor, interceptors: Sequence[Any] = (),
                 **kwargs: Any) -> None:
        self._service_name = service.full_name
        endpoints: Mapping[str, Endpoint] = _endpoints(servicer, service, interceptors)
        codecs = [_Guarded(google_protobuf_binary_codec()), _Guarded(google_protobuf_json_codec())]
        super().__init__(service=servicer, endpoints=lambda _s: endpoints, codecs=codecs, **kwargs)

    @property
    def path(self) -> str:
        return f"/{self._service_name}"
