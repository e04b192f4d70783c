"""The direct publish's linger (``OutboxRelay(direct_linger_s=…)``, ``HAND_ROOM_PUBLISH_LINGER_MS``):
committed events handed over within the linger go out together, in order, once; a stop
sends what is held. Against Tansu, the relay's own producer counted."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from hand_infra.eventstore import EventStore
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics

from .test_broker_outbox import append_rounds, assert_published_once, envelope


class CountingBatches:
    """The relay's producer, counting the batches it is asked to send."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.batches = inner, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def send_batch(self, batch: Any, topic: str, *, partition: int) -> Any:
        self.batches += 1
        return await self.inner.send_batch(batch, topic, partition=partition)


async def _publish_passes(relay: OutboxRelay, store: EventStore, passes: int) -> tuple[int, CountingBatches]:
    """``passes`` hand-overs of one room's events 10 ms apart, as an owner's passes make them;
    returns the events handed over and the counting producer."""
    counting = CountingBatches(relay._producer)
    relay._producer = counting  # type: ignore[assignment]
    total = 0
    for _ in range(passes):
        before = {(e.room_id, e.seq) for e in await store.pending_outbox(limit=10_000)}
        total += await append_rounds(store, ["room-a"], rounds=1)
        fresh = [e for e in await store.pending_outbox(limit=10_000) if (e.room_id, e.seq) not in before]
        relay.publish_direct([(e.room_id, e.seq, [envelope(e)]) for e in fresh])
        await asyncio.sleep(0.01)
    return total, counting


async def _published(relay: OutboxRelay, total: int) -> None:
    deadline = time.monotonic() + 10
    while relay.published < total:
        assert time.monotonic() < deadline, relay.published
        await asyncio.sleep(0.01)


async def test_events_handed_over_within_the_linger_go_out_as_one_batch_in_order(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic = f"events.{unique}"
    await ensure_topics(broker, [topic], partitions=4)
    relay = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], direct_linger_s=0.5)
    await relay.start(run=False)
    try:
        total, counting = await _publish_passes(relay, store, passes=4)
        assert counting.batches == 0 and relay.published == 0  # still lingering
        await _published(relay, total)
        assert counting.batches == 1  # four passes of one room: one batch of its partition
    finally:
        await relay.stop()
    await assert_published_once(broker, topic, f"g-{unique}", total)  # once each, in order per room


async def test_without_a_linger_each_hand_over_is_sent_at_once(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    topic = f"events.{unique}"
    await ensure_topics(broker, [topic], partitions=4)
    relay = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)])
    await relay.start(run=False)
    try:
        total, counting = await _publish_passes(relay, store, passes=4)
        await _published(relay, total)
        assert counting.batches == 4
    finally:
        await relay.stop()


async def test_a_stop_sends_what_the_linger_holds_and_marks_it(
    broker: KafkaSettings, store: EventStore, unique: str
) -> None:
    """A graceful stop in the middle of a long linger: the held events are sent, acked and
    marked before the producer stops — not left to another instance's polling pass."""
    topic = f"events.{unique}"
    await ensure_topics(broker, [topic], partitions=4)
    relay = OutboxRelay(store, broker, topic=topic, routes=[(topic, envelope)], mark_interval=30.0,
                        orphan_after_s=6.0, direct_linger_s=30.0)
    await relay.start()
    total, _ = await _publish_passes(relay, store, passes=2)
    assert relay.published == 0
    await relay.stop()
    assert relay.published == total
    assert await store.pending_outbox() == []
    await assert_published_once(broker, topic, f"g-{unique}", total)
