"""``ServedService``: how every Hand gRPC service is served — one place for it.

A ``grpc.aio`` server with the configured message limits, behind the edge
interceptors (rate limiter, the door: ``hand_common.serving``), serving
``grpc.health.v1.Health`` ("": liveness, SERVING while up; the service's full
name: readiness, SERVING while up or, with a ``Readiness``, while its checks hold;
both NOT_SERVING while draining) and server reflection, bound on the configured
address with TLS or mutual TLS when a certificate is configured. The rules,
room, ledger and auth servers each add their own servicer to ``server`` and
keep their own start-up around it.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hand_common.config import GrpcServerConfig, RateLimitConfig
from hand_common.identity import Verifier
from hand_common.readiness import Readiness
from hand_common.serving import bind, edge_interceptors

SERVING = health_pb2.HealthCheckResponse.SERVING


class ServedService:
    """The grpc server of one service (see the module doc); ``port`` once bound."""

    def __init__(self, service: ServiceDescriptor, config: GrpcServerConfig, *,
                 limits: RateLimitConfig | None, verifier: Verifier | None,
                 options: Sequence[tuple[str, int]] = (), also: Sequence[ServiceDescriptor] = ()) -> None:
        self.name = service.full_name
        self.config = config
        self.health = health.aio.HealthServicer()
        self.interceptors = edge_interceptors(limits, verifier, config.max_in_flight)  # browsers pass them too (hand_web)
        self.server = grpc.aio.server(options=[*config.server_options(), *options],
                                      interceptors=self.interceptors)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection([self.name, *(s.full_name for s in also), health.SERVICE_NAME, reflection.SERVICE_NAME],
                                            self.server)
        self.port = 0
        self.started = False
        self.readiness: Readiness | None = None

    def bind(self) -> int:
        """Listen on the configured address (``OSError`` when it cannot); the bound port."""
        self.port = bind(self.server, self.config)
        return self.port

    async def start(self, readiness: Readiness | None = None) -> None:
        """Start serving (bind first) and report SERVING for "" (liveness) and for the
        service (readiness), or, with ``readiness``, the service as its checks say."""
        await self.server.start()
        self.started = True
        await self.health.set("", SERVING)
        if readiness is None:
            await self.health.set(self.name, SERVING)
        else:
            self.readiness = readiness
            await readiness.start(self.health, self.name)

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, refuse new calls, give in-flight ones ``grace`` seconds
        (default: the configured shutdown grace)."""
        if not self.started:
            return
        self.started = False
        if self.readiness is not None:
            await self.readiness.stop()
        await self.health.enter_graceful_shutdown()
        await self.server.stop(self.config.shutdown_grace_s if grace is None else grace)

    async def wait_for_termination(self) -> None:
        if self.started:
            await self.server.wait_for_termination()
