"""``AuthServer``: the grpc.aio server of the auth service (store + signer + gRPC).

Serves ``hand.v1.AuthService``, ``grpc.health.v1.Health`` ("" and
"hand.v1.AuthService" SERVING while up) and server reflection, behind the
shared rate limiter and door (``hand_common.serving``).
"""

from __future__ import annotations

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hand.v1 import auth_service_pb2, auth_service_pb2_grpc
from hand_common.config import AuthConfig
from hand_common.identity import Verifier
from hand_common.serving import bind, edge_interceptors
from hand_common.sessionkeys import private_key

from .service import AuthService
from .store import AuthStore
from .tokens import Signer

SERVICE_NAME = auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"].full_name
SERVING = health_pb2.HealthCheckResponse.SERVING
log = structlog.get_logger("hand_auth")


class AuthServer:
    """The auth service on ``config.server.address`` (port 0: a free port, see ``port``)."""

    name = "auth"

    def __init__(self, config: AuthConfig) -> None:
        self.config = config
        self.store = AuthStore(config.url)
        self.port = 0
        self._server: grpc.aio.Server | None = None
        self._health = health.aio.HealthServicer()

    @property
    def target(self) -> str:
        return self.config.server.dial_target(self.port)

    async def start(self) -> None:
        identity = self.config.identity
        signer = Signer(private_key(identity), identity.issuer, self.config.session_ttl_s)
        verifier = Verifier.from_config(identity)
        await self.store.start()
        server = grpc.aio.server(options=self.config.server.channel_options(),
                                 interceptors=edge_interceptors(self.config.limits, verifier))
        auth_service_pb2_grpc.add_AuthServiceServicer_to_server(
            AuthService(self.store, signer, verifier, self.config.refresh_ttl_s), server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection([SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME],
                                            server)
        try:
            self.port = bind(server, self.config.server)  # TLS when HAND_TLS_CERT_FILE is set
        except OSError:
            await self.store.close()
            raise
        await server.start()
        self._server = server
        for service in ("", SERVICE_NAME):
            await self._health.set(service, SERVING)
        log.info("listening", service=SERVICE_NAME, address=self.target, kid=signer.kid)

    async def stop(self, grace: float | None = None) -> None:
        if self._server is not None:
            await self._health.enter_graceful_shutdown()
            await self._server.stop(self.config.server.shutdown_grace_s if grace is None else grace)
            self._server = None
        await self.store.close()
        log.info("stopped", service=SERVICE_NAME)
