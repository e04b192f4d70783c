"""Topics are checked, not trusted (docs/decisions/0019-topics-checked.md).

A project topic with fewer partitions than configured is grown, or — where the broker
cannot grow it (Tansu has no CreatePartitions) — the check refuses with a message naming
the topic and both counts; one with more is used as it is, with a warning. No project
client's metadata request creates a topic with the broker's defaults, so a broker
restarted under a running room service ends with every configured partition owned."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import structlog
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from hand_infra.broker import TansuBroker
from hand_infra.broker_watch import BrokerWatch
from hand_infra.settings import KafkaSettings, kafka_settings
from hand_infra.topics import TopicPartitionsError, ensure_topics, topic_partitions
from hand_room.server import RoomServer

from .room_support import make_topics, room_config, topics_for, wait_for


async def create_topic(settings: KafkaSettings, name: str, partitions: int) -> None:
    """A topic made by someone else (another tool, a broker default) before the check."""
    admin = AIOKafkaAdminClient(**settings.admin_kwargs())
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, partitions, settings.replication_factor)])
    finally:
        await admin.close()


@pytest.mark.timeout(20)
async def test_a_topic_with_too_few_partitions_is_grown_or_refused_by_name(broker: KafkaSettings, unique: str) -> None:
    topic = f"few.{unique}"
    await create_topic(broker, topic, 2)
    try:
        grown = await ensure_topics(broker, [topic], partitions=5)
    except TopicPartitionsError as refused:  # a broker without CreatePartitions (Tansu)
        message = str(refused)
        assert topic in message and "2 partitions" in message and "5 configured" in message, message
        assert await topic_partitions(broker, topic) == 2
    else:  # a broker that grows topics (Apache Kafka)
        assert grown == []
        assert await topic_partitions(broker, topic) == 5


@pytest.mark.timeout(20)
async def test_a_topic_with_more_partitions_is_used_as_it_is_with_a_warning(broker: KafkaSettings,
                                                                            unique: str) -> None:
    topic = f"many.{unique}"
    await create_topic(broker, topic, 6)
    with structlog.testing.capture_logs() as logs:
        assert await ensure_topics(broker, [topic], partitions=4) == []
    assert await topic_partitions(broker, topic) == 6
    [warning] = [e for e in logs if e["event"] == "topic_has_more_partitions"]
    assert warning["log_level"] == "warning"
    assert (warning["topic"], warning["partitions"], warning["configured"]) == (topic, 6, 4)


@pytest.mark.skipif(not kafka_settings().embedded, reason="needs a broker that cannot grow a topic (Tansu)")
@pytest.mark.timeout(20)
async def test_the_broker_watch_stays_down_while_a_topic_cannot_be_grown(broker: KafkaSettings, unique: str) -> None:
    few, lost = f"few.{unique}", f"lost.{unique}"
    await create_topic(broker, few, 2)
    watch = BrokerWatch(dataclasses.replace(broker, partitions=3), [few, lost], interval=0.05, topic_check_s=0.05)
    with structlog.testing.capture_logs() as logs:
        await watch.start()
        try:
            await wait_for(lambda: any(e["event"] == "broker_topics_refused" for e in logs), 10)
            assert not watch.up and watch.epoch == 0
        finally:
            await watch.stop()
    assert await topic_partitions(broker, few) == 2
    [refused] = [e for e in logs if e["event"] == "broker_topics_refused"]
    assert refused["log_level"] == "error" and few in refused["error"]


@pytest.mark.skipif(not kafka_settings().embedded, reason="restarts the embedded broker")
@pytest.mark.timeout(60)  # ~12 s; 7 s of it the owner's new consumer joining (pre-existing)
async def test_a_restarted_broker_asked_for_a_topic_before_the_check_ends_with_every_partition_owned(
        tmp_path: Path, unique: str) -> None:
    """Tansu killed and started again on its port (no keeper): a client asks for the commands
    topic before the room service's BrokerWatch runs its topic check. The request must not
    create it with Tansu's 4 partitions; the check creates it with the configured 8."""
    tansu = TansuBroker()
    await tansu.start()
    base = dataclasses.replace(kafka_settings(), session_timeout_ms=3000, heartbeat_interval_ms=500, partitions=8)
    settings = base.with_bootstrap(tansu.bootstrap_servers)
    topics = topics_for(unique)
    await make_topics(settings, topics, partitions=8)
    room = RoomServer(room_config(unique, HAND_ROOM_SESSION_TIMEOUT_MS="3000", HAND_ROOM_HEARTBEAT_MS="500"),
                      settings, f"sqlite:///{tmp_path / 'events.db'}", topics=topics)
    producer = None
    try:
        await room.start()
        await wait_for(lambda: room.owner.owned == set(range(8)), 10)
        tansu.kill()
        await wait_for(lambda: not room.watch.up, 5)
        await room.watch.stop()  # the topic check is held back until the client has asked
        await tansu.stop()
        tansu = TansuBroker(port=tansu.port)
        await tansu.start()

        producer = AIOKafkaProducer(**settings.producer_kwargs())
        await producer.start()
        await producer.client.add_topic(topics["commands"])  # one metadata request naming it
        assert await topic_partitions(settings, topics["commands"]) == 0, "created by a metadata request"

        await room.watch.start()
        await wait_for(lambda: room.watch.up and room.watch.epoch == 1, 10)
        assert await topic_partitions(settings, topics["commands"]) == 8
        await wait_for(lambda: room.owner.owned == set(range(8)), 10)
    finally:
        if producer is not None:
            await producer.stop()
        await room.stop(grace=0)
        await tansu.stop()
