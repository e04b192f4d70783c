"""A bare ``grpc.health.v1`` server: the bot service's only port, for probes."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from hand_common.config import GrpcServerConfig
from hand_common.serving import bind

SERVICE_NAME = "hand.bot"  # the name probes may ask about besides ""
_STATUS = {True: health_pb2.HealthCheckResponse.SERVING, False: health_pb2.HealthCheckResponse.NOT_SERVING}


class HealthServer:
    def __init__(self, config: GrpcServerConfig) -> None:
        self.config = config
        self.port = 0
        self._health = health.aio.HealthServicer()
        self._server: grpc.aio.Server | None = None
        self._serving: bool | None = None

    @property
    def target(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(self.config.host, self.config.host)
        return f"{host}:{self.port}"

    async def start(self) -> None:
        server = grpc.aio.server(options=self.config.channel_options())
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        self.port = bind(server, self.config)  # OSError "cannot listen on …" when the port is taken
        await server.start()
        self._server = server
        await self.set_serving(False)

    async def set_serving(self, serving: bool) -> None:
        if serving != self._serving:
            self._serving = serving
            for service in ("", SERVICE_NAME):
                await self._health.set(service, _STATUS[serving])

    async def stop(self, grace_s: float = 0.0) -> None:
        if self._server is not None:
            await self._health.enter_graceful_shutdown()
            await self._server.stop(grace_s)
