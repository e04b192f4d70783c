"""``RoomServer``: one room-service instance (gateway + owner + outbox relay)."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid

import structlog
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from hand.v1 import room_service_pb2, room_service_pb2_grpc
from hand_common.config import RoomConfig
from hand_common.grpc_server import ServedService
from hand_common.identity import Verifier
from hand_infra.broker_watch import BrokerWatch
from hand_infra.eventstore import EventStore
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.topics import BOT_REQUESTS, ROOM_COMMANDS, ROOM_EVENTS, ROOM_EVENTS_PUBLIC, ROOM_REPLIES, ensure_topics

from .bus import Bus
from .feeds import Feeds
from .gateway import RoomGateway
from .index import RoomIndex
from .owner import RoomOwner
from .publish import private_value, public_value
from .repository import RoomRepository
from .rules_port import GrpcRules, LocalRules

DESCRIPTOR = room_service_pb2.DESCRIPTOR.services_by_name["RoomService"]
SERVICE_NAME = DESCRIPTOR.full_name
log = structlog.get_logger("hand_room")


class RoomServer:
    name = "room"

    def __init__(self, config: RoomConfig, kafka: KafkaSettings, store_url: str,
                 *, instance_id: str | None = None, topics: dict[str, str] | None = None) -> None:
        self.config, self.kafka, self.store_url = config, kafka, store_url
        self.instance_id = instance_id or uuid.uuid4().hex[:12]
        self.topics = topics
        self.port = 0
        self._served: ServedService | None = None
        self.store: EventStore | None = None
        self.owner: RoomOwner | None = None
        self.bus: Bus | None = None
        self.relay: OutboxRelay | None = None
        self.repo: RoomRepository | None = None
        self.feeds: Feeds | None = None
        self.rules = None
        self.watch: BrokerWatch | None = None

    @property
    def target(self) -> str:
        return self.config.server.dial_target(self.port)

    async def start(self) -> None:
        with structlog.contextvars.bound_contextvars(instance=self.instance_id):
            if not self.topics:
                await ensure_topics(self.kafka)
            self.store = EventStore(self.store_url)
            index = await self._open_store()
            self.rules = GrpcRules(self.config.rules_address) if self.config.rules_address else LocalRules()
            t = self.topics or {}
            events = t.get("events", ROOM_EVENTS)
            public = t.get("public", ROOM_EVENTS_PUBLIC if "events" not in t else f"{events}-public")
            names = [t.get("commands", ROOM_COMMANDS), t.get("replies", ROOM_REPLIES), events, public,
                     t.get("bots", BOT_REQUESTS)]
            self.watch = BrokerWatch(self.kafka, names)  # outages: fail fast, then reconnect
            # woken by every commit of this instance's owner; polling (rows other instances
            # wrote and did not relay) only twice a second, so an idle instance stays idle
            self.relay = OutboxRelay(self.store, self.kafka, topic=events, watch=self.watch, mark_interval=0.2,
                                     idle_interval=0.5,
                                     routes=[(events, private_value), (public, public_value)])
            await self.relay.start()
            self.repo = RoomRepository(self.store)
            self.feeds = Feeds(self.store, self.repo)
            # The owners' group detects a dead member fast (docs/decisions/0009-fast-failover.md).
            owner_kafka = dataclasses.replace(self.kafka, session_timeout_ms=self.config.session_timeout_ms,
                                              heartbeat_interval_ms=self.config.heartbeat_ms)
            self.owner = RoomOwner(self.store, index, owner_kafka, self.rules, self.relay,
                                   group_id=self.config.group_id,
                                   away_after_timeouts=self.config.away_after_timeouts, topics=self.topics,
                                   repo=self.repo, feeds=self.feeds,
                                   store_timeout_s=self.config.store_timeout_s)
            self.owner.watch = self.watch
            await self.owner.start()
            self.bus = Bus(self.kafka, instance_id=self.instance_id,
                           command_timeout_s=self.config.command_timeout_s, topics=self.topics,
                           feeds=self.feeds, watch=self.watch)
            await self.bus.start()
            # the bus first: replies to commands the new owner consumer applies must be seen
            self.watch.on_recover += [self.bus.reconnect, self.owner.reconnect]
            await self.watch.start()
            verifier = Verifier.from_config(self.config.identity)
            served = ServedService(DESCRIPTOR, self.config.server, limits=self.config.limits, verifier=verifier)
            self.interceptors = served.interceptors
            # the gateway is also served to browsers by hand_web (make run)
            self.gateway = RoomGateway(self.bus, self.store, index, self.repo, self.feeds,
                                       presence_grace_s=self.config.presence_grace_s,
                                       owner=self.owner if self.config.local_commands else None,
                                       verifier=verifier, store_timeout_s=self.config.store_timeout_s)
            self.gateway_descriptor = DESCRIPTOR
            self.browser_service = (self.gateway, self.gateway_descriptor, self.interceptors)
            room_service_pb2_grpc.add_RoomServiceServicer_to_server(self.gateway, served.server)
            self.port = served.bind()
            await served.start()
            self._served = served
            log.info("listening", service=SERVICE_NAME, address=self.target, instance=self.instance_id)

    async def _open_store(self) -> RoomIndex:
        """Create the schema; replicas starting together may race on it, so retry."""
        for attempt in range(10):
            try:
                await self.store.start()
                index = RoomIndex(self.store.engine)
                await index.start()
                return index
            except (OperationalError, IntegrityError, ProgrammingError) as exc:
                log.warning("store_start_retry", attempt=attempt, error=str(exc).splitlines()[0])
                await self.store.close()
                await asyncio.sleep(0.2 * (attempt + 1))
                self.store = EventStore(self.store_url)
        raise RuntimeError("could not open the event store")

    async def stop(self, grace: float | None = None) -> None:
        if self._served is not None:
            await self._served.stop(grace)
            self._served = None
        for part in (self.watch, self.bus, self.owner, self.relay, self.feeds):
            if part is not None:
                await part.stop()
        if isinstance(self.rules, GrpcRules):
            await self.rules.close()
        if self.store is not None:
            await self.store.close()
        log.info("stopped", service=SERVICE_NAME, instance=self.instance_id)
