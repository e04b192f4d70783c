"""The ledger consuming a real broker (Tansu) on SQLite and PostgreSQL: replicas in
one consumer group, duplicated deliveries, and a ledger killed in the middle of a
batch (an exception, or its task cancelled) then restarted in the same group."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from aiokafka import AIOKafkaProducer
from sqlalchemy.exc import OperationalError

from hand_infra.topics import ensure_topics
from hand_ledger.consumer import LedgerConsumer
from hand_wire import Delivered
from hand_ledger.store import LedgerStore
from tests.ledger_support import SCENARIOS, scenario_runs  # noqa: F401 - fixture

from .ledger_fixtures import Crash, archived, ingest_in_order
from .ledger_fixtures import assert_sheet_matches_engine, ledger_db, snapshot  # noqa: F401 - fixture


def value(e: Delivered) -> bytes:
    """The message value as the room service publishes it: ``hand.v1.RoomEvent`` bytes."""
    return e.payload


async def publish(broker, topic: str, runs, rng: random.Random) -> int:
    """Every scenario's events, rooms interleaved, some sent twice (at-least-once)."""
    queues = [list(run.events) for run in runs.values()]
    producer = AIOKafkaProducer(**broker.producer_kwargs())
    await producer.start()
    sent = 0
    try:
        await producer.send(topic, key=b"junk", value=b"\xff not a RoomEvent")  # skipped, committed past
        while any(queues):
            q = rng.choice([q for q in queues if q])
            e = q.pop(0)
            for _ in range(2 if rng.random() < 0.2 else 1):
                await producer.send(topic, key=e.room_id.encode(), value=value(e))
                sent += 1
        await producer.flush()
    finally:
        await producer.stop()
    return sent


async def wait_archived(store: LedgerStore, n: int, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await archived(store) >= n:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"only {await archived(store)} of {n} events archived in time")


@pytest.fixture
async def topic(broker, unique: str) -> str:
    name = f"t-{unique}-events"
    await ensure_topics(broker, [name], partitions=4)
    return name


async def test_replicas_in_one_group_record_every_event_once(broker, topic, unique, ledger_db,
                                                            scenario_runs) -> None:
    url = await ledger_db()
    await publish(broker, topic, scenario_runs, random.Random(1))
    total = sum(len(run.events) for run in scenario_runs.values())
    stores = [LedgerStore(url), LedgerStore(url)]
    for s in stores:
        await s.start()
    replicas = [LedgerConsumer(s, broker, group_id=f"g-{unique}", topic=topic) for s in stores]
    try:
        for r in replicas:
            await r.start()
        await wait_archived(stores[0], total)
        await asyncio.sleep(0.5)  # let redelivered duplicates arrive too
        assert await archived(stores[0]) == total
        assert sum(r.recorded for r in replicas) == total  # each event recorded by one replica, once
        for name, run in scenario_runs.items():
            await assert_sheet_matches_engine(stores[0], run, SCENARIOS[name][1])
        reference = await ingest_in_order(await ledger_db(), scenario_runs)
        assert await snapshot(stores[0], ratings=False) == await snapshot(reference, ratings=False)
        await reference.close()
    finally:
        for r in replicas:
            await r.stop()
        for s in stores:
            await s.close()


@pytest.mark.parametrize("kill", ["exception", "cancel"])
async def test_a_ledger_killed_mid_batch_resumes_exactly_after_a_restart(
        broker, topic, unique, ledger_db, scenario_runs, kill: str) -> None:
    url = await ledger_db()
    await publish(broker, topic, scenario_runs, random.Random(2))
    total = sum(len(run.events) for run in scenario_runs.values())
    seen = 0
    first: LedgerConsumer | None = None

    def after_event(_: Delivered) -> None:
        nonlocal seen
        seen += 1
        if seen == 150:  # in the middle of a batch's transaction
            if kill == "exception":
                raise Crash
            first.task.cancel()

    store = LedgerStore(url, after_event=after_event)
    await store.start()
    first = LedgerConsumer(store, broker, group_id=f"g-{unique}", topic=topic)
    await first.start()
    deadline = time.monotonic() + 60
    while not first.task.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert first.task.done(), "the ledger did not die"
    died_with = await archived(store)
    await first.stop()
    await store.close()
    assert died_with < total

    store = LedgerStore(url)
    await store.start()
    second = LedgerConsumer(store, broker, group_id=f"g-{unique}", topic=topic)
    try:
        await second.start()
        await wait_archived(store, total)
        await asyncio.sleep(0.5)
        assert await archived(store) == total
        for name, run in scenario_runs.items():
            await assert_sheet_matches_engine(store, run, SCENARIOS[name][1])
        reference = await ingest_in_order(await ledger_db(), scenario_runs)
        assert await snapshot(store, ratings=False) == await snapshot(reference, ratings=False)
        await reference.close()
    finally:
        await second.stop()
        await store.close()


async def test_a_failed_transaction_rewinds_to_the_committed_offsets_and_loses_nothing(
        broker, topic, unique, ledger_db, scenario_runs) -> None:
    """The database fails twice in the middle of batches; the consumer keeps running."""
    url = await ledger_db()
    await publish(broker, topic, scenario_runs, random.Random(3))
    total = sum(len(run.events) for run in scenario_runs.values())
    seen = 0

    def after_event(_: Delivered) -> None:
        nonlocal seen
        seen += 1
        if seen in (120, 400):
            raise OperationalError("INSERT …", {}, Exception("the database went away"))

    store = LedgerStore(url, after_event=after_event)
    await store.start()
    consumer = LedgerConsumer(store, broker, group_id=f"g-{unique}", topic=topic, retry_interval=0.05)
    try:
        await consumer.start()
        await wait_archived(store, total)
        await asyncio.sleep(0.5)
        assert await archived(store) == total and seen > total and not consumer.task.done()
        for name, run in scenario_runs.items():
            await assert_sheet_matches_engine(store, run, SCENARIOS[name][1])
    finally:
        await consumer.stop()
        await store.close()
