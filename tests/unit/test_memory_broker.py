"""The in-memory broker (hand_infra.memory_broker): partitions keyed as Kafka's default
partitioner, consumer groups that split partitions among live members and rebalance,
committed offsets a new owner resumes from, manual assignment with seeks, outages."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import CommitFailedError, KafkaConnectionError, KafkaTimeoutError

from hand_infra.consumer_loop import ConsumerLoop
from hand_infra.memory_broker import MemoryBroker
from hand_infra.settings import KafkaSettings
from hand_infra.topics import partition_of

SETTINGS = KafkaSettings(partitions=4, session_timeout_ms=1000)
T = "t"


class Listener(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, set[int]]] = []

    async def on_partitions_revoked(self, revoked) -> None:
        self.events.append(("revoked", {tp.partition for tp in revoked}))

    async def on_partitions_assigned(self, assigned) -> None:
        self.events.append(("assigned", {tp.partition for tp in assigned}))


async def started(broker: MemoryBroker, group: str = "g", listener=None):
    consumer = broker.consumer(SETTINGS, group_id=group)
    consumer.subscribe([T], listener=listener)
    await consumer.start()
    return consumer


async def poll_until(consumers, done, timeout_s: float = 3.0) -> dict:
    """Poll every consumer in turn (as their loops would) until ``done()``; the records read."""
    got: dict = {id(c): [] for c in consumers}
    async with asyncio.timeout(timeout_s):
        while not done():
            for c in consumers:
                for records in (await c.getmany(timeout_ms=20)).values():
                    got[id(c)].extend(records)
    return got


async def test_records_go_to_the_partition_of_their_key_with_offsets() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    producer = broker.producer(SETTINGS)
    await producer.start()
    metas = [await producer.send_and_wait(T, key=f"room-{i}".encode(), value=b"v") for i in range(20)]
    for i, meta in enumerate(metas):
        assert meta.partition == partition_of(f"room-{i}", 4)
    for p in range(4):
        assert [r.offset for r in broker.records(T, p)] == list(range(len(broker.records(T, p))))
    with pytest.raises(KafkaTimeoutError):  # no send creates a topic
        await producer.send("missing", key=b"k", value=b"v")


async def test_a_batch_goes_whole_to_its_partition_in_order_as_aiokafkas_send_batch() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    producer = broker.producer(SETTINGS)
    await producer.start()
    assert await producer.partitions_for(T) == {0, 1, 2, 3}
    batch = producer.create_batch()
    for i in range(3):
        assert batch.append(key=b"room-7", value=f"v{i}".encode(), timestamp=None, headers=[("h", b"x")]) is not None
    meta = await (await producer.send_batch(batch, T, partition=2))
    assert meta.partition == 2
    assert [(r.value, r.headers) for r in broker.records(T, 2)] == [(f"v{i}".encode(), (("h", b"x"),)) for i in range(3)]
    with pytest.raises(KafkaTimeoutError):  # no call creates a topic
        await producer.partitions_for("missing")


async def test_a_group_splits_the_partitions_and_rebalances_when_a_member_joins_and_leaves() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    la, lb = Listener(), Listener()
    a = await started(broker, listener=la)
    await poll_until([a], lambda: bool(a.assignment()))
    assert {tp.partition for tp in a.assignment()} == {0, 1, 2, 3}
    b = await started(broker, listener=lb)
    await poll_until([a, b], lambda: bool(b.assignment()) and bool(a.assignment()))
    held_a, held_b = ({tp.partition for tp in c.assignment()} for c in (a, b))
    assert held_a | held_b == {0, 1, 2, 3} and not held_a & held_b and len(held_a) == len(held_b) == 2
    assert la.events[:2] == [("assigned", {0, 1, 2, 3}), ("revoked", {0, 1, 2, 3})]  # eager: all revoked first
    await b.stop()  # leaves: a takes everything back
    await poll_until([a], lambda: len(a.assignment()) == 4)
    assert la.events[-1] == ("assigned", {0, 1, 2, 3})
    assert broker.groups["g"].generation == 3


async def test_a_new_owner_resumes_from_the_groups_commit_and_nothing_is_read_twice() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    producer = broker.producer()
    await producer.start()
    for i in range(40):
        await producer.send(T, key=f"k{i}".encode(), value=str(i).encode())
    a = await started(broker)
    first = await poll_until([a], lambda: sum(broker.end_offset(TopicPartition(T, p)) for p in range(4))
                             == sum(a._positions.values()))
    await a.commit()
    assert broker.committed("g") == {TopicPartition(T, p): broker.end_offset(TopicPartition(T, p)) for p in range(4)}
    for i in range(40, 60):
        await producer.send(T, key=f"k{i}".encode(), value=str(i).encode())
    await a.stop()  # nothing of the new records committed
    b = await started(broker)
    second = await poll_until([b], lambda: len(b._positions) == 4 and sum(b._positions.values()) == 60)
    values = sorted(int(r.value) for r in first[id(a)] + second[id(b)])
    assert values == list(range(60))  # each once


async def test_a_member_that_missed_the_rebalance_cannot_commit_and_rejoins() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    a = await started(broker)
    await poll_until([a], lambda: bool(a.assignment()))
    broker.expire(a)  # its session timed out
    b = await started(broker)
    await poll_until([b], lambda: len(b.assignment()) == 4)
    with pytest.raises(CommitFailedError):
        await a.commit()
    await poll_until([a, b], lambda: len(a.assignment()) == 2 and len(b.assignment()) == 2)


async def test_a_member_that_does_not_poll_is_dropped_after_the_rebalance_timeout() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    a = await started(broker)
    await poll_until([a], lambda: bool(a.assignment()))
    b = await started(broker)  # a never polls again (a frozen process)
    await poll_until([b], lambda: len(b.assignment()) == 4, timeout_s=3.0)
    assert a.member_id not in broker.groups["g"].members


async def test_manual_assignment_seeks_and_reads() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T], partitions=2)
    producer = broker.producer()
    await producer.start()
    for i in range(6):
        await producer.send(T, value=str(i).encode(), partition=i % 2)
    c = broker.consumer(SETTINGS)
    await c.start()
    tp = TopicPartition(T, 0)
    c.assign([tp])
    await c.seek_to_end(tp)
    assert await c.position(tp) == 3 and await c.end_offsets([tp]) == {tp: 3}
    assert await c.getmany(timeout_ms=10) == {}
    c.seek(tp, 1)
    assert [r.value for r in (await c.getmany(timeout_ms=10))[tp]] == [b"2", b"4"]
    assert c.highwater(tp) == 3
    await c.seek_to_beginning(tp)
    assert len((await c.getmany(timeout_ms=10, max_records=2))[tp]) == 2
    assert [r.value for r in (await c.getmany(timeout_ms=10))[tp]] == [b"4"]
    waiting = asyncio.ensure_future(c.getmany(timeout_ms=2000))  # woken by the next record
    await asyncio.sleep(0.01)
    await producer.send(T, value=b"6", partition=0)
    records = (await asyncio.wait_for(waiting, 1))[tp]
    assert [r.value for r in records] == [b"6"]


async def test_a_paused_partition_is_not_fetched_and_resumes_where_it_was() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T], partitions=2)
    producer = broker.producer()
    await producer.start()
    c = broker.consumer(SETTINGS)
    await c.start()
    tp, other = TopicPartition(T, 0), TopicPartition(T, 1)
    c.assign([tp, other])
    await c.seek_to_end(tp, other)
    c.pause(tp)
    assert c.paused() == {tp}
    await producer.send(T, value=b"a", partition=0)
    await producer.send(T, value=b"b", partition=1)
    assert {k: [r.value for r in v] for k, v in (await c.getmany(timeout_ms=10)).items()} == {other: [b"b"]}
    waiting = asyncio.ensure_future(c.getmany(timeout_ms=2000))  # woken by the resume
    await asyncio.sleep(0.01)
    c.resume(tp)
    assert [r.value for r in (await asyncio.wait_for(waiting, 1))[tp]] == [b"a"] and c.paused() == set()


async def test_an_outage_refuses_sends_and_a_restart_loses_everything() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    producer = broker.producer()
    await producer.start()
    await producer.send(T, key=b"k", value=b"v")
    broker.outage()
    assert not await broker.reachable()
    with pytest.raises(KafkaConnectionError):
        await producer.send(T, key=b"k", value=b"v")
    broker.restore()
    assert len(broker.records(T)) == 1
    broker.outage(lose=True)
    broker.restore()
    assert await broker.list_topics() == set()
    assert await broker.ensure_topics(SETTINGS, [T]) == [T]
    assert broker.records(T) == []


async def test_the_projects_consumer_loop_runs_on_it_and_commits() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(SETTINGS, [T])
    seen: list[bytes] = []

    async def handle(batch: dict) -> None:
        seen.extend(r.value for records in batch.values() for r in records)

    loop = ConsumerLoop(SETTINGS, broker=broker, name="t", topics=[T], group_id="loop", handle=handle, poll_ms=20)
    await loop.start()
    producer = broker.producer()
    await producer.start()
    for i in range(10):
        await producer.send(T, key=f"k{i}".encode(), value=str(i).encode())
    async with asyncio.timeout(3):
        while len(seen) < 10 or sum(broker.committed("loop").values()) < 10:
            await asyncio.sleep(0.01)
    await loop.stop()
    assert sorted(seen) == sorted(str(i).encode() for i in range(10))
