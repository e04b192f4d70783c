"""Embedded Tansu, explicit topics, and the outbox relay against a real broker."""

from __future__ import annotations

import asyncio
import json

import signal
import socket
import subprocess
import sys
import time
from datetime import datetime
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer

from hand_infra._proc import ProcessStartError, port_is_free, stop_process
from hand_infra.broker import TansuBroker, kafka_broker
from hand_infra.eventstore import EventStore
from hand_infra.dedupe import Deduper
from hand_infra.outbox import SCAN_PAGES, OutboxEntry, OutboxRelay, as_stored
from hand_infra.settings import KafkaSettings
from hand_infra.topics import PROJECT_TOPICS, ensure_topics, partition_of, topic_partitions


def envelope(entry: OutboxEntry) -> bytes:
    """A route rendering: the stored event with its coordinates (the room service's
    routes render hand.v1.RoomEvent instead; the relay is generic)."""
    return json.dumps({"room_id": entry.room_id, "seq": entry.seq, "kind": entry.kind,
                       "payload": json.loads(entry.payload)}, ensure_ascii=False).encode()


def decode_event(value: bytes) -> dict:
    return json.loads(value)


def b(payload: dict) -> bytes:
    """An event payload as the store keeps it: opaque bytes (here JSON, for readable tests)."""
    return json.dumps(payload, ensure_ascii=False).encode()


async def test_tansu_starts_on_loopback_and_frees_its_port_on_stop() -> None:
    async with TansuBroker() as broker:
        host, port = broker.bootstrap_servers.split(":")
        assert host == "127.0.0.1" and broker.running
        socket.create_connection((host, int(port)), timeout=1).close()
    assert not broker.running
    assert port_is_free(host, int(port))


def test_the_sync_context_manager_starts_and_stops_tansu_too() -> None:
    with TansuBroker() as broker:
        assert broker.running
    assert not broker.running


def test_a_taken_port_is_refused_before_tansu_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ProcessStartError, match="in use"):
            TansuBroker(port=taken.getsockname()[1]).start_sync()


def test_a_child_that_ignores_sigterm_is_killed_after_the_timeout() -> None:
    child = subprocess.Popen([sys.executable, "-c",
                              "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                              " print('ok', flush=True); time.sleep(60)"], stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"ok\n"  # the handler is in place
        took = stop_process(child, signal.SIGTERM, timeout=0.3, what="stubborn")
    finally:
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL and 0.3 <= took < 5


async def test_a_configured_broker_is_used_instead_of_starting_tansu(broker: KafkaSettings) -> None:
    async with kafka_broker(broker) as settings:
        assert settings == broker


async def test_topics_are_created_once_with_the_configured_partitions(
    broker: KafkaSettings, unique: str
) -> None:
    names = [f"{name}.{unique}" for name in PROJECT_TOPICS]
    assert sorted(await ensure_topics(broker, names)) == sorted(names)
    assert await ensure_topics(broker, names) == []
    assert {await topic_partitions(broker, n) for n in names} == {broker.partitions}
    assert await ensure_topics(broker, [f"odd.{unique}"], partitions=3) == [f"odd.{unique}"]
    assert await topic_partitions(broker, f"odd.{unique}") == 3
    assert await topic_partitions(broker, f"missing.{unique}") == 0


async def consume(settings: KafkaSettings, topic: str, group: str, deduper: Deduper[dict],
                  want_ready: int, want_raw: int, timeout: float = 20.0
                  ) -> tuple[list[dict], list[dict]]:
    """Read ``topic`` in ``group`` until enough events arrived; return (raw, deduped)."""
    consumer = AIOKafkaConsumer(topic, **settings.consumer_kwargs(group))
    await consumer.start()
    raw: list[dict[str, Any]] = []
    ready: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    try:
        while len(ready) < want_ready or len(raw) < want_raw:
            assert time.monotonic() < deadline, (len(raw), len(ready), deduper.waiting())
            batch = await consumer.getmany(timeout_ms=100)
            for messages in batch.values():
                for message in messages:
                    event = decode_event(message.value)
                    assert message.key == event["room_id"].encode()
                    raw.append(event)
                    ready += deduper.offer(event["room_id"], event["seq"], event)
        await consumer.commit()
    finally:
        await consumer.stop()
    return raw, ready


def by_room(events: list[dict]) -> dict[str, list[int]]:
    rooms: dict[str, list[int]] = {}
    for event in events:
        rooms.setdefault(event["room_id"], []).append(event["seq"])
    return rooms


async def assert_published_once(settings: KafkaSettings, topic: str, group: str, total: int) -> None:
    """``topic`` holds ``total`` events, none of them twice."""
    deduper: Deduper[dict] = Deduper()
    raw, _ = await consume(settings, topic, group, deduper, total, total)
    assert len(raw) == total and deduper.duplicates == 0


class CountingReads:
    """The store as a relay sees it, counting the outbox rows each of its reads returns."""

    def __init__(self, store: EventStore) -> None:
        self.store, self.reads = store, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def pending_outbox(self, limit: int, before: datetime | None = None, after: int = 0) -> list:
        rows = await self.store.pending_outbox(limit, before, after)
        self.reads.append(len(rows))
        return rows


async def append_rounds(store: EventStore, rooms: list[str], rounds: int) -> int:
    """Interleave appends of 1–3 events to each room, ``rounds`` times; return the count."""
    count = 0
    for r in range(rounds):
        for i, room in enumerate(rooms):
            size = 1 + (r + i) % 3
            seq = await store.next_seq(room)
            await store.append(room, seq, [("Played", b({"round": r, "k": k})) for k in range(size)])
            count += size
    return count


async def test_the_relay_delivers_every_event_once_and_in_order_per_room(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(6)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=5)
    async with OutboxRelay(store, broker, topic=topic, batch_size=16, routes=[(topic, envelope)]) as relay:
        total += await append_rounds(store, rooms, rounds=2)  # while the relay runs
        relay.notify()
        deduper: Deduper[dict] = Deduper()
        raw, ready = await consume(broker, topic, f"g-{unique}", deduper, total, total)
    assert relay.published == total == len(raw)
    assert deduper.duplicates == 0
    assert by_room(ready) == {room: [e.seq for e in await store.load(room)] for room in rooms}
    assert by_room(raw) == by_room(ready)  # already in order on the wire
    assert await store.pending_outbox() == []


async def test_a_restarted_relay_republishes_what_was_not_marked_and_loses_nothing(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(3)]
    await ensure_topics(broker, [topic], partitions=4)
    await append_rounds(store, rooms, rounds=6)  # 36 events
    total = len(await store.pending_outbox(limit=10_000))

    class CrashAfterFirstMark:
        """The store seen by a relay that dies after acks, before its second mark."""

        def __init__(self) -> None:
            self.marks = 0

        async def pending_outbox(self, limit: int, before: datetime | None = None, after: int = 0) -> list:
            return await store.pending_outbox(limit, before, after)

        async def mark_published(self, ids: list[int]) -> None:
            self.marks += 1
            if self.marks > 1:
                raise RuntimeError("crashed before marking")
            await store.mark_published(ids)

    first = OutboxRelay(CrashAfterFirstMark(), broker, topic=topic, batch_size=10, routes=[(topic, envelope)])  # type: ignore[arg-type]
    await first.start(run=False)
    try:
        assert await first.publish_pending() == 10
        with pytest.raises(RuntimeError, match="crashed"):
            await first.publish_pending()  # published 10 more, never marked
    finally:
        await first.stop()
    assert len(await store.pending_outbox(limit=10_000)) == total - 10

    await append_rounds(store, rooms, rounds=1)  # more arrives while no relay runs
    total += 6
    async with OutboxRelay(store, broker, topic=topic, batch_size=10, routes=[(topic, envelope)]) as second:
        deduper: Deduper[dict] = Deduper()
        raw, ready = await consume(broker, topic, f"g-{unique}", deduper, total, total + 10)
    assert second.published == total - 10
    assert deduper.duplicates == 10 and len(raw) == total + 10
    stored = {room: [e.seq for e in await store.load(room)] for room in rooms}
    assert by_room(ready) == stored
    assert len({(e["room_id"], e["seq"]) for e in ready}) == len(ready) == total
    assert await store.pending_outbox() == []


async def test_with_a_mark_interval_acked_rows_are_marked_later_in_one_write_and_never_sent_twice(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(2)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=2)
    relay = OutboxRelay(store, broker, topic=topic, batch_size=64, routes=[(topic, envelope)], mark_interval=30.0)
    await relay.start(run=False)
    try:
        assert await relay.publish_pending() == total
        assert len(await store.pending_outbox()) == total  # acked, not marked yet
        assert await relay.publish_pending() == 0  # and not sent again
        first = total
        total += await append_rounds(store, rooms, rounds=1)
        assert await relay.publish_pending() == total - first  # only the new rows go out
    finally:
        await relay.stop()  # the stop marks what was acked
    assert await store.pending_outbox() == []
    await assert_published_once(broker, topic, f"g-{unique}", total)


async def test_rows_published_directly_and_acked_are_not_read_back_by_the_polling_pass(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(3)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=4)  # 24 rows, as a pass appends them
    entries = await store.pending_outbox(limit=10_000)
    counting = CountingReads(store)
    read = counting.reads
    relay = OutboxRelay(counting, broker, topic=topic, routes=[(topic, envelope)])  # type: ignore[arg-type]
    await relay.start(run=False)
    try:
        relay.publish_direct([(e.room_id, e.seq, [envelope(e)]) for e in entries])
        deadline = time.monotonic() + 10
        while relay.published < total:  # every direct send acked
            assert time.monotonic() < deadline, relay.published
            await asyncio.sleep(0.01)
        assert await relay.publish_pending() == 0  # nothing left to send
        assert read == [0]  # the acked rows were marked first, not read back to be skipped
        assert await store.pending_outbox() == []
    finally:
        await relay.stop()
    await assert_published_once(broker, topic, f"g-{unique}", total)


async def test_a_direct_publish_sends_one_batch_a_partition_each_record_where_its_key_goes(
    broker: KafkaSettings, unique: str
) -> None:
    topic, public = f"events.{unique}", f"public.{unique}"
    await ensure_topics(broker, [topic, public], partitions=4)
    rooms = [f"room-{unique}-{i}" for i in range(6)]
    big = bytes(6000)  # three of a room's records overflow aiokafka's 16 KB batch: split, in order
    items = [(room, seq, [b(dict(room=room, seq=seq)) + (big if i == 0 else b""), b(dict(seq=seq))])
             for i, room in enumerate(rooms) for seq in range(1, 5)]
    calls: list[tuple[str, str]] = []

    class Counting:
        """The relay's producer, counting what it is asked to send."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        async def send(self, topic: str, **kwargs: Any) -> Any:
            calls.append(("send", topic))
            return await self.inner.send(topic, **kwargs)

        async def send_batch(self, batch: Any, topic: str, *, partition: int) -> Any:
            calls.append(("batch", topic))
            return await self.inner.send_batch(batch, topic, partition=partition)

    class Unstored:
        """No outbox behind this relay: it only publishes directly (and marks nothing)."""

        async def mark_published_at(self, keys: Any) -> None:
            return None

    relay = OutboxRelay(Unstored(), broker, topic=topic,  # type: ignore[arg-type]
                        routes=[(topic, as_stored), (public, as_stored)])
    await relay.start(run=False)
    relay._producer = Counting(relay._producer)  # type: ignore[assignment]
    try:
        relay.publish_direct(items)
        deadline = time.monotonic() + 10
        while relay.published < len(items):
            assert time.monotonic() < deadline, relay.published
            await asyncio.sleep(0.01)
    finally:
        relay._producer = relay._producer.inner  # type: ignore[attr-defined]
        await relay.stop()
    partitions = {name: {partition_of(room, 4) for room in rooms} for name in (topic, public)}
    # one batch per partition of each topic, and one more for each overflow of the big room's
    assert [c for c in calls if c[0] == "send"] == []
    assert len(calls) == len(partitions[topic]) + len(partitions[public]) + 1
    for name, index in ((topic, 0), (public, 1)):
        consumer = AIOKafkaConsumer(name, **broker.consumer_kwargs(f"g-{unique}-{name}"))
        await consumer.start()
        seen: dict[str, list[bytes]] = {}
        try:
            deadline = time.monotonic() + 10
            while sum(map(len, seen.values())) < len(items):
                assert time.monotonic() < deadline
                for messages in (await consumer.getmany(timeout_ms=100)).values():
                    for m in messages:
                        room = m.key.decode()
                        assert m.partition == partition_of(room, 4)  # where Kafka's default partitioner puts it
                        seen.setdefault(room, []).append(m.value)
        finally:
            await consumer.stop()
        assert seen == {room: [values[index] for r, _, values in items if r == room] for room in rooms}


async def test_instances_sharing_a_store_leave_each_others_young_rows_and_take_a_dead_writers(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    """Two room instances' relays on one store. Each publishes its own rows directly; a row
    sent and acked by one and not yet marked is left alone by the other's polling pass (before:
    it was published again, twice over for every instance), and a row nobody sent — its writer
    died — is taken once it is ``orphan_after_s`` old."""
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(3)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=2)
    mine = await store.pending_outbox(limit=10_000)
    a = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], mark_interval=30.0, orphan_after_s=1.5)
    b_ = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], mark_interval=30.0, orphan_after_s=1.5)
    await a.start(run=False)
    await b_.start(run=False)
    try:
        a.publish_direct([(e.room_id, e.seq, [envelope(e)]) for e in mine])
        deadline = time.monotonic() + 10
        while a.published < total:  # acked, not marked (the mark waits 30 s)
            assert time.monotonic() < deadline, a.published
            await asyncio.sleep(0.01)
        assert len(await store.pending_outbox()) == total
        assert await b_.publish_pending() == 0  # the other instance's pass leaves them
        dead = await append_rounds(store, rooms, rounds=1)  # a writer that died before sending
        assert await b_.publish_pending() == 0  # too young to be an orphan yet
        await asyncio.sleep(1.6)
        await a._mark(force=True)  # the writer's mark comes; the dead writer's never will
        assert await b_.publish_pending() == dead  # old enough: taken
        await b_._mark(force=True)
        assert await store.pending_outbox() == []
    finally:
        await a.stop()
        await b_.stop()
    await assert_published_once(broker, topic, f"g-{unique}", total + dead)  # nothing twice


async def test_after_its_own_send_was_skipped_a_relay_takes_young_rows_at_once(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(2)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=1)
    entries = await store.pending_outbox(limit=10_000)
    relay = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], orphan_after_s=30.0)
    await relay.start(run=False)
    try:
        assert await relay.publish_pending() == 0  # young, and nothing says they are its own
        producer, relay._producer = relay._producer, None  # a send skipped (no producer)
        relay.publish_direct([(e.room_id, e.seq, [envelope(e)]) for e in entries])
        relay._producer = producer
        assert await relay.publish_pending() == total  # its own unsent rows: taken now
        assert await store.pending_outbox() == []
    finally:
        await relay.stop()
    await assert_published_once(broker, topic, f"g-{unique}", total)


async def test_a_stop_waits_for_the_direct_sends_under_way_and_marks_what_they_got_acked(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    """A graceful stop right after a commit: its direct send is finished and marked, not left
    pending for another instance's pass to publish a second time."""
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(3)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=2)
    entries = await store.pending_outbox(limit=10_000)
    relay = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], mark_interval=30.0, orphan_after_s=6.0)
    await relay.start()
    relay.publish_direct([(e.room_id, e.seq, [envelope(e)]) for e in entries])
    await relay.stop()  # at once: the send is still under way
    assert relay.published == total
    assert await store.pending_outbox() == []


async def test_relays_sharing_a_store_publish_a_backlog_once_each_the_rooms_it_is_given(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    """A backlog older than ``orphan_after_s`` (a broker outage, a dead instance's rows) and two
    relays on the store, each given the rooms its instance owns (``mine``): every row goes out
    once, by the relay of its room's owner (before: by both)."""
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(6)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=3)
    await asyncio.sleep(0.3)
    owner = {room: i % 2 for i, room in enumerate(rooms)}
    relays = [OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], orphan_after_s=0.2,
                          mine=lambda room, me=me: owner[room] == me) for me in (0, 1)]
    for relay in relays:
        await relay.start(run=False)
    try:
        first = await relays[0].publish_pending()
        second = await relays[1].publish_pending()
    finally:
        for relay in relays:
            await relay.stop()
    by_owner = [0, 0]
    for room in rooms:
        by_owner[owner[room]] += len(await store.load(room))
    assert (first, second) == tuple(by_owner) and first + second == total
    assert await store.pending_outbox() == []
    await assert_published_once(broker, topic, f"g-{unique}", total)


async def test_a_relay_finds_its_rooms_rows_behind_another_live_writers_backlog(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    """Another instance owns rooms whose old rows are still pending (it is alive, its broker
    unreachable); this relay's own orphaned rows were appended after them. A pass reads on
    past the rows it leaves and publishes its own, in order (before: it read only the oldest
    page, all the other's, and published nothing while that backlog lasted)."""
    topic = f"events.{unique}"
    theirs, ours = [f"room-{unique}-theirs-{i}" for i in range(3)], [f"room-{unique}-ours-{i}" for i in range(2)]
    await ensure_topics(broker, [topic], partitions=4)
    behind = await append_rounds(store, theirs, rounds=12)  # 72 rows, older than ours
    own = await append_rounds(store, ours, rounds=2)  # 8 rows: one batch
    await asyncio.sleep(0.3)
    relay = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], batch_size=10,
                        orphan_after_s=0.2, mine=lambda room: room in ours)
    await relay.start(run=False)
    try:
        first = await relay.publish_pending()
    finally:
        await relay.stop()
    assert own <= 10 < behind and first == own
    left = await store.pending_outbox(limit=10_000)
    assert {e.room_id for e in left} == set(theirs) and len(left) == behind
    deduper: Deduper[dict] = Deduper()
    raw, _ = await consume(broker, topic, f"g-{unique}", deduper, own, own)
    assert by_room(raw) == {room: list(range(len(await store.load(room)))) for room in ours}


async def test_a_pass_reads_at_most_its_scan_pages_past_rows_it_leaves(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    """Reading on past another owner's rows is bounded: ``SCAN_PAGES`` pages a pass."""
    topic, rooms = f"events.{unique}", [f"room-{unique}-{i}" for i in range(3)]
    await ensure_topics(broker, [topic], partitions=4)
    total = await append_rounds(store, rooms, rounds=12)
    await asyncio.sleep(0.3)
    counting = CountingReads(store)
    pages = counting.reads
    relay = OutboxRelay(counting, broker, topic=topic, routes=[(topic, envelope)], batch_size=2,  # type: ignore[arg-type]
                        orphan_after_s=0.2, mine=lambda room: False)
    await relay.start(run=False)
    try:
        assert await relay.publish_pending() == 0
    finally:
        await relay.stop()
    assert total > 2 * SCAN_PAGES and len(pages) == SCAN_PAGES and set(pages) == {2}
