"""``RoomServer``: one room-service instance (gateway + owner + outbox relay)."""

from __future__ import annotations

import asyncio
import uuid

import structlog
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from hand.v1 import room_service_pb2, room_service_pb2_grpc
from hand_common.grpc_server import ServedService
from hand_common.identity import Verifier
from hand_common.readiness import Readiness
from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.broker_watch import BrokerWatch
from hand_infra.eventstore import EventStore
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings

from .bootstrap import Instance, bootstrap
from .bus import Bus
from .feeds import Feeds
from .index import RoomIndex
from .matchmaking import LedgerRatings, NoRatings
from .owner import RoomOwner
from .ownership import Endpoint
from .repository import RoomRepository
from .rules_port import GrpcRules, LocalRules
from .settings import RoomConfig

DESCRIPTOR = room_service_pb2.DESCRIPTOR.services_by_name["RoomService"]
SERVICE_NAME = DESCRIPTOR.full_name
log = structlog.get_logger("hand_room")
#: the share of the shutdown grace over which a stopping instance ends its Watch streams
DRAIN_SHARE = 0.5


class RoomServer:
    name = "room"

    def __init__(self, config: RoomConfig, kafka: KafkaSettings, store_url: str,
                 *, instance_id: str | None = None, topics: dict[str, str] | None = None,
                 broker: BrokerPort | None = None) -> None:
        self.config, self.kafka, self.store_url = config, kafka, store_url
        self.broker = kafka_or(broker, kafka)  # aiokafka's clients, or an in-memory broker (tests)
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
        self.instance: Instance | None = None
        self.ratings: LedgerRatings | NoRatings = NoRatings()

    @property
    def target(self) -> str:
        return self.config.server.dial_target(self.port)

    async def start(self) -> None:
        with structlog.contextvars.bound_contextvars(instance=self.instance_id):
            if not self.topics:
                await self.broker.ensure_topics(self.kafka)
            self.store = EventStore(self.store_url, lock_timeout_s=self.config.store_timeout_s)
            index = await self._open_store()
            self.rules = GrpcRules(self.config.rules_address) if self.config.rules_address else LocalRules()
            verifier = Verifier.from_config(self.config.identity)
            served = ServedService(DESCRIPTOR, self.config.server, limits=self.config.limits, verifier=verifier)
            try:
                self.port = served.bind()  # first: the instance's address goes into the owners' group
            except OSError:  # the port is taken: close what was opened, as the other servers do
                await self.stop()
                raise
            me = Endpoint(self.config.advertised_address or self.target, self.config.web_url, self.instance_id)
            if self.config.ledger_address:
                self.ratings = LedgerRatings(self.config.ledger_address)
            self.instance = bootstrap(self.config, self.kafka, store=self.store, index=index, rules=self.rules,
                                      me=me, topics=self.topics, verifier=verifier, ratings=self.ratings,
                                      broker=self.broker)
            i = self.instance
            self.relay, self.repo, self.feeds, self.owner, self.bus, self.watch = (
                i.relay, i.repo, i.feeds, i.owner, i.bus, i.watch)
            self.router, self.gateway = i.router, i.gateway
            await i.start()
            self.interceptors = served.interceptors
            # the gateway is also served to browsers by hand_web (make run)
            self.gateway_descriptor = DESCRIPTOR
            self.browser_service = (self.gateway, self.gateway_descriptor, self.interceptors)
            room_service_pb2_grpc.add_RoomServiceServicer_to_server(self.gateway, served.server)
            await served.start(Readiness({"partitions": lambda: i.owner.in_group, "broker": i.owner.broker_up,
                                          "store": self.store.ping}, timeout_s=self.config.store_timeout_s))
            self._served = served
            log.info("listening", service=SERVICE_NAME, address=self.target, instance=self.instance_id,
                     advertised=me.address)

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
                self.store = EventStore(self.store_url, lock_timeout_s=self.config.store_timeout_s)
        raise RuntimeError("could not open the event store")

    async def stop(self, grace: float | None = None) -> None:
        """A graceful stop hands the rooms over while it drains (docs/room-service.md,
        "An instance stopped under load"): new calls are refused at once (health
        NOT_SERVING); the Watch streams open here end one after another over half the
        grace, so their clients reconnect elsewhere spread out; then the owner leaves its
        group, and the other instances take its rooms while the last calls finish."""
        grace = self.config.server.shutdown_grace_s if grace is None else grace
        if self._served is not None:
            served, self._served = self._served, None
            stopping = asyncio.ensure_future(served.stop(grace))
            if self.instance is not None and grace > 0:
                await self.instance.gateway.streams.drain(grace * DRAIN_SHARE)
                await self.instance.owner.stop()  # leaves the group: its rooms move now
            await stopping
        if self.instance is not None:
            await self.instance.stop()
        if isinstance(self.rules, GrpcRules):
            await self.rules.close()
        if isinstance(self.ratings, LedgerRatings):
            await self.ratings.close()
        if self.store is not None:
            await self.store.close()
        log.info("stopped", service=SERVICE_NAME, instance=self.instance_id)
