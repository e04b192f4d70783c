"""Admission by concurrency: a server works on at most ``limit`` unary calls at once.

An asyncio server past its CPU does not refuse work by itself: every call it takes
adds callbacks to the one loop, every loop pass gets longer, and every call in the
process waits for all of them (at twice one room instance's capacity, accepted
Acts took 0.1–1.5 s inside their handler while each needs ~2 ms of CPU). By
Little's law the calls in service are the throughput times the time each takes;
bounding them bounds that time at a given throughput. ``InFlightLimit`` counts the
unary calls between their handler's start and end and refuses the next one at once,
before any work, with ``RESOURCE_EXHAUSTED`` and ``RuleError{ERROR_CODE_OVERLOADED,
params: {limit: "calls_in_flight", in_flight, retry_after_ms}}``: the client waits
``retry_after_ms`` and sends the same request again (docs/clients.md, "Overload").
A refusal costs a comparison and the status; nothing was changed.

Server streams (Watch) are not counted: a stream open for an hour is not load (the
rate limiter caps them per player and per peer). Health checks and reflection are
never limited. ``HAND_GRPC_MAX_IN_FLIGHT`` (0: off) sets the bound; it goes first in
``edge_interceptors`` after the metrics, so a refused call costs nothing else
(docs/decisions/0040-overload-at-the-edge.md).
"""

from __future__ import annotations

import random
from typing import Any

import grpc

from .door import abort_refusal, exempt, maybe_await
from .handler_memo import HandlerMemo
from .metrics import counter
from .refused import Refusal

__all__ = ["InFlightLimit", "IN_FLIGHT_REFUSALS"]

IN_FLIGHT_REFUSALS = counter("hand_rpc_in_flight_refusals",
                             "Unary calls refused OVERLOADED because the server was working on "
                             "HAND_GRPC_MAX_IN_FLIGHT calls already", [])
#: the retry hint, spread so that refused clients do not come back together
RETRY_AFTER_MS = (100, 300)


class InFlightLimit(grpc.aio.ServerInterceptor):
    """At most ``limit`` unary calls in their handlers at once (see the module doc)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self.refused = 0
        self._memo = HandlerMemo()

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if (handler is None or self.limit <= 0 or exempt(handler_call_details.method)
                or handler.request_streaming or handler.response_streaming):
            return handler
        return self._memo.wrapped(handler, handler_call_details.method, self._limited)

    def _limited(self, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        inner = handler.unary_unary

        async def limited(request: Any, context: grpc.aio.ServicerContext) -> Any:
            if self.active >= self.limit:
                self.refused += 1
                IN_FLIGHT_REFUSALS.inc()
                await abort_refusal(context, Refusal(
                    "OVERLOADED", "calls in flight", limit="calls_in_flight", in_flight=self.limit,
                    retry_after_ms=random.randint(*RETRY_AFTER_MS)))
            self.active += 1
            try:
                return await maybe_await(inner(request, context))
            finally:
                self.active -= 1

        return grpc.unary_unary_rpc_method_handler(limited, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)
