"""``LedgerServer``: one ledger replica (store + consumer + gRPC server).

It serves ``hand.v1.LedgerService``, ``grpc.health.v1.Health`` (both "" and
"hand.v1.LedgerService" SERVING while up) and server reflection, and feeds
its store from ``hand.room-events`` in the ledger's consumer group. Calls
pass the shared rate limiter and door first (``hand_common.serving``). Any
number of replicas may share one store (PostgreSQL); each then consumes
its share of the partitions and answers every read.
"""

from __future__ import annotations

import structlog

from hand.v1 import ledger_service_pb2, ledger_service_pb2_grpc, tournament_service_pb2, tournament_service_pb2_grpc
from hand_common.grpc_server import ServedService
from hand_common.identity import Verifier
from hand_common.readiness import Readiness
from hand_infra.broker_watch import BrokerWatch
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ROOM_EVENTS, ensure_topics

from .consumer import LedgerConsumer
from .discovery import RoomDiscovery
from .repair import GapRepair
from .service import LedgerService
from .settings import LedgerConfig
from .store import LedgerStore
from .tournament_service import TournamentService
from .tournament_store import TournamentStore
from .tournament_driver import Driver
from .tournament_tables import Tables

DESCRIPTOR = ledger_service_pb2.DESCRIPTOR.services_by_name["LedgerService"]
SERVICE_NAME = DESCRIPTOR.full_name
TOURNAMENTS = tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"]
log = structlog.get_logger("hand_ledger")


class LedgerServer:
    """The ledger on ``config.server.address`` (port 0: a free port, see ``port``).

    ``kafka=None`` serves reads only (no consumer): for tests and tools.
    ``topic`` overrides ``hand.room-events`` (tests use a topic of their own).
    """

    name = "ledger"

    def __init__(self, config: LedgerConfig, kafka: KafkaSettings | None, *,
                 topic: str | None = None, store: LedgerStore | None = None) -> None:
        self.config, self.kafka, self.topic = config, kafka, topic
        self.store = store or LedgerStore(config.url, handle_secret=config.handle_secret)
        self.consumer: LedgerConsumer | None = None
        self.watch: BrokerWatch | None = None
        self.port = 0
        self._served: ServedService | None = None
        self.tables: Tables | None = None
        self.driver: Driver | None = None

    @property
    def target(self) -> str:
        return self.config.server.dial_target(self.port)

    async def start(self) -> None:
        await self.store.start()
        if self.kafka is not None:
            if self.topic is None:
                await ensure_topics(self.kafka)
            repair = None
            if self.config.eventstore_url:
                repair = GapRepair(self.config.eventstore_url, after_s=self.config.repair_after_s)
                await repair.start()
            discovery = None if repair is None else RoomDiscovery(self.config.discover_s,
                                                                  self.config.discover_batch)
            self.consumer = LedgerConsumer(self.store, self.kafka, group_id=self.config.group_id,
                                           topic=self.topic or ROOM_EVENTS, repair=repair, discovery=discovery)
            await self.consumer.start()
            self.watch = BrokerWatch(self.kafka, [self.topic or ROOM_EVENTS])  # outages: reconnect
            self.watch.on_recover.append(self.consumer.reconnect)
            await self.watch.start()
        verifier = Verifier.from_config(self.config.identity)
        served = ServedService(DESCRIPTOR, self.config.server, limits=self.config.limits, verifier=verifier,
                               also=(TOURNAMENTS,))
        self.interceptors = served.interceptors
        self.servicer = LedgerService(self.store, verifier=verifier, min_seq_wait_s=self.config.min_seq_wait_s)  # also served to browsers by hand_web
        self.servicer_descriptor = DESCRIPTOR
        self.browser_service = (self.servicer, self.servicer_descriptor, self.interceptors)
        ledger_service_pb2_grpc.add_LedgerServiceServicer_to_server(self.servicer, served.server)
        tournaments = TournamentStore(self.store)  # decision 0029: tournaments live in the ledger
        if self.config.room_address:
            self.tables = Tables(tournaments, self.config.room_address)
            self.driver = Driver(self.tables)
        self.tournaments = TournamentService(tournaments, self.tables, verifier=verifier)
        tournament_service_pb2_grpc.add_TournamentServiceServicer_to_server(self.tournaments, served.server)
        self.browser_services = [self.browser_service, (self.tournaments, TOURNAMENTS, self.interceptors)]
        try:
            self.port = served.bind()
        except OSError:
            await self.stop()
            raise
        checks = {"store": self.store.ping}
        if self.watch is not None:
            checks["broker"] = lambda: self.watch is not None and self.watch.up
        await served.start(Readiness(checks))
        self._served = served
        if self.driver is not None:
            self.driver.start()
        log.info("listening", service=SERVICE_NAME, address=self.target)

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, finish in-flight calls, stop consuming, close the store."""
        if self._served is not None:
            await self._served.stop(grace)
            self._served = None
        if self.driver is not None:
            await self.driver.stop()
            self.driver = None
        if self.tables is not None:
            await self.tables.close()
            self.tables = None
        if self.watch is not None:
            await self.watch.stop()
            self.watch = None
        if self.consumer is not None:
            await self.consumer.stop()
            if self.consumer.repair is not None:
                await self.consumer.repair.close()
            self.consumer = None
        await self.store.close()
        log.info("stopped", service=SERVICE_NAME)
