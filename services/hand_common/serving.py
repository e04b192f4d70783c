"""The interceptors every Hand gRPC server is built with, in one place.

    server = grpc.aio.server(interceptors=edge_interceptors(config.limits, verifier), ...)

Order matters: the rate limiter runs first (a flood of garbage is shed
before anything else looks at it), then the door (malformed bytes and
fields over their limits → INVALID_ARGUMENT). ``limits=None`` leaves the
rate limiter out (tests and benchmarks that build a server directly).
"""

from __future__ import annotations

import grpc

from .config import RateLimitConfig
from .door import DoorInterceptor
from .identity import Verifier
from .ratelimit import RateLimitInterceptor

__all__ = ["edge_interceptors"]


def edge_interceptors(limits: RateLimitConfig | None = None,
                      verifier: Verifier | None = None) -> list[grpc.aio.ServerInterceptor]:
    """``[RateLimitInterceptor, DoorInterceptor]`` (the first only when ``limits`` is given)."""
    chain: list[grpc.aio.ServerInterceptor] = []
    if limits is not None:
        chain.append(RateLimitInterceptor(limits, verifier))
    chain.append(DoorInterceptor())
    return chain
