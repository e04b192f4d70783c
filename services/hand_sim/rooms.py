"""Room-service instances in one process, with no broker process: each built whole by
``hand_room``'s ``bootstrap`` (through ``RoomServer``, serving gRPC on a free port) on
one shared :class:`~hand_infra.memory_broker.MemoryBroker` and one event store (SQLite
by default) — as many instances as a test or a simulation wants, in one owners' group.

    async with memory_rooms(2, f"sqlite:///{path}") as rooms:
        a, b = rooms.servers            # started, every partition dealt
        ... grpc to a.target ...
        await rooms.stop(a)             # leaves the group: b takes its rooms over
        rooms.broker.outage(); rooms.broker.restore()
        await rooms.start_bots()        # a bot service on the same broker (FillWithBots)

``env``: the instances' settings (``HAND_ROOM_*``, as ``RoomConfig.from_env`` reads them).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from hand_infra.memory_broker import MemoryBroker
from hand_infra.settings import KafkaSettings
from hand_bot import BotService
from hand_room import RoomConfig, RoomServer

__all__ = ["MemoryRooms", "memory_rooms"]


class MemoryRooms:
    """Instances sharing one in-memory broker and one store (see the module doc)."""

    def __init__(self, store_url: str, *, partitions: int = 8, env: Mapping[str, str] | None = None,
                 unique: str | None = None, session_timeout_ms: int = 2000) -> None:
        self.store_url = store_url
        self.unique = unique or uuid.uuid4().hex[:12]
        self.broker = MemoryBroker(partitions)
        # no broker address: every client comes from ``broker``
        self.kafka = KafkaSettings(partitions=partitions, session_timeout_ms=session_timeout_ms,
                                   heartbeat_interval_ms=max(100, session_timeout_ms // 6))
        self.topics = {k: f"t-{self.unique}-{k}" for k in ("commands", "events", "replies", "bots", "public")}
        self.env = {"HAND_ROOM_PORT": "0", "HAND_ROOM_GROUP": f"g-{self.unique}", "HAND_ROOM_PRESENCE_GRACE_S": "1",
                    "HAND_SHUTDOWN_GRACE_S": "0.5", "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0",
                    **(env or {})}
        self.servers: list[Any] = []  # RoomServers, in start order; a stopped one leaves the list
        self.bots: Any = None  # the BotService, once started

    @property
    def group_id(self) -> str:
        return self.env["HAND_ROOM_GROUP"]

    async def start_one(self, **env: str) -> Any:
        """Start one more instance (it joins the owners' group)."""
        if not self.servers:
            await self.broker.ensure_topics(self.kafka, self.topics.values())
        server = RoomServer(RoomConfig.from_env({**self.env, **env}), self.kafka, self.store_url,
                            topics=self.topics, broker=self.broker)
        await server.start()
        self.servers.append(server)
        return server

    async def start_bots(self) -> Any:
        """A bot service reading the bot requests of these instances (one is enough)."""
        if self.bots is None:
            self.bots = BotService(self.kafka, group_id=f"bots-{self.unique}", topics=self.topics, broker=self.broker)
            await self.bots.start()
        return self.bots

    async def settled(self, timeout_s: float = 15.0) -> None:
        """Until every partition is held by exactly one running instance, each knowing the map."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            owned = [s.owner.owned for s in self.servers]
            if (all(s.owner.in_group for s in self.servers) and sum(map(len, owned)) == self.kafka.partitions
                    and len(set().union(*owned)) == self.kafka.partitions
                    and all(s.instance.ownership.owner_of("x") is not None for s in self.servers)):
                return
            await asyncio.sleep(0.02)
        raise TimeoutError("the owners' group did not settle")

    async def stop(self, server: Any, grace: float | None = 0) -> None:
        """Stop ``server`` (it leaves the owners' group; the others rebalance)."""
        if server in self.servers:
            self.servers.remove(server)
        await server.stop(grace)

    async def close(self) -> None:
        for server in reversed(list(self.servers)):
            await self.stop(server)
        if self.bots is not None:
            await self.bots.stop()
            self.bots = None


@asynccontextmanager
async def memory_rooms(count: int, store_url: str, **kwargs: Any) -> AsyncIterator[MemoryRooms]:
    """``count`` started instances on one in-memory broker, their group settled; stopped after."""
    rooms = MemoryRooms(store_url, **kwargs)
    try:
        for _ in range(count):
            await rooms.start_one()
        if count:
            await rooms.settled()
        yield rooms
    finally:
        await rooms.close()
