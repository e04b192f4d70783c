"""``RulesServer``: the grpc.aio server of the rules service.

It serves ``hand.v1.RulesService``, ``grpc.health.v1.Health`` (both "" and
"hand.v1.RulesService" SERVING while up) and server reflection, with the
message size limits of the config (a bigger request fails with
``RESOURCE_EXHAUSTED`` before any handler runs), behind the shared door
(malformed bytes and over-long fields → ``INVALID_ARGUMENT``) and, given
``limits``, the rate limiter (``hand_common.serving``). ``start()`` / ``stop()``
make it a component of ``hand_run`` as well as of ``python -m hand_rules``.
"""

from __future__ import annotations

from concurrent.futures import Executor

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hand.v1 import rules_service_pb2, rules_service_pb2_grpc
from hand_common.config import GrpcServerConfig, IdentityConfig, RateLimitConfig
from hand_common.identity import Verifier
from hand_common.serving import bind, edge_interceptors

from .service import RulesService

SERVICE_NAME = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
SERVING = health_pb2.HealthCheckResponse.SERVING
log = structlog.get_logger("hand_rules")


class RulesServer:
    """The rules service on ``config.address`` (port 0: a free port, see ``port``)."""

    name = "rules"

    def __init__(self, config: GrpcServerConfig, executor: Executor | None = None, *,
                 limits: RateLimitConfig | None = None,
                 identity: IdentityConfig | None = None) -> None:
        self.config = config
        self._executor = executor
        self._limits, self._identity = limits, identity
        self.port = 0
        self._server: grpc.aio.Server | None = None
        self._health = health.aio.HealthServicer()

    @property
    def address(self) -> str:
        """``host:port`` as bound (the real port when the config asked for port 0)."""
        host = self.config.host
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        return f"{host}:{self.port}"

    @property
    def target(self) -> str:
        """Where a client on this machine dials (a wildcard host becomes loopback)."""
        return self.config.dial_target(self.port)

    async def start(self) -> None:
        verifier = Verifier.from_config(self._identity) if self._identity is not None else None
        self.interceptors = edge_interceptors(self._limits, verifier)  # browsers pass them too (hand_web)
        server = grpc.aio.server(
            options=[*self.config.channel_options(), ("grpc.so_reuseport", 0)],
            interceptors=self.interceptors,
        )
        self.servicer = RulesService(self._executor)  # also served to browsers by hand_web
        self.servicer_descriptor = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"]
        self.browser_service = (self.servicer, self.servicer_descriptor, self.interceptors)
        rules_service_pb2_grpc.add_RulesServiceServicer_to_server(self.servicer, server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            [SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME], server
        )
        self.port = bind(server, self.config)  # TLS when HAND_TLS_CERT_FILE is set
        await server.start()
        self._server = server
        for service in ("", SERVICE_NAME):
            await self._health.set(service, SERVING)
        log.info("listening", service=SERVICE_NAME, address=self.address)

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, refuse new calls, give in-flight ones ``grace`` seconds."""
        if self._server is None:
            return
        grace = self.config.shutdown_grace_s if grace is None else grace
        await self._health.enter_graceful_shutdown()
        await self._server.stop(grace)
        self._server = None
        log.info("stopped", service=SERVICE_NAME, address=self.address)

    async def wait_for_termination(self) -> None:
        if self._server is not None:
            await self._server.wait_for_termination()
