"""``bootstrap``: one room-service instance built whole, each part given what it
needs when it is made (cosmicpython's ``bootstrap.py``): nothing is filled in
later — the broker watch's recovery callbacks included. ``RoomServer`` serves what
it returns; tests and simulations build instances the same way.

``broker`` (``hand_infra.broker_port``) is where every broker client of the
instance comes from: aiokafka's for ``kafka`` by default, or an in-process
:class:`~hand_infra.memory_broker.MemoryBroker` (tests, ``hand_sim``) — with the
SQLite store, a whole instance, or several sharing one broker and one store, runs
with no broker process (docs/room-service.md, "Built whole").

Order: the outbox relay → the repository → the feeds → the owner (its timers and
presence tracker inside) → the bus → the router (the one place that decides where
a command goes) → the gateway.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from hand_common.identity import Verifier
from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.broker_watch import BrokerWatch
from hand_infra.eventstore import EventStore
from hand_infra.outbox import ORPHAN_AFTER_S, OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.topics import BOT_REQUESTS, ROOM_COMMANDS, ROOM_EVENTS, ROOM_EVENTS_PUBLIC, ROOM_REPLIES
from hand_wire import private_value, public_value

from .admission import Admission
from .bus import Bus
from .creation import CreationLimits
from .feeds import Feeds
from .gateway import RoomGateway
from .index import RoomIndex
from .matchmaking import Matchmaker, NoRatings, RatingsPort, Schedule
from .matchmaking.log import PoolLog
from .owner import RoomOwner
from .ownership import Endpoint, OwnershipMap
from .quick_chat import ChatLimits
from .repository import RoomRepository
from .router import CommandRouter
from .rules_port import RulesPort
from .settings import RoomConfig


@dataclass
class Instance:
    """The parts of one instance, started and stopped in this order (stop: reversed)."""

    watch: BrokerWatch
    relay: OutboxRelay
    repo: RoomRepository
    feeds: Feeds
    owner: RoomOwner
    bus: Bus
    router: CommandRouter
    gateway: RoomGateway
    ownership: OwnershipMap
    matchmaker: Matchmaker
    broker: BrokerPort

    async def start(self) -> None:
        await self.relay.start()
        await self.owner.start()
        await self.matchmaker.start()
        await self.bus.start()
        await self.watch.start()

    async def stop(self) -> None:
        for part in (self.matchmaker, self.watch, self.bus, self.owner, self.relay, self.feeds):
            await part.stop()


def topic_names(topics: dict[str, str] | None) -> dict[str, str]:
    t = topics or {}
    events = t.get("events", ROOM_EVENTS)
    return {"commands": t.get("commands", ROOM_COMMANDS), "replies": t.get("replies", ROOM_REPLIES),
            "events": events, "public": t.get("public", ROOM_EVENTS_PUBLIC if "events" not in t else f"{events}-public"),
            "bots": t.get("bots", BOT_REQUESTS)}


def bootstrap(config: RoomConfig, kafka: KafkaSettings, *, store: EventStore, index: RoomIndex,
              rules: RulesPort, me: Endpoint, topics: dict[str, str] | None = None,
              verifier: Verifier | None = None, ratings: RatingsPort | None = None,
              broker: BrokerPort | None = None) -> Instance:
    names = topic_names(topics)
    broker = kafka_or(broker, kafka)
    watch = BrokerWatch(kafka, list(names.values()), broker=broker)  # outages: fail fast, then reconnect
    ownership = OwnershipMap(me, kafka.partitions)
    # woken by every commit of this instance's owner; polling (rows other instances
    # wrote and did not relay) only twice a second, so an idle instance stays idle. Every
    # instance sends its own rows straight after the commit: a pass leaves another's rows
    # to it for ORPHAN_AFTER_S and takes them after that (an instance that died with rows
    # unsent): those of the rooms it owns now, or that nobody holds as far as it knows
    relay = OutboxRelay(store, kafka, topic=names["events"], watch=watch, mark_interval=0.2, idle_interval=0.5,
                        routes=[(names["events"], private_value), (names["public"], public_value)], broker=broker,
                        orphan_after_s=ORPHAN_AFTER_S, mine=lambda room_id: ownership.owner_of(room_id) in (None, me),
                        direct_linger_s=config.publish_linger_ms / 1000)
    repo = RoomRepository(store)
    feeds = Feeds(store, repo)
    # The owners' group detects a dead member fast (docs/decisions/0009-fast-failover.md).
    owner_kafka = dataclasses.replace(kafka, session_timeout_ms=config.session_timeout_ms,
                                      heartbeat_interval_ms=config.heartbeat_ms)
    owner = RoomOwner(store, index, owner_kafka, rules, relay, ownership=ownership, group_id=config.group_id,
                      away_after_timeouts=config.away_after_timeouts, topics=topics, repo=repo, feeds=feeds,
                      store_timeout_s=config.store_timeout_s, presence_grace_s=config.presence_grace_s,
                      watch=watch, admission=Admission(config.max_pending, config.max_queue_delay_ms / 1000,
                                                  max_lag_s=config.max_loop_lag_ms / 1000),
                      stale_after_s=config.command_timeout_s, pass_linger_s=config.pass_linger_ms / 1000,
                      broker=broker)
    bus = Bus(kafka, instance_id=me.instance_id, command_timeout_s=config.command_timeout_s, topics=topics,
              feeds=feeds, watch=watch, owns=owner.owns, ownership_version=lambda: owner.version, broker=broker)
    # after an outage: the bus first (replies to commands the new owner applies), then the owner
    watch.on_recover += [bus.reconnect, owner.reconnect]
    router = CommandRouter(owner if config.local_commands else None, bus, ownership)
    start, step, step_s, widest = config.match_range
    schedule = Schedule(start, step, step_s, widest, config.match_bot_fill_s, config.match_quit_ladder_s)
    pools = PoolLog(store, snapshot_every=config.match_snapshot_every)
    matchmaker = Matchmaker(pools, router, repo, schedule, tick_s=config.match_tick_ms / 1000,
                            waiting_ttl_s=config.waiting_ttl_s)
    gateway = RoomGateway(router, store, index, repo, feeds, verifier=verifier,
                          store_timeout_s=config.store_timeout_s, waiting_ttl_s=config.waiting_ttl_s,
                          creation=CreationLimits(config.create_per_player_per_min, config.create_per_peer_per_min),
                          chat_limits=ChatLimits(config.chat_per_min, config.chat_burst),
                          matchmaker=matchmaker, ratings=ratings or NoRatings(), schedule=schedule)
    return Instance(watch, relay, repo, feeds, owner, bus, router, gateway, ownership, matchmaker, broker)
