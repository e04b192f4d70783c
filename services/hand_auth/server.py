"""``AuthServer``: the grpc.aio server of the auth service (store + signer + gRPC).

Serves ``hand.v1.AuthService``, ``grpc.health.v1.Health`` ("" and
"hand.v1.AuthService" SERVING while up) and server reflection, behind the
shared rate limiter and door (``hand_common.serving``).
"""

from __future__ import annotations

import structlog

from hand.v1 import auth_service_pb2, auth_service_pb2_grpc
from hand_common.grpc_server import ServedService
from hand_common.identity import Verifier
from hand_common.readiness import Readiness
from hand_common.sessionkeys import private_key

from .service import AuthService
from .settings import AuthConfig
from .store import AuthStore
from .tokens import Signer

DESCRIPTOR = auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"]
SERVICE_NAME = DESCRIPTOR.full_name
log = structlog.get_logger("hand_auth")


class AuthServer:
    """The auth service on ``config.server.address`` (port 0: a free port, see ``port``)."""

    name = "auth"

    def __init__(self, config: AuthConfig) -> None:
        self.config = config
        self.store = AuthStore(config.url)
        self.port = 0
        self.browser_service: tuple | None = None
        self._served: ServedService | None = None

    @property
    def target(self) -> str:
        return self.config.server.dial_target(self.port)

    async def start(self) -> None:
        identity = self.config.identity
        signer = Signer(private_key(identity), identity.issuer, self.config.session_ttl_s)
        verifier = Verifier.from_config(identity)
        await self.store.start()
        served = ServedService(DESCRIPTOR, self.config.server, limits=self.config.limits, verifier=verifier)
        servicer = AuthService(self.store, signer, verifier, self.config.refresh_ttl_s)
        self.browser_service = (servicer, DESCRIPTOR, served.interceptors)  # also served to browsers by hand_web
        auth_service_pb2_grpc.add_AuthServiceServicer_to_server(servicer, served.server)
        try:
            self.port = served.bind()
        except OSError:
            await self.store.close()
            raise
        await served.start(Readiness({"store": self.store.ping}))
        self._served = served
        log.info("listening", service=SERVICE_NAME, address=self.target, kid=signer.kid)

    async def stop(self, grace: float | None = None) -> None:
        if self._served is not None:
            await self._served.stop(grace)
            self._served = None
        await self.store.close()
        log.info("stopped", service=SERVICE_NAME)
