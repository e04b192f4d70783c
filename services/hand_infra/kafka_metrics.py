"""Kafka and outbox metrics (docs/operations.md), observed by hand_infra and the consumers.

- consumers: ``LagProbe`` (lag per group, topic and partition; partitions held),
  ``count_rebalance`` (from a rebalance listener);
- the broker: ``BROKER_UP`` and ``BROKER_RECOVERIES`` (``BrokerWatch``);
- producing: ``produced(topic, started)`` as a send future's done callback
  (latency of acked sends, failures);
- the outbox relay: ``OUTBOX_BACKLOG``, ``OUTBOX_RELAY_LAG``, ``OUTBOX_PUBLISHED``.

Labels: a consumer group, a topic, a partition number — bounded by the
deployment's topics and partition counts.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from hand_common.metrics import FAST_BUCKETS, counter, enabled, gauge, histogram

__all__ = [
    "BROKER_RECOVERIES", "BROKER_UP", "CONSUMER_LAG", "OUTBOX_BACKLOG", "OUTBOX_PUBLISHED",
    "OUTBOX_RELAY_LAG", "PARTITIONS_ASSIGNED", "PRODUCE_FAILURES", "PRODUCE_SECONDS", "REBALANCES",
    "LagProbe", "count_rebalance", "produced",
]

CONSUMER_LAG = gauge("hand_kafka_consumer_lag_records",
                     "Records between a consumer's position and the partition's high watermark",
                     ["group", "topic", "partition"])
PARTITIONS_ASSIGNED = gauge("hand_kafka_consumer_partitions_assigned",
                            "Partitions this instance's consumer holds", ["group", "topic"])
REBALANCES = counter("hand_kafka_consumer_rebalances", "Partition assignments and revocations seen",
                     ["group", "kind"])
BROKER_UP = gauge("hand_kafka_broker_up", "1 while the broker answers this instance's probes, else 0")
BROKER_RECOVERIES = counter("hand_kafka_broker_recoveries",
                            "Times the broker came back (or lost its topics) and consumers were rebuilt")
PRODUCE_SECONDS = histogram("hand_kafka_produce_seconds", "From a send to the broker's ack (acks=all)",
                            ["topic"], buckets=FAST_BUCKETS)
PRODUCE_FAILURES = counter("hand_kafka_produce_failures", "Sends that failed or were not acked",
                           ["topic"])
OUTBOX_BACKLOG = gauge("hand_outbox_backlog_events",
                       "Events the relay found waiting in the outbox at its last pass (at most its batch)")
OUTBOX_RELAY_LAG = histogram("hand_outbox_relay_lag_seconds",
                             "From the relay's first read of an event to the broker's ack of it",
                             buckets=FAST_BUCKETS)
OUTBOX_PUBLISHED = counter("hand_outbox_published_events", "Outbox events acked by the broker")
_ON = enabled()


def _ignore(_future: asyncio.Future) -> None:
    pass


def produced(topic: str, started: float) -> Any:
    """A done callback for a send's future: its ack time, or a failure (one shared no-op
    while metrics are off: no closure per send)."""
    if not _ON:
        return _ignore

    def done(future: asyncio.Future) -> None:
        if future.cancelled() or future.exception() is not None:
            PRODUCE_FAILURES.labels(topic).inc()
        else:
            PRODUCE_SECONDS.labels(topic).observe(time.perf_counter() - started)
    return done


def count_rebalance(group: str, kind: str, partitions: Any = ()) -> None:
    """Call from a rebalance listener: ``kind`` is ``assigned`` or ``revoked``."""
    REBALANCES.labels(group, kind).inc()
    if kind == "revoked":
        for tp in partitions:  # TopicPartitions (anything else has no lag series to drop)
            try:
                CONSUMER_LAG.remove(group, tp.topic, str(tp.partition))
            except (KeyError, AttributeError):
                pass


class LagProbe:
    """Updates the lag and partition gauges of ``group`` from a consumer, at most every
    ``every_s`` s: call ``await probe(consumer)`` from the consumer's loop."""

    def __init__(self, group: str, every_s: float = 1.0) -> None:
        self.group, self.every_s = group, every_s
        self._at = 0.0
        self._seen: set[tuple[str, int]] = set()

    async def __call__(self, consumer: Any) -> None:
        now = time.monotonic()
        if consumer is None or now < self._at:
            return
        self._at = now + self.every_s
        held: dict[str, int] = {}
        seen: set[tuple[str, int]] = set()
        for tp in consumer.assignment():
            held[tp.topic] = held.get(tp.topic, 0) + 1
            high = consumer.highwater(tp)
            if high is None:  # nothing fetched yet
                continue
            position = await consumer.position(tp)
            CONSUMER_LAG.labels(self.group, tp.topic, str(tp.partition)).set(max(0, high - position))
            seen.add((tp.topic, tp.partition))
        for topic, partition in self._seen - seen:  # revoked since: no stale lag
            try:
                CONSUMER_LAG.remove(self.group, topic, str(partition))
            except KeyError:
                pass
        self._seen = seen
        topics = set(held) | {topic for topic, _ in self._seen} | set(getattr(consumer, "subscription",
                                                                                lambda: ())() or ())
        for topic in topics:
            PARTITIONS_ASSIGNED.labels(self.group, topic).set(held.get(topic, 0))
