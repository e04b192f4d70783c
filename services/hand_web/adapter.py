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
generator is needed (the generated ``*_pb2`` classes are enough).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

__all__ = ["BrowserContext", "ServiceApp", "aborted", "method_info"]

STATUS_DETAILS_KEY = "grpc-status-details-bin"


def aborted(code: grpc.StatusCode, details: str = "", trailing_metadata: Sequence[tuple[str, Any]] = ()
            ) -> ConnectError:
    """The ``ConnectError`` that a grpc ``context.abort(code, details, trailers)`` stands for."""
    extra: list[ErrorDetail] = []
    for key, value in trailing_metadata or ():
        if key == STATUS_DETAILS_KEY:
            status = status_pb2.Status.FromString(value)
            extra = [ErrorDetail(WireAny(type_url=d.type_url, value=d.value)) for d in status.details]
            details = details or status.message
    return ConnectError(Code[code.name], details, details=extra)


class BrowserContext:
    """The subset of ``grpc.aio.ServicerContext`` the project's servicers use."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: RequestContext) -> None:
        self._ctx = ctx

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple((k.lower(), v) for k, v in self._ctx.request_headers.allitems())

    def peer(self) -> str:
        return f"http:{self._ctx.client_address or ''}"

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


def _endpoints(servicer: object, service: ServiceDescriptor) -> dict[str, Endpoint]:
    out: dict[str, Endpoint] = {}
    for m in service.methods:
        if m.client_streaming:
            continue  # none in hand.v1; connectrpc would need a request stream adapter
        info = method_info(service, m.name)
        handler = getattr(servicer, m.name)
        out[f"/{service.full_name}/{m.name}"] = (
            Endpoint.server_stream(info, _stream(handler)) if m.server_streaming
            else Endpoint.unary(info, _unary(handler)))
    return out


def _unary(handler):
    async def call(request, ctx: RequestContext):
        return await handler(request, BrowserContext(ctx))
    return call


def _stream(handler):
    async def call(request, ctx: RequestContext) -> AsyncIterator[Any]:
        stream = handler(request, BrowserContext(ctx))
        try:
            async for message in stream:
                yield message
        finally:
            await stream.aclose()
    return call


class ServiceApp(ConnectASGIApplication):
    """One gRPC service (its servicer object) as a Connect / gRPC-Web ASGI application."""

    def __init__(self, servicer: object, service: ServiceDescriptor, **kwargs: Any) -> None:
        self._service_name = service.full_name
        endpoints: Mapping[str, Endpoint] = _endpoints(servicer, service)
        super().__init__(service=servicer, endpoints=lambda _s: endpoints,
                         codecs=google_protobuf_codecs(), **kwargs)

    @property
    def path(self) -> str:
        return f"/{self._service_name}"
