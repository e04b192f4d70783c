"""The embedded broker stays bounded: Tansu's memory storage keeps every message (no
retention, no DeleteRecords), so past HAND_BROKER_MAX_RSS_MB make run's keeper replaces
it with an empty one — the path a crash takes, which every service rides out
(test_chaos.py, test_broker_outage.py). Project topics are created with retention."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from hand_infra.settings import kafka_settings
from hand_infra.topics import BOT_REQUESTS, PROJECT_TOPICS, ROOM_COMMANDS, ROOM_EVENTS, ROOM_EVENTS_PUBLIC, topic_configs
from hand_run import Broker, Stack
from hand_run.settings import EmbeddedBrokerConfig

pytestmark = pytest.mark.skipif(not kafka_settings().embedded, reason="bounds the embedded broker")

MB = 2**20


def test_topics_are_created_with_retention_by_kind() -> None:
    settings = kafka_settings({"HAND_KAFKA_EVENTS_RETENTION_H": "48", "HAND_KAFKA_TRANSIENT_RETENTION_MIN": "5"})
    assert topic_configs(settings, ROOM_EVENTS) == {"retention.ms": str(48 * 3_600_000)}
    assert topic_configs(settings, ROOM_EVENTS_PUBLIC) == {"retention.ms": str(48 * 3_600_000)}
    for name in (ROOM_COMMANDS, BOT_REQUESTS):
        assert topic_configs(settings, name) == {"retention.ms": str(5 * 60_000)}
    assert topic_configs(settings, "someone-elses-topic") == {}
    assert set(PROJECT_TOPICS) >= {ROOM_EVENTS, ROOM_COMMANDS}
    with pytest.raises(ValueError, match="HAND_KAFKA_EVENTS_RETENTION_H"):
        kafka_settings({"HAND_KAFKA_EVENTS_RETENTION_H": "0"})
    assert EmbeddedBrokerConfig.from_env({}).max_rss_mb == 64
    with pytest.raises(ValueError, match="HAND_BROKER_MAX_RSS_MB"):
        EmbeddedBrokerConfig.from_env({"HAND_BROKER_MAX_RSS_MB": "-1"})


@pytest.mark.timeout(120)
async def test_keeper_replaces_the_broker_past_its_memory_bound_and_the_topics_come_back() -> None:
    bound_mb = 48
    stack = Stack()
    broker = Broker({"HAND_BROKER_PORT": "0", "HAND_BROKER_MAX_RSS_MB": str(bound_mb)}, stack)
    await broker.start()
    settings = stack.kafka
    keeper = broker.keeper
    assert keeper is not None and keeper.tansu.rss_bytes() < bound_mb * MB
    producer = AIOKafkaProducer(**settings.producer_kwargs(), max_request_size=2 * MB)
    await producer.start()
    try:
        chunk = b"x" * (256 * 1024)
        deadline = time.monotonic() + 60
        sent = 0
        while keeper.rotations == 0 and time.monotonic() < deadline:
            try:
                await producer.send_and_wait(ROOM_EVENTS_PUBLIC, chunk, key=b"r")
                sent += 1
            except Exception:  # the broker being replaced under the producer
                await asyncio.sleep(0.1)
        assert keeper.rotations == 1, f"no rotation after {sent} x 256 KiB"
        assert sent * len(chunk) < 4 * bound_mb * MB
        while keeper.restarts < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert keeper.restarts == 1 and keeper.tansu.running
        assert keeper.tansu.rss_bytes() < bound_mb * MB
        # the replacement has every project topic, with the project's partition count
        admin = AIOKafkaAdminClient(**settings.admin_kwargs())
        await admin.start()
        try:
            described = {t["topic"]: len(t["partitions"]) for t in await admin.describe_topics(list(PROJECT_TOPICS))}
        finally:
            await admin.close()
        assert described == {name: settings.partitions for name in PROJECT_TOPICS}
        # and it is a working broker on the same address: what is sent now is read back
        await producer.send_and_wait(ROOM_EVENTS, b"after", key=b"r")
        consumer = AIOKafkaConsumer(ROOM_EVENTS, **settings.consumer_kwargs(None))
        await consumer.start()
        try:
            got = await asyncio.wait_for(consumer.getone(), 20)
        finally:
            await consumer.stop()
        assert got.value == b"after"
    finally:
        await producer.stop()
        await broker.stop()
