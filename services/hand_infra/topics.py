"""The project's Kafka topics, created explicitly with the admin client and checked.

Brokers that auto-create topics pick their own partition count (Tansu: 4), so every
service calls :func:`ensure_topics` at start-up (and ``BrokerWatch`` after an outage),
and no project client's metadata request may create a topic (``no_auto_create``). It is
idempotent, and it checks existing topics (docs/decisions/0019-topics-checked.md): one
with fewer partitions than configured is grown (CreatePartitions), or — where the broker
cannot (Tansu has no CreatePartitions) — :class:`TopicPartitionsError` names it and
both counts, and the service does not start; one with more is used as it is, with a
warning (owners and producers take the count from the topic's metadata).
Works unchanged against Apache Kafka.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import structlog
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic
from aiokafka.errors import KafkaError, for_code
from aiokafka.partitioner import murmur2

from hand_infra.client_lifecycle import start_client
from hand_infra.settings import KafkaSettings

log = structlog.get_logger("hand_infra.topics")



@functools.lru_cache(maxsize=65_536)
def partition_of(key: str, partitions: int) -> int:
    """The partition Kafka's default partitioner gives ``key`` (every topic keyed by room id).
    Cached: aiokafka's murmur2 is pure Python (~10 µs), and a room's partition is asked
    several times per command (the router, the owner, the gateway); 1 % of an instance's
    time flat out before."""
    return (murmur2(key.encode()) & 0x7FFFFFFF) % partitions


ROOM_COMMANDS = "hand.room-commands"
"""Commands for a room (hand.v1.RoomCommand); key = room_id; the partition owner owns
the room. Written by the room service and the bots, read by the room service only."""
ROOM_EVENTS = "hand.room-events"
"""PRIVATE. Accepted events from the outbox relay, complete but for seat credentials
(deal orders, seeds, drawn cards, player ids); key = room_id; value = hand.v1.RoomEvent.
Read by the room service and the ledger only."""
ROOM_EVENTS_PUBLIC = "hand.room-events-public"
"""The same events redacted for spectators (no hidden card, no seed, no player id,
no join code); key = room_id; value = hand.v1.RoomEvent. For analytics and any service."""
BOT_REQUESTS = "hand.bot-requests"
"""PRIVATE. A bot seat's view (its own hand) and history; value = hand.v1.BotRequest.
Read by the bot service only."""
ROOM_REPLIES = "hand.room-replies"
"""Outcomes of room commands (hand.v1.RoomReply) for the instance that sent them;
key = that instance's id. Room service only."""
PROJECT_TOPICS = (ROOM_COMMANDS, ROOM_EVENTS, ROOM_EVENTS_PUBLIC, BOT_REQUESTS, ROOM_REPLIES)
EVENT_TOPICS = (ROOM_EVENTS, ROOM_EVENTS_PUBLIC)
"""Kept for days (``HAND_KAFKA_EVENTS_RETENTION_H``): readers that fall behind catch up from
here before they need the event store. The other project topics are transient: a command,
a reply or a bot request nobody read within a command timeout is worth nothing, so they keep
``HAND_KAFKA_TRANSIENT_RETENTION_MIN``."""

TOPIC_ALREADY_EXISTS = 36


class TopicPartitionsError(RuntimeError):
    """A project topic has fewer partitions than configured and cannot be grown."""


async def ensure_topics(
    settings: KafkaSettings,
    names: Iterable[str] = PROJECT_TOPICS,
    partitions: int | None = None,
) -> list[str]:
    """Create the topics in ``names`` that don't exist, check the others; return those created.

    ``partitions`` defaults to ``settings.partitions`` (``HAND_KAFKA_PARTITIONS``).
    A concurrent creator winning the race counts as "exists", not an error: its topic
    is checked like any existing one (grown, refused, or used with a warning).
    """
    names = list(dict.fromkeys(names))
    count = partitions or settings.partitions
    admin = AIOKafkaAdminClient(**settings.admin_kwargs())
    await start_client(admin)
    try:
        existing = set(await admin.list_topics())
        missing = [n for n in names if n not in existing]
        created = await _create(admin, settings, missing, count) if missing else []
        await _check_partitions(admin, [n for n in names if n not in created], count)
    finally:
        await admin.close()
    return created


async def _create(admin: AIOKafkaAdminClient, settings: KafkaSettings, names: list[str], count: int) -> list[str]:
    response = await admin.create_topics(
        [NewTopic(n, count, settings.replication_factor, topic_configs=topic_configs(settings, n))
         for n in names]
    )
    created = []
    for name, code, message in response.topic_errors:
        if code == 0:
            created.append(name)
        elif code != TOPIC_ALREADY_EXISTS:
            raise for_code(code)(f"create topic {name}: {message}")
    log.info("topics_created", topics=created, partitions=count)
    return created


async def _partition_counts(admin: AIOKafkaAdminClient, names: list[str]) -> dict[str, int]:
    """Partitions per topic, for those the broker describes with partitions."""
    if not names:
        return {}
    return {t["topic"]: len(t["partitions"]) for t in await admin.describe_topics(names) if t["partitions"]}


async def _check_partitions(admin: AIOKafkaAdminClient, names: list[str], count: int) -> None:
    """Existing topics: grow those with fewer than ``count`` partitions, or raise
    :class:`TopicPartitionsError`; warn about those with more (they are used as they are)."""
    found = await _partition_counts(admin, names)
    for name, n in found.items():
        if n > count:
            log.warning("topic_has_more_partitions", topic=name, partitions=n, configured=count)
    few = {name: n for name, n in found.items() if n < count}
    if not few:
        return
    try:
        await admin.create_partitions({name: NewPartitions(count) for name in few})
        why = ""
    except KafkaError as exc:  # Tansu: IncompatibleBrokerVersion (no CreatePartitions); Kafka: e.g. ACLs
        why = f"{type(exc).__name__}: {exc}"
    after = await _partition_counts(admin, list(few))
    short = {name: after.get(name, n) for name, n in few.items() if after.get(name, n) < count}
    if short:
        raise TopicPartitionsError(
            "; ".join(f"topic {name} has {n} partitions, {count} configured (HAND_KAFKA_PARTITIONS)"
                      for name, n in short.items())
            + f"; the broker did not grow the partitions ({why or 'no error, yet not grown'}): grow "
            f"them (kafka-topics --alter --partitions {count}) or delete the topic, then start again")
    log.warning("topics_grown", topics=sorted(few), partitions=count, were=few)


def topic_configs(settings: KafkaSettings, name: str) -> dict[str, str]:
    """The configs a project topic is created with: its retention (topics of other names, e.g.
    a test's, get the broker's defaults). Existing topics are not altered: change a running
    cluster's retention with kafka-configs (deploy/kafka-acls.md)."""
    if name in EVENT_TOPICS:
        return {"retention.ms": str(settings.events_retention_ms)}
    if name in PROJECT_TOPICS:
        return {"retention.ms": str(settings.transient_retention_ms)}
    return {}


async def topic_partitions(settings: KafkaSettings, name: str) -> int:
    """The number of partitions of topic ``name`` (0 if it does not exist).

    Lists topics first: only a topic that exists is described (project clients'
    metadata requests never create a topic, hand_infra.no_auto_create, but this
    one needs no such guarantee).
    """
    admin = AIOKafkaAdminClient(**settings.admin_kwargs())
    await start_client(admin)
    try:
        if name not in await admin.list_topics():
            return 0
        return (await _partition_counts(admin, [name])).get(name, 0)
    finally:
        await admin.close()
