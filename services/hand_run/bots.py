"""``make run``'s bot service: the consumer, and the health port ``python -m hand_bot`` serves."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hand_bot import BotConfig

if TYPE_CHECKING:
    from . import Stack

__all__ = ["Bots"]


class Bots:
    """The bot service's consumer, and its ``grpc.health.v1`` port (``HAND_BOT_PORT``), SERVING
    while the consumer loop polls the broker, as ``python -m hand_bot`` serves it."""

    name = "bot"

    def __init__(self, environ: Mapping[str, str] | None, stack: "Stack") -> None:
        self.config = BotConfig.from_env(environ)
        self.stack = stack
        self.service: Any = None
        self.health: Any = None
        self._probe: asyncio.Task | None = None

    @property
    def target(self) -> str:
        if self.health is None or self.stack.kafka is None:
            return ""
        group = f"consumer group {self.config.group_id} on {self.stack.kafka.bootstrap_servers}"
        return f"{self.health.target} (health; {group})"

    async def start(self) -> None:
        from hand_bot import BotService, HealthServer

        health = HealthServer(self.config.server)
        await health.start()  # first: a taken port fails before the consumer joins its group
        self.health = health
        self.service = BotService(self.stack.kafka, group_id=self.config.group_id)
        await self.service.start()
        self._probe = asyncio.create_task(self._report(), name="bot-health")

    async def _report(self) -> None:
        while True:
            await self.health.set_serving(self.service.healthy())
            await asyncio.sleep(1.0)

    async def stop(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            await asyncio.gather(self._probe, return_exceptions=True)
            self._probe = None
        if self.service is not None:
            await self.service.stop()
        if self.health is not None:
            await self.health.set_serving(False)
            await self.health.stop(self.config.server.shutdown_grace_s)
            self.health = None
