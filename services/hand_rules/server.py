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

import structlog

from hand.v1 import rules_service_pb2, rules_service_pb2_grpc
from hand_common.config import GrpcServerConfig, IdentityConfig, RateLimitConfig
from hand_common.grpc_server import ServedService
from hand_common.identity import Verifier

from .service import RulesService

DESCRIPTOR = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"]
SERVICE_NAME = DESCRIPTOR.full_name
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
        self._served: ServedService | None = None

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
        served = ServedService(DESCRIPTOR, self.config, limits=self._limits, verifier=verifier,
                               options=[("grpc.so_reuseport", 0)])
        self.interceptors = served.interceptors
        self.servicer = RulesService(self._executor)  # also served to browsers by hand_web
        self.servicer_descriptor = DESCRIPTOR
        self.browser_service = (self.servicer, self.servicer_descriptor, self.interceptors)
        rules_service_pb2_grpc.add_RulesServiceServicer_to_server(self.servicer, served.server)
        self.port = served.bind()
        await served.start()
        self._served = served
        log.info("listening", service=SERVICE_NAME, address=self.address)

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, refuse new calls, give in-flight ones ``grace`` seconds."""
        if self._served is None:
            return
        await self._served.stop(grace)
        self._served = None
        log.info("stopped", service=SERVICE_NAME, address=self.address)

    async def wait_for_termination(self) -> None:
        if self._served is not None:
            await self._served.wait_for_termination()
